"""Every fixture file, checked inside a real knowledge base on disk, gives exactly the
diagnostics written beside it (code, line, column, and a fragment of the message where given)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bottleneck_kb.check import check
from bottleneck_kb.diagnostics import INTERNAL
from bottleneck_kb.kb import NOT_READ
from bottleneck_kb.rules import REGISTRY

from .conftest import FIXTURES, read_expected

# folder of fixtures -> where in the knowledge base a fixture is placed
PLACES = {
    "invalid": "entries/fixtures",
    "invalid-hardware": "hardware",
    "hostile": "entries/fixtures",
}


def _cases() -> list[tuple[str, Path]]:
    return [
        (folder, path) for folder in PLACES for path in sorted((FIXTURES / folder).glob("*.yaml"))
    ]


def _place(fixture: Path, root: Path, folder: str) -> str:
    target = root / PLACES[folder] / fixture.name
    shutil.copyfile(fixture, target)
    return f"{PLACES[folder]}/{fixture.name}"


@pytest.mark.parametrize(
    ("folder", "fixture"), _cases(), ids=[f"{f}/{p.stem}" for f, p in _cases()]
)
def test_invalid_fixture_gives_exactly_its_expected_diagnostics(
    folder: str, fixture: Path, kb_root: Path
) -> None:
    shown = _place(fixture, kb_root, folder)
    expected = read_expected(fixture.with_suffix(".expected"))

    result = check(kb_root)

    assert {d.path for d in result.diagnostics} == {shown}
    got = [(d.line, d.col, d.code) for d in result.diagnostics]
    assert got == [(line, col, code) for line, col, code, _ in expected]
    for diagnostic, (_, _, _, fragment) in zip(result.diagnostics, expected, strict=True):
        if fragment is not None:
            assert fragment in diagnostic.message


@pytest.mark.parametrize(
    "fixture", sorted((FIXTURES / "valid").glob("*.yaml")), ids=lambda p: p.stem
)
def test_valid_fixture_gives_no_diagnostics(fixture: Path, kb_root: Path) -> None:
    shutil.copyfile(fixture, kb_root / "entries" / "fixtures" / fixture.name)

    result = check(kb_root)

    assert result.diagnostics == []
    assert result.entries == 2


def test_every_code_but_internal_has_a_fixture() -> None:
    covered = {
        code
        for folder in PLACES
        for expected in (FIXTURES / folder).glob("*.expected")
        for _, _, code, _ in read_expected(expected)
    }
    # Cases that cannot be fixture files: two files (tests/rules/test_identity.py), paths
    # that are not regular files (tests/test_hostile.py), files that are not read
    # (tests/test_discovery.py) and the schema line, asked for only where the knowledge base
    # has a schema/ folder (tests/rules/test_schema_line.py).
    covered |= {"KB202", "KB011", NOT_READ, "KB016", "KB018"}
    assert sorted(set(REGISTRY) - covered - {INTERNAL}) == []
