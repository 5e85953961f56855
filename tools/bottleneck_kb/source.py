"""Read one YAML file into plain data plus the position of every key and value.

Data is built straight from libyaml's event stream rather than from `yaml.load`, for three
reasons: every value keeps its line and column; the traps of YAML 1.1 that PyYAML's resolver
still springs (`yes` -> True, duplicate keys -> last one wins, anchors and aliases -> billion
laughs) are refused or read as YAML 1.2 reads them; and the walk is iterative with a depth
bound, where PyYAML's composer recurses in C and can be driven into the ground by nesting.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .diagnostics import Diagnostic, Severity, error

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
#: (key line, key col, value line, value col), 1-based; for list items and the root the key
#: position is the value position.
Position = tuple[int, int, int, int]

_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})
# YAML 1.1 read these as booleans. Single letters (y, n) are left out: they are real symbols.
_YAML11_BOOLEANS = frozenset(
    w for word in ("yes", "no", "on", "off") for w in (word, word.title(), word.upper())
)
_INT = re.compile(r"[-+]?[0-9]+")
_OCT = re.compile(r"0o[0-7]+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
# What YAML 1.1 readers (PyYAML, many CI tools) take for a float: a dot, and a signed exponent.
_YAML11_FLOAT = re.compile(r"[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+][0-9]+)?")
_SPECIAL_FLOAT = re.compile(r"[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)")
# C0 and C1 controls except tab and newline: escape sequences written in double-quoted
# strings would otherwise reach a terminal or a rendered page raw.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@dataclass(frozen=True, slots=True)
class Document:
    """A file's data and where each part of it was written."""

    path: str
    data: dict[str, Any]
    positions: dict[Pointer, Position]

    def value_at(self, pointer: Pointer) -> tuple[int, int]:
        """Line and column of the value at `pointer`, or of its nearest written ancestor."""
        position = self._nearest(pointer)
        return position[2], position[3]

    def key_at(self, pointer: Pointer) -> tuple[int, int]:
        """Line and column of the key that introduces `pointer` (the item, for list items)."""
        position = self._nearest(pointer)
        return position[0], position[1]

    def _nearest(self, pointer: Pointer) -> Position:
        while pointer not in self.positions:
            pointer = pointer[:-1]
        return self.positions[pointer]


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

    try:
        if path.is_symlink():
            target = path.resolve()
            if root is not None and not target.is_relative_to(root.resolve()):
                return refuse(
                    "is a symlink pointing outside the repository", "commit the file itself"
                )
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            return refuse("is a directory, not a file")
        if not stat.S_ISREG(info.st_mode):
            return refuse("is not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            return None, [_too_large(display, info.st_size)]
        # O_NONBLOCK: a file swapped for a FIFO between stat and open must not hang the check.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return refuse(f"cannot be read: {exc.strerror or exc}")
    if len(raw) > MAX_FILE_BYTES:
        return None, [_too_large(display, len(raw))]
    return raw, []


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
        builder = _Builder(display)
        data = builder.build(text)
    except _Stop as stop:
        return None, [stop.diagnostic]
    return Document(display, data, builder.positions), builder.warnings


def _decode(raw: bytes, display: str) -> str:
    if len(raw) > MAX_FILE_BYTES:
        raise _Stop(_too_large(display, len(raw)))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _line_col(raw[: exc.start].decode("utf-8", "replace"), exc.start)
        raise _Stop(
            error(
                ENCODING,
                display,
                line,
                col,
                f"byte 0x{raw[exc.start]:02x} is not valid UTF-8",
                "save the file as UTF-8",
            )
        ) from None
    # Some editors write a leading byte-order mark; anywhere else it is an invisible character.
    text = text.removeprefix("\ufeff")
    inner = text.find("\ufeff")
    if inner >= 0:
        line, col = _line_col(text, inner)
        raise _Stop(
            error(
                ENCODING,
                display,
                line,
                col,
                "byte-order mark (U+FEFF) inside the file",
                "delete the invisible character",
            )
        )
    return text


def _line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of character `offset`, counting CRLF, CR and LF as breaks."""
    before = text[:offset]
    lines = before.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return len(lines), len(lines[-1]) + 1


class _Builder:
    """Builds data from libyaml events with an explicit stack (no recursion)."""

    def __init__(self, display: str) -> None:
        self.display = display
        self.positions: dict[Pointer, Position] = {}
        self.warnings: list[Diagnostic] = []

    def _stop(self, code: str, mark: Any, message: str, hint: str | None = None) -> _Stop:
        return _Stop(error(code, self.display, mark.line + 1, mark.column + 1, message, hint))

    def _events(self, text: str) -> Iterator[Any]:
        parser = yaml.CBaseLoader(text)
        try:
            while True:
                try:
                    event = parser.get_event()
                except yaml.MarkedYAMLError as exc:
                    mark = exc.problem_mark or exc.context_mark
                    problem = exc.problem or str(exc)
                    raise self._stop(SYNTAX, mark, f"YAML syntax error: {problem}") from None
                except yaml.reader.ReaderError as exc:
                    line, col = _line_col(text, exc.position)
                    raise _Stop(
                        error(
                            CONTROL_CHARACTER,
                            self.display,
                            line,
                            col,
                            f"character {exc.character!r} is not allowed in YAML",
                        )
                    ) from None
                except yaml.YAMLError as exc:
                    raise _Stop(error(SYNTAX, self.display, 1, 1, f"YAML error: {exc}")) from None
                yield event
                if isinstance(event, yaml.StreamEndEvent):
                    return
        finally:
            parser.dispose()

    def build(self, text: str) -> dict[str, Any]:
        events = self._events(text)
        root: Any = _MISSING
        # Each frame: [container, pointer, pending key or _MISSING, key mark]
        stack: list[list[Any]] = []
        nodes = 0
        documents = 0
        for event in events:
            if isinstance(event, yaml.NodeEvent):
                nodes += 1
                if nodes > MAX_NODES:
                    raise self._stop(TOO_LARGE, event.start_mark, f"more than {MAX_NODES:,} values")
                if event.anchor is not None:
                    raise self._stop(
                        ALIAS,
                        event.start_mark,
                        f"anchor '&{event.anchor}' is not allowed",
                        "write the value out in full; anchors and aliases are refused",
                    )
                if isinstance(event, yaml.AliasEvent):
                    raise self._stop(
                        ALIAS,
                        event.start_mark,
                        f"alias '*{event.anchor}' is not allowed",
                        "write the value out in full; anchors and aliases are refused",
                    )
                if event.tag is not None:
                    raise self._stop(
                        TAG,
                        event.start_mark,
                        f"tag '{event.tag}' is not allowed",
                        "remove the tag; values are plain strings, numbers and lists",
                    )
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise self._stop(
                        SYNTAX,
                        event.start_mark,
                        "more than one YAML document in the file",
                        "keep one entry per file and remove the '---' separator",
                    )
                continue
            if isinstance(
                event, (yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent)
            ):
                if stack and isinstance(stack[-1][0], dict) and stack[-1][2] is _MISSING:
                    # A key of the mapping on top of the stack.
                    if not isinstance(event, yaml.ScalarEvent):
                        raise self._stop(
                            SYNTAX, event.start_mark, "a mapping key must be a plain string"
                        )
                    self._take_key(stack[-1], event)
                    continue
                if isinstance(event, yaml.ScalarEvent):
                    value: Any = self._scalar(event)
                    pointer = self._place(stack, event.start_mark, value, event)
                    if pointer is None:
                        root = value
                    continue
                container: Any = {} if isinstance(event, yaml.MappingStartEvent) else []
                pointer = self._place(stack, event.start_mark, container, event)
                if pointer is None:
                    root = container
                    pointer = ()
                if len(stack) >= MAX_DEPTH:
                    raise self._stop(
                        TOO_DEEP,
                        event.start_mark,
                        f"nesting deeper than {MAX_DEPTH} levels",
                    )
                stack.append([container, pointer, _MISSING, None])
                continue
            if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                stack.pop()
        if root is _MISSING or root is None:
            raise _Stop(
                error(EMPTY, self.display, 1, 1, "file is empty", "an entry is a YAML mapping")
            )
        if not isinstance(root, dict):
            kind = "a list" if isinstance(root, list) else f"a {type(root).__name__}"
            line, col = self.positions[()][2:]
            raise _Stop(
                error(
                    NOT_A_MAPPING,
                    self.display,
                    line,
                    col,
                    f"the top level is {kind}, not a mapping of keys to values",
                )
            )
        return root

    def _take_key(self, frame: list[Any], event: Any) -> None:
        mark = event.start_mark
        key = event.value
        if len(key) > MAX_KEY_LENGTH:
            raise self._stop(SYNTAX, mark, f"key longer than {MAX_KEY_LENGTH} characters")
        if not event.style and not _is_plain_string(key):
            raise self._stop(
                SYNTAX, mark, f"key {key!r} is not a string", "keys are names such as 'title'"
            )
        self._check_text(key, mark)
        mapping = frame[0]
        if key in mapping:
            first = self.positions[(*frame[1], key)]
            raise self._stop(
                DUPLICATE_KEY,
                mark,
                f"duplicate key '{key}' (first at line {first[0]}, column {first[1]})",
                "YAML keeps only one of them; remove or merge the other",
            )
        frame[2] = key
        frame[3] = mark

    def _place(self, stack: list[list[Any]], mark: Any, value: Any, event: Any) -> Pointer | None:
        line = mark.line + 1
        # Quoted scalars: point at the first character inside the quotes, so an offset inside
        # the text (a formula's column) lands where the reader sees it.
        quoted = isinstance(event, yaml.ScalarEvent) and event.style in ("'", '"')
        col = mark.column + 1 + quoted
        if not stack:
            self.positions[()] = (line, col, line, col)
            return None
        frame = stack[-1]
        container = frame[0]
        if isinstance(container, dict):
            key = frame[2]
            key_mark = frame[3]
            container[key] = value
            frame[2] = _MISSING
            pointer: Pointer = (*frame[1], key)
            self.positions[pointer] = (key_mark.line + 1, key_mark.column + 1, line, col)
        else:
            pointer = (*frame[1], len(container))
            container.append(value)
            self.positions[pointer] = (line, col, line, col)
        return pointer

    def _scalar(self, event: Any) -> Any:
        text: str = event.value
        mark = event.start_mark
        if event.style:
            self._check_text(text, mark)
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
        self._check_text(text, mark)
        return text

    def _number(self, text: str, mark: Any) -> int | float | None:
        if _SPECIAL_FLOAT.fullmatch(text):
            raise self._stop(
                BAD_NUMBER,
                mark,
                f"'{text}' is not a finite number",
                "infinity and NaN are not allowed",
            )
        digits = sum(ch.isdigit() for ch in text)
        is_number = _INT.fullmatch(text) or _OCT.fullmatch(text) or _HEX.fullmatch(text)
        is_float = not is_number and _FLOAT.fullmatch(text)
        if not (is_number or is_float):
            return None
        if digits > MAX_NUMBER_DIGITS:
            raise self._stop(
                BAD_NUMBER,
                mark,
                f"number with {digits} digits; the limit is {MAX_NUMBER_DIGITS}",
                "use scientific notation such as 1.28e5",
            )
        if _OCT.fullmatch(text):
            return int(text[2:], 8)
        if _HEX.fullmatch(text):
            return int(text[2:], 16)
        if is_number:
            return int(text)
        value = float(text)
        if value in (float("inf"), float("-inf")):
            raise self._stop(
                BAD_NUMBER,
                mark,
                f"'{text}' is too large to be a number",
                "no quantity in this knowledge base is beyond 1e308",
            )
        if not _YAML11_FLOAT.fullmatch(text):
            self.warnings.append(
                Diagnostic(
                    PORTABLE_NUMBER,
                    Severity.WARNING,
                    self.display,
                    mark.line + 1,
                    mark.column + 1,
                    f"'{text}' is a number here (YAML 1.2) but a string to YAML 1.1 readers "
                    "such as PyYAML",
                    f"write {_portable(text)}",
                    fixable=True,
                )
            )
        return value

    def _check_text(self, text: str, mark: Any) -> None:
        found = _CONTROL.search(text)
        if found:
            raise self._stop(
                CONTROL_CHARACTER,
                mark,
                f"control character U+{ord(found.group()):04X} in text",
                "remove it; escape sequences are not allowed in entries",
            )


def _portable(text: str) -> str:
    """`1e9` -> `1.0e+9`: the same float in a form YAML 1.1 and 1.2 both read as a number."""
    mantissa, _, exponent = text.lower().partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    if exponent and exponent[0] not in "+-":
        exponent = "+" + exponent
    return f"{mantissa}e{exponent}" if exponent else mantissa


def _is_plain_string(text: str) -> bool:
    return not (
        text in _NULL
        or text in _TRUE
        or text in _FALSE
        or _INT.fullmatch(text)
        or _FLOAT.fullmatch(text)
    )


_MISSING: Any = object()
