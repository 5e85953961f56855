"""Arithmetic on a file's text: the line and column of an offset, and where a character of a
quoted, folded or block scalar stands in the file. Pure functions of the text (and of
libyaml's node styles): `document` asks them where a pointer's value was written."""

from __future__ import annotations

import re
from typing import Any

BREAK = re.compile(r"\r\n|\r|\n")

#: The quoting styles of a scalar, and the block styles.
QUOTES = ("'", '"')
BLOCK = ("|", ">")


_ESCAPE_WIDTH = {"x": 4, "u": 6, "U": 10}


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
    if type(node) is yaml.ScalarNode and node.style in QUOTES:
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
    quote = text[start - 1] if start > 0 and text[start - 1] in QUOTES else ""
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
