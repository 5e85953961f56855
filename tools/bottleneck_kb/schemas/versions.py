"""Schema versions: each shipped schema says its version (`x-version`), and the package keeps
the whole schema of each earlier released version of the entry and device schemas
(`versions/<kind>.<N>.schema.json`, as published then). Files carry no version: a file that
fails today's schema but passes an earlier one's whole schema was written to that version,
and is told how to upgrade (`kb fmt --upgrade`) instead of being given an error per field.

Shapes between releases are not versions: a version is what a release published."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from . import schema

#: The word a diagnostic names each kind's schema by.
KIND_WORDS = {"entry": "entry", "hardware": "device", "model": "model", "config": "configuration"}


def current_version(kind: str) -> int:
    """The version of `kind`'s schema this kb checks with."""
    version: int = schema(kind)["x-version"]
    return version


@cache
def earlier_schema(kind: str, version: int) -> dict[str, Any] | None:
    """The whole schema `kind` had at release `version`, as published then; None if the
    package keeps none (the first version of a kind has no earlier one)."""
    found = resources.files(__package__).joinpath("versions", f"{kind}.{version}.schema.json")
    if not found.is_file():
        return None
    loaded: dict[str, Any] = json.loads(found.read_text("utf-8"))
    return loaded


@cache
def _earlier_validators(kind: str) -> tuple[tuple[int, Any], ...]:
    """(version, fast validator) of each earlier version of `kind` kb keeps, newest first."""
    import jsonschema_rs

    found = []
    for version in range(current_version(kind) - 1, 0, -1):
        earlier = earlier_schema(kind, version)
        if earlier is not None:
            found.append((version, jsonschema_rs.Draft202012Validator(earlier)))
    return tuple(found)


def written_to(kind: str, data: Any) -> int | None:
    """The newest earlier version of `kind`'s schema whose whole schema `data` passes; None
    when it passes none (a file of today's shape with a mistake in it)."""
    for version, validator in _earlier_validators(kind):
        if validator.is_valid(data):
            return version
    return None
