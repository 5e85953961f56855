"""Ids across files: a duplicate is reported on the file that introduced it (the one whose id is
not its path), with a hint that is itself valid; a device file with errors is reported first
and once, and entries that name the device point to it once each."""

from __future__ import annotations

import shutil
from pathlib import Path

from bottleneck_kb.checking.run import check
from bottleneck_kb.knowledge.base import Catalog

HERE = "entries/fixtures"


def diagnostics(root: Path, *paths: Path) -> list[tuple[str, int, int, str, str, str | None]]:
    result = check(root, list(paths) or None)
    return [(d.path, d.line, d.col, d.code, d.message, d.hint) for d in result.diagnostics]


def test_a_duplicate_id_is_reported_on_the_file_whose_path_differs(kb_root: Path) -> None:
    # The copy sorts first, so "first seen" would blame the original.
    original = kb_root / HERE / "minimal.yaml"
    copy = kb_root / "entries" / "aardvark" / "minimal.yaml"
    copy.parent.mkdir()
    shutil.copyfile(original, copy)

    assert diagnostics(kb_root) == [
        (
            "entries/aardvark/minimal.yaml",
            1,
            5,
            "KB201",
            "id 'fixtures/minimal' does not match the file's path (expected 'aardvark/minimal')",
            # aardvark is no namespace, and entries/fixtures/minimal.yaml is taken.
            "move the file to entries/<namespace>/<slug>.yaml, in a namespace the entry schema "
            "lists, and set id to match",
        ),
        (
            "entries/aardvark/minimal.yaml",
            1,
            5,
            "KB202",
            f"id 'fixtures/minimal' is already used by {HERE}/minimal.yaml:1",
            "move the file to entries/<namespace>/<slug>.yaml, in a namespace the entry schema "
            "lists, and set id to match",
        ),
    ]


def test_following_the_duplicate_hint_gives_a_clean_check(kb_root: Path) -> None:
    copy = kb_root / HERE / "copy.yaml"
    copy.write_text((kb_root / HERE / "minimal.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    ((_, _, _, _, _, hint),) = [d for d in diagnostics(kb_root) if d[3] == "KB202"]
    assert hint == "set id: fixtures/copy"

    text = copy.read_text(encoding="utf-8")
    copy.write_text(text.replace("id: fixtures/minimal", hint.removeprefix("set "), 1), "utf-8")

    assert diagnostics(kb_root) == []


def test_a_duplicate_whose_path_gives_no_valid_id_is_told_to_move(kb_root: Path) -> None:
    copy = kb_root / HERE / "Copy Of Minimal.yaml"
    shutil.copyfile(kb_root / HERE / "minimal.yaml", copy)

    found = [d for d in diagnostics(kb_root) if d[3] == "KB202"]

    assert found == [
        (
            f"{HERE}/Copy Of Minimal.yaml",
            1,
            5,
            "KB202",
            f"id 'fixtures/minimal' is already used by {HERE}/minimal.yaml:1",
            "move the file to entries/<namespace>/<slug>.yaml, in a namespace the entry schema "
            "lists, and set id to match",
        )
    ]


def test_an_entry_outside_entries_is_told_where_to_go(kb_root: Path) -> None:
    stray = kb_root / "stray.yaml"
    shutil.copyfile(kb_root / HERE / "minimal.yaml", stray)

    assert diagnostics(kb_root, stray) == [
        (
            "stray.yaml",
            1,
            5,
            "KB201",
            "entry files live at entries/<namespace>/<slug>.yaml",
            "move the file to entries/fixtures/minimal.yaml",
        )
    ]


def test_two_devices_with_one_id_are_reported_and_the_owner_kept(kb_root: Path) -> None:
    # aa-copy.yaml sorts before the original and says the original's id.
    original = kb_root / "hardware" / "nvidia-h100-sxm.yaml"
    copy = kb_root / "hardware" / "aa-copy.yaml"
    text = original.read_text(encoding="utf-8")
    copy.write_text(text.replace("name: NVIDIA H100 SXM5 80GB", "name: A copy", 1), "utf-8")

    assert diagnostics(kb_root) == [
        (
            "hardware/aa-copy.yaml",
            1,
            5,
            "KB202",
            "device id 'nvidia-h100-sxm' is already used by hardware/nvidia-h100-sxm.yaml",
            "set id: aa-copy",
        ),
        (
            "hardware/aa-copy.yaml",
            1,
            5,
            "KB203",
            "device id 'nvidia-h100-sxm' does not match the file name (expected 'aa-copy')",
            "set id: aa-copy, or rename the file to hardware/nvidia-h100-sxm.yaml",
        ),
    ]
    assert Catalog.load(kb_root).devices["nvidia-h100-sxm"].name == "NVIDIA H100 SXM5 80GB"


def test_a_device_with_an_error_comes_first_and_entries_point_to_it_once(kb_root: Path) -> None:
    device = kb_root / "hardware" / "nvidia-h100-sxm.yaml"
    text = device.read_text(encoding="utf-8")
    device.write_text(
        text.replace("bf16: {value: 989.4 TFLOP/s", "bf16: {value: 989.4 TFLOPS", 1), "utf-8"
    )
    entry = kb_root / HERE / "minimal.yaml"
    entry.write_text(
        entry.read_text(encoding="utf-8")
        + "hardware_parameters:\n"
        + "  - parameter: memory_bandwidth\n"
        + "    effect: Streams the weights.\n"
        + "    values_for: [nvidia-h100-sxm, amd-instinct-mi300x]\n"
        + "    basis: datasheet\n"
        + "checks:\n"
        + "  - claim: Memory-bound.\n"
        + "    devices: [amd-instinct-mi300x, nvidia-h100-sxm]\n"
        + "    expect: {bound_by: memory}\n",
        encoding="utf-8",
    )
    other = kb_root / HERE / "other.yaml"
    other.write_text(
        entry.read_text(encoding="utf-8").replace("id: fixtures/minimal", "id: fixtures/other"),
        encoding="utf-8",
    )

    found = [
        (path, line, col, code, message)
        for path, line, col, code, message, _ in diagnostics(kb_root)
    ]

    pointer = (
        "device 'nvidia-h100-sxm' is defined in hardware/nvidia-h100-sxm.yaml, which has errors"
    )
    assert found[0][:4] == ("hardware/nvidia-h100-sxm.yaml", 12, 17, "KB105")
    # the values_for line below the minimal entry's lines, however many it has
    line = (
        entry.read_text(encoding="utf-8")
        .splitlines()
        .index("    values_for: [nvidia-h100-sxm, amd-instinct-mi300x]")
        + 1
    )
    assert found[1:] == [
        (f"{HERE}/minimal.yaml", line, 18, "KB204", pointer),
        (f"{HERE}/other.yaml", line, 18, "KB204", pointer),
    ]
