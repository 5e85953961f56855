"""The repository as a whole: lint-clean, the site builds, the README's commands are CI's."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import REPOSITORY, imported_by_check
from .conftest import RepositorySite

#: Every test here starts processes, lints or builds: the slow tier.
pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent


def test_ruff_is_clean() -> None:
    lint = subprocess.run(
        [BIN / "ruff", "check", "--no-cache", "."],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=False,
    )
    assert lint.returncode == 0, lint.stdout
    formatted = subprocess.run(
        [BIN / "ruff", "format", "--check", "--no-cache", "tools"],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=False,
    )
    assert formatted.returncode == 0, formatted.stdout


def test_mypy_strict_is_clean(tmp_path: Path) -> None:
    """The package ships py.typed, so its types are a promise to other code; the tests are
    held to the same, so that a changed signature fails here rather than at a user's."""
    typed = subprocess.run(
        [BIN / "mypy", "--cache-dir", str(tmp_path / "cache")],  # the files pyproject names
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=False,
    )
    assert typed.returncode == 0, typed.stdout


def test_mkdocs_site_builds(repository_site: RepositorySite) -> None:
    build, out = repository_site
    assert build.returncode == 0, build.stderr
    assert "Contributing an entry" in (out / "contributing" / "index.html").read_text("utf-8")


def test_ci_runs_exactly_the_readme_test_command() -> None:
    readme = (REPOSITORY / "README.md").read_text(encoding="utf-8")
    ci = (REPOSITORY / ".ci" / "run").read_text(encoding="utf-8")
    command = next(line for line in ci.splitlines() if line.startswith("python3 -m venv"))
    assert f"\n{command}\n" in readme
    assert "pytest" in command
    assert shutil.which("python3") is not None


def test_kb_check_imports_nothing_heavy() -> None:
    """sympy, the reference jsonschema validator and ruamel.yaml cost more to import than a
    check of a small knowledge base; the check path must not load them (kb eval and kb fmt
    may)."""
    _, heavy = imported_by_check(REPOSITORY, ["sympy", "jsonschema", "matplotlib", "ruamel"])
    assert heavy == []
