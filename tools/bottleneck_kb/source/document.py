"""A file's data and where each part of it was written: a Document maps a pointer into its data
back to a line and column, and a character of an escaped or folded string, or of a block
scalar (`|`, `>`), back to where it stands in the file.

Positions are worked out only when asked for, from libyaml's node tree or from the lines the
layout reader kept (`layout.Layout.marks`), which say the same: nearly every value of nearly
every file is never reported, and recording line and column of each would cost more than
parsing. The arithmetic on text is `positions`'."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..core.diagnostics import Diagnostic, error
from .positions import BLOCK, QUOTES, flow_scalar_position, line_col, read_block_scalar

Pointer = tuple[str | int, ...]


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
        return line + 1, column + 1 + (marks.style in QUOTES)

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
        if marks.style in BLOCK:
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
