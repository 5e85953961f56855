"""The package as others get it: a wheel built from a clean copy of the repository, installed
without -e into a fresh environment, used in a knowledge base outside the repository; and the
pre-commit hook run from another repository.

These install real packages (from the configured package index), so they take about a minute;
they are marked `install` and run in the normal suite.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml

from bottleneck_kb.rules.examples import MINIMAL_ENTRY, patched

from ..conftest import REPOSITORY, copy_repository, counted, summary_of

BIN = Path(sys.executable).parent
VERSION = tomllib.loads((REPOSITORY / "pyproject.toml").read_text("utf-8"))["project"]["version"]

pytestmark = pytest.mark.install


def run(argv: list[str | Path], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "GITHUB_ACTIONS": "", **env},
    )


def clean_copy(target: Path) -> Path:
    """The repository's tracked files as they are in the working tree, and nothing else: no
    build/ left by an earlier setuptools run, no .venv, no caches."""
    listed = run(["git", "ls-files", "-z"], REPOSITORY)
    assert listed.returncode == 0, listed.stderr
    for name in filter(None, listed.stdout.split("\0")):
        source = REPOSITORY / name
        if source.is_file():  # a tracked file deleted in the working tree is left out
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return clean_copy(tmp_path_factory.mktemp("source"))


@pytest.fixture(scope="module")
def wheel(source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    built = run([BIN / "pip", "wheel", "-q", "--no-deps", "-w", out, source], source)
    assert built.returncode == 0, built.stderr
    (found,) = out.glob("*.whl")
    return found


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin/ folder of a fresh venv holding the wheel and its dependencies."""
    venv = tmp_path_factory.mktemp("venv")
    created = run([sys.executable, "-m", "venv", "--without-pip", venv], venv)
    assert created.returncode == 0, created.stderr
    python = venv / "bin" / "python"
    done = run([BIN / "pip", "--python", python, "install", "-q", wheel], venv)
    assert done.returncode == 0, done.stderr
    return venv / "bin"


@pytest.fixture
def knowledge_base(tmp_path: Path) -> Path:
    """A copy of entries/, hardware/ and models/ in an empty folder outside the repository."""
    return copy_repository(tmp_path / "kb")


