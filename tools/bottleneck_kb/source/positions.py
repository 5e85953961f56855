"""Where a part of a file was written: a Document maps a pointer into its data back to a line
and column, and a character of an escaped or folded string, or of a block scalar (`|`, `>`),
back to where it stands in the file.

Positions are worked out only when asked for, from libyaml's node tree or from the lines the
layout reader kept (`layout.Layout.marks`), which say the same: nearly every value of nearly
every file is never reported, and recording line and column of each would cost more than
parsing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..diagnostics import Diagnostic, error

Pointer = tuple[str | int, ...]

BREAK = re.compile(r"\r\n|\r|\n")
_QUOTES = ("'", '"')
_BLOCK = ("|", ">")
_ESCAPE_WIDTH = {"x": 4, "u": 6, "U": 10}


class Marks(NamedTuple):
    """Where a pointer's key and value start (0-based line and column), the value's scalar
    style ("" for plain text and collections) and the column of the collection holding it
    (-1 at the root), as libyaml's nodes would say; and the value's offset in the text (None
    from a layout, which works it out when asked: `Layout.offset`)."""

    key: tuple[int, int]
    value: tuple[int, int]
    style: str
    parent: int
    offset: int | None = None


@dataclass(frozen=True, slots=True)
class Document:
    """A file's data, and where each part of it was written: in the node tree it was built
    from, or in the `layout` it was read in (the tree is then composed only if a pointer
    leads into a flow collection)."""

    path: str
    data: dict[str, Any]
    root: Any = field(repr=False, compare=False)
    text: str = field(default="", repr=False, compare=False)
    layout: Any = field(default=None, repr=False, compare=False)

    def value_at(self, pointer: Pointer) -> tuple[int, int]:
        """Line and column of the value at `pointer`, or of its nearest written ancestor."""
        marks = self._marks(pointer)
        line, column = marks.value
        return line + 1, column + 1 + (marks.style in _QUOTES)

    def key_at(self, pointer: Pointer) -> tuple[int, int]:
        """Line and column of the key that introduces `pointer` (the item, for list items)."""
        line, column = self._marks(pointer).key
        return line + 1, column + 1

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
        marks = self._marks(pointer)
        if marks.style in _BLOCK:
            # A block scalar's indentation indicator counts from the block collection that
            # holds it (libyaml's indent), which starts at that collection's first key or dash.
            start = marks.offset
            if start is None:
                start = self.layout.offset(*marks.value)
            _, origins = read_block_scalar(self.text, start, marks.parent)
            return line_col(self.text, origins[min(offset, len(origins) - 1)])
        line, col = self.value_at(pointer)
        return flow_scalar_position(self.text, line, col, offset)

    def _marks(self, pointer: Pointer) -> Marks:
        """Where the key and value at `pointer` start, from the layout the file was read in
        or from its node tree."""
        if self.layout is not None:
            marks: Marks | None = self.layout.marks(pointer)
            if marks is not None:
                return marks
        import yaml  # loaded with the tree: a file read in its layout has none

        parent, key, value = self._nodes(pointer)
        style = (value.style or "") if type(value) is yaml.ScalarNode else ""
        return Marks(
            (key.start_mark.line, key.start_mark.column),
            (value.start_mark.line, value.start_mark.column),
            style,
            -1 if parent is None else parent.start_mark.column,
            value.start_mark.index,
        )

    def _tree(self) -> Any:
        """The root node; composed from the text the first time it is needed, for a file read
        in its layout."""
        if self.root is None:
            # Imported here: it is needed only for a pointer into a flow collection of a file
            # read without a tree, and the composer's module imports this one (via problems).
            from .composer import compose

            object.__setattr__(self, "root", compose(self.text, self.path))
        return self.root

    def _nodes(self, pointer: Pointer) -> tuple[Any, Any, Any]:
        """(collection holding it, key node, value node) at `pointer`, stopping at the deepest
        part that exists; the collection is None at the root."""
        import yaml  # loaded with the tree

        parent: Any = None
        key = value = self._tree()
        for part in pointer:
            if type(value) is yaml.MappingNode:
                found = next((pair for pair in value.value if pair[0].value == part), None)
                if found is None:
                    break
                parent, (key, value) = value, found
            elif type(value) is yaml.SequenceNode and isinstance(part, int):
                if not 0 <= part < len(value.value):
                    break
                parent, key = value, value.value[part]
                value = key
            else:
                break
        return parent, key, value


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of character `offset`, counting CRLF, CR and LF as breaks."""
    before = text[:offset]
    lines = before.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return len(lines), len(lines[-1]) + 1


