"""Plain data from a composed node tree: mappings, lists and typed scalars, with the limits
libyaml does not keep (depth, node count, key length), refused tags and duplicate keys.

Most values and keys are plain text, taken inline where the scalar rules' fast path accepts
them: a call per value would be a fifth of the building time. Everything else goes to the
rules in `scalars`.
"""

from __future__ import annotations

from typing import Any

import yaml

from ..core.codes import DUPLICATE_KEY, SYNTAX, TAG, TOO_DEEP, TOO_LARGE
from ..core.diagnostics import Diagnostic, Severity
from .characters import refuse_control_characters
from .problems import MAX_DEPTH, MAX_KEY_LENGTH, MAX_NODES, Stop, stop_at
from .scalars import (
    KNOWN_KEYS,
    Problem,
    certainly_text,
    plain_key_is_text,
    plain_value,
    remember_key,
)

_SCALAR = yaml.ScalarNode
_SEQUENCE = yaml.SequenceNode


class Builder:
    """Builds the data of one composed document, collecting the warnings of its scalars."""

    def __init__(self, display: str, text: str) -> None:
        self.display = display
        self.text = text
        self.warnings: list[Diagnostic] = []
        self.nodes = 0

    def value(self, node: Any, depth: int) -> Any:
        """The data of `node`, at `depth` levels of nesting."""
        if node.tag:
            raise stop_at(
                TAG,
                self.display,
                node.start_mark,
                f"tag '{node.tag}' is not allowed",
                "remove the tag; values are plain strings, numbers and lists",
            )
        kind = type(node)
        if kind is _SCALAR:
            return self._scalar(node)
        if depth >= MAX_DEPTH:
            raise stop_at(
                TOO_DEEP, self.display, node.start_mark, f"nesting deeper than {MAX_DEPTH} levels"
            )
        children = node.value
        # Keys are nodes too, as libyaml's events count them.
        self.nodes += len(children) if kind is _SEQUENCE else 2 * len(children)
        if self.nodes > MAX_NODES:
            raise stop_at(
                TOO_LARGE, self.display, node.start_mark, f"more than {MAX_NODES:,} keys and values"
            )
        if node.flow_style and self.text.startswith("#", node.end_mark.index):
            raise self._glued(node.end_mark)
        if kind is _SEQUENCE:
            items = []
            for item in children:
                if type(item) is _SCALAR and not item.tag:
                    text, style = item.value, item.style
                    if style == "'" or (not style and certainly_text(text)):
                        if style and self.text.startswith("#", item.end_mark.index):
                            raise self._glued(item.end_mark)
                        items.append(text)
                        continue
                    if not style:
                        value, problem = plain_value(text)
                        if problem is not None:
                            self._report(problem, item)
                        items.append(value)
                        continue
                items.append(self.value(item, depth + 1))
            return items
        mapping: dict[str, Any] = {}
        for key_node, value_node in children:
            key = key_node.value
            if (
                type(key_node) is not _SCALAR
                or key_node.tag
                or key_node.style
                or (key not in KNOWN_KEYS and not remember_key(key, MAX_KEY_LENGTH))
            ):
                key = self._key(key_node)
            if key in mapping:
                first = next(k for k, _ in children if k.value == key).start_mark
                raise stop_at(
                    DUPLICATE_KEY,
                    self.display,
                    key_node.start_mark,
                    f"duplicate key '{key}' (first at line {first.line + 1}, "
                    f"column {first.column + 1})",
                    "YAML keeps only one of them; remove or merge the other",
                )
            if type(value_node) is _SCALAR and not value_node.tag:
                text, style = value_node.value, value_node.style
                if style == "'" or (not style and certainly_text(text)):
                    if style and self.text.startswith("#", value_node.end_mark.index):
                        raise self._glued(value_node.end_mark)
                    mapping[key] = text
                    continue
                if not style:
                    value, problem = plain_value(text)
                    if problem is not None:
                        self._report(problem, value_node)
                    mapping[key] = value
                    continue
            mapping[key] = self.value(value_node, depth + 1)
        return mapping

    def _key(self, node: Any) -> str:
        mark = node.start_mark
        if type(node) is not _SCALAR:
            raise stop_at(SYNTAX, self.display, mark, "a mapping key must be a plain string")
        if node.tag:
            raise stop_at(TAG, self.display, mark, f"tag '{node.tag}' is not allowed")
        key: str = node.value
        if len(key) > MAX_KEY_LENGTH:
            raise stop_at(
                SYNTAX, self.display, mark, f"key longer than {MAX_KEY_LENGTH} characters"
            )
        if not node.style and not plain_key_is_text(key):
            raise stop_at(
                SYNTAX,
                self.display,
                mark,
                f"key {key!r} is not a string",
                "keys are names such as 'title'",
            )
        if node.style == '"':
            refuse_control_characters(key, node, self.text, self.display)
        if node.style and self.text.startswith("#", node.end_mark.index):
            raise self._glued(node.end_mark)
        return key

    def _scalar(self, node: Any) -> Any:
        text: str = node.value
        style = node.style
        if style:
            if style == '"':
                # Only double-quoted escapes can make control characters; libyaml refuses raw ones.
                refuse_control_characters(text, node, self.text, self.display)
            if style in "|>":
                self._header_comment(node.start_mark)
            elif self.text.startswith("#", node.end_mark.index):
                raise self._glued(node.end_mark)
            return text
        value, problem = plain_value(text)
        if problem is not None:
            self._report(problem, node)
        return value

    def _glued(self, mark: Any) -> Stop:
        """libyaml reads `"a"#b`, `[a]#b` and `|#b` as a value and a comment; YAML asks for a
        space before a comment, and other readers refuse such a file or read more into the
        value. `mark` is at the `#`."""
        return stop_at(
            SYNTAX,
            self.display,
            mark,
            "a comment must be separated from the value before it by a space",
            "write a space before the '#'; if it is meant as text, quote the whole value",
        )

    def _header_comment(self, start: Any) -> None:
        """The `#` glued to a block scalar's header (`|-#b`), said as `_glued` says it."""
        at = start.index + 1
        while self.text[at : at + 1] in ("+", "-") or self.text[at : at + 1].isdigit():
            at += 1
        if self.text.startswith("#", at):
            raise self._glued(_Mark(start.line, start.column + at - start.index))

    def _report(self, problem: Problem, node: Any) -> None:
        """Stop at the plain scalar `node` for an error; note a warning and go on."""
        mark = node.start_mark
        diagnostic = problem.at(self.display, mark.line + 1, mark.column + 1)
        if problem.severity is Severity.ERROR:
            raise Stop(diagnostic)
        self.warnings.append(diagnostic)


class _Mark:
    """A position where libyaml gives none (inside a block scalar's header)."""

    __slots__ = ("column", "line")

    def __init__(self, line: int, column: int) -> None:
        self.line = line
        self.column = column
