"""What reading a file may report, and the bounds hostile input cannot push it past.

The codes are documented in `rules/reading.py`. Every stage of the loader stops by raising
`Stop`, which carries a located error out of any depth of recursion to `load`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.codes import (
    CONTROL_CHARACTER,
    SYNTAX,
    TOO_DEEP,
    TOO_LARGE,
)
from ..core.diagnostics import Diagnostic, error
from .positions import BREAK, line_col

if TYPE_CHECKING:
    import yaml

MAX_FILE_BYTES = 1024 * 1024
MAX_DEPTH = 32
MAX_NODES = 50_000
MAX_KEY_LENGTH = 200
MAX_NUMBER_DIGITS = 30


class Stop(Exception):
    """Reading cannot go on; carries the diagnostic that says why."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def stop_at(code: str, display: str, mark: Any, message: str, hint: str | None = None) -> Stop:
    """A Stop at a libyaml mark (0-based line and column)."""
    return Stop(error(code, display, mark.line + 1, mark.column + 1, message, hint))


def too_large(display: str, size: int) -> Diagnostic:
    return error(
        TOO_LARGE,
        display,
        1,
        1,
        f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,} (1 MiB)",
        "split the entry or move long prose to a linked page",
    )


def libyaml_error(text: str, exc: yaml.YAMLError, display: str) -> Stop:
    """libyaml's own error for `text`, located where an editor shows the problem."""
    import yaml  # loaded by what raised the error

    if isinstance(exc, yaml.reader.ReaderError):
        # libyaml counts the position in bytes; a column is counted in characters.
        offset = len(text.encode("utf-8")[: exc.position].decode("utf-8", "ignore"))
        line, col = line_col(text, offset)
        character = exc.character
        code = ord(character) if isinstance(character, str) else int(character)
        return Stop(
            error(
                CONTROL_CHARACTER,
                display,
                line,
                col,
                f"character U+{code:04X} is not allowed in YAML",
                "remove it; control characters are not allowed in entries",
            )
        )
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        if mark is not None:
            return _located_syntax_error(text, exc.problem or str(exc), mark, display)
    return Stop(error(SYNTAX, display, 1, 1, f"YAML error: {exc}"))


def _located_syntax_error(text: str, problem: str, mark: Any, display: str) -> Stop:
    if "nesting depth" in problem:
        return stop_at(
            TOO_DEEP,
            display,
            mark,
            f"nesting deeper than libyaml's limit of 1,000 levels "
            f"(entries need at most {MAX_DEPTH})",
        )
    # libyaml reports the end of a file that lacks a final newline on the line after it;
    # point at the end of the last line instead, where an editor can go.
    last = BREAK.split(text)
    if mark.line >= len(last):
        line, col = len(last), len(last[-1]) + 1
        return Stop(error(SYNTAX, display, line, col, f"YAML syntax error: {problem}"))
    return stop_at(SYNTAX, display, mark, f"YAML syntax error: {problem}")
