from __future__ import annotations

from pathlib import Path

from bottleneck_kb.checking.run import check


def test_checking_one_file_still_resolves_links_to_the_others(kb_root: Path) -> None:
    entries = kb_root / "entries" / "fixtures"
    linking = entries / "linking.yaml"
    text = (entries / "minimal.yaml").read_text(encoding="utf-8")
    linking.write_text(
        text.replace("id: fixtures/minimal", "id: fixtures/linking")
        + "related:\n  - id: fixtures/minimal\n    relation: compares_to\n"
        + "  - id: fixtures/missing\n    relation: compares_to\n",
        encoding="utf-8",
    )

    result = check(kb_root, [linking])

    # below the minimal entry's lines, however many it has
    line = linking.read_text(encoding="utf-8").splitlines().index("  - id: fixtures/missing") + 1
    missing = "no entry 'fixtures/missing' in entries/"
    found = [(d.path, d.line, d.col, d.code, d.message) for d in result.diagnostics]
    assert found == [("entries/fixtures/linking.yaml", line, 9, "KB212", missing)]
    assert result.entries == 1


def test_an_entry_linking_to_a_renamed_file_is_told_the_new_id(kb_root: Path) -> None:
    entries = kb_root / "entries" / "fixtures"
    (entries / "linked.yaml").write_text(
        (entries / "minimal.yaml")
        .read_text(encoding="utf-8")
        .replace("id: fixtures/minimal", "id: fixtures/linked")
        + "related:\n  - id: fixtures/minimum\n    relation: part_of\n",
        encoding="utf-8",
    )

    (diagnostic,) = check(kb_root).diagnostics

    assert diagnostic.code == "KB212"
    assert diagnostic.hint is not None
    assert diagnostic.hint.startswith("did you mean 'fixtures/minimal'?")
