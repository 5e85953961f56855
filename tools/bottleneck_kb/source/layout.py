"""The block layout that `kb fmt` writes and nearly every entry keeps, read line by line in
Python: the same data as libyaml and the builder give, in about half their time, and no node
tree. The line of each key and item is kept, from which `Layout.marks` says where libyaml's
nodes would start; libyaml composes the tree only for a pointer into a flow collection.

It reads only what it can read exactly, and gives up (None) on anything else, so that libyaml
and the builder read that file and say what is wrong: block mappings and sequences, keys of
letters, digits, `_` and `-`, plain, single- and double-quoted scalars on one line, flow lists
and mappings of plain scalars on one line, and `|`, `|-`, `>` and `>-` block scalars without
more-indented lines. Printable ASCII only, no line ending in a space, no comment after a
value, no anchors, tags or directives (an indicator that begins a value gives up). Plain
scalars go through the scalar rules (`scalars`), and any problem they find gives up too: the
builder reports it where it stands. tests/unit/test_source_layout.py holds that whatever this
reads, libyaml and the builder read the same, without a warning.
"""

from __future__ import annotations

import re
from typing import Any

from .document import Marks
from .problems import MAX_DEPTH, MAX_KEY_LENGTH, MAX_NODES
from .scalars import KNOWN_KEYS, KNOWN_VALUES, certainly_text, remember_key, remember_value

# `key:` or `key: value`, after the indentation.
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: (?! )(.*))?\Z")
# What may not begin a plain scalar, or stand in one, in this layout.
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
# What ends a plain scalar in a flow collection, or could (the comma is split on).
_FLOW_STOP = re.compile(r"[\[\]{}:#]")
_BLOCK_HEADERS = frozenset(("|", "|-", ">", ">-"))
#: Flow lists already read: text -> items. Entries repeat the same few (the devices a check
#: names, the ends of common ranges). Bounded, as KNOWN_VALUES is.
KNOWN_FLOW_LISTS: dict[str, tuple[Any, ...]] = {}
_MOST_KNOWN_FLOW_LISTS = 4096
_LONGEST_KNOWN_FLOW_LIST = 256
_UNKNOWN = object()


_END = -2


class GiveUp(Exception):
    """The file is outside the layout: libyaml reads it."""


def read_layout(text: str) -> Layout | None:
    """The data of `text`, and where its parts stand, or None when it is not in the layout
    this reads."""
    # Tabs, carriage returns, controls, anything outside ASCII and a space that ends a line
    # each have rules of their own in YAML. A file has at most a node a character, so one no
    # longer than MAX_NODES needs no count.
    if (
        len(text) > MAX_NODES
        or not text.isascii()
        or not text.replace("\n", "").isprintable()
        or " \n" in text
        or text.endswith(" ")
    ):
        return None
    reader = _Reader(text.split("\n"))
    try:
        data = reader.document()
    except GiveUp:
        return None
    return Layout(data, reader.lines, reader.where)


class Layout:
    """A file's data as the reader read it, and the lines where its keys and items stand:
    enough to say where libyaml would have put each node, without composing them."""

    __slots__ = ("data", "lines", "where")

    def __init__(self, data: dict[str, Any], lines: list[str], where: dict[int, Any]) -> None:
        self.data = data
        self.lines = lines
        #: id() of each block mapping -> (its indentation, {key: line});
        #: of each block sequence -> (its indentation, [line of each item], [its column]).
        #: Flow collections are not here: a pointer into one is left to libyaml.
        self.where = where

    def marks(self, pointer: tuple[str | int, ...]) -> Marks | None:
        """Where libyaml's nodes for `pointer` start, found as `Document` walks the node
        tree: down to the deepest part that exists. None below a flow collection."""
        where = self.where
        node: Any = self.data
        key = value = (next(iter(where[id(node)][1].values())), 0)
        parent = -1
        for part in pointer:
            shape = where.get(id(node))
            if shape is None:
                if isinstance(node, (dict, list)):
                    return None  # a flow collection
                break
            # The walk follows what the text holds (the shapes); data changed since it was
            # read is left to libyaml's walk, which reads the text too.
            if isinstance(node, dict):
                if not isinstance(part, str) or (line := shape[1].get(part)) is None:
                    break
                if part not in node:
                    return None
                parent = shape[0]
                key = (line, parent)
                node = node[part]
                value = self._start(node) or (line, parent + len(part) + 2)
            else:
                if not isinstance(part, int) or not 0 <= part < len(shape[1]):
                    break
                if part >= len(node):
                    return None
                parent = shape[0]
                key = value = (shape[1][part], shape[2][part])
                node = node[part]
        line, column = value
        style = self.lines[line][column]
        return Marks(key, value, style if style in "'\"|>" else "", parent)

    def offset(self, line: int, column: int) -> int:
        """The offset in the text of a 0-based line and column (lines end in `\n` alone)."""
        return sum(len(above) + 1 for above in self.lines[:line]) + column

    def _start(self, node: Any) -> tuple[int, int] | None:
        """Where a block collection starts: its first key or dash."""
        shape = self.where.get(id(node))
        if shape is None:
            return None
        if isinstance(node, dict):
            return next(iter(shape[1].values())), shape[0]
        return shape[1][0], shape[0]


