"""Shared test helpers: a throwaway copy of the fixture knowledge base, expected diagnostics."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
REPOSITORY = Path(__file__).resolve().parents[1]


@pytest.fixture
def kb_root(tmp_path: Path) -> Path:
    """A fresh copy of tests/fixtures/kb: two devices and one minimal entry."""
    root = tmp_path / "kb"
    shutil.copytree(FIXTURES / "kb", root)
    return root


def read_expected(path: Path) -> list[tuple[int, int, str, str | None]]:
    """`line:col CODE [fragment of the message]` per line of a .expected file."""
    expected = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        position, code, *rest = raw.split(maxsplit=2)
        line, col = position.split(":")
        expected.append((int(line), int(col), code, rest[0] if rest else None))
    return expected
