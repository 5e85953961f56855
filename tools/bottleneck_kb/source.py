"""Read one YAML file into plain data that knows where each key and value was written.

libyaml composes the node tree in C (with a resolver that tags nothing, so only tags the user
wrote survive); data is then built from the same nodes, which keep every line and column.
This is about 1.7x faster than `yaml.load`, whose Python constructor is the slow part,
and it sidesteps the traps of YAML 1.1 that PyYAML's resolver springs: `yes` -> True and
`1e9` -> a string are read as YAML 1.2 reads them, duplicate keys are refused instead of the
last one winning. Anchors and aliases (the billion-laughs bomb) are refused before any node is
composed: a cheap pattern finds every place one could stand, and only then does an exact scan
of libyaml's events decide. Nesting is bounded by libyaml (1,000 levels) and by MAX_DEPTH here.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml._yaml import CParser

from .diagnostics import CONTROL_CHARACTERS, Diagnostic, Severity, error

MAX_FILE_BYTES = 1024 * 1024
MAX_DEPTH = 32
MAX_NODES = 50_000
MAX_KEY_LENGTH = 200
MAX_NUMBER_DIGITS = 30

#: Codes of the problems found while reading a file; `rules/__init__.py` documents them.
SYNTAX = "KB001"
DUPLICATE_KEY = "KB002"
ALIAS = "KB003"
TAG = "KB004"
YAML11_BOOLEAN = "KB005"
ENCODING = "KB006"
EMPTY = "KB007"
NOT_A_MAPPING = "KB008"
TOO_LARGE = "KB009"
TOO_DEEP = "KB010"
NOT_A_FILE = "KB011"
BAD_NUMBER = "KB012"
CONTROL_CHARACTER = "KB013"
PORTABLE_NUMBER = "KB014"

Pointer = tuple[str | int, ...]

_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})
# YAML 1.1 read these as booleans. Single letters (y, n) are left out: they are real symbols.
_YAML11_BOOLEANS = frozenset(
    w for word in ("yes", "no", "on", "off") for w in (word, word.title(), word.upper())
)
_RESERVED = _NULL | _TRUE | _FALSE | _YAML11_BOOLEANS
_INT = re.compile(r"[-+]?[0-9]+")
_OCT = re.compile(r"0o[0-7]+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
# What YAML 1.1 readers (PyYAML, many CI tools) take for a float: a dot, and a signed exponent.
_YAML11_FLOAT = re.compile(
    r"[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
)
_LEADING_ZERO = re.compile(r"[-+]?0[0-9]+")
_SPECIAL_FLOAT = re.compile(r"[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)")
# Characters libyaml accepts raw that change what a reader sees: NEL, line and paragraph
# separators (libyaml breaks lines at them, editors mostly do not) and bidirectional overrides.
_INVISIBLE = re.compile("[\x85\u200b\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069]")


@dataclass(frozen=True, slots=True)
class Document:
    """A file's data, and the node tree it was built from, which knows where each part of it
    was written. Positions are looked up only when asked for: nearly every value of nearly
    every file is never reported, and recording them all would cost more than parsing."""

    path: str
    data: dict[str, Any]
    root: Any = field(repr=False, compare=False)
    text: str = field(default="", repr=False, compare=False)

    def value_at(self, pointer: Pointer) -> tuple[int, int]:
        """Line and column of the value at `pointer`, or of its nearest written ancestor."""
        _, value = self._nodes(pointer)
        return value.start_mark.line + 1, _content_column(value)

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
        return _source_position(self.text, line, col, offset)

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


class _Stop(Exception):
    """Reading cannot go on; carries the diagnostic that says why."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def read_file(
    path: Path, display: str, root: Path | None = None
) -> tuple[bytes | None, list[Diagnostic]]:
    """The bytes of a regular file no larger than MAX_FILE_BYTES, or why it cannot be read.

    A symlink is followed only when it stays inside `root`, so a pull request cannot make CI
    read files from elsewhere on the machine.
    """

    def refuse(message: str, hint: str | None = None) -> tuple[None, list[Diagnostic]]:
        return None, [error(NOT_A_FILE, display, 1, 1, message, hint)]

    # O_NOFOLLOW: a symlink is only opened after its target is checked. O_NONBLOCK: a FIFO
    # must not hang the check.
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW
    try:
        try:
            fd = os.open(path, flags)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
            target = path.resolve()
            if root is not None and not target.is_relative_to(root.resolve()):
                return refuse(
                    "is a symlink pointing outside the repository", "commit the file itself"
                )
            fd = os.open(target, flags)
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                return refuse("is a directory, not a file")
            if not stat.S_ISREG(info.st_mode):
                return refuse("is not a regular file")
            if info.st_size > MAX_FILE_BYTES:
                return None, [_too_large(display, info.st_size)]
            raw = _read_at_most(fd, MAX_FILE_BYTES + 1)
        finally:
            os.close(fd)
    except OSError as exc:
        return refuse(f"cannot be read: {exc.strerror or exc}")
    except RuntimeError:  # Path.resolve() on a symlink loop (Python 3.11)
        return refuse("is a symlink loop", "replace the link with the file itself")
    if len(raw) > MAX_FILE_BYTES:
        return None, [_too_large(display, len(raw))]
    return raw, []


