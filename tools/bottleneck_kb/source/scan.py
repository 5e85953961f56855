"""Scans of libyaml's event stream, made before any node is composed: the constructs an entry
may not use (directives, anchors and aliases, tags) and the number of nodes.

Anchors and aliases are how the billion-laughs bomb is written, so they are refused before the
composer could expand one. Each scan is exact but costs a second parse, so it runs only where a
cheap look at the text says it could find something.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import yaml
from yaml._yaml import CParser

from ..core.codes import ALIAS, SYNTAX, TAG, TOO_LARGE
from ..core.diagnostics import error
from .positions import line_col
from .problems import MAX_NODES, Stop, libyaml_error, stop_at

# Where an anchor (&a), an alias (*a), a tag (!t, or a lone !) or a directive (%YAML) could
# stand: at a line start, after white space, or after a flow indicator or a colon. A match only
# means "look closer", at libyaml's events.
# One character class: an alternation here would make the scan of every file four times slower.
_MAYBE_EVENTS = re.compile(r"[&*!%]")
_NODE_START_BEFORE = frozenset(" \t\r\n[{,:")
_ANCHOR_WORDS = {"&": "anchor", "*": "alias"}
_NODE_EVENTS = (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent, yaml.AliasEvent)


def scan(text: str, display: str) -> None:
    """Stop at the first refused construct or at the node past MAX_NODES, where the text
    could hold one."""
    if _needs_event_scan(text):
        _refuse_by_events(text, display)
    # Every node takes a character, and all but the first one of these; a file with fewer
    # cannot have too many nodes, one with more is counted from the event stream first.
    if len(text) > MAX_NODES and sum(text.count(mark) for mark in ",:-[{?\n\r") > MAX_NODES:
        _refuse_too_many_nodes(text, display)


def _needs_event_scan(text: str) -> bool:
    """True when an anchor, alias, tag or directive may stand somewhere in `text`."""
    for match in _MAYBE_EVENTS.finditer(text):
        at = match.start()
        if at and text[at - 1] not in _NODE_START_BEFORE:
            continue  # inside a word: '45%', 'Hello!'
        if match.group() in "&*" and text[at + 1 : at + 2].strip() == "":
            continue  # '2 * k' is arithmetic; an anchor or alias has a name
        return True
    return False


def _events(text: str, display: str) -> Iterator[Any]:
    """libyaml's events for `text`, up to the end of the stream; YAML errors located."""
    parser = CParser(text)
    try:
        while type(event := parser.get_event()) is not yaml.StreamEndEvent:
            yield event
    except yaml.YAMLError as exc:
        raise libyaml_error(text, exc, display) from None
    finally:
        parser.dispose()


def _refuse_by_events(text: str, display: str) -> None:
    """Stop at the first anchor, alias, tag or directive, found exactly from libyaml's
    events. (The composer hides anchors, and resolves a lone `!` as if it were absent.)"""
    for event in _events(text, display):
        kind = type(event)
        if kind is yaml.DocumentStartEvent and (event.version or event.tags):
            raise stop_at(
                SYNTAX,
                display,
                event.start_mark,
                "YAML directives (%YAML, %TAG) are not allowed",
                "remove the line: entries are read as YAML 1.2, whatever it says",
            )
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            sign = "*" if kind is yaml.AliasEvent else "&"
            # The event starts at its tag, if any; point at the anchor itself.
            at = text.find(f"{sign}{anchor}", event.start_mark.index)
            line, col = line_col(text, at if at >= 0 else event.start_mark.index)
            raise Stop(
                error(
                    ALIAS,
                    display,
                    line,
                    col,
                    f"{_ANCHOR_WORDS[sign]} '{sign}{anchor}' is not allowed",
                    "write the value out in full; anchors and aliases are refused",
                )
            )
        tag = getattr(event, "tag", None)
        if tag is not None:
            raise stop_at(
                TAG,
                display,
                event.start_mark,
                f"tag '{tag}' is not allowed",
                "remove the tag; values are plain strings, numbers and lists",
            )


def _refuse_too_many_nodes(text: str, display: str) -> None:
    """Stop at the first node past MAX_NODES, without composing the tree."""
    nodes = 0
    for event in _events(text, display):
        if type(event) in _NODE_EVENTS:
            nodes += 1
            if nodes > MAX_NODES:
                raise stop_at(
                    TOO_LARGE, display, event.start_mark, f"more than {MAX_NODES:,} keys and values"
                )
