from __future__ import annotations

import shutil
from pathlib import Path

from bottleneck_kb.check import check


def test_duplicate_ids_are_reported_at_the_second_file(kb_root: Path) -> None:
    original = kb_root / "entries" / "fixtures" / "minimal.yaml"
    copy = kb_root / "entries" / "other" / "minimal.yaml"
    copy.parent.mkdir()
    shutil.copyfile(original, copy)

    result = check(kb_root)

    found = [(d.path, d.line, d.col, d.code, d.message) for d in result.diagnostics]
    assert found == [
        (
            "entries/other/minimal.yaml",
            1,
            5,
            "KB201",
            "id 'fixtures/minimal' does not match the file's path (expected 'other/minimal')",
        ),
        (
            "entries/other/minimal.yaml",
            1,
            5,
            "KB202",
            "id 'fixtures/minimal' is already used by entries/fixtures/minimal.yaml:1",
        ),
    ]


def test_an_entry_outside_entries_is_told_where_to_go(kb_root: Path, tmp_path: Path) -> None:
    stray = tmp_path / "stray.yaml"
    shutil.copyfile(kb_root / "entries" / "fixtures" / "minimal.yaml", stray)

    result = check(kb_root, [stray])

    (diagnostic,) = result.diagnostics
    assert (diagnostic.code, diagnostic.line, diagnostic.col) == ("KB201", 1, 5)
    assert diagnostic.hint == "move the file to entries/fixtures/minimal.yaml"
