"""`kb fmt --upgrade`: a file written to an earlier released version of its schema, rewritten
to today's shape by one step per version, on ruamel.yaml's round-trip tree so that every
comment stays. A step keeps every value it is given and derives only what the earlier schema
itself said (v1 devices' interconnect bandwidth was "total of both directions"; an arXiv id
gives a paper's year); what only a person knows (a source's id, title, publisher, kind and
date read; a paper's first author) becomes a placeholder that `kb check` reports at its line.

What each version changed is the CHANGELOG's "Upgrading" section; the steps here are those
changes, written once."""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterator
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import CommentMark
from ruamel.yaml.tokens import CommentToken

from .. import schemas
from ..schemas import versions
from ..schemas.placeholders import PLACEHOLDER
from .key_order import branches

#: What an upgraded device's figure cites until a person names its source.
FIGURE_SOURCE = f"{PLACEHOLDER}: the id of the source (below) that gives this figure"
#: What a person supplies for each source of a version-1 device: today's keys a v1 source
#: lacked, each with what it holds.
SOURCE_PLACEHOLDERS = {
    "id": f"{PLACEHOLDER}: an id for this source, which the figures' source keys name",
    "title": f"{PLACEHOLDER}: the document's title",
    "url": None,  # kept from version 1
    "publisher": f"{PLACEHOLDER}: who published it",
    "kind": f"{PLACEHOLDER}: vendor or secondary",
    "read": f"{PLACEHOLDER}: the date it was read, YYYY-MM-DD",
}
FIRST_AUTHOR = f"{PLACEHOLDER}: the family name of the first author"
YEAR = f"{PLACEHOLDER}: the year of the version cited"


def _figure_keys(node: dict[str, Any], root: dict[str, Any]) -> list[str]:
    """The properties of `node` (a part of today's device schema) whose value is a figure: a
    mapping that requires a `value`, which version 1 wrote as that value alone."""
    found = []
    for key, sub in node.get("properties", {}).items():
        if any("value" in b.get("required", ()) for b in branches(sub, root)):
            found.append(key)
    return found


def _figure(value: str, direction: str | None) -> CommentedMap:
    figure = CommentedMap()
    figure["value"] = value
    if direction is not None:
        figure["direction"] = direction
    figure["source"] = FIGURE_SOURCE
    return figure


def _figures_in(mapping: CommentedMap, node: dict[str, Any], root: dict[str, Any]) -> None:
    for key in _figure_keys(node, root):
        if isinstance(mapping.get(key), str):
            # Version 1 defined the interconnect bandwidth as "total of both directions";
            # today every link bandwidth says which directions it counts.
            direction = "both_directions" if key == "interconnect_bandwidth" else None
            figure = _figure(mapping[key], direction)
            _move_comments(mapping, key, figure)
            mapping[key] = figure


def _move_comments(mapping: CommentedMap, key: str, figure: CommentedMap) -> None:
    """The comments ruamel keeps after the scalar at `key` moved into the `figure` that takes
    its place: the one at the end of the value's line to the end of its `value` line, the
    comment lines below it (those above the next key) to after the figure's last line, where
    they were. Left where they were, they would be written between the key and its mapping."""
    after = mapping.ca.items.get(key)
    token = after[2] if after and len(after) > 2 else None
    if token is None:
        return
    mapping.ca.items.pop(key)
    line, newline, rest = token.value.partition("\n")
    if line.strip():
        figure.yaml_add_eol_comment(line.strip(), "value")
    if rest:
        last = list(figure)[-1]
        figure.ca.items[last] = [None, None, CommentToken(newline + rest, CommentMark(0)), None]


def _device_1(tree: CommentedMap) -> None:
    """Version 1 to 2 (release 0.2.0): each figure a mapping with its value and the id of its
    source; each source with an id, title, publisher, kind and the date it was read, its
    version-1 `supports` text kept as a comment above it (it says which figures it gives)."""
    root = schemas.schema(schemas.HARDWARE)
    _figures_in(tree, root, root)
    peak = tree.get("peak_flops")
    if isinstance(peak, CommentedMap):
        _figures_in(peak, root["properties"]["peak_flops"], root)
    sources = tree.get("sources")
    if not isinstance(sources, CommentedSeq):
        return
    for index, old in enumerate(sources):
        if not isinstance(old, CommentedMap) or "id" in old:
            continue
        new = CommentedMap()
        for key, placeholder in SOURCE_PLACEHOLDERS.items():
            new[key] = old[key] if placeholder is None else placeholder
        supports = old.get("supports")
        sources[index] = new
        if isinstance(supports, str):
            sources.yaml_set_comment_before_after_key(
                index, before=f"version 1 'supports': {' '.join(supports.split())}", indent=2
            )


def _entry_1(tree: CommentedMap) -> None:
    """Version 1 to 2 (release 0.2.0): each reference with its first author and year; the
    year of an arXiv id is that of its YYMM."""
    lists = [tree.get("references")]
    workarounds = tree.get("workarounds")
    if isinstance(workarounds, CommentedSeq):
        lists += [w.get("references") for w in workarounds if isinstance(w, CommentedMap)]
    for references in lists:
        if not isinstance(references, CommentedSeq):
            continue
        for reference in references:
            if not isinstance(reference, CommentedMap):
                continue
            if "first_author" not in reference:
                reference.insert(1, "first_author", FIRST_AUTHOR)
            if "year" not in reference:
                arxiv = reference.get("arxiv")
                year = 2000 + int(arxiv[:2]) if isinstance(arxiv, str) else YEAR
                reference.insert(2, "year", year)


#: The step from each version of a kind to the next.
STEPS: dict[str, dict[int, Callable[[CommentedMap], None]]] = {
    schemas.HARDWARE: {1: _device_1},
    schemas.ENTRY: {1: _entry_1},
}


def upgrade_tree(kind: str, version: int, tree: CommentedMap) -> None:
    """Rewrite `tree`, a file of `kind` written to `version`, to today's version in place."""
    for step in range(version, versions.current_version(kind)):
        STEPS[kind][step](tree)


def scalars(data: Any) -> collections.Counter[str]:
    """Every scalar value of `data` (not its keys), counted: an upgrade keeps them all. The
    loader bounds the data's size and depth, so the walk is bounded too."""
    counted: collections.Counter[str] = collections.Counter()
    for value in _leaves(data):
        counted[repr(value)] += 1
    return counted


def _leaves(data: Any) -> Iterator[Any]:
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        else:
            yield value
