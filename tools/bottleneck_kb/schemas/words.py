"""A knowledge base's own words: the namespaces and classes its kb.yaml adds to the entry
schema's built-in ones, for families of bottlenecks kb does not have. Each is a name under the
built-in pattern, a title and a description, written into the schema as kb's own words are
(a `oneOf` const for a namespace, an `enum` value with its "Title. Description." for a
class), so that `kb check`, `kb new`, the site and the published schema all read one list."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Word:
    """One word a knowledge base adds: its name, title and description."""

    name: str
    title: str
    description: str


@dataclass(frozen=True, slots=True)
class Words:
    """The namespaces and classes a knowledge base adds; none by default."""

    namespaces: tuple[Word, ...] = ()
    classes: tuple[Word, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.namespaces or self.classes)


#: kb's own words only: what a knowledge base without kb.yaml (or without these keys) reads.
BUILT_IN = Words()


def with_words(entry_schema: dict[str, Any], words: Words) -> dict[str, Any]:
    """The entry schema with `words` after its own namespaces and classes, and the namespaces
    open to entries as the `examples` of its `id` (`gemm/`, ...), which editors offer as
    completions: the namespace is the part of an id no pattern can suggest."""
    extended = copy.deepcopy(entry_schema)
    namespace = extended["$defs"]["namespace"]
    namespace["oneOf"] += [
        {"const": w.name, "title": w.title, "description": w.description} for w in words.namespaces
    ]
    extended["properties"]["id"]["examples"] = [
        f"{option['const']}/" for option in namespace["oneOf"] if not option.get("x-reserved")
    ]
    cls = extended["properties"]["class"]
    said = [f"{w.title}. {w.description}" for w in words.classes]
    cls["enum"] = [*cls["enum"], *(w.name for w in words.classes)]
    for key in ("markdownEnumDescriptions", "enumDescriptions"):
        if key in cls:
            cls[key] = [*cls[key], *said]
    return extended
