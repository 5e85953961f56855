"""check_read, the site's check of the knowledge base it has read, finds what `kb check` finds."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bottleneck_kb.checking import run as check_module
from bottleneck_kb.checking.run import (
    EntryChecks,
    check,
    check_read,
    checked_cards,
    checked_catalog,
)
from bottleneck_kb.core.codes import INTERNAL
from bottleneck_kb.knowledge.base import KnowledgeBase
from bottleneck_kb.schemas import published

from ..conftest import FIXTURES, copy_repository


@pytest.mark.slow
def test_on_every_hostile_and_valid_fixture_it_finds_what_kb_check_finds(
    tmp_path: Path,
) -> None:
    root = copy_repository(tmp_path / "kb")
    fixtures = root / "entries" / "fixtures"
    fixtures.mkdir()
    for folder in ("hostile", "valid"):
        for case in (FIXTURES / folder).glob("*.yaml"):
            shutil.copyfile(case, fixtures / f"{folder}-{case.name}")
    broken_device = root / "hardware" / "nvidia-h100-sxm.yaml"
    broken_device.write_text(
        broken_device.read_text("utf-8").replace("TB/s", "furlongs", 1), encoding="utf-8"
    )

    expected = check(root, jobs=1)
    found = check_read(KnowledgeBase.load(root))

    assert len({d.path for d in expected.diagnostics}) > 50  # the fixtures were all read
    assert found.diagnostics == expected.diagnostics
    assert (found.entries, found.devices) == (expected.entries, expected.devices)


@pytest.mark.slow
def test_on_the_repository_it_finds_nothing(tmp_path: Path) -> None:
    root = copy_repository(tmp_path / "kb")

    assert check_read(KnowledgeBase.load(root)).diagnostics == []


def test_a_rule_that_breaks_on_an_entry_is_an_internal_error_there_as_in_kb_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_repository(tmp_path / "kb")
    kb = KnowledgeBase.load(root)

    def broken(
        self: EntryChecks, entry: object, parsed: object = None, measured: object = None
    ) -> list[object]:
        raise RuntimeError("a rule nobody foresaw failing")

    monkeypatch.setattr(EntryChecks, "__call__", broken)
    found = check_read(kb).diagnostics

    assert found == check(root, jobs=1).diagnostics
    assert len(found) == len(kb.entries)
    assert {d.code for d in found} == {INTERNAL}


def test_given_the_checked_catalog_it_does_not_judge_the_devices_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kb eval and the site judge the devices first (to evaluate on those that pass): the
    check of what was read takes that judgement instead of running the device rules again."""
    root = copy_repository(tmp_path / "kb")
    device = root / "hardware" / "nvidia-h100-sxm.yaml"
    device.write_text(device.read_text("utf-8").replace("TB/s", "GB/s", 1), encoding="utf-8")
    kb = KnowledgeBase.load(root)
    expected = check_read(kb)
    # As the site judges them: with the cards the devices' achieved fractions cite.
    cards = checked_cards(root, kb.catalog.devices.values(), kb.entries)
    checked = checked_catalog(kb.catalog, published(root), cards=cards)

    def judged_again(*_: object) -> None:
        raise AssertionError("the device rules ran again")

    monkeypatch.setattr(check_module, "_device_findings", judged_again)
    found = check_read(kb, checked)

    assert any(d.path == "hardware/nvidia-h100-sxm.yaml" for d in checked[1])
    assert found == expected
