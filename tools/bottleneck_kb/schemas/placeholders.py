"""Placeholders: the word `kb new` and `kb fmt --upgrade` write where only a person knows the
answer (a source's title, the id of the source a figure comes from), and where in a file's
data they are. The rules report those left in a file that passes the schema; `validate` says
a placeholder where the schema wants a value of a set form (a date, an allowed word, a whole
number), so that an upgraded file is told what to fill in, not what form the word breaks."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..core.diagnostics import Diagnostic
from ..source import Document, Pointer
from . import _name as name

#: The placeholder word; `kb new` writes it in the case a field's pattern allows.
PLACEHOLDER = "TODO"
_PLACEHOLDER = re.compile(rf"(?:{PLACEHOLDER}|{PLACEHOLDER.lower()})(?![A-Za-z0-9])")


def is_placeholder(text: str) -> bool:
    """True for `TODO`, `todo` and text starting with either as a word (`TODO: say why`)."""
    return _PLACEHOLDER.match(text) is not None


def may_hold_placeholders(text: str) -> bool:
    """Whether a file's text may hold a placeholder: nearly every file has none, and one scan
    of its text in C spares the walk. Two substring searches are a fifth of the cost of one
    search for either pattern."""
    return PLACEHOLDER in text or PLACEHOLDER.lower() in text


def placeholders(data: Any) -> Iterator[Pointer]:
    """Pointers to every placeholder in `data`, in the order written. The loader bounds the
    size and depth of `data`, so the walk is bounded too."""
    stack: list[tuple[Pointer, Any]] = [((), data)]
    while stack:
        pointer, value = stack.pop()
        if isinstance(value, str):
            if is_placeholder(value):
                yield pointer
        elif isinstance(value, dict):
            stack.extend(((*pointer, k), v) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend(((*pointer, i), v) for i, v in reversed(list(enumerate(value))))


def placeholder_errors(code: str, document: Document) -> Iterator[Diagnostic]:
    """`code` at every placeholder of `document`, in the order written."""
    if not may_hold_placeholders(document.text):
        return
    for pointer in placeholders(document.data):
        yield document.error_at(
            code,
            pointer,
            f"{name(pointer)} is still a placeholder",
            "write the real value (the comment above the field says what it holds)",
        )
