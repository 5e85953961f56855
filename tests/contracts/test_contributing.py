"""CONTRIBUTING.md cannot rot: its "Add an entry" section is followed literally in a copy of
the knowledge base, and what it says of formulas, fields and namespaces is held to the code and
the schema. The site's contributing page includes it rather than copying it."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from bottleneck_kb import schemas
from bottleneck_kb.maths.formula import FUNCTIONS

from ..conftest import REPOSITORY, copy_repository
from .conftest import RepositorySite

BIN = Path(sys.executable).parent
GUIDE = (REPOSITORY / "CONTRIBUTING.md").read_text(encoding="utf-8")
STEPS = "## Add an entry in five steps"


def section(heading: str) -> str:
    start = GUIDE.index(f"\n{heading}\n")
    end = GUIDE.find("\n## ", start + 1)
    return GUIDE[start : end if end != -1 else None]


def blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of each fenced block, in order."""
    return re.findall(r"^```(\w+)\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)


def commands(body: str) -> list[list[str]]:
    return [shlex.split(line, comments=True) for line in body.splitlines() if line.strip()]


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    program, *args = argv
    assert program == "kb", f"the test runs only kb commands, not {program}"
    return subprocess.run(
        [str(BIN / "kb"), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"PATH": str(BIN), "GITHUB_ACTIONS": ""},
    )


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    return copy_repository(tmp_path / "repository", ("entries", "hardware", "schema"))


def scaffolded_id() -> str:
    steps = blocks(section(STEPS))
    (new,) = [
        argv
        for language, body in steps
        if language == "sh"
        for argv in commands(body)
        if argv[:2] == ["kb", "new"]
    ]
    return new[2]


def example() -> str:
    (body,) = [body for language, body in blocks(section(STEPS)) if language == "yaml"]
    return body


@pytest.mark.slow
def test_the_guide_adds_an_entry_when_followed_literally(copy: Path) -> None:
    path = copy / "entries" / f"{scaffolded_id()}.yaml"
    for language, body in blocks(section(STEPS)):
        if language == "yaml":  # step 2: the contributor fills the scaffold in
            unfilled = run(["kb", "check", str(path.relative_to(copy))], copy)
            assert unfilled.returncode == 1, "the scaffold's placeholders must be reported"
            path.write_text(body, encoding="utf-8")
            continue
        assert language == "sh"
        for argv in commands(body):
            done = run(argv, copy)
            assert done.returncode == 0, (argv, done.stdout, done.stderr)
            if argv[:2] == ["kb", "new"]:
                assert path.is_file()
    assert yaml.safe_load(path.read_text(encoding="utf-8")) == yaml.safe_load(example())
    assert run(["kb", "check"], copy).returncode == 0


@pytest.mark.slow
def test_the_finished_example_checks_clean(copy: Path) -> None:
    """Steps 2 and 3 without the scaffold: the guide's filled-in entry passes kb check and
    kb eval as the guide runs them."""
    path = copy / "entries" / f"{scaffolded_id()}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(example(), encoding="utf-8")
    (check_block,) = [b for lang, b in blocks(section(STEPS)) if lang == "sh" and "kb check" in b]
    for argv in commands(check_block):
        done = run(argv, copy)
        assert done.returncode == 0, (argv, done.stdout, done.stderr)
    full = run(["kb", "check", "--strict"], copy)  # as CI runs it: not a warning either
    assert (full.returncode, full.stderr) == (0, ""), full.stdout


def test_the_example_is_in_a_documented_namespace() -> None:
    rows = re.findall(r"^\| `([a-z]+)/` \|[^|]*\|(.*)\|$", section("## Namespaces"), re.M)
    namespaces = [name for name, _ in rows]
    assert scaffolded_id().split("/")[0] in namespaces
    assert set(namespaces) == set(schemas.open_namespaces())
    assert "`fixtures/` is reserved" in section("## Namespaces")
    classes = [c for _, cell in rows for c in re.findall(r"`([a-z_]+)`", cell)]
    assert sorted(classes) == sorted(schemas.schema(schemas.ENTRY)["properties"]["class"]["enum"])


def test_the_formula_functions_are_the_parsers() -> None:
    (line,) = [ln for ln in section("## Formulas").splitlines() if ln.startswith("- Functions:")]
    assert re.findall(r"`(\w+)\(", line) == sorted(FUNCTIONS)


def test_the_field_table_is_the_schemas() -> None:
    entry = schemas.schema(schemas.ENTRY)
    rows = re.findall(r"^\| `(\w+)` \| (yes|no) \|", section("## What each field means"), re.M)
    assert sorted(name for name, _ in rows) == sorted(entry["properties"])
    assert {name for name, required in rows if required == "yes"} == set(entry["required"])


@pytest.mark.slow
def test_the_site_includes_the_guide(repository_site: RepositorySite) -> None:
    include = (REPOSITORY / "site" / "contributing.md").read_text(encoding="utf-8")
    assert include.strip() == '--8<-- "CONTRIBUTING.md"'
    built, folder = repository_site
    assert built.returncode == 0, built.stderr
    page = (folder / "contributing" / "index.html").read_text(encoding="utf-8")
    assert "Add an entry in five steps" in page
    assert "kb new gemm/decode-weight-stream" in page


def test_licences_and_citation() -> None:
    version = tomllib.loads((REPOSITORY / "pyproject.toml").read_text("utf-8"))["project"][
        "version"
    ]
    citation = yaml.safe_load((REPOSITORY / "CITATION.cff").read_text(encoding="utf-8"))
    assert citation["cff-version"] == "1.2.0"
    assert citation["version"] == version
    assert citation["license"] == "CC-BY-4.0"
    assert {"message", "title", "authors"} <= set(citation)
    assert "Creative Commons Attribution 4.0" in (REPOSITORY / "LICENSE-DATA").read_text("utf-8")
    assert "Apache License" in (REPOSITORY / "LICENSE").read_text("utf-8")
    readme = (REPOSITORY / "README.md").read_text(encoding="utf-8")
    assert "CC-BY-4.0" in readme and "Apache License 2.0" in readme
    assert f"## {version}" in (REPOSITORY / "CHANGELOG.md").read_text(encoding="utf-8")


def test_the_pull_request_template_has_a_checklist() -> None:
    template = (REPOSITORY / ".github" / "pull_request_template.md").read_text("utf-8")
    items = re.findall(r"^- \[ \] (.*)", template, flags=re.MULTILINE)
    assert len(items) >= 5
    assert any("`kb check`" in i for i in items) and any("`kb fmt --check`" in i for i in items)


def test_the_growing_guide_names_files_that_exist() -> None:
    """The maintainers' section points at real files (paths from the repository, or from the
    package for `rules/...` and `maths/formula.py`)."""
    text = section("## Growing kb")
    package = REPOSITORY / "tools" / "bottleneck_kb"
    named = re.findall(r"`([\w/.-]+\.(?:py|json))`", text)
    assert len(named) >= 8
    for name in named:
        where = REPOSITORY / name if name.split("/")[0] in {"tools", "tests", "schema"} else None
        assert (where or package / name).is_file(), name
    folders = re.findall(r"`((?:tests|tools|schema)/[\w/]+/)`", text)
    assert folders and all((REPOSITORY / folder).is_dir() for folder in folders), folders
