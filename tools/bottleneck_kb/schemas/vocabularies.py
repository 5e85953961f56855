"""The vocabularies the schemas hold, read by the rest of kb: ids and namespaces, the values
of a `$defs` list, the shared quantities with their units, the default dtype and the verdicts
bound_by may name. Code never keeps its own list of dtypes, classes, verdicts or expectation
keys, so a value added to a schema works in every command."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any

from ..core.text import suggest
from . import ENTRY, schema
from .words import BUILT_IN, Words


def documented(node: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """Each allowed value of a documented vocabulary with its title and description: from a
    `oneOf` of consts, or from an `enum` with `markdownEnumDescriptions` written
    "Title. Description." (the form editors show beside each value)."""
    if "oneOf" in node:
        return {
            o["const"]: (o.get("title", o["const"]), o.get("description", ""))
            for o in node["oneOf"]
        }
    said = node.get("markdownEnumDescriptions") or [""] * len(node["enum"])
    found = {}
    for value, text in zip(node["enum"], said, strict=True):
        title, _, description = text.partition(". ")
        found[value] = (title or str(value), description)
    return found


def _consts(node: Mapping[str, Any]) -> tuple[str, ...]:
    """The values of a documented vocabulary: a `oneOf` of consts, or an `enum`."""
    if "oneOf" in node:
        return tuple(option["const"] for option in node["oneOf"])
    return tuple(node["enum"])


def is_id(kind: str, text: str) -> bool:
    """Whether `text` has the form of an id of `kind` (its pattern and length, from the
    schema)."""
    id_schema = schema(kind)["properties"]["id"]
    return len(text) <= id_schema.get("maxLength", len(text)) and bool(
        re.fullmatch(id_schema["pattern"], text)
    )


def unknown_namespace(entry_id: str, words: Words = BUILT_IN) -> tuple[str, str] | None:
    """(message, did-you-mean) when the namespace of `entry_id` is not one the entry schema
    documents (with a knowledge base's own `words`), else None. The namespaces suggested are
    those open to entries."""
    namespace = entry_id.partition("/")[0]
    if namespace in vocabulary(ENTRY, "namespace", words):
        return None
    return f"'{namespace}' is not a namespace", suggest(
        namespace, open_namespaces(words), "namespaces"
    )


@lru_cache(maxsize=64)
def open_namespaces(words: Words = BUILT_IN) -> tuple[str, ...]:
    """The namespaces a new entry may take: not those the schema marks `x-reserved` (kb's own
    test fixtures), which `kb check` reads but `kb new` does not offer."""
    options = schema(ENTRY, words)["$defs"]["namespace"]["oneOf"]
    return tuple(option["const"] for option in options if not option.get("x-reserved"))


@lru_cache(maxsize=64)
def vocabulary(kind: str, definition: str, words: Words = BUILT_IN) -> tuple[str, ...]:
    """The values `$defs/<definition>` of `kind`'s schema allows (namespaces, device figures),
    with a knowledge base's own `words`."""
    return _consts(schema(kind, words)["$defs"][definition])


def built_in_words() -> dict[str, dict[str, tuple[str, str]]]:
    """kb's own namespaces and classes, each with its title and description: what a knowledge
    base's kb.yaml may not redefine."""
    entry = schema(ENTRY)
    return {
        "namespaces": documented(entry["$defs"]["namespace"]),
        "classes": documented(entry["properties"]["class"]),
    }


@cache
def shared_quantities() -> dict[str, tuple[str, str | None]]:
    """The quantities several cards share (`$defs/quantity` of the entry schema), each with
    its unit and the name a deployment gives it (None where none does)."""
    return {
        row["const"]: (row["x-unit"], row.get("x-deployment"))
        for row in schema(ENTRY)["$defs"]["quantity"]["oneOf"]
    }


@cache
def default_dtype() -> str:
    """The dtype of an entry that names none."""
    default: str = schema(ENTRY)["properties"]["arithmetic_intensity"]["properties"]["dtype"][
        "default"
    ]
    return default


@cache
def bound_by_values() -> tuple[str, ...]:
    """What an entry can claim to be bound by: the names of the roofs."""
    return _consts(schema(ENTRY)["properties"]["bound_by"])