def _read_at_most(fd: int, limit: int) -> bytes:
    """Up to `limit` bytes: a file that grows after fstat still cannot make us read more."""
    chunks = []
    total = 0
    while total < limit:
        chunk = os.read(fd, limit - total)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def _too_large(display: str, size: int) -> Diagnostic:
    return error(
        TOO_LARGE,
        display,
        1,
        1,
        f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,} (1 MiB)",
        "split the entry or move long prose to a linked page",
    )


def load(raw: bytes, display: str) -> tuple[Document | None, list[Diagnostic]]:
    """Parse `raw` into a Document; on any problem return None and the located diagnostics.

    Warnings (such as a YAML 1.1 boolean word) come back beside a Document.
    """
    try:
        text = _decode(raw, display)
        builder = _Builder(display, text)
        data = builder.build()
    except _Stop as stop:
        return None, [stop.diagnostic]
    return Document(display, data, builder.root, text), builder.warnings


def _decode(raw: bytes, display: str) -> str:
    def stop(code: str, text: str, offset: int, message: str, hint: str) -> _Stop:
        line, col = _line_col(text, offset)
        return _Stop(error(code, display, line, col, message, hint))

    if len(raw) > MAX_FILE_BYTES:
        raise _Stop(_too_large(display, len(raw)))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise stop(ENCODING, "", 0, "file is UTF-16, not UTF-8", "save it as UTF-8") from None
        before = raw[: exc.start].decode("utf-8", "replace")
        raise stop(
            ENCODING,
            before,
            len(before),
            f"byte 0x{raw[exc.start]:02x} is not valid UTF-8",
            "save the file as UTF-8",
        ) from None
    # Some editors write a leading byte-order mark; anywhere else it is an invisible character.
    text = text.removeprefix("\ufeff")
    inner = text.find("\ufeff")
    if inner >= 0:
        raise stop(
            ENCODING,
            text,
            inner,
            "byte-order mark (U+FEFF) inside the file",
            "delete the invisible character",
        )
    hidden = _INVISIBLE.search(text)
    if hidden:
        raise stop(
            CONTROL_CHARACTER,
            text,
            hidden.start(),
            f"invisible control character U+{ord(hidden.group()):04X} in the file",
            "delete it: line separators and direction overrides make the text on screen "
            "differ from the text read",
        )
    return text