class _Reader:
    __slots__ = ("at", "indents", "lines", "where")

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.where: dict[int, Any] = {}
        # Each line's indentation, -1 for a blank or comment line (which only a block scalar
        # reads), and _END after the last.
        self.indents = [
            len(line) - len(content) if (content := line.lstrip(" ")) and content[0] != "#" else -1
            for line in lines
        ]
        self.indents.append(_END)
        self.at = 0

    def document(self) -> dict[str, Any]:
        if self._next() != 0:
            raise GiveUp
        # The top-level mapping ends only at the end: a line less indented than 0 is none.
        return self._mapping(0, 0, None)

    def _next(self) -> int:
        """Move to the next line that is not blank or a comment: its indentation (_END past
        the last line)."""
        indents = self.indents
        at = self.at
        while indents[at] == -1:
            at += 1
        self.at = at
        return indents[at]

    def _mapping(self, indent: int, depth: int, first: str | None) -> dict[str, Any]:
        """A block mapping whose keys stand at `indent`; `first` is the content of its first
        line when that line begins with a sequence's dash."""
        if depth >= MAX_DEPTH:
            raise GiveUp
        mapping: dict[str, Any] = {}
        key_lines: dict[str, int] = {}
        self.where[id(mapping)] = (indent, key_lines)
        lines = self.lines
        match = _KEY.match(first) if first is not None else _KEY.match(lines[self.at], indent)
        while True:
            if match is None:
                raise GiveUp
            key, rest = match.groups()
            if key in mapping or (key not in KNOWN_KEYS and not remember_key(key, MAX_KEY_LENGTH)):
                raise GiveUp
            key_lines[key] = self.at
            self.at += 1
            if rest is None:
                following = self._next()
                if following > indent:
                    mapping[key] = self._block(following, depth + 1)
                elif following == indent and lines[self.at].startswith("- ", indent):
                    mapping[key] = self._sequence(indent, depth + 1)
                else:
                    raise GiveUp  # an empty value is null: the builder says so
            elif certainly_text(rest) and rest[-1] != ":" and ": " not in rest and " #" not in rest:
                mapping[key] = rest  # most values: what `_plain` makes of them, sooner
            elif (value := KNOWN_VALUES.get(rest, _UNKNOWN)) is not _UNKNOWN:
                # Most others. Only `_typed` remembers a value, of a text that `_plain` or
                # `_flow_item` let through: neither lets through a text `_inline` would
                # read otherwise here (one that begins with an indicator, ends in `:`, or
                # holds `: ` or ` #`).
                mapping[key] = value
            else:
                mapping[key] = self._inline(rest, indent, depth)
            following = self.indents[self.at]
            if following == -1:  # most lines are followed by another: no call for those
                following = self._next()
            if following != indent:
                if following > indent:
                    raise GiveUp
                return mapping
            match = _KEY.match(lines[self.at], indent)

    def _block(self, indent: int, depth: int) -> Any:
        if self.lines[self.at].startswith("- ", indent):
            return self._sequence(indent, depth)
        return self._mapping(indent, depth, None)

    def _sequence(self, indent: int, depth: int) -> list[Any]:
        if depth >= MAX_DEPTH:
            raise GiveUp
        items: list[Any] = []
        item_lines: list[int] = []
        item_columns: list[int] = []
        self.where[id(items)] = (indent, item_lines, item_columns)
        lines = self.lines
        while True:
            line = lines[self.at]
            column = indent + 2
            while line.startswith(" ", column):
                column += 1
            item_lines.append(self.at)
            item_columns.append(column)
            content = line[column:]
            if _KEY.match(content):
                items.append(self._mapping(column, depth + 1, content))
            else:
                self.at += 1
                items.append(self._inline(content, indent, depth))
            following = self._next()
            if following != indent or not lines[self.at].startswith("- ", indent):
                if following > indent:
                    raise GiveUp
                return items

    def _inline(self, text: str, parent: int, depth: int) -> Any:
        """A value written after `key: ` or `- ` on the line just passed, in a collection at
        `depth`; a block scalar reads the lines below it, which must be indented past
        `parent`."""
        first = text[0]
        if first in _INDICATORS:
            if first == '"':
                if text[-1] != '"' or len(text) < 2 or '"' in text[1:-1] or "\\" in text:
                    raise GiveUp
                return text[1:-1]
            if first == "'":
                inner = text[1:-1]
                if text[-1] != "'" or len(text) < 2 or "'" in inner.replace("''", ""):
                    raise GiveUp
                return inner.replace("''", "'")
            if first in "[{":
                if depth + 1 >= MAX_DEPTH:
                    raise GiveUp
                return self._flow_list(text) if first == "[" else self._flow_mapping(text)
            if text in _BLOCK_HEADERS:
                return self._block_scalar(text, parent)
            if first != "-" or text[1:2] in ("", " "):
                raise GiveUp
        return _plain(text)

    def _flow_list(self, text: str) -> list[Any]:
        if text[-1] != "]":
            raise GiveUp
        known = KNOWN_FLOW_LISTS.get(text)
        if known is not None:
            return list(known)
        inner = text[1:-1]
        if _FLOW_STOP.search(inner):
            raise GiveUp
        if not inner.strip(" "):
            if inner:
                raise GiveUp
            items: list[Any] = []
        else:
            items = [_flow_item(item) for item in inner.split(",")]
        if len(text) <= _LONGEST_KNOWN_FLOW_LIST and len(KNOWN_FLOW_LISTS) < _MOST_KNOWN_FLOW_LISTS:
            KNOWN_FLOW_LISTS[text] = tuple(items)
        return items

    def _flow_mapping(self, text: str) -> dict[str, Any]:
        if text[-1] != "}":
            raise GiveUp
        inner = text[1:-1]
        mapping: dict[str, Any] = {}
        if not inner:
            return mapping
        for pair in inner.split(","):
            key, colon, value = pair.strip(" ").partition(": ")
            if not colon or _KEY.match(key + ":") is None or key in mapping:
                raise GiveUp
            if key not in KNOWN_KEYS and not remember_key(key, MAX_KEY_LENGTH):
                raise GiveUp
            if _FLOW_STOP.search(value):
                raise GiveUp
            mapping[key] = _flow_item(value)
        return mapping

    def _block_scalar(self, header: str, parent: int) -> str:
        """The text of a `|`, `|-`, `>` or `>-` block whose lines stand past `parent`."""
        lines, indents = self.lines, self.indents
        start = self.at
        first = lines[start] if start < len(lines) else ""
        indent = len(first) - len(first.lstrip(" "))
        if not first or indent <= parent:
            # Nothing below the header, or a blank line first: libyaml's rules for leading
            # blank lines (indentation found from a later line) are its own.
            raise GiveUp
        # The block runs to its last line indented at least as far; blank lines and lines
        # that look like comments inside it are its text.
        at = end = start
        while True:
            found = indents[at]
            if found >= indent or (found == -1 and lines[at].startswith(" " * indent)):
                end = at + 1
            elif found != -1 or lines[at]:
                break
            at += 1
        self.at = end
        body = [line[indent:] for line in lines[start:end]]
        if header[0] == "|":
            value = "\n".join(body)
        elif any(line[:1] == " " for line in body):
            raise GiveUp  # a more-indented line keeps its breaks when folded
        elif "" not in body:
            value = " ".join(body)
        else:
            value = "".join(
                ("\n" if not line else line if not i or not body[i - 1] else " " + line)
                for i, line in enumerate(body)
            )
        # Clipping keeps the last line break, if the file has one after the text.
        return value if header[-1] == "-" or end == len(lines) else value + "\n"


def _plain(text: str) -> Any:
    """A plain scalar written after `key: ` or `- `."""
    if text[-1] == ":" or ": " in text or " #" in text:
        raise GiveUp
    return _typed(text)


def _flow_item(item: str) -> Any:
    """An item of a flow collection, which holds none of _FLOW_STOP (so none of the
    sequences `_plain` looks for either)."""
    text = item.strip(" ")
    if not text or (text[0] in _INDICATORS and (text[0] != "-" or text[1:2] in ("", " "))):
        raise GiveUp
    return _typed(text)


def _typed(text: str) -> Any:
    """What the scalar rules make of a plain scalar; one they find a problem with is the
    builder's to report."""
    if certainly_text(text):
        return text
    value = KNOWN_VALUES.get(text, _UNKNOWN)
    if value is not _UNKNOWN:
        return value
    value, problem = remember_value(text)
    if problem is not None:
        raise GiveUp
    return value
