"""The site's cache of evaluated entries: a cache can always be thrown away, never misread."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

from bottleneck_kb.knowledge.base import KnowledgeBase
from bottleneck_kb.records.device import Device
from bottleneck_kb.records.entry import Entry
from bottleneck_kb.rules.examples import MINIMAL_ENTRY
from bottleneck_kb.site import cache as model_view
from bottleneck_kb.site.cache import ViewCache
from bottleneck_kb.site.view import compute_view


def read(root: Path) -> tuple[list[Entry], list[Device]]:
    kb = KnowledgeBase.load(root)
    return sorted(kb.entries, key=lambda e: e.path), sorted(
        kb.catalog.devices.values(), key=lambda d: d.id
    )


def test_a_cache_that_cannot_be_written_is_a_miss(kb_root: Path) -> None:
    entries, devices = read(kb_root)
    in_the_way = kb_root / "cache"
    in_the_way.write_text("a file where the folder would be", encoding="utf-8")

    views = ViewCache(in_the_way).views(entries, devices)

    assert views == {e.id: compute_view(e, devices) for e in entries}


def test_views_no_entry_uses_are_removed_and_nothing_else(kb_root: Path) -> None:
    entries, devices = read(kb_root)
    folder = kb_root / "cache"
    cache = ViewCache(folder)
    cache.views(entries, devices)
    first = {p.name for p in folder.iterdir()}
    (folder / "notes.json").write_text("{}", encoding="utf-8")  # the folder is the user's
    edited = kb_root / "entries" / "fixtures" / "minimal.yaml"
    edited.write_text(MINIMAL_ENTRY.replace("2 * B * N", "4 * B * N"), encoding="utf-8")
    entries, devices = read(kb_root)

    cache.views(entries, devices)

    second = {p.name for p in folder.iterdir()}
    assert len(first) == 1
    assert second == {"notes.json", f"{cache.key(entries[0], devices)}.json"}
    assert not first & second


def test_a_new_sympy_is_a_new_key(kb_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    entries, devices = read(kb_root)
    cache = ViewCache(kb_root / "cache")
    before = cache.key(entries[0], devices)
    monkeypatch.setattr(metadata, "version", lambda name: f"{name} from the future")
    model_view._code_digest.cache_clear()
    try:
        after = cache.key(entries[0], devices)
    finally:
        model_view._code_digest.cache_clear()

    assert before != after


def test_of_two_files_with_one_id_the_last_ones_view_is_kept_cold_and_warm(
    kb_root: Path,
) -> None:
    """kb check refuses it (KB202); a site built anyway shows one file's title and numbers,
    not one's title and the other's numbers."""
    folder = kb_root / "entries" / "fixtures"
    (folder / "twin.yaml").write_text(
        MINIMAL_ENTRY.replace("2 * B * N", "4 * B * N"), encoding="utf-8"
    )
    entries, devices = read(kb_root)
    assert [e.id for e in entries] == ["fixtures/minimal", "fixtures/minimal"]
    cache = ViewCache(kb_root / "cache")

    cold = cache.views(entries, devices)
    (kb_root / "cache" / f"{cache.key(entries[0], devices)}.json").unlink()
    warm = cache.views(entries, devices)  # the twin's view from the cache, the first computed

    assert cold == warm == {"fixtures/minimal": compute_view(entries[1], devices)}
