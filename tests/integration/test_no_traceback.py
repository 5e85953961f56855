"""No command prints a traceback on any fixture: every hostile, invalid and valid file goes
through every command and format, and each ends in a message and exit status 0, 1 or 2.
Where `kb check` passes a file, every other command must succeed on it too."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from bottleneck_kb.cli import main
from bottleneck_kb.report import CHECK, ESTIMATE, EVALUATION, HARDWARE, formats
from bottleneck_kb.rules import REGISTRY
from bottleneck_kb.rules.examples import MINIMAL_ENTRY
from bottleneck_kb.schemas import open_namespaces

from ..conftest import FIXTURES, MINIMAL_PATH, write_example

WHOLE = sorted((FIXTURES / "hostile").glob("*.yaml")) + sorted((FIXTURES / "valid").glob("*.yaml"))
ONE_RULE = sorted((FIXTURES / "rules").glob("*/*.yaml"))


def _commands(entry_id: str, model_id: str | None = None) -> list[list[str]]:
    """Every command, the ones that write last: `kb new` beside the fixture, then `kb fmt`;
    with a model, `kb estimate` of it in every format."""
    estimates = (
        []
        if model_id is None
        else [["estimate", model_id, "--format", name] for name in formats(ESTIMATE)]
    )
    return (
        [["check", "--format", name] for name in formats(CHECK)]
        + [["eval", entry_id, "--format", name] for name in formats(EVALUATION)]
        + estimates
        + [["hardware", "--format", name] for name in formats(HARDWARE)]
        + [["rules"], ["check", "--explain", "KB405"], ["fmt", "--check"], ["fmt", "--diff"]]
        + [["new", f"{open_namespaces()[0]}/scaffolded"], ["new", "--hardware", "scaffolded"]]
        + [["new", "--model", "scaffolded-model"]]
        + [["fmt"]]
    )


def _run_all(root: Path, entry_id: str, model_id: str | None = None) -> None:
    runner = CliRunner()
    checked = None
    for args in _commands(entry_id, model_id):
        where = [] if args == ["rules"] else ["--root", str(root)]  # rules reads no files
        result = runner.invoke(main, [*args, *where], env={"GITHUB_ACTIONS": ""})
        shown = result.output + (result.stderr if result.stderr_bytes is not None else "")
        assert "Traceback" not in shown, (args, shown)
        assert "internal error" not in shown, (args, shown)
        assert result.exit_code in (0, 1, 2), (args, result.exception, shown)
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            args,
            repr(result.exception),
        )
        if args[0] == "check" and checked is None:
            checked = result.exit_code
        if args[0] in ("eval", "estimate", "rules", "new") or args == ["fmt"]:
            # What kb check passed, every command handles; `kb fmt` formats it.
            assert checked != 0 or result.exit_code == 0, (args, shown)


@pytest.mark.slow
@pytest.mark.parametrize("fixture", WHOLE, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_whole_fixtures_through_every_command(fixture: Path, kb_root: Path) -> None:
    shutil.copyfile(fixture, kb_root / "entries" / "fixtures" / fixture.name)
    _run_all(kb_root, f"fixtures/{fixture.stem}")


@pytest.mark.slow
@pytest.mark.parametrize("case", ONE_RULE, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_one_rule_fixtures_through_every_command(case: Path, kb_root: Path) -> None:
    written = write_example(kb_root, REGISTRY[case.parent.name], case.read_text("utf-8"))
    entry = next((p for p in written if p.startswith("entries/")), None)
    model = next((p for p in written if p.startswith("models/")), None)
    if entry is None and model is not None:  # a model fixture, among the repository's cards
        entry = "entries/gemm/lm-head.yaml"
    if entry is None:  # a device fixture: evaluate the minimal entry on it
        entry = MINIMAL_PATH
        (kb_root / entry).write_text(MINIMAL_ENTRY, encoding="utf-8")
    model_id = None if model is None else Path(model).stem
    _run_all(kb_root, entry.removeprefix("entries/").removesuffix(".yaml"), model_id)
