"""Prose as `kb fmt` writes it: where folded text breaks at the width, and whether a text
written plain reads back as the same string."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import yaml

from ..source import load

#: Folded prose is wrapped to lines of at most this many columns (a longer word stands alone).
WIDTH = 100

_STR_TAG = "tag:yaml.org,2002:str"
# PyYAML's resolver reads plain scalars as YAML 1.1 does (`yes`, `1_000`, `12:30`).
_resolve_yaml11: Callable[[Any, str, tuple[bool, bool]], str] = yaml.resolver.Resolver().resolve


def plain_reads_back(text: str) -> bool:
    """True when `text` written plain would be read as this same string by our loader and by
    YAML 1.1 readers. (Whether YAML's syntax allows it plain is the emitter's business.)"""
    if _resolve_yaml11(yaml.ScalarNode, text, (True, False)) != _STR_TAG:
        return False
    if text[:1].isalpha():  # the loader reads these as text unless YAML 1.1 reserves them
        return True
    document, _ = load(f"k: {text}\n".encode(), "")
    return document is not None and document.data == {"k": text}


def fold_positions(text: str, width: int, written: Sequence[int] = ()) -> list[int]:
    """Where to break folded prose so that lines hold at most `width` characters.

    A paragraph (text between hard line breaks) whose `written` breaks all fit keeps them: the
    author's lines stay as they are. One with a longer line is refilled, greedily, at single
    spaces between words (the only places a folded scalar can break without changing its
    text); a word longer than the width stands alone. A more-indented line is left whole.
    A written break beside another space (a line that ended in a space) cannot be kept, so it
    does not count: kept, the emitter would join the lines into one too long.
    """
    positions: list[int] = []
    # Sorted once and cut per line by bisection: a scan of every break for every line took
    # minutes on notes of many short paragraphs.
    breaks = sorted(written)
    start = 0
    for line in text.split("\n"):
        end = start + len(line)
        kept = [
            p
            for p in breaks[bisect.bisect_right(breaks, start) : bisect.bisect_left(breaks, end)]
            if _breakable(text, p)
        ]
        edges = [start - 1, *kept, end]
        if all(b - a - 1 <= width for a, b in itertools.pairwise(edges)):
            positions += kept
        elif not line.startswith((" ", "\t")):
            positions += _refill(text, start, end, width)
        start = end + 1
    return positions


def _refill(text: str, start: int, end: int, width: int) -> list[int]:
    positions = []
    line_start, last = start, -1
    for index in range(start + 1, end - 1):
        if not _breakable(text, index):
            continue
        if index - line_start > width and last > line_start:
            positions.append(last)
            line_start = last + 1
        last = index
    if end - line_start > width and last > line_start:
        positions.append(last)
    return positions


def _breakable(text: str, index: int) -> bool:
    """Whether folded prose can break at `index`: ruamel's representer takes a break only at
    a single space between two other characters."""
    return (
        0 < index < len(text) - 1
        and text[index] == " "
        and not text[index - 1].isspace()
        and not text[index + 1].isspace()
    )
