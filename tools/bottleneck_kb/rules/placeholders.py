"""Placeholders: what `kb new` and `kb fmt --upgrade` write where only the author knows the
answer, left in a file that passes the schema."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.codes import DEVICE_PLACEHOLDER, ENTRY_PLACEHOLDER
from ..core.diagnostics import Diagnostic
from ..records.device import Device
from ..records.entry import Entry
from ..schemas.placeholders import placeholder_errors
from . import Context, Scope, rule


@rule(ENTRY_PLACEHOLDER, "entry-placeholder", Scope.ENTRY)
def entry_placeholders(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """No value of an entry is a placeholder left by `kb new`.

    ## What it checks
    That no string value of the entry is `TODO` or `todo`, or starts with either as a word
    (`TODO: say why`): the placeholders `kb new` writes in a skeleton.
    An editor shows a placeholder where a set form belongs (a date, an id); it cannot show one in
    free text, which the schema leaves free so that it can hold any words.
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
    return placeholder_errors(ENTRY_PLACEHOLDER, entry.source)


@rule(DEVICE_PLACEHOLDER, "device-placeholder", Scope.DEVICE)
def device_placeholders(device: Device, context: Context) -> Iterable[Diagnostic]:
    """No value of a device is a placeholder left by `kb new --hardware`.

    ## What it checks
    That no string value of the device is `TODO` or `todo`, or starts with either as a word:
    the placeholders `kb new --hardware` writes in a skeleton.
    An editor shows a placeholder where a set form belongs (a date, an id); it cannot show one in
    free text, which the schema leaves free so that it can hold any words.
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
    return placeholder_errors(DEVICE_PLACEHOLDER, device.source)
