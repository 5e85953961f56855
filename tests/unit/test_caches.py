"""Caches keyed by what entries say are bounded: a large knowledge base, or a process that
lives long (`mkdocs serve`), would otherwise keep every text it ever read."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any

import bottleneck_kb

#: Parameters whose values the code chooses, never an entry: a schema's kind, one of its
#: definitions, one of its earlier versions, a member of the Dimension enum, whether rendered
#: prose keeps its links. A cache keyed only by these stays small.
CODE_CHOSEN = frozenset({"kind", "definition", "version", "dimension", "keep_links"})


def _caches() -> dict[str, tuple[int | None, list[str]]]:
    """Every functools cache the package defines: its maxsize and its parameters, by name."""
    found = {}
    for info in pkgutil.walk_packages(bottleneck_kb.__path__, "bottleneck_kb."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            cached: Any = value
            if hasattr(cached, "cache_info") and cached.__module__ == module.__name__:
                maxsize = cached.cache_parameters()["maxsize"]
                found[f"{module.__name__}.{name}"] = (
                    maxsize,
                    list(inspect.signature(cached).parameters),
                )
    return found


def test_every_cache_keyed_by_what_entries_say_is_bounded() -> None:
    caches = _caches()
    # The walk sees the caches that read entries' text, bounded or not.
    assert {
        "bottleneck_kb.evaluation.formulas._parse",
        "bottleneck_kb.records.quantity.parse_quantity",
    } <= caches.keys()

    unbounded = [
        f"{name}({', '.join(parameters)})"
        for name, (maxsize, parameters) in caches.items()
        if maxsize is None and not set(parameters) <= CODE_CHOSEN
    ]

    assert unbounded == []
