"""Whole-pipeline fixtures: each hostile file, checked inside a real knowledge base on disk with
every rule on, gives exactly the diagnostics written beside it (code, line, column, and a
fragment of the message where given), and each valid file gives none. What one rule finds is
tested by the one-rule fixtures of tests/fixtures/rules/ (tests/rules/test_rule_fixtures.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bottleneck_kb.checking.run import check

from ..conftest import FIXTURES, read_expected

HERE = "entries/fixtures"
HOSTILE = sorted((FIXTURES / "hostile").glob("*.yaml"))


@pytest.mark.parametrize("fixture", HOSTILE, ids=lambda p: p.stem)
def test_hostile_fixture_gives_exactly_its_expected_diagnostics(
    fixture: Path, kb_root: Path
) -> None:
    shutil.copyfile(fixture, kb_root / HERE / fixture.name)
    expected = read_expected(fixture.with_suffix(".expected"))

    result = check(kb_root)

    assert {d.path for d in result.diagnostics} == {f"{HERE}/{fixture.name}"}
    got = [(d.line, d.col, d.code) for d in result.diagnostics]
    assert got == [(line, col, code) for line, col, code, _ in expected]
    for diagnostic, (_, _, _, fragment) in zip(result.diagnostics, expected, strict=True):
        if fragment is not None:
            assert fragment in diagnostic.message


@pytest.mark.parametrize(
    "fixture", sorted((FIXTURES / "valid").glob("*.yaml")), ids=lambda p: p.stem
)
def test_valid_fixture_gives_no_diagnostics(fixture: Path, kb_root: Path) -> None:
    shutil.copyfile(fixture, kb_root / HERE / fixture.name)

    result = check(kb_root)

    assert result.diagnostics == []
    assert result.entries == 2
