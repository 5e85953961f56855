"""KB016 and KB018: entries and devices start with the line that names their schema, where the
knowledge base publishes its schemas in schema/."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bottleneck_kb.checking.run import check
from bottleneck_kb.core.diagnostics import Severity

from ..conftest import REPOSITORY

ENTRY_LINE = "# yaml-language-server: $schema=../../schema/entry.schema.json"
DEVICE_LINE = "# yaml-language-server: $schema=../schema/hardware.schema.json"


def _publish_schemas(root: Path) -> None:
    shutil.copytree(REPOSITORY / "schema", root / "schema")


def _prepend(path: Path, line: str) -> None:
    path.write_text(f"{line}\n{path.read_text(encoding='utf-8')}", encoding="utf-8")


def test_files_without_the_line_are_warned_with_the_exact_line(kb_root: Path) -> None:
    _publish_schemas(kb_root)

    result = check(kb_root)

    found = [
        (d.path, d.line, d.col, d.code, d.severity, d.message, d.hint) for d in result.diagnostics
    ]
    missing = "the file does not start with the schema line"
    assert found == [  # hardware first: entries lean on it
        (
            "hardware/amd-instinct-mi300x.yaml", 1, 1, "KB018", Severity.WARNING, missing,
            f"make the first line `{DEVICE_LINE}` (kb fmt writes it)",
        ),
        (
            "hardware/nvidia-h100-sxm.yaml", 1, 1, "KB018", Severity.WARNING, missing,
            f"make the first line `{DEVICE_LINE}` (kb fmt writes it)",
        ),
        (
            "entries/fixtures/minimal.yaml", 1, 1, "KB016", Severity.WARNING, missing,
            f"make the first line `{ENTRY_LINE}` (kb fmt writes it)",
        ),
    ]  # fmt: skip


def test_a_line_pointing_elsewhere_is_warned(kb_root: Path) -> None:
    _publish_schemas(kb_root)
    for device in (kb_root / "hardware").glob("*.yaml"):
        _prepend(device, DEVICE_LINE)
    entry = kb_root / "entries" / "fixtures" / "minimal.yaml"
    _prepend(entry, "# yaml-language-server: $schema=../schema/entry.schema.json")

    result = check(kb_root)

    assert [(d.path, d.line, d.col, d.code, d.message) for d in result.diagnostics] == [
        (
            "entries/fixtures/minimal.yaml",
            1,
            1,
            "KB016",
            "the first line does not point editors at the schema",
        )
    ]


def test_the_right_lines_pass(kb_root: Path) -> None:
    _publish_schemas(kb_root)
    for device in (kb_root / "hardware").glob("*.yaml"):
        _prepend(device, DEVICE_LINE)
    _prepend(kb_root / "entries" / "fixtures" / "minimal.yaml", ENTRY_LINE)

    assert check(kb_root).diagnostics == []


def test_without_a_schema_folder_no_line_is_asked_for(kb_root: Path) -> None:
    assert not (kb_root / "schema").exists()
    assert check(kb_root).diagnostics == []


@pytest.mark.slow
def test_every_repository_file_carries_its_line() -> None:
    codes = {d.code for d in check(REPOSITORY).diagnostics}
    assert not codes & {"KB016", "KB018"}
