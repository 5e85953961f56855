"""Hostile inputs that cannot be fixture files: what is on disk rather than what is in a file
(directories, symlinks, FIFOs, permissions, sizes), several bad files at once, and every hostile
case run through the real `kb check` command.

Each case states the exact diagnostics (path, code, line, column) it must produce, and that
`check()` returns them instead of raising, hanging or letting one file hide another.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple, TypeVar

import pytest
from click.testing import CliRunner, Result

from bottleneck_kb.checking import run as check_module
from bottleneck_kb.checking.results import CheckResult
from bottleneck_kb.checking.run import check
from bottleneck_kb.cli import main
from bottleneck_kb.core.diagnostics import Diagnostic, error
from bottleneck_kb.knowledge import read as read_module
from bottleneck_kb.records.entry import Entry
from bottleneck_kb.report import CHECK, formats
from bottleneck_kb.rules.examples import MINIMAL_ENTRY
from bottleneck_kb.schemas import Words
from bottleneck_kb.source import MAX_FILE_BYTES

from ..conftest import FIXTURES, fixture_kb

HERE = "entries/fixtures"
HOSTILE = sorted((FIXTURES / "hostile").glob("*.yaml"))
# C0 and C1 controls except tab and newline: none may reach a terminal raw.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Hostile fixtures whose cost must stay bounded: deep nesting, the bomb, huge numbers.
TIMED = {
    "deep-block-mapping",
    "deep-block-sequence",
    "deep-flow-list",
    "deep-flow-mapping",
    "formula-deep-parentheses",
    "formula-power-tower",
    "number-huge-exponent",
    "number-huge-integer",
    "yaml-bomb",
}
#: Seconds within which a check of a small knowledge base holding one of the TIMED cases
#: must return (it takes about 0.3 s; what these cases guard against takes minutes or hangs):
#: a timeout, not a benchmark.
TIME_BOUND = 5.0
HANG = 30.0  # seconds after which a check that has not returned is taken to hang
T = TypeVar("T")


class Expected(NamedTuple):
    path: str
    code: str
    line: int
    col: int
    fragment: str


Setup = Callable[[Path, Path], list[Expected]]


def entry_text(name: str) -> str:
    """The minimal valid entry, with the id that matches entries/fixtures/<name>.yaml."""
    return MINIMAL_ENTRY.replace("id: fixtures/minimal", f"id: fixtures/{name}", 1)


def entry_of_size(name: str, size: int) -> bytes:
    """A valid entry padded with a comment line to exactly `size` bytes."""
    body = entry_text(name).encode("utf-8")
    padding = size - len(body) - 2  # '#' and the final newline
    assert padding >= 0
    return body + b"#" + b"x" * padding + b"\n"


def located(result: CheckResult) -> list[tuple[str, str, int, int]]:
    return [(d.path, d.code, d.line, d.col) for d in result.diagnostics]


def assert_diagnostics(result: CheckResult, expected: list[Expected]) -> None:
    ordered = sorted(expected, key=lambda e: error(e.code, e.path, e.line, e.col, "").sort_key())
    assert located(result) == [(e.path, e.code, e.line, e.col) for e in ordered]
    for diagnostic, wanted in zip(result.diagnostics, ordered, strict=True):
        assert wanted.fragment in diagnostic.message


# --- what is on disk ---------------------------------------------------------------------------


def a_directory(root: Path, outside: Path) -> list[Expected]:
    (root / HERE / "dir.yaml").mkdir()
    return [Expected(f"{HERE}/dir.yaml", "KB011", 1, 1, "is a directory")]


def a_symlink_to_a_file_outside(root: Path, outside: Path) -> list[Expected]:
    # The target is a valid entry for this path: were the link followed, nothing would be said.
    target = outside / "outside.yaml"
    target.write_text(entry_text("outside"), encoding="utf-8")
    (root / HERE / "outside.yaml").symlink_to(target)
    return [Expected(f"{HERE}/outside.yaml", "KB011", 1, 1, "symlink pointing outside")]


def a_relative_symlink_climbing_out(root: Path, outside: Path) -> list[Expected]:
    target = outside / "climb.yaml"
    target.write_text(entry_text("climb"), encoding="utf-8")
    link = root / HERE / "climb.yaml"
    link.symlink_to(Path(os.path.relpath(target, link.parent)))
    return [Expected(f"{HERE}/climb.yaml", "KB011", 1, 1, "symlink pointing outside")]


def a_symlink_to_etc(root: Path, outside: Path) -> list[Expected]:
    (root / HERE / "hostname.yaml").symlink_to("/etc/hostname")
    return [Expected(f"{HERE}/hostname.yaml", "KB011", 1, 1, "symlink pointing outside")]


def a_symlink_chain_leaving_the_root(root: Path, outside: Path) -> list[Expected]:
    # chain.yaml -> step.txt (inside, not an entry) -> outside: the last hop decides.
    target = outside / "chain.yaml"
    target.write_text(entry_text("chain"), encoding="utf-8")
    (root / HERE / "step.txt").symlink_to(target)
    (root / HERE / "chain.yaml").symlink_to("step.txt")
    return [Expected(f"{HERE}/chain.yaml", "KB011", 1, 1, "symlink pointing outside")]


def a_symlink_to_another_entry(root: Path, outside: Path) -> list[Expected]:
    # Inside the root the link is followed: twin.yaml reads minimal.yaml's id.
    (root / HERE / "twin.yaml").symlink_to("minimal.yaml")
    return [
        Expected(f"{HERE}/twin.yaml", "KB201", 1, 5, "expected 'fixtures/twin'"),
        Expected(f"{HERE}/twin.yaml", "KB202", 1, 5, f"already used by {HERE}/minimal.yaml:1"),
    ]


def a_dangling_symlink(root: Path, outside: Path) -> list[Expected]:
    (root / HERE / "dangling.yaml").symlink_to("nowhere.yaml")
    return [Expected(f"{HERE}/dangling.yaml", "KB011", 1, 1, "cannot be read")]


def a_symlink_loop(root: Path, outside: Path) -> list[Expected]:
    (root / HERE / "loop.yaml").symlink_to("loop.yaml")
    return [Expected(f"{HERE}/loop.yaml", "KB011", 1, 1, "is a symlink loop")]


def a_symlink_loop_in_hardware(root: Path, outside: Path) -> list[Expected]:
    # The catalog is read before any entry; a bad hardware file must not stop the entries.
    (root / "hardware" / "loop.yaml").symlink_to("loop.yaml")
    shutil.copyfile(FIXTURES / "hostile" / "yaml-bomb.yaml", root / HERE / "yaml-bomb.yaml")
    return [
        Expected("hardware/loop.yaml", "KB011", 1, 1, "is a symlink loop"),
        Expected(f"{HERE}/yaml-bomb.yaml", "KB003", 20, 4, "anchor '&a'"),
    ]


def an_unreadable_file(root: Path, outside: Path) -> list[Expected]:
    path = root / HERE / "secret.yaml"
    path.write_text(entry_text("secret"), encoding="utf-8")
    path.chmod(0)
    return [Expected(f"{HERE}/secret.yaml", "KB011", 1, 1, "cannot be read")]


def a_fifo(root: Path, outside: Path) -> list[Expected]:
    os.mkfifo(root / HERE / "x.yaml")
    return [Expected(f"{HERE}/x.yaml", "KB011", 1, 1, "not a regular file")]


def a_file_one_byte_over_the_limit(root: Path, outside: Path) -> list[Expected]:
    size = MAX_FILE_BYTES + 1
    (root / HERE / "big.yaml").write_bytes(entry_of_size("big", size))
    return [Expected(f"{HERE}/big.yaml", "KB009", 1, 1, "file is 1,048,577 bytes")]


def a_file_of_exactly_the_limit(root: Path, outside: Path) -> list[Expected]:
    (root / HERE / "limit.yaml").write_bytes(entry_of_size("limit", MAX_FILE_BYTES))
    return []


def two_bad_files(root: Path, outside: Path) -> list[Expected]:
    for name in ("yaml-bomb", "number-nan"):
        shutil.copyfile(FIXTURES / "hostile" / f"{name}.yaml", root / HERE / f"{name}.yaml")
    return [
        Expected(f"{HERE}/number-nan.yaml", "KB012", 18, 14, "'.nan' is not a finite number"),
        Expected(f"{HERE}/yaml-bomb.yaml", "KB003", 20, 4, "anchor '&a'"),
    ]


def a_control_character_in_a_file_name(root: Path, outside: Path) -> list[Expected]:
    # Git allows any byte but NUL and '/' in a name; this one rings the bell, sets the
    # terminal's title (OSC 0) and turns the text red (CSI), were it printed raw.
    name = "evil\x07\x1b]0;pwned\x07\x1b[31m"
    (root / HERE / f"{name}.yaml").write_text(entry_text("minimal"), encoding="utf-8")
    return [
        Expected(f"{HERE}/{name}.yaml", "KB201", 1, 5, f"expected 'fixtures/{name}'"),
        Expected(f"{HERE}/{name}.yaml", "KB202", 1, 5, f"already used by {HERE}/minimal.yaml"),
    ]


CASES: dict[str, Setup] = {
    "directory": a_directory,
    "symlink-outside": a_symlink_to_a_file_outside,
    "symlink-relative-outside": a_relative_symlink_climbing_out,
    "symlink-etc": a_symlink_to_etc,
    "symlink-chain-outside": a_symlink_chain_leaving_the_root,
    "symlink-to-entry": a_symlink_to_another_entry,
    "symlink-dangling": a_dangling_symlink,
    "symlink-loop": a_symlink_loop,
    "symlink-loop-in-hardware": a_symlink_loop_in_hardware,
    "unreadable": an_unreadable_file,
    "fifo": a_fifo,
    "over-one-mib": a_file_one_byte_over_the_limit,
    "exactly-one-mib": a_file_of_exactly_the_limit,
    "two-bad-files": two_bad_files,
    "control-character-in-name": a_control_character_in_a_file_name,
}


def skip_if_not_applicable(name: str) -> None:
    if name == "unreadable" and os.geteuid() == 0:
        pytest.skip("running as root: chmod 000 does not stop root from reading the file")
    if name == "symlink-etc" and not Path("/etc/hostname").exists():
        pytest.skip("/etc/hostname does not exist here")


def prepare(name: str, tmp_path: Path, kb_root: Path) -> list[Expected]:
    skip_if_not_applicable(name)
    outside = tmp_path / "outside"
    outside.mkdir()
    assert not outside.is_relative_to(kb_root)
    return CASES[name](kb_root, outside)


def within(seconds: float, work: Callable[[], T]) -> T:
    """`work()`, failing the test instead of hanging it when it does not return in time."""
    outcome: list[T | BaseException] = []

    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"did not return within {seconds} s"
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


@pytest.mark.parametrize("name", list(CASES))
def test_case_on_disk_gives_exactly_its_diagnostics(
    name: str, tmp_path: Path, kb_root: Path
) -> None:
    expected = prepare(name, tmp_path, kb_root)

    result = within(HANG, lambda: check(kb_root))

    assert_diagnostics(result, expected)


def test_a_symlink_to_an_entry_inside_the_root_is_followed(kb_root: Path) -> None:
    # Kept outside entries/ so that only the link is an entry; its id matches the link's path.
    shared = kb_root / "shared"
    shared.mkdir()
    (shared / "linked.yaml").write_text(entry_text("linked"), encoding="utf-8")
    (kb_root / HERE / "linked.yaml").symlink_to(Path("..", "..", "shared", "linked.yaml"))

    result = check(kb_root)

    assert result.diagnostics == []
    assert result.entries == 2


def test_a_crash_while_checking_one_file_does_not_hide_the_others(
    kb_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copyfile(FIXTURES / "hostile" / "yaml-bomb.yaml", kb_root / HERE / "yaml-bomb.yaml")
    (kb_root / HERE / "boom.yaml").write_text(entry_text("boom"), encoding="utf-8")
    real_read_entry = read_module.read_entry

    def read_entry(path: Path, root: Path, words: Words) -> tuple[Entry | None, list[Diagnostic]]:
        if path.name == "boom.yaml":
            raise RuntimeError("simulated crash")
        return real_read_entry(path, root, words)

    monkeypatch.setattr(check_module, "read_entry", read_entry)

    result = check(kb_root)

    assert located(result) == [
        (f"{HERE}/boom.yaml", "KB000", 1, 1),
        (f"{HERE}/yaml-bomb.yaml", "KB003", 20, 4),
    ]
    assert "RuntimeError: simulated crash" in result.diagnostics[0].message


# --- every hostile case through the real command ------------------------------------------------


def run_cli(root: Path, output_format: str = "text", seconds: float = HANG) -> Result:
    """`kb check` on `root`, failing the test if it has not returned within `seconds`; the
    format is explicit, since GitHub Actions changes the default."""
    arguments = ["check", "--root", str(root), "--format", output_format]
    runner = CliRunner()
    # color=True: Click would otherwise strip ANSI sequences itself and hide a leak.
    return within(seconds, lambda: runner.invoke(main, arguments, color=True))


@pytest.fixture(scope="module")
def warm_cli(tmp_path_factory: pytest.TempPathFactory) -> None:
    """One run on a clean base, so that timed runs do not pay for first imports."""
    root = fixture_kb(tmp_path_factory.mktemp("warm") / "kb")
    result = run_cli(root)
    assert result.exit_code == 0, result.output


def assert_clean_exit(result: Result, code: int) -> None:
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert result.exit_code == code, result.output
    assert not CONTROL.search(result.output), repr(result.output)


@pytest.mark.parametrize("fixture", HOSTILE, ids=lambda p: p.stem)
def test_hostile_fixture_through_the_cli(fixture: Path, kb_root: Path, warm_cli: None) -> None:
    shutil.copyfile(fixture, kb_root / HERE / fixture.name)

    result = run_cli(kb_root, seconds=TIME_BOUND if fixture.stem in TIMED else HANG)

    assert_clean_exit(result, 1)
    assert f"{HERE}/{fixture.name}:" in result.output


@pytest.mark.parametrize("name", list(CASES))
def test_case_on_disk_through_the_cli(
    name: str, tmp_path: Path, kb_root: Path, warm_cli: None
) -> None:
    expected = prepare(name, tmp_path, kb_root)

    result = run_cli(kb_root)

    assert_clean_exit(result, 1 if expected else 0)
    for wanted in expected:
        shown = CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", wanted.path)
        assert f"{shown}:{wanted.line}:{wanted.col}: {wanted.code}" in result.output


def test_a_control_character_escape_in_a_value_never_reaches_the_output_raw(
    kb_root: Path,
) -> None:
    shutil.copyfile(
        FIXTURES / "hostile" / "control-escape-e.yaml", kb_root / HERE / "control-escape-e.yaml"
    )

    result = run_cli(kb_root)

    assert result.exit_code == 1
    assert "KB013" in result.output
    assert "\x1b" not in result.output


@pytest.mark.parametrize("output_format", formats(CHECK))
def test_a_control_character_in_a_file_name_never_reaches_any_output_raw(
    output_format: str, tmp_path: Path, kb_root: Path
) -> None:
    prepare("control-character-in-name", tmp_path, kb_root)

    result = run_cli(kb_root, output_format)

    assert result.exit_code == 1, result.output
    assert "pwned" in result.output
    assert not CONTROL.search(result.output), repr(result.output)