def _line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of character `offset`, counting CRLF, CR and LF as breaks."""
    before = text[:offset]
    lines = before.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return len(lines), len(lines[-1]) + 1


# Where an anchor (&a), an alias (*a), a tag (!t, or a lone !) or a directive (%YAML) could
# stand: at a line start, after white space, or after a flow indicator or a colon. A match only
# means "look closer", at libyaml's events.
# One character class: an alternation here would make the scan of every file four times slower.
_MAYBE_EVENTS = re.compile(r"[&*!%]")
_NODE_START_BEFORE = frozenset(" \t\r\n[{,:")


class _Composer(CParser):  # type: ignore[misc]
    """libyaml's composer with a resolver that resolves nothing: a node's tag is "" unless the
    user wrote one, and the builder types plain scalars itself (YAML 1.2)."""

    # The composer calls these three for every node. `"".format` takes any arguments and
    # returns "" without a Python frame: a builtin method is not a descriptor, so it is not
    # bound to the instance. This is a tenth of the composing time.
    resolve = "".format
    descend_resolver = "".format
    ascend_resolver = "".format


class _Builder:
    """Builds data and positions from one composed document."""

    def __init__(self, display: str, text: str) -> None:
        self.display = display
        self.text = text
        self.root: Any = None
        self.warnings: list[Diagnostic] = []
        self.nodes = 0

    def _stop(self, code: str, mark: Any, message: str, hint: str | None = None) -> _Stop:
        return _Stop(error(code, self.display, mark.line + 1, mark.column + 1, message, hint))

    def _yaml_error(self, text: str, exc: yaml.YAMLError) -> _Stop:
        if isinstance(exc, yaml.reader.ReaderError):
            offset = len(text.encode("utf-8")[: exc.position].decode("utf-8", "ignore"))
            line, col = _line_col(text, offset)
            character = exc.character
            code = ord(character) if isinstance(character, str) else int(character)
            return _Stop(
                error(
                    CONTROL_CHARACTER,
                    self.display,
                    line,
                    col,
                    f"character U+{code:04X} is not allowed in YAML",
                    "remove it; control characters are not allowed in entries",
                )
            )
        if isinstance(exc, yaml.MarkedYAMLError) and (exc.problem_mark or exc.context_mark):
            problem = exc.problem or str(exc)
            mark = exc.problem_mark or exc.context_mark
            if "nesting depth" in problem:
                return self._stop(
                    TOO_DEEP,
                    mark,
                    f"nesting deeper than libyaml's limit of 1,000 levels "
                    f"(entries need at most {MAX_DEPTH})",
                )
            # libyaml reports the end of a file that lacks a final newline on the line after
            # it; point at the end of the last line instead, where an editor can go.
            last = _BREAK.split(text)
            if mark.line >= len(last):
                line, col = len(last), len(last[-1]) + 1
                return _Stop(
                    error(SYNTAX, self.display, line, col, f"YAML syntax error: {problem}")
                )
            return self._stop(SYNTAX, mark, f"YAML syntax error: {problem}")
        return _Stop(error(SYNTAX, self.display, 1, 1, f"YAML error: {exc}"))

    def _events(self, text: str) -> Iterator[Any]:
        """libyaml's events for `text`, up to the end of the stream; YAML errors located."""
        parser = CParser(text)
        try:
            while type(event := parser.get_event()) is not yaml.StreamEndEvent:
                yield event
        except yaml.YAMLError as exc:
            raise self._yaml_error(text, exc) from None
        finally:
            parser.dispose()

    def _refuse_by_events(self, text: str) -> None:
        """Stop at the first anchor, alias, tag or directive, found exactly from libyaml's
        events. (The composer hides anchors, and resolves a lone `!` as if it were absent.)"""
        for event in self._events(text):
            kind = type(event)
            if kind is yaml.DocumentStartEvent and (event.version or event.tags):
                raise self._stop(
                    SYNTAX,
                    event.start_mark,
                    "YAML directives (%YAML, %TAG) are not allowed",
                    "remove the line: entries are read as YAML 1.2, whatever it says",
                )
            anchor = getattr(event, "anchor", None)
            if anchor is not None:
                sign = "*" if kind is yaml.AliasEvent else "&"
                # The event starts at its tag, if any; point at the anchor itself.
                at = text.find(f"{sign}{anchor}", event.start_mark.index)
                line, col = _line_col(text, at if at >= 0 else event.start_mark.index)
                raise _Stop(
                    error(
                        ALIAS,
                        self.display,
                        line,
                        col,
                        f"{_ANCHOR_WORDS[sign]} '{sign}{anchor}' is not allowed",
                        "write the value out in full; anchors and aliases are refused",
                    )
                )
            tag = getattr(event, "tag", None)
            if tag is not None:
                raise self._stop(
                    TAG,
                    event.start_mark,
                    f"tag '{tag}' is not allowed",
                    "remove the tag; values are plain strings, numbers and lists",
                )

    def _refuse_too_many_nodes(self, text: str) -> None:
        """Stop at the first node past MAX_NODES, without composing the tree."""
        nodes = 0
        for event in self._events(text):
            if type(event) in _NODE_EVENTS:
                nodes += 1
                if nodes > MAX_NODES:
                    raise self._stop(
                        TOO_LARGE, event.start_mark, f"more than {MAX_NODES:,} keys and values"
                    )

    def build(self) -> dict[str, Any]:
        text = self.text
        if _needs_event_scan(text):
            self._refuse_by_events(text)
        # Every node takes a character, and all but the first one of these; a file with fewer
        # cannot have too many nodes, one with more is counted from the event stream first.
        if len(text) > MAX_NODES and sum(text.count(mark) for mark in ",:-[{?\n\r") > MAX_NODES:
            self._refuse_too_many_nodes(text)
        composer = _Composer(text)
        try:
            root = composer.get_node() if composer.check_node() else None
            following = composer.peek_event()
            if root is not None and type(following) is not yaml.StreamEndEvent:
                raise self._stop(
                    SYNTAX,
                    following.start_mark,
                    "more than one YAML document in the file",
                    "keep one entry per file and remove the '---' separator",
                )
        except yaml.YAMLError as exc:
            raise self._yaml_error(text, exc) from None
        finally:
            composer.dispose()
        if root is None or (type(root) is yaml.ScalarNode and root.value == "" and not root.style):
            raise _Stop(
                error(EMPTY, self.display, 1, 1, "file is empty", "an entry is a YAML mapping")
            )
        self.root = root
        data = self._node(root, 0)
        if not isinstance(data, dict):
            kind = "a list" if isinstance(data, list) else f"a {type(data).__name__}"
            mark = root.start_mark
            raise _Stop(
                error(
                    NOT_A_MAPPING,
                    self.display,
                    mark.line + 1,
                    mark.column + 1,
                    f"the top level is {kind}, not a mapping of keys to values",
                )
            )
        return data

    def _node(self, node: Any, depth: int) -> Any:
        if node.tag:
            raise self._stop(
                TAG,
                node.start_mark,
                f"tag '{node.tag}' is not allowed",
                "remove the tag; values are plain strings, numbers and lists",
            )
        kind = type(node)
        if kind is yaml.ScalarNode:
            return self._scalar(node)
        if depth >= MAX_DEPTH:
            raise self._stop(TOO_DEEP, node.start_mark, f"nesting deeper than {MAX_DEPTH} levels")
        children = node.value
        # Keys are nodes too, as libyaml's events count them.
        self.nodes += len(children) if kind is yaml.SequenceNode else 2 * len(children)
        if self.nodes > MAX_NODES:
            raise self._stop(TOO_LARGE, node.start_mark, f"more than {MAX_NODES:,} keys and values")
        scalar = yaml.ScalarNode
        if kind is yaml.SequenceNode:
            items = []
            for item in children:
                # Inlined for the common case, plain text: a call per value is a fifth of the
                # time spent here.
                if type(item) is scalar and not item.tag:
                    text, style = item.value, item.style
                    if style == "'" or (not style and text[:1].isalpha() and text not in _RESERVED):
                        items.append(text)
                        continue
                items.append(self._node(item, depth + 1))
            return items
        mapping: dict[str, Any] = {}
        for key_node, value_node in children:
            key = key_node.value
            # The common key (a plain word) is taken as it is; anything else is examined.
            if (
                type(key_node) is not yaml.ScalarNode
                or key_node.tag
                or key_node.style
                or not key
                or not (key[0].isalpha() or key[0] == "_")
                or key in _RESERVED
                or len(key) > MAX_KEY_LENGTH
            ):
                key = self._key(key_node)
            if key in mapping:
                first = next(k for k, _ in children if k.value == key).start_mark
                raise self._stop(
                    DUPLICATE_KEY,
                    key_node.start_mark,
                    f"duplicate key '{key}' (first at line {first.line + 1}, "
                    f"column {first.column + 1})",
                    "YAML keeps only one of them; remove or merge the other",
                )
            if type(value_node) is scalar and not value_node.tag:
                text, style = value_node.value, value_node.style
                if style == "'" or (not style and text[:1].isalpha() and text not in _RESERVED):
                    mapping[key] = text
                    continue
            mapping[key] = self._node(value_node, depth + 1)
        return mapping

    def _key(self, node: Any) -> str:
        mark = node.start_mark
        if type(node) is not yaml.ScalarNode:
            raise self._stop(SYNTAX, mark, "a mapping key must be a plain string")
        if node.tag:
            raise self._stop(TAG, mark, f"tag '{node.tag}' is not allowed")
        key: str = node.value
        if len(key) > MAX_KEY_LENGTH:
            raise self._stop(SYNTAX, mark, f"key longer than {MAX_KEY_LENGTH} characters")
        if not node.style and not _is_plain_string(key):
            raise self._stop(
                SYNTAX, mark, f"key {key!r} is not a string", "keys are names such as 'title'"
            )
        if node.style == '"':
            self._check_text(key, node)
        return key

    def _scalar(self, node: Any) -> Any:
        text: str = node.value
        mark = node.start_mark
        style = node.style
        if style:
            if style == '"':
                # Only double-quoted escapes can make control characters; libyaml refuses raw ones.
                self._check_text(text, node)
            return text
        if text[:1].isalpha() and text not in _RESERVED:
            return text
        if text in _NULL:
            return None
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        if text in _YAML11_BOOLEANS:
            self.warnings.append(
                Diagnostic(
                    YAML11_BOOLEAN,
                    Severity.WARNING,
                    self.display,
                    mark.line + 1,
                    mark.column + 1,
                    f"'{text}' is read as the string \"{text}\", not a boolean (YAML 1.2)",
                    "write true or false for a boolean, or quote the word if you mean text",
                )
            )
            return text
        first = text[0]
        if first.isdigit() or first in "+-.":
            number = self._number(text, mark)
            if number is not None:
                return number
        return text

    def _number(self, text: str, mark: Any) -> int | float | None:
        if _SPECIAL_FLOAT.fullmatch(text):
            raise self._stop(
                BAD_NUMBER,
                mark,
                f"'{text}' is not a finite number",
                "infinity and NaN are not allowed",
            )
        is_number = _INT.fullmatch(text) or _OCT.fullmatch(text) or _HEX.fullmatch(text)
        is_float = not is_number and _FLOAT.fullmatch(text)
        if not (is_number or is_float):
            return None
        digits = len(text) if len(text) <= MAX_NUMBER_DIGITS else sum(c.isdigit() for c in text)
        if digits > MAX_NUMBER_DIGITS:
            raise self._stop(
                BAD_NUMBER,
                mark,
                f"number with {digits} digits; the limit is {MAX_NUMBER_DIGITS}",
                "use scientific notation such as 1.28e5",
            )
        value: int | float
        if _OCT.fullmatch(text):
            value = int(text[2:], 8)
            self._not_portable(text, value, "a string", mark, "quote it, or write it in decimal")
        elif _HEX.fullmatch(text):
            value = int(text[2:], 16)
        elif is_number:
            value = int(text)
            if _LEADING_ZERO.fullmatch(text):
                elsewhere = (
                    f"the octal number {int(text, 8)}"
                    if set(text) <= set("+-01234567")
                    else "a string"
                )
                self._not_portable(text, value, elsewhere, mark, "drop the leading zeros")
        else:
            value = float(text)
            if value in (float("inf"), float("-inf")):
                raise self._stop(
                    BAD_NUMBER,
                    mark,
                    f"'{text}' is too large to be a number",
                    "no quantity in this knowledge base is beyond 1e308",
                )
            if not _YAML11_FLOAT.fullmatch(text):
                self._not_portable(text, value, "a string", mark, f"write {_portable(text)}")
        return value

    def _not_portable(self, text: str, value: float, elsewhere: str, mark: Any, hint: str) -> None:
        """Warn of a number that YAML 1.1 readers (PyYAML and the tools built on it) read
        differently: the entry would mean one thing here and another to them."""
        self.warnings.append(
            Diagnostic(
                PORTABLE_NUMBER,
                Severity.WARNING,
                self.display,
                mark.line + 1,
                mark.column + 1,
                f"'{text}' is the number {value:g} here (YAML 1.2) but {elsewhere} to YAML 1.1 "
                "readers such as PyYAML",
                hint,
                fixable=True,
            )
        )

    def _check_text(self, text: str, node: Any) -> None:
        found = CONTROL_CHARACTERS.search(text)
        if found:
            line, col = _source_position(
                self.text, node.start_mark.line + 1, _content_column(node), found.start()
            )
            raise _Stop(
                error(
                    CONTROL_CHARACTER,
                    self.display,
                    line,
                    col,
                    f"control character U+{ord(found.group()):04X} in text",
                    "remove it; escape sequences for control characters are not allowed",
                )
            )


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


