"""One-rule fixtures: tests/fixtures/rules/<CODE>/<case>.yaml is written into a real knowledge
base on disk (as rule examples are: a merge patch onto the minimal entry or device, or the raw
file for codes found while reading YAML) and checked with only that rule on. The diagnostics of
that code must be exactly those of <case>.expected (in any order), one a line:

    PLACE [fragment of the message]

where PLACE is `LINE:COL`, or a JSON pointer into the written file (`/scales_with/0/typical`,
the value's position), `@/pointer` for the key's position, or `/pointer+N` for the N-th
character inside a string value; `path::PLACE` names another written file than the first.
Pointers keep fixtures exact on position while the minimal entry grows a key."""

from __future__ import annotations

from pathlib import Path

import pytest

from bottleneck_kb.check import check
from bottleneck_kb.diagnostics import INTERNAL
from bottleneck_kb.rules import REGISTRY
from bottleneck_kb.source import Pointer, load

from .conftest import FIXTURES, write_example

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
    if place.startswith("@"):
        return (path, *document.key_at(_pointer(place[1:])))
    pointer, _, offset = place.partition("+")
    if offset:
        return (path, *document.offset_at(_pointer(pointer), int(offset)))
    return (path, *document.value_at(_pointer(pointer)))


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.stem}" for c in CASES])
def test_one_rule_fixture(case: Path, kb_root: Path) -> None:
    code = case.parent.name
    written = write_example(kb_root, REGISTRY[code], case.read_text(encoding="utf-8"))
    expected = []
    for raw in case.with_suffix(".expected").read_text(encoding="utf-8").splitlines():
        if raw.strip() and not raw.startswith("#"):
            place, _, fragment = raw.partition(" ")
            expected.append((_place(kb_root, written, place), fragment.strip()))

    expected.sort(key=lambda row: row[0])
    found = check(kb_root, select=frozenset({code})).diagnostics

    assert [(d.path, d.line, d.col) for d in found] == [place for place, _ in expected]
    for diagnostic, (_, fragment) in zip(found, expected, strict=True):
        assert fragment in diagnostic.message


def test_every_code_has_a_one_rule_fixture() -> None:
    covered = {case.parent.name for case in CASES}
    assert sorted(set(REGISTRY) - covered - {INTERNAL}) == []
