"""The cards the architecture kinds' recipes bind, read from a knowledge base and ready to
evaluate."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..evaluation.evaluator import Evaluator
from ..knowledge.config import words_of
from ..knowledge.files import ENTRIES, SUFFIX
from ..knowledge.read import guarded, read_entry
from ..records.entry import Entry
from .kinds import kinds

#: The cards speculative decoding (`kb estimate --draft`) is priced with.
DRAFT_CARD = "flops/speculative-draft"
VERIFICATION_CARD = "speculative/verification"


def recipe_card_ids() -> frozenset[str]:
    """Every card some kind's recipe binds, and the draft's and verification's."""
    bound = {c for kind in kinds().values() for c in kind.cards}
    return frozenset({*bound, DRAFT_CARD, VERIFICATION_CARD})


def recipe_cards(root: Path, read: list[Entry] | None = None) -> dict[str, Evaluator]:
    """The cards the recipes bind, by id, from `read` (entries already read) or root's
    entries/: those that read and parse (what stops the others is the entry rules' to say)."""
    return cards_by_id(root, recipe_card_ids(), read)


def cards_by_id(
    root: Path, wanted: Iterable[str], read: list[Entry] | None = None
) -> dict[str, Evaluator]:
    """The cards of `wanted`, by id, from `read` (entries already read) or root's entries/:
    those that read and parse."""
    wanted = frozenset(wanted)
    found: dict[str, Entry] = {}
    if read is not None:
        found = {e.id: e for e in read if e.id in wanted}
    else:
        for card_id in sorted(wanted):
            path = root / ENTRIES / f"{card_id}{SUFFIX}"
            if path.is_file():
                entry, _ = guarded(lambda p, r: read_entry(p, r, words_of(r)), path, root)
                if entry is not None and entry.id == card_id:
                    found[card_id] = entry
    cards = {}
    for card_id, entry in found.items():
        evaluator, _ = Evaluator.parse(entry)
        if evaluator is not None:
            cards[card_id] = evaluator
    return cards
