"""Where a part of a file was written: a Document maps a pointer into its data back to a line
and column, and a character of an escaped or folded string back to where it stands in the file.

Positions are looked up only when asked for: nearly every value of nearly every file is never
reported, and recording them all would cost more than parsing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..diagnostics import Diagnostic, error

Pointer = tuple[str | int, ...]

BREAK = re.compile(r"\r\n|\r|\n")
_QUOTES = ("'", '"')
_ESCAPE_WIDTH = {"x": 4, "u": 6, "U": 10}


@dataclass(frozen=True, slots=True)
class Document:
    """A file's data, and the node tree it was built from, which knows where each part of it
    was written."""

    path: str
    data: dict[str, Any]
    root: Any = field(repr=False, compare=False)
    text: str = field(default="", repr=False, compare=False)

    def value_at(self, pointer: Pointer) -> tuple[int, int]:
        """Line and column of the value at `pointer`, or of its nearest written ancestor."""
        _, value = self._nodes(pointer)
        return value.start_mark.line + 1, content_column(value)

    def key_at(self, pointer: Pointer) -> tuple[int, int]:
        """Line and column of the key that introduces `pointer` (the item, for list items)."""
        key, _ = self._nodes(pointer)
        return key.start_mark.line + 1, key.start_mark.column + 1

    def error_at(
        self,
        code: str,
        pointer: Pointer,
        message: str,
        hint: str | None = None,
        *,
        key: bool = False,
        offset: int | None = None,
    ) -> Diagnostic:
        """An error at the value (or its `key`, or the `offset`-th character of the string)
        at `pointer`: how every check says where a problem is."""
        if offset is not None:
            line, col = self.offset_at(pointer, offset)
        else:
            line, col = self.key_at(pointer) if key else self.value_at(pointer)
        return error(code, self.path, line, col, message, hint)

    def offset_at(self, pointer: Pointer, offset: int) -> tuple[int, int]:
        """Line and column of the `offset`-th character of the string at `pointer`, counted in
        its value as read (after escapes and line folding), mapped back to the file."""
        line, col = self.value_at(pointer)
        return source_position(self.text, line, col, offset)

    def _nodes(self, pointer: Pointer) -> tuple[Any, Any]:
        """(key node, value node) at `pointer`, stopping at the deepest part that exists."""
        key = value = self.root
        for part in pointer:
            if type(value) is yaml.MappingNode:
                found = next((pair for pair in value.value if pair[0].value == part), None)
                if found is None:
                    break
                key, value = found
            elif type(value) is yaml.SequenceNode and isinstance(part, int):
                if not 0 <= part < len(value.value):
                    break
                key = value = value.value[part]
            else:
                break
        return key, value


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of character `offset`, counting CRLF, CR and LF as breaks."""
    before = text[:offset]
    lines = before.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return len(lines), len(lines[-1]) + 1


def content_column(node: Any) -> int:
    """1-based column of a node's content: inside the quotes of a quoted scalar, so that an
    offset inside the text (a formula's column) lands where the reader sees it."""
    column: int = node.start_mark.column + 1
    if type(node) is yaml.ScalarNode and node.style in _QUOTES:
        column += 1
    return column


def source_position(text: str, line: int, col: int, offset: int) -> tuple[int, int]:
    """Where the `offset`-th character of a flow scalar whose content starts at (line, col)
    was written: escapes (double quotes), doubled quotes (single quotes) and folded line
    breaks are undone. Block scalars (| and >) are placed at their start."""
    starts = [0]
    for match in BREAK.finditer(text):
        starts.append(match.end())
    if line > len(starts):
        return line, col
    start = starts[line - 1] + col - 1
    quote = text[start - 1] if start > 0 and text[start - 1] in _QUOTES else ""
    if not quote and text[start : start + 1] in ("|", ">"):
        return line, col
    index, produced, end = start, 0, len(text)
    while index < end and produced < offset:
        char = text[index]
        if quote == '"' and char == "\\":
            following = text[index + 1 : index + 2]
            if following in ("\r", "\n"):  # an escaped line break produces nothing
                index = _skip_indent(text, _after_break(text, index + 1))
                continue
            index += _ESCAPE_WIDTH.get(following, 2)
        elif quote == "'" and text.startswith("''", index):
            index += 2
        elif char in " \t":
            run = index
            while run < end and text[run] in " \t":
                run += 1
            if run < end and text[run] in "\r\n":  # trailing white space is folded away
                index = run
                continue
            index += 1
        elif char in "\r\n":
            blank = 0
            index = _skip_indent(text, _after_break(text, index))
            while index < end and text[index] in "\r\n":
                blank += 1
                index = _skip_indent(text, _after_break(text, index))
            produced += max(blank, 1)
            continue
        else:
            index += 1
        produced += 1
    return line_col(text, index)


def _after_break(text: str, index: int) -> int:
    return index + 2 if text.startswith("\r\n", index) else index + 1


def _skip_indent(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t":
        index += 1
    return index