def _portable(text: str) -> str:
    """`1e9` -> `1.0e+9`, `+.5` -> `+0.5`: the same float in a form YAML 1.1 and 1.2 both
    read as a number (digits before the dot, a dot, a signed exponent)."""
    mantissa, _, exponent = text.lower().partition("e")
    sign = mantissa[:1] if mantissa[:1] in ("+", "-") else ""
    digits = mantissa[len(sign) :]
    if digits.startswith("."):
        digits = "0" + digits
    if "." not in digits:
        digits += ".0"
    if exponent and exponent[0] not in "+-":
        exponent = "+" + exponent
    return f"{sign}{digits}e{exponent}" if exponent else f"{sign}{digits}"


def _is_plain_string(text: str) -> bool:
    """True when a plain scalar reads as a string (not null, a boolean or a number)."""
    if text in _NULL or text in _TRUE or text in _FALSE:
        return False
    if text[0].isalpha() or text[0] == "_":
        return True
    return not (_INT.fullmatch(text) or _FLOAT.fullmatch(text))


_QUOTES = ("'", '"')


def _content_column(node: Any) -> int:
    """1-based column of a node's content: inside the quotes of a quoted scalar, so that an
    offset inside the text (a formula's column) lands where the reader sees it."""
    column: int = node.start_mark.column + 1
    if type(node) is yaml.ScalarNode and node.style in _QUOTES:
        column += 1
    return column


def _source_position(text: str, line: int, col: int, offset: int) -> tuple[int, int]:
    """Where the `offset`-th character of a flow scalar whose content starts at (line, col)
    was written: escapes (double quotes), doubled quotes (single quotes) and folded line
    breaks are undone. Block scalars (| and >) are placed at their start."""
    starts = [0]
    for match in _BREAK.finditer(text):
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
    return _line_col(text, index)


_ANCHOR_WORDS = {"&": "anchor", "*": "alias"}
_NODE_EVENTS = (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent, yaml.AliasEvent)
_BREAK = re.compile(r"\r\n|\r|\n")
_ESCAPE_WIDTH = {"x": 4, "u": 6, "U": 10}


def _after_break(text: str, index: int) -> int:
    return index + 2 if text.startswith("\r\n", index) else index + 1


def _skip_indent(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t":
        index += 1
    return index