def test_the_wheel_carries_the_schemas_and_no_stale_modules(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for schema in (REPOSITORY / "tools" / "bottleneck_kb" / "schemas").glob("*.json"):
        assert f"bottleneck_kb/schemas/{schema.name}" in names
    for kind in (REPOSITORY / "tools" / "bottleneck_kb" / "composition" / "kinds").glob("*.yaml"):
        assert f"bottleneck_kb/composition/kinds/{kind.name}" in names
    modules = {n for n in names if n.startswith("bottleneck_kb/") and n.endswith(".py")}
    tracked = {
        p.relative_to(REPOSITORY / "tools").as_posix()
        for p in (REPOSITORY / "tools" / "bottleneck_kb").rglob("*.py")
    }
    assert modules == tracked
    assert wheel.name == f"bottleneck_kb-{VERSION}-py3-none-any.whl"


def test_the_installed_kb_runs_outside_the_repository(
    installed: Path, knowledge_base: Path
) -> None:
    where = run(
        [installed / "python", "-c", "import bottleneck_kb; print(bottleneck_kb.__file__)"],
        knowledge_base,
    )
    assert Path(where.stdout.strip()).is_relative_to(installed.parent), where.stdout
    assert not (knowledge_base / "schema").exists()

    checked = run([installed / "kb", "check"], knowledge_base)
    assert (checked.returncode, summary_of(checked.stdout)) == (
        0,
        f"All clear: checked {counted(knowledge_base)}.\n",
    ), checked.stderr
    # The architecture kinds are package data of the wheel: a model estimates outside the
    # repository.
    estimated = run(
        [installed / "kb", "estimate", "llama-3.1-8b", "--on", "nvidia-h100-sxm"], knowledge_base
    )
    assert estimated.returncode == 0, estimated.stderr
    assert estimated.stdout.startswith("llama-3.1-8b at batch 1")

    evaluated = run([installed / "kb", "eval", "flops/speculative-draft"], knowledge_base)
    assert evaluated.returncode == 0, evaluated.stderr
    assert evaluated.stdout.startswith("flops/speculative-draft: ")

    listed = run([installed / "kb", "rules"], knowledge_base)
    assert listed.returncode == 0, listed.stderr
    assert "KB201  id-matches-path" in listed.stdout

    version = run([installed / "kb", "--version"], knowledge_base)
    assert version.stdout == f"kb, version {VERSION}\n"


def test_the_installed_kb_starts_a_bare_knowledge_base_and_upgrades_an_old_one(
    installed: Path, tmp_path: Path
) -> None:
    """A release's promises, from the wheel: a new knowledge base starts and checks; files
    written to the last release's schemas (version 1) are told what to run, and upgrade."""
    bare = tmp_path / "bare"
    bare.mkdir()
    started = run([installed / "kb", "new", "--hardware", "our-device", "--root", bare], bare)
    assert started.returncode == 0, started.stderr
    checked = run([installed / "kb", "check"], bare)
    # The skeleton's placeholders, each said: a bare knowledge base checks, and fails on them.
    assert checked.returncode == 1
    assert {line.split()[1] for line in checked.stdout.splitlines() if ": KB" in line} == {"KB017"}

    old = tmp_path / "old"
    shutil.copytree(REPOSITORY / "tests" / "fixtures" / "version-1", old)
    before = run([installed / "kb", "check"], old)
    assert before.returncode == 1
    assert [line.split()[1] for line in before.stdout.splitlines() if ": KB" in line] == [
        "KB106"
    ] * 4
    upgraded = run([installed / "kb", "fmt", "--upgrade"], old)
    assert upgraded.returncode == 0, upgraded.stderr
    after = run([installed / "kb", "check"], old)
    codes = {line.split()[1] for line in after.stdout.splitlines() if ": KB" in line}
    # What is left is what only a person knows (and entries naming devices that still hold it).
    assert codes == {"KB015", "KB017", "KB204"}, after.stdout


def test_the_installed_kb_checks_against_a_catalog_it_does_not_copy(
    installed: Path, knowledge_base: Path
) -> None:
    shutil.rmtree(knowledge_base / "hardware")
    checked = run([installed / "kb", "check", "--catalog", REPOSITORY / "hardware"], knowledge_base)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def hooks() -> dict[str, dict[str, object]]:
    listed = yaml.safe_load((REPOSITORY / ".pre-commit-hooks.yaml").read_text("utf-8"))
    return {hook["id"]: hook for hook in listed}


def test_the_hooks_install_the_package_they_run() -> None:
    for hook in hooks().values():
        assert hook["language"] == "python"  # pre-commit pip-installs this repository
        assert str(hook["entry"]).split()[0] == "kb"


def run_hook(
    hook: dict[str, object], bin_folder: Path, root: Path
) -> subprocess.CompletedProcess[str]:
    """What pre-commit does with a hook of another repository, once its environment is built:
    the hook's entry, from that environment, on the tracked files its pattern matches."""
    listed = run(["git", "ls-files", "-z"], root)
    assert listed.returncode == 0, listed.stderr
    pattern = re.compile(str(hook["files"]))
    files = [n for n in listed.stdout.split("\0") if n and pattern.search(n)]
    assert files
    program, *args = str(hook["entry"]).split()
    return run([bin_folder / program, *args, *files], root)


def test_the_check_hook_runs_from_another_repository(installed: Path, knowledge_base: Path) -> None:
    """The equivalent of `pre-commit try-repo <this repository> kb-check --all-files` in a git
    repository holding a small knowledge base: a wheel of a clean copy installed into a fresh
    venv, as pre-commit's `language: python` installs it, then the hook's entry on the files it
    matches. (pre-commit's own run took 70 to 115 s here, most of it building its environment;
    test_the_hook_files_are_valid has pre-commit validate the hook files.)"""
    hook = hooks()["kb-check"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"]):
        assert run(["git", *args], knowledge_base).returncode == 0
    passed = run_hook(hook, installed, knowledge_base)
    assert passed.returncode == 0, passed.stdout + passed.stderr

    entry = knowledge_base / "entries" / "flops" / "speculative-draft.yaml"
    text = entry.read_text(encoding="utf-8")
    entry.write_text(text.replace("bound_by: memory", "bound_by: memroy"), encoding="utf-8")
    failed = run_hook(hook, installed, knowledge_base)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    line = 1 + text[: text.index("bound_by: memory")].count("\n")
    assert (
        f"entries/flops/speculative-draft.yaml:{line}:11: KB103 'memroy' is not an allowed bound_by"
        in failed.stdout
    )


def test_the_hook_files_are_valid() -> None:
    """pre-commit's own validation of this repository's config and of the hooks it offers."""
    for command, name in (
        ("validate-config", ".pre-commit-config.yaml"),
        ("validate-manifest", ".pre-commit-hooks.yaml"),
    ):
        done = run([BIN / "pre-commit", command, REPOSITORY / name], REPOSITORY)
        assert done.returncode == 0, done.stdout + done.stderr


def test_this_repositorys_own_hook_runs_the_working_trees_kb(
    knowledge_base: Path, tmp_path: Path
) -> None:
    """.pre-commit-config.yaml, run by pre-commit in a repository laid out as the README's
    set-up leaves it (a .venv holding kb)."""
    shutil.copy2(REPOSITORY / ".pre-commit-config.yaml", knowledge_base)
    (knowledge_base / ".venv").symlink_to(BIN.parent)
    git(knowledge_base, "init", "-q", "-b", "main")
    git(knowledge_base, "add", "entries", "hardware", ".pre-commit-config.yaml")
    home = str(tmp_path / "pre-commit-home")
    argv: list[str | Path] = [BIN / "pre-commit", "run", "kb-check", "--all-files"]

    passed = run(argv, knowledge_base, PRE_COMMIT_HOME=home)
    assert passed.returncode == 0, passed.stdout + passed.stderr

    entry = knowledge_base / "entries" / "flops" / "speculative-draft.yaml"
    text = entry.read_text(encoding="utf-8")
    entry.write_text(text.replace("bound_by: memory", "bound_by: memroy"), encoding="utf-8")
    failed = run(argv, knowledge_base, PRE_COMMIT_HOME=home)
    assert failed.returncode == 1
    assert "KB103 'memroy' is not an allowed bound_by" in failed.stdout


def test_this_repositorys_own_hooks_see_what_a_commit_deletes_or_misnames(
    knowledge_base: Path, tmp_path: Path
) -> None:
    """pre-commit hands a hook only the files a commit keeps: deleting an entry that another
    relates to, or adding one as x.yml, passed both hooks and failed CI's full run."""
    shutil.copy2(REPOSITORY / ".pre-commit-config.yaml", knowledge_base)
    (knowledge_base / ".venv").symlink_to(BIN.parent)
    folder = knowledge_base / "entries" / "fixtures"
    folder.mkdir()
    (folder / "minimal.yaml").write_text(MINIMAL_ENTRY, encoding="utf-8")
    relating = patched(
        MINIMAL_ENTRY,
        "id: fixtures/relating\nrelated: [{id: fixtures/minimal, relation: compares_to}]",
    )
    (folder / "relating.yaml").write_text(relating, encoding="utf-8")
    git(knowledge_base, "init", "-q", "-b", "main")
    git(knowledge_base, "add", "entries", "hardware", ".pre-commit-config.yaml")
    git(knowledge_base, "commit", "-q", "--no-verify", "-m", "start")
    home = str(tmp_path / "pre-commit-home")
    argv: list[str | Path] = [BIN / "pre-commit", "run"]

    git(knowledge_base, "rm", "-q", "entries/fixtures/minimal.yaml")
    deleted = run(argv, knowledge_base, PRE_COMMIT_HOME=home)
    assert deleted.returncode == 1, deleted.stdout
    assert "entries/fixtures/relating.yaml:" in deleted.stdout
    assert "KB212 no entry 'fixtures/minimal' in entries/" in deleted.stdout

    git(knowledge_base, "reset", "-q", "--hard")
    (folder / "other.yml").write_text(MINIMAL_ENTRY.replace("minimal", "other"), "utf-8")
    git(knowledge_base, "add", "entries")
    misnamed = run(argv, knowledge_base, PRE_COMMIT_HOME=home)
    assert misnamed.returncode == 1, misnamed.stdout
    said = "entries/fixtures/other.yml:1:1: KB019 is not read: kb reads files ending in .yaml"
    assert misnamed.stdout.count(said) == 2, misnamed.stdout  # by kb check and by kb fmt


def git(cwd: Path, *args: str) -> None:
    done = run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd)
    assert done.returncode == 0, done.stderr
