"""The GitHub Actions workflows run commands that exist: every `kb` and `mkdocs` command parses
with the real Click apps, every `python` script or module is there, every action is pinned
by a version tag, and CI runs the README's test command."""

from __future__ import annotations

import importlib.util
import re
import shlex
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from mkdocs.__main__ import cli as mkdocs_cli

from bottleneck_kb.cli import main as kb_cli

from ..conftest import REPOSITORY

WORKFLOWS = sorted((REPOSITORY / ".github" / "workflows").glob("*.yml"))
#: What a workflow may run besides kb, mkdocs, python and pip: shell builtins.
BUILTINS = {"test"}
SEPARATORS = {"&&", "||", "|", ";", "\n"}
REDIRECTIONS = {">", ">>", "<", "2>"}


def load(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return loaded


def steps(path: Path) -> Iterator[dict[str, Any]]:
    for job in load(path)["jobs"].values():
        yield from job.get("steps", [])


def commands(script: str) -> Iterator[list[str]]:
    """The simple commands of a `run:` script, with `${{ }}` expressions standing for a word
    and redirections left out."""
    script = re.sub(r"\$\{\{.*?\}\}", "main", script)
    lexer = shlex.shlex(script, posix=True, punctuation_chars=";&|<>")
    lexer.whitespace_split = True
    command: list[str] = []
    tokens = iter(lexer)
    for token in tokens:
        if token in SEPARATORS:
            if command:
                yield command
            command = []
        elif token in REDIRECTIONS:
            next(tokens)
        else:
            command.append(token)
    if command:
        yield command


def every_command() -> Iterator[tuple[str, list[str]]]:
    for path in WORKFLOWS:
        for step in steps(path):
            for command in commands(step.get("run", "")):
                yield path.name, command


def parse_with(app: click.Command, prog: str, argv: list[str]) -> None:
    """Parse argv as the app would, subcommand and its options included; raises on a command,
    option or value that does not exist."""
    context = app.make_context(prog, list(argv))
    if isinstance(app, click.Group):
        name, command, rest = app.resolve_command(context, list(argv))
        assert command is not None and name is not None
        command.make_context(name, rest, parent=context)


def case(workflow: str, argv: list[str]) -> Any:
    return pytest.param(argv, id=f"{workflow}: {shlex.join(argv)}")


def test_there_are_workflows() -> None:
    assert {p.name for p in WORKFLOWS} >= {"ci.yml", "pages.yml"}


@pytest.mark.parametrize("argv", [case(w, argv) for w, argv in every_command()])
def test_every_command_exists(argv: list[str]) -> None:
    program, *args = argv
    name = Path(program).name
    if name == "kb":
        parse_with(kb_cli, "kb", args)
    elif name == "mkdocs":
        parse_with(mkdocs_cli, "mkdocs", args)
    elif name in ("python", "python3"):
        if args[0] == "-m":
            assert importlib.util.find_spec(args[1]) is not None, args[1]
        else:
            assert (REPOSITORY / args[0]).is_file(), args[0]
    elif name == "pip":
        extras = tomllib.loads((REPOSITORY / "pyproject.toml").read_text("utf-8"))["project"][
            "optional-dependencies"
        ]
        for target in args:
            if target.startswith(".["):
                assert set(target[2:-1].split(",")) <= set(extras), target
    else:
        assert name in BUILTINS, f"the test does not know {program}; teach it"


def test_a_misspelt_command_is_caught() -> None:
    for argv in (["check", "--chagned-since", "main"], ["chekc"], ["check", "--format", "xml"]):
        with pytest.raises(click.UsageError):
            parse_with(kb_cli, "kb", argv)


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_actions_are_pinned_by_version(path: Path) -> None:
    for step in steps(path):
        if "uses" in step:
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@v\d+(\.\d+){0,2}", step["uses"]), step["uses"]


def test_ci_runs_the_readmes_test_command() -> None:
    readme = (REPOSITORY / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)\n```", readme, flags=re.DOTALL)
    (test_command,) = [b for b in blocks if "pytest" in b and "-m venv" in b]
    ran = [shlex.join(argv) for w, argv in every_command() if w == "ci.yml"]
    for part in commands(test_command):
        assert shlex.join(part) in ran


def test_ci_checks_pull_requests_with_changed_since_and_uploads_sarif() -> None:
    ci = [shlex.join(argv) for w, argv in every_command() if w == "ci.yml"]
    assert any("--changed-since" in c and "--format github" in c for c in ci)
    assert any("--format sarif" in c for c in ci)
    uses = {
        step.get("uses", "").split("@")[0]
        for step in steps(REPOSITORY / ".github" / "workflows" / "ci.yml")
    }
    assert "github/codeql-action/upload-sarif" in uses


def test_pages_deploys_the_site_it_builds() -> None:
    pages = list(steps(REPOSITORY / ".github" / "workflows" / "pages.yml"))
    upload = next(s for s in pages if s.get("uses", "").startswith("actions/upload-pages-artifact"))
    # read as text: mkdocs.yml may hold tags (!!python/name:) that a safe load refuses
    mkdocs = (REPOSITORY / "mkdocs.yml").read_text("utf-8")
    (site_dir,) = re.findall(r"^site_dir:\s*(\S+)$", mkdocs, flags=re.MULTILINE)
    assert upload["with"]["path"] == site_dir
    assert any(s.get("uses", "").startswith("actions/deploy-pages") for s in pages)
