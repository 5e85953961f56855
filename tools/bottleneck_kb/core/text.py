"""Text for people: the one "did you mean" of every command, rule and formula error."""

from __future__ import annotations

import difflib
from collections.abc import Sequence


def closest(word: str, choices: Sequence[str]) -> str | None:
    """The choice `word` was probably meant as: one equal ignoring case, else the nearest
    spelling; None when none is near."""
    close = [c for c in choices if c.lower() == word.lower()]
    close = close or difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return close[0] if close else None


def suggest(word: str, choices: Sequence[str], what: str) -> str:
    """`did you mean 'x'? allowed ...`: the closest choice, then all."""
    close = closest(word, choices)
    listed = ", ".join(choices)
    if close is not None:
        return f"did you mean '{close}'? allowed {what}: {listed}"
    return f"allowed {what}: {listed}"