def content_column(node: Any) -> int:
    """1-based column of a node's content: inside the quotes of a quoted scalar, so that an
    offset inside the text (a formula's column) lands where the reader sees it."""
    import yaml  # a node is libyaml's: loaded with it

    column: int = node.start_mark.column + 1
    if type(node) is yaml.ScalarNode and node.style in _QUOTES:
        column += 1
    return column


def flow_scalar_position(text: str, line: int, col: int, offset: int) -> tuple[int, int]:
    """Where the `offset`-th character of a flow scalar (plain or quoted) whose content starts
    at (line, col) was written: escapes (double quotes), doubled quotes (single quotes) and
    folded line breaks are undone. Block scalars are read by `read_block_scalar`."""
    starts = [0]
    for match in BREAK.finditer(text):
        starts.append(match.end())
    if line > len(starts):
        return line, col
    start = starts[line - 1] + col - 1
    quote = text[start - 1] if start > 0 and text[start - 1] in _QUOTES else ""
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


def read_block_scalar(text: str, start: int, parent_indent: int) -> tuple[str, list[int]]:
    """The value of the block scalar whose indicator (`|` or `>`) is `text[start]`, read as
    libyaml reads it, and where each of its characters came from: the index in `text` of the
    character that produced it, then one more index for the end of the value, just after its
    last content character (at the indicator if it has none). `parent_indent` is the 0-based
    column of the block collection that holds the scalar (-1 at the top), which an explicit
    indentation indicator counts from.

    A line break of the value comes from the break in the file that made it; a break that
    `>` folds into a space is placed at the end of the preceding line's content, where that
    break is written (not at the start of the next line, which is indentation). Only text
    that libyaml accepted is read: its line breaks are CRLF, CR or LF (the loader refuses NEL
    and the Unicode separators), and no tab stands in an indentation."""
    literal = text[start] == "|"
    index = start + 1
    chomping, increment = "", 0
    # A chomping indicator and an indentation digit, in either order.
    while index < len(text) and text[index] in "+-123456789":
        if text[index] in "+-":
            chomping = text[index]
        else:
            increment = int(text[index])
        index += 1
    header_end = BREAK.search(text, index)  # past white space and a comment
    if header_end is None:
        return "", [start]
    value: list[str] = []
    origins: list[int] = []
    indent = max(parent_indent, 0) + increment if increment else 0
    index, column, widest, empty_lines = _empty_lines(text, header_end.end(), indent)
    if not indent:  # the widest leading indentation, at least one more than the parent's
        indent = max(widest, parent_indent + 1, 1)
    content_end = start
    pending_break: int | None = None  # the break after the previous content line
    previous_starts_blank = False
    while column == indent and index < len(text):
        # A line starting with white space (more indented, or a tab) keeps the breaks on
        # either side of it, even in `>`.
        starts_blank = text[index] in " \t"
        if pending_break is not None:
            if literal or previous_starts_blank or starts_blank:
                value.append("\n")
                origins.append(pending_break)
            elif not empty_lines:  # empty lines between stand for the break; alone, a space
                value.append(" ")
                origins.append(pending_break)
        for empty_line in empty_lines:
            value.append("\n")
            origins.append(empty_line)
        previous_starts_blank = starts_blank
        line_end = BREAK.search(text, index)
        content_end = line_end.start() if line_end else len(text)
        value.append(text[index:content_end])
        origins.extend(range(index, content_end))
        if line_end is None:
            pending_break, empty_lines = None, []
            break
        pending_break = content_end
        index, column, _, empty_lines = _empty_lines(text, line_end.end(), indent)
    # Chomping: strip (-) keeps no final break, clip the last content line's, keep (+) all.
    if chomping != "-" and pending_break is not None:
        value.append("\n")
        origins.append(pending_break)
    if chomping == "+":
        value.extend("\n" * len(empty_lines))
        origins.extend(empty_lines)
    origins.append(content_end)
    return "".join(value), origins


def _empty_lines(text: str, index: int, indent: int) -> tuple[int, int, int, list[int]]:
    """From the start of a line, libyaml's walk over a block scalar's indentation and empty
    lines: (index of the first character past them, its column, the widest indentation seen,
    where each empty line's break stands). With `indent` 0 (not known yet) every leading
    space is indentation; otherwise up to `indent` spaces are, and further ones are content."""
    breaks: list[int] = []
    widest = 0
    while True:  # each turn goes past an empty line's break, or returns
        line_start = index
        limit = len(text) if not indent else min(len(text), line_start + indent)
        while index < limit and text[index] == " ":
            index += 1
        widest = max(widest, index - line_start)
        if index == len(text) or text[index] not in "\r\n":
            return index, index - line_start, widest, breaks
        breaks.append(index)
        index = _after_break(text, index)


def _after_break(text: str, index: int) -> int:
    return index + 2 if text.startswith("\r\n", index) else index + 1


def _skip_indent(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t":
        index += 1
    return index
