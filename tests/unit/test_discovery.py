"""Every file is seen: whatever under entries/ or hardware/ looks like an entry or a device is
read or reported, and nothing outside the repository is read, whatever path or link leads
there. Each case is made of real files, folders and links on disk."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from bottleneck_kb.checking.run import check
from bottleneck_kb.cli import main
from bottleneck_kb.rules.examples import MINIMAL_ENTRY

from ..conftest import FIXTURES

HERE = "entries/fixtures"
H100 = FIXTURES / "kb" / "hardware" / "nvidia-h100-sxm.yaml"
LINK = "commit the files themselves"


def entry_text(entry_id: str) -> str:
    return MINIMAL_ENTRY.replace("fixtures/minimal", entry_id, 1)


def found(root: Path, *paths: Path) -> tuple[list[tuple[str, str, str, str | None]], int, int]:
    """(path, code, message, hint) of every diagnostic, entries read, devices read."""
    result = check(root, list(paths) or None)
    located = [(d.path, d.code, d.message, d.hint) for d in result.diagnostics]
    assert all(
        (d.line, d.col) == (1, 1) for d in result.diagnostics if d.code in ("KB011", "KB019")
    )
    return located, result.entries, result.devices


@pytest.fixture
def outside(tmp_path: Path, kb_root: Path) -> Path:
    """A folder beside the repository holding a valid entry and a valid device, so that any
    read of it would pass silently."""
    folder = tmp_path / "outside"
    (folder / "fixtures").mkdir(parents=True)
    (folder / "fixtures" / "stolen.yaml").write_text(entry_text("fixtures/stolen"), "utf-8")
    shutil.copyfile(H100, folder / "nvidia-h100-sxm.yaml")
    assert not folder.is_relative_to(kb_root)
    return folder


@pytest.mark.parametrize(
    ("name", "message", "hint"),
    [
        ("draft.yml", "is not read: kb reads files ending in .yaml", "rename it to draft.yaml"),
        ("draft.YAML", "is not read: kb reads files ending in .yaml", "rename it to draft.yaml"),
        ("draft.Yml", "is not read: kb reads files ending in .yaml", "rename it to draft.yaml"),
        ("draft.json", "is not read: kb reads files ending in .yaml", "rename it to draft.yaml"),
        (".draft.yaml", "is hidden, and kb does not read hidden files", "rename it to draft.yaml"),
        (".draft.yml", "is hidden, and kb does not read hidden files", "rename it to draft.yaml"),
        (".yaml", "is hidden, and kb does not read hidden files", None),
        # Names a reader takes for draft.yaml: a space or an invisible character after it.
        ("draft.yaml ", "is not read: kb reads files ending in .yaml", "rename it to draft.yaml"),
        (
            "draft.yaml\u200b",
            "is not read: kb reads files ending in .yaml",
            "rename it to draft.yaml",
        ),
    ],
)
def test_an_entry_kb_would_not_read_is_reported(
    name: str, message: str, hint: str | None, kb_root: Path
) -> None:
    (kb_root / HERE / name).write_text(entry_text("fixtures/draft"), encoding="utf-8")

    assert found(kb_root) == ([(f"{HERE}/{name}", "KB019", message, hint)], 1, 2)


def test_a_file_in_a_hidden_folder_is_reported(kb_root: Path) -> None:
    drafts = kb_root / HERE / ".drafts" / "deeper"
    drafts.mkdir(parents=True)
    (drafts / "draft.yaml").write_text(entry_text("fixtures/draft"), encoding="utf-8")
    (kb_root / "hardware" / ".old").mkdir()
    shutil.copyfile(H100, kb_root / "hardware" / ".old" / "nvidia-h100-sxm.yaml")
    message = "is in a hidden folder, which kb does not read"

    assert found(kb_root) == (
        [
            (
                "hardware/.old/nvidia-h100-sxm.yaml",
                "KB019",
                message,
                "move it out of the hidden folder",
            ),
            (
                f"{HERE}/.drafts/deeper/draft.yaml",
                "KB019",
                message,
                "move it out of the hidden folder",
            ),
        ],
        1,
        2,
    )


def test_a_device_in_a_subfolder_or_with_another_ending_is_reported(kb_root: Path) -> None:
    (kb_root / "hardware" / "nvidia").mkdir()
    shutil.copyfile(H100, kb_root / "hardware" / "nvidia" / "h100.yaml")
    shutil.copyfile(H100, kb_root / "hardware" / "h200.yml")

    assert found(kb_root) == (
        [
            (
                "hardware/h200.yml",
                "KB019",
                "is not read: kb reads files ending in .yaml",
                "rename it to h200.yaml",
            ),
            (
                "hardware/nvidia/h100.yaml",
                "KB019",
                "is in a subfolder of hardware/, which kb does not read",
                "move it to hardware/h100.yaml",
            ),
        ],
        1,
        2,
    )


def test_files_that_do_not_look_like_entries_are_left_alone(kb_root: Path) -> None:
    for name in ("README.md", ".gitkeep", "notes.txt", "minimal.yaml.orig", ".DS_Store"):
        (kb_root / HERE / name).write_text("anything\n", encoding="utf-8")
        (kb_root / "hardware" / name).write_text("anything\n", encoding="utf-8")

    assert found(kb_root) == ([], 1, 2)


def test_a_linked_folder_in_entries_is_reported_not_followed(kb_root: Path, outside: Path) -> None:
    (kb_root / "entries" / "stolen").symlink_to(outside / "fixtures", target_is_directory=True)
    inside = kb_root / "shared"
    inside.mkdir()
    (inside / "linked.yaml").write_text(entry_text("linked/linked"), encoding="utf-8")
    (kb_root / "entries" / "linked").symlink_to(Path("..", "shared"), target_is_directory=True)

    assert found(kb_root) == (
        [
            ("entries/linked", "KB011", "is a link to a folder", LINK),
            ("entries/stolen", "KB011", "is a link to a folder", LINK),
        ],
        1,
        2,
    )


@pytest.mark.parametrize("folder", ["entries", "hardware"])
def test_a_linked_entries_or_hardware_folder_leading_outside_is_not_read(
    folder: str, kb_root: Path, outside: Path
) -> None:
    shutil.rmtree(kb_root / folder)
    (kb_root / folder).symlink_to(outside, target_is_directory=True)
    entries, devices = (0, 2) if folder == "entries" else (1, 0)

    located, read_entries, read_devices = found(kb_root)

    assert located[0] == (folder, "KB011", "is a link to a folder outside the repository", LINK)
    assert (read_entries, read_devices) == (entries, devices)


def test_a_path_given_outside_the_repository_is_not_read(kb_root: Path, outside: Path) -> None:
    stolen = outside / "fixtures" / "stolen.yaml"
    climbing = kb_root / "entries" / ".." / ".." / "outside" / "fixtures" / "stolen.yaml"
    (kb_root / "door").symlink_to(outside, target_is_directory=True)
    through_a_link = kb_root / "door" / "fixtures" / "stolen.yaml"
    message = "is outside the repository"
    hint = "run kb with --root set to its own repository, or copy it into entries/"
    cases = {
        stolen: str(stolen),
        climbing: "entries/../../outside/fixtures/stolen.yaml",
        through_a_link: "door/fixtures/stolen.yaml",
        outside: str(outside),
    }

    for given, shown in cases.items():
        assert found(kb_root, given) == ([(shown, "KB011", message, hint)], 0, 2), given
    # The link itself is in the repository: reading it is what is refused.
    assert found(kb_root, kb_root / "door") == (
        [
            (
                "door",
                "KB011",
                "is a symlink pointing outside the repository",
                "commit the file itself",
            )
        ],
        1,
        2,
    )


def test_a_given_path_into_hardware_is_not_read_as_an_entry(kb_root: Path) -> None:
    """It is a device however spelled: read as one, it re-checks every entry."""
    sneaky = kb_root / "entries" / ".." / "hardware" / "nvidia-h100-sxm.yaml"

    assert found(kb_root, sneaky) == ([], 1, 2)


def test_the_root_given_as_a_path_checks_its_entries(kb_root: Path) -> None:
    (kb_root / HERE / "draft.yml").write_text(entry_text("fixtures/draft"), encoding="utf-8")

    assert found(kb_root, kb_root) == (
        [
            (
                f"{HERE}/draft.yml",
                "KB019",
                "is not read: kb reads files ending in .yaml",
                "rename it to draft.yaml",
            )
        ],
        1,
        2,
    )


def test_a_file_named_twice_in_different_spellings_is_read_once(kb_root: Path) -> None:
    entry = kb_root / HERE / "minimal.yaml"
    spellings = (
        entry,
        Path(os.path.relpath(entry)),
        kb_root / HERE / ".." / "fixtures" / entry.name,
    )

    # Read twice, it claimed its own id a second time (KB202).
    assert found(kb_root, *spellings) == ([], 1, 2)


def test_a_given_folder_is_searched_like_entries(kb_root: Path) -> None:
    (kb_root / HERE / ".draft.yaml").write_text(entry_text("fixtures/draft"), encoding="utf-8")

    located, entries, _ = found(kb_root, kb_root / HERE)

    assert located == [
        (
            f"{HERE}/.draft.yaml",
            "KB019",
            "is hidden, and kb does not read hidden files",
            "rename it to draft.yaml",
        )
    ]
    assert entries == 1


def test_kb_eval_does_not_read_an_entry_outside_the_repository(
    kb_root: Path, outside: Path
) -> None:
    escaping = os.path.relpath(outside / "fixtures" / "stolen", kb_root / "entries")

    result = CliRunner().invoke(main, ["eval", escaping, "--root", str(kb_root)])

    # An id is a path below entries/ without `..`: refused before any file is read.
    assert result.exit_code == 2
    assert f"'{escaping}' is not an entry id" in result.stderr
    assert "stolen" not in result.stdout
