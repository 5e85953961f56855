"""Placeholders: what `kb new` writes where only the author knows the answer."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from ..core.diagnostics import Diagnostic
from ..records.device import Device
from ..records.entry import Entry
from ..schemas import _name as pointer_name
from ..source import Document, Pointer
from . import Context, Scope, rule

ENTRY_PLACEHOLDER = "KB015"
DEVICE_PLACEHOLDER = "KB017"

#: The placeholder word; `kb new` writes it in the case a field's pattern allows.
PLACEHOLDER = "TODO"
_PLACEHOLDER = re.compile(rf"(?:{PLACEHOLDER}|{PLACEHOLDER.lower()})(?![A-Za-z0-9])")


def is_placeholder(text: str) -> bool:
    """True for `TODO`, `todo` and text starting with either as a word (`TODO: say why`)."""
    return _PLACEHOLDER.match(text) is not None


def _placeholders(data: Any) -> Iterator[Pointer]:
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


def _report(code: str, document: Document) -> Iterator[Diagnostic]:
    # Nearly every file has no placeholder: one scan of its text in C spares the walk.
    text = document.text
    # Two substring searches are a fifth of the cost of one search for either pattern.
    if PLACEHOLDER not in text and PLACEHOLDER.lower() not in text:
        return
    for pointer in _placeholders(document.data):
        yield document.error_at(
            code,
            pointer,
            f"{pointer_name(pointer)} is still a placeholder",
            "write the real value (the comment above the field says what it holds)",
        )


@rule(ENTRY_PLACEHOLDER, "entry-placeholder", Scope.ENTRY)
def entry_placeholders(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """No value of an entry is a placeholder left by `kb new`.

    ## What it checks
    That no string value of the entry is `TODO` or `todo`, or starts with either as a word
    (`TODO: say why`): the placeholders `kb new` writes in a skeleton.
    ## Why it matters
    A skeleton loads and passes the schema so that an author can check it as they go; a
    placeholder left in would publish a card with no content where a reader expects some.
    ## How to fix
    Replace the placeholder with the real value; the comment above the field says what it
    holds (its title and description in the schema, and its allowed values).
    ## Fails
    ```yaml
    title: "TODO: name the bottleneck"
    ```
    ## Passes
    ```yaml
    title: Decode GEMM over bf16 weights
    ```
    """
    return _report(ENTRY_PLACEHOLDER, entry.source)


@rule(DEVICE_PLACEHOLDER, "device-placeholder", Scope.DEVICE)
def device_placeholders(device: Device, context: Context) -> Iterable[Diagnostic]:
    """No value of a device is a placeholder left by `kb new --hardware`.

    ## What it checks
    That no string value of the device is `TODO` or `todo`, or starts with either as a word:
    the placeholders `kb new --hardware` writes in a skeleton.
    ## Why it matters
    Every roofline verdict reads the catalog; a device with a placeholder in it is a device
    whose figures nobody has sourced yet.
    ## How to fix
    Replace the placeholder with the real value, from a source the device lists.
    ## Fails
    ```yaml
    vendor: TODO
    ```
    ## Passes
    ```yaml
    vendor: Nobody
    ```
    """
    return _report(DEVICE_PLACEHOLDER, device.source)
