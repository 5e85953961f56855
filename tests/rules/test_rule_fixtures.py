"""One-rule fixtures: tests/fixtures/rules/<CODE>/<case>.yaml is written into a real knowledge
base on disk (as rule examples are: a merge patch onto the minimal entry or device, or the raw
file for codes found while reading YAML) and checked with only that rule on. The diagnostics of
that code must be exactly those of <case>.expected (in any order), one a line:

    PLACE [fragment of the message]

where PLACE is `LINE:COL`, or a JSON pointer into the written file (`/scales_with/0/typical`,
the value's position; `/` the whole document), `@/pointer` for the key's position, or
`/pointer+N` for the N-th character inside a string value; `path::PLACE` names another written
file than the first. A pointer must name something the file holds.
Pointers keep fixtures exact on position while the minimal entry grows a key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bottleneck_kb.checking.run import check
from bottleneck_kb.core.codes import INTERNAL
from bottleneck_kb.rules import REGISTRY
from bottleneck_kb.source import Pointer, load

from ..conftest import FIXTURES, write_example

RULES = FIXTURES / "rules"
CASES = sorted(RULES.glob("*/*.yaml"))


def _pointer(text: str) -> Pointer:
    return tuple(int(p) if p.isdigit() else p for p in text.strip("/").split("/") if p)


def _place(root: Path, written: list[str], place: str) -> tuple[str, int, int]:
    path, _, place = place.rpartition("::")
    path = path or written[0]
    if ":" in place and not place.startswith(("/", "@")):
        line, col = place.split(":")
        return path, int(line), int(col)
    document, problems = load((root / path).read_bytes(), path)
    assert document is not None, problems
    text, _, offset = place.removeprefix("@").partition("+")
    pointer = _pointer(text)
    # Positions fall back to the nearest written ancestor; a fixture names what is written.
    assert _written(document.data, pointer), f"{place}: nothing at {text} in {path}"
    if place.startswith("@"):
        return (path, *document.key_at(pointer))
    if offset:
        return (path, *document.offset_at(pointer, int(offset)))
    return (path, *document.value_at(pointer))


def _written(data: Any, pointer: Pointer) -> bool:
    for part in pointer:
        if isinstance(data, list) and isinstance(part, int):
            found = 0 <= part < len(data)
        else:
            found = isinstance(data, dict) and part in data
        if not found:
            return False
        data = data[part]
    return True


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.stem}" for c in CASES])
def test_one_rule_fixture(case: Path, kb_root: Path) -> None:
    code = case.parent.name
    written = write_example(kb_root, REGISTRY[code], case.read_text(encoding="utf-8"))
    expected = []
    for raw in case.with_suffix(".expected").read_text(encoding="utf-8").splitlines():
        if raw.strip() and not raw.startswith("#"):
            place, _, fragment = raw.partition(" ")
            expected.append((_place(kb_root, written, place), fragment.strip()))

    found = check(kb_root, select=frozenset({code})).diagnostics

    assert sorted((d.path, d.line, d.col) for d in found) == sorted(p for p, _ in expected)
    # Several diagnostics may share a place: each expected line takes one whose message holds
    # its fragment, longest fragments first so that a bare place takes what is left.
    unmatched = list(found)
    for where, fragment in sorted(expected, key=lambda row: -len(row[1])):
        match = next(
            (d for d in unmatched if (d.path, d.line, d.col) == where and fragment in d.message),
            None,
        )
        assert match is not None, f"no {code} at {where} saying {fragment!r} in {unmatched}"
        unmatched.remove(match)


def test_every_code_has_a_one_rule_fixture() -> None:
    covered = {case.parent.name for case in CASES}
    assert sorted(set(REGISTRY) - covered - {INTERNAL}) == []
