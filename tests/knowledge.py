"""Reading the repository's knowledge base in tests."""

from __future__ import annotations

from bottleneck_kb.knowledge.base import KnowledgeBase
from bottleneck_kb.records.entry import Entry


def entry_of(kb: KnowledgeBase, entry_id: str) -> Entry:
    """The entry with `entry_id`, which the test expects to be there."""
    entry = kb.entry(entry_id)
    assert entry is not None, entry_id
    return entry
