"""The canonical form of a round-tripped YAML tree: ruamel.yaml's emitter and representer as
the seed files write (double quotes, numbers YAML 1.1 and 1.2 read alike, folded prose), keys
in their schema's order with the comments above and after each key moved with it.

ruamel is pure Python and slow, so this is imported by `kb fmt` and `kb new` only."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.emitter import Emitter
from ruamel.yaml.error import CommentMark
from ruamel.yaml.events import ScalarEvent
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.scalarfloat import ScalarFloat
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    FoldedScalarString,
    LiteralScalarString,
)
from ruamel.yaml.tokens import CommentToken

from ..source import MAX_FILE_BYTES
from ..source.characters import INVISIBLE
from ..source.scalars import LEADING_ZERO, OCTAL, YAML11_FLOAT, portable_number
from .folding import WIDTH, fold_positions, plain_reads_back
from .key_order import child, item_schema, property_names

_INT_TAG = "tag:yaml.org,2002:int"
_BLOCK_SCALARS = (FoldedScalarString, LiteralScalarString)
_COMMENT_INDENT = re.compile(r"^[ \t]*#", re.MULTILINE)
_NOT_FLOW_PLAIN_IN_YAML11 = re.compile(r"^[?:]|:\?")


class _Emitter(Emitter):
    """ruamel's emitter, preferring double quotes (as the seed files do) to single ones, and
    writing the characters the loader refuses raw (bidirectional overrides, zero-width ones)
    as the escapes they were read from: ruamel writes them raw, in any style."""

    def analyze_scalar(self, scalar: Any) -> Any:
        analysis = super().analyze_scalar(scalar)
        # YAML 1.2 lets a plain scalar in a flow collection start with `?` or `:` before a
        # non-space, and hold `:?`; libyaml, and so the loader, reads YAML 1.1, which does not.
        if _NOT_FLOW_PLAIN_IN_YAML11.search(scalar):
            analysis.allow_flow_plain = False
        return analysis

    def choose_scalar_style(self) -> Any:
        if self.event.value is not None and INVISIBLE.search(self.event.value):
            return '"'  # only double quotes can hold escapes
        style = super().choose_scalar_style()
        return '"' if style == "'" else style

    def write_pre_comment(self, event: Any) -> bool:
        # A block scalar's own comment (a string, not a comment line above it) is written
        # after its indicator; as a list item ruamel takes it for the lines above the item.
        comments = event.comment[1] if isinstance(event, ScalarEvent) and event.comment else None
        if comments and all(isinstance(comment, str) for comment in comments):
            return False
        return bool(super().write_pre_comment(event))

    def write_post_comment(self, event: Any) -> bool:
        comment = event.comment[0]
        if isinstance(event, ScalarEvent) and event.style in ("|", ">") and comment is not None:
            # Comment lines after a block scalar as deep as its text would be read as text:
            # ruamel moves the first one a column out, and leaves the others (and those moved
            # here from elsewhere) as deep as they were written. They go to the column of the
            # scalar's key or dash.
            outside = max((self.indent or 0) - 2, 0)
            comment.column = min(comment.column, outside)
            comment.value = re.sub(
                f"^[ \t]{{{outside + 1},}}(?=#)", " " * outside, comment.value, flags=re.MULTILINE
            )
        return bool(super().write_post_comment(event))

    def write_folded(self, text: Any, comment: Any) -> None:
        super().write_folded(text, comment)
        # ruamel ends the last line only after a character other than a space: a comment
        # that follows folded prose ending in spaces would be written onto it, into the text.
        if self.column:
            self.write_line_break()

    def write_double_quoted(self, text: Any, split: Any = True) -> None:
        if not INVISIBLE.search(text):
            super().write_double_quoted(text, split)
            return
        # ruamel escapes what it takes for unprintable; with Unicode off for this one
        # string, that is everything past ASCII.
        self.allow_unicode = False
        try:
            super().write_double_quoted(text, split)
        finally:
            self.allow_unicode = True


class _Representer(RoundTripRepresenter):
    """Numbers in the form YAML 1.1 and 1.2 read alike (what KB014 asks): `1e9` -> `1.0e+9`,
    `007` and `0o17` -> decimal. A float keeps the form it was written in (`1.0e+9`, `12.50`)
    when that denotes the float's shortest decimal; ruamel re-renders floats from their value
    and its form is not always that (`5e-324` -> `4.0e-324`), and then the shortest is written."""

    def represent_float(self, data: Any) -> Any:
        node = super().represent_float(data)
        return self._exact(node, data)

    def represent_scalar_float(self, data: Any) -> Any:
        node = super().represent_scalar_float(data)
        return self._exact(node, data)

    def _exact(self, node: Any, data: Any) -> Any:
        text = node.value
        if not YAML11_FLOAT.fullmatch(text):
            text = portable_number(text)
        shortest = repr(float(data))
        # A zero keeps no digits to anchor ruamel's form, which loses one each run
        # (`-0.000000e+00`, then `-0.00000e+00`): write the shortest form, a fixed point.
        if Decimal(text) != Decimal(shortest) or float(data) == 0:
            text = portable_number(shortest)
        node.value = text
        return node

    def represent_scalar(self, tag: Any, value: Any, style: Any = None, anchor: Any = None) -> Any:
        if tag == _INT_TAG and OCTAL.fullmatch(value):
            value = str(int(value[2:], 8))
        elif tag == _INT_TAG and LEADING_ZERO.fullmatch(value):
            value = str(int(value))
        return super().represent_scalar(tag, value, style, anchor)


_Representer.add_representer(float, _Representer.represent_float)
_Representer.add_representer(ScalarFloat, _Representer.represent_scalar_float)


def round_trip() -> YAML:
    yaml_rt = YAML()
    yaml_rt.Emitter = _Emitter
    yaml_rt.Representer = _Representer
    yaml_rt.indent(mapping=2, sequence=4, offset=2)
    # Plain and quoted scalars stay on one line, as in the seeds; only folded prose is wrapped.
    yaml_rt.width = MAX_FILE_BYTES
    yaml_rt.allow_unicode = True
    return yaml_rt


def canonical(
    node: Any, schema: Any, root: dict[str, Any], indent: int, lead: _Lead | None = None
) -> Any:
    """`node` in canonical form (mappings reordered in place); `indent` is the column its
    content starts at when it is written as a block, and `lead` where the comments above its
    first line are kept (None for the document: those are the file's)."""
    if isinstance(node, CommentedMap):
        _order(node, property_names(schema, root), indent, lead)
        for key in list(node):
            below = _Lead(node.ca.items, key, _ABOVE_VALUE, indent + 2)
            node[key] = canonical(node[key], child(schema, root, key), root, indent + 2, below)
        return node
    if isinstance(node, CommentedSeq):
        items = item_schema(schema, root)
        for index, value in enumerate(node):
            above = _Lead(node.ca.items, index, _ABOVE_ITEM, indent)
            node[index] = canonical(value, items, root, indent + 2, above)
            _keep_header_comment(node, index)
        return node
    if isinstance(node, FoldedScalarString):
        if "\n\t" in str(node):
            # ruamel folds a line that starts with a tab as if it were not more indented,
            # and so adds a line break; kept literally, the text reads back the same.
            return LiteralScalarString(str(node))
        folded = FoldedScalarString(str(node))
        written = getattr(node, "fold_pos", ())
        folded.fold_pos = fold_positions(str(node), max(WIDTH - indent, 20), written)
        return folded
    if isinstance(node, LiteralScalarString):
        return node
    if isinstance(node, str):
        return str(node) if plain_reads_back(node) else DoubleQuotedScalarString(node)
    return node


def _keep_header_comment(sequence: CommentedSeq, index: int) -> None:
    """ruamel reads the comment after a list item's block indicator (`- >- # why`) into the
    record of the lines above the item, as a string, where its representer trips on it (and
    drops every comment of the list) and its emitter never writes it. On the scalar it is
    written after the indicator, as it is for a mapping's value."""
    record = sequence.ca.items.get(index)
    value = sequence[index]
    if record and record[1] and isinstance(record[1][0], str) and isinstance(value, _BLOCK_SCALARS):
        value.comment = record[1][0]  # type: ignore[union-attr]  # a slot ruamel leaves untyped
        record[1] = None


#: The slots of ruamel's comment records that hold the lines above a value: a mapping's key
#: (its value's first line, when that is a block mapping) and a list's item (its dash).
_ABOVE_VALUE = 3
_ABOVE_ITEM = 1


@dataclass(frozen=True)
class _Lead:
    """Where ruamel keeps the comment lines above a block collection's first line: in its
    parent's record of it, at `column` (the key's, or the item's dash)."""

    records: dict[Any, list[Any]]
    at: Any
    slot: int
    column: int

    def take(self) -> str:
        return _take_lines(self.records.get(self.at), self.slot)

    def put(self, lines: str) -> None:
        if lines:
            indented = _COMMENT_INDENT.sub(" " * self.column + "#", lines)
            record = self.records.setdefault(self.at, [None] * 4)
            record[self.slot] = [CommentToken(indented, CommentMark(0), None)]


def _order(mapping: CommentedMap, known: list[str], indent: int, lead: _Lead | None) -> None:
    """Keys the schema knows in its order, then any others as they were written; the keys
    stand at column `indent`, the lines above the first one kept at `lead`.

    ruamel gives the blank lines and comments between two keys to the last value written
    before them (or to the end of a list that holds it); they are moved so that they stay
    before the key they preceded, indented as it is, and those after the last value stay at
    the end of the mapping. Those above the first key go with it too, except at the top of
    the document, where they are the file's.
    """
    present = list(mapping)
    wanted = [k for k in known if k in mapping] + [k for k in present if k not in known]
    if wanted == present:
        return
    following = {key: _take_following(mapping, key) for key in present}
    # After a flow collection (`range: [1, 2]`), ruamel gives the lines to the next key.
    above = {key: _take_above(mapping, key) for key in present}
    before = {
        key: _COMMENT_INDENT.sub(" " * indent + "#", following[previous] + above[key])
        for previous, key in itertools.pairwise(present)
    }
    if lead is not None or above[present[0]]:
        taken = lead.take() if lead is not None else ""
        before[present[0]] = _COMMENT_INDENT.sub(" " * indent + "#", taken + above[present[0]])
    for key in wanted:
        mapping.move_to_end(key)
    for previous, key in itertools.pairwise(wanted):
        _add_following(mapping, previous, before.get(key, ""))
    first = before.get(wanted[0], "")
    if lead is not None and lead.slot == _ABOVE_ITEM:
        lead.put(first)  # between `- ` and the key they would break the item: above it
    elif first:  # ruamel writes these lines before the key
        moved = CommentToken(first, CommentMark(0), None)
        mapping.ca.items.setdefault(wanted[0], [None] * 4)[1] = [moved]
    _add_following(mapping, wanted[-1], following[present[-1]])


def _end_of(mapping: CommentedMap, key: str) -> tuple[Any, Any, list[Any]]:
    """(collection, key or index) of the last value written under `key`, which ruamel gives
    the comments that follow: a scalar, or a collection written in flow style (`[1, 2]`); and
    the block collections on the way there, whose end may hold such comments too."""
    holder: Any = mapping
    at: Any = key
    path: list[Any] = []
    while True:
        value = holder[at]
        if not isinstance(value, (CommentedMap, CommentedSeq)) or not value:
            return holder, at, path
        if value.fa.flow_style():
            return holder, at, path
        path.append(value)
        at = list(value)[-1] if isinstance(value, CommentedMap) else len(value) - 1
        holder = value


def _take_following(mapping: CommentedMap, key: str) -> str:
    """Remove and return the lines after the value of `key`, leaving a comment on the value's
    own line in place."""
    holder, last, path = _end_of(mapping, key)
    lines = ""
    token = holder.ca.items.get(last, [None] * 4)[2]
    if token is not None:
        # A block scalar (>-, |) ends its own line, so its token holds only following lines.
        ends_line = isinstance(holder[last], _BLOCK_SCALARS)
        own, _, lines = ("", "", token.value) if ends_line else token.value.partition("\n")
        if own:
            token.value = own + "\n"
        else:
            holder.ca.items[last][2] = None
    for collection in path:
        if collection.ca.end:
            lines += "".join(t.value for t in collection.ca.end)
            collection.ca.end = []
    return lines


def _take_above(mapping: CommentedMap, key: str) -> str:
    """Remove and return the lines ruamel keeps above `key` itself."""
    return _take_lines(mapping.ca.items.get(key), 1)


def _take_lines(record: list[Any] | None, slot: int) -> str:
    """Remove and return the comment lines in `slot` of one of ruamel's comment records."""
    if record is None or not record[slot]:
        return ""
    tokens, record[slot] = record[slot], None
    return "".join(token.value for token in tokens)


def _add_following(mapping: CommentedMap, key: str, lines: str) -> None:
    if not lines:
        return
    holder, last, _ = _end_of(mapping, key)
    slot = holder.ca.items.setdefault(last, [None] * 4)
    if slot[2] is None:
        ends_line = isinstance(holder[last], _BLOCK_SCALARS)
        slot[2] = CommentToken(lines if ends_line else "\n" + lines, CommentMark(0), None)
    else:
        slot[2].value += lines
