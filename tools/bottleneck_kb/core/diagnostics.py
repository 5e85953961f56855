"""The one diagnostic type that every check produces and every reporter consumes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A located problem. `line` and `col` are 1-based, as editors and GitHub count."""

    code: str
    severity: Severity
    path: str
    line: int
    col: int
    message: str
    hint: str | None = None
    fixable: bool = False

    def sort_key(self) -> tuple[bool, str, int, int, str, str]:
        """Files of hardware/ first: an entry's problems may follow from a device's, never
        the other way round, so the cause is read before its consequences."""
        in_hardware = self.path == "hardware" or self.path.startswith("hardware/")
        return (not in_hardware, self.path, self.line, self.col, self.code, self.message)


def error(
    code: str, path: str, line: int, col: int, message: str, hint: str | None = None
) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, path, line, col, message, hint)


#: C0 and C1 controls but tab and newline. Entries may not contain them (the loader refuses
#: them) and output never shows them raw: messages quote what users wrote, and nothing a user
#: wrote may move a terminal's cursor or reach a page as markup.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


#: Characters that are not controls but change what a reader sees: the Unicode line and
#: paragraph separators (many viewers break lines at them), bidirectional marks, embeddings,
#: overrides and isolates (they reorder text on screen), and zero-width characters.
_INVISIBLE = "\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff"
#: A carriage return that ends a line (CRLF) is kept: a diff of a CRLF file shows it, as git
#: does, or the patch would not apply.
_UNSAFE_IN_TEXT = re.compile(f"\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_INVISIBLE}]")
#: The same and a line feed: a line of output that quotes a file must stay one line (a CI log
#: runs a line that starts with `::` as a workflow command).
_UNSAFE_IN_A_LINE = re.compile(f"[\x00-\x08\x0a-\x1f\x7f-\x9f{_INVISIBLE}]")
_NAMED = {"\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    character = match.group()
    code = ord(character)
    return _NAMED.get(character) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


#: What GitHub's runner takes for a workflow command in a line of a job's log: `::` after
#: any white space at the start of the line (`::error::`), or its older form `##[` anywhere
#: in it (`##[error]`). Quoted from a file, either would let the file write the log's
#: annotations, groups and masks; the first character is shown as an escape instead.
_COMMAND = re.compile(r"^(\s*):(?=:)|#(?=#\[)", re.MULTILINE)


def _inert(match: re.Match[str]) -> str:
    start = match.group(1)
    return "\\x23" if start is None else f"{start}\\x3a"


def printable(text: str) -> str:
    """`text`, lines kept (CRLF ones too), with every other control and invisible character
    shown as an escape (`\\x1b`, `\\u202e`), and no line a CI runner would take for a command:
    for output of several lines, such as a diff."""
    return _COMMAND.sub(_inert, _UNSAFE_IN_TEXT.sub(_escape, text))


def one_line(text: str) -> str:
    """`text` as one line that shows what it holds: line breaks, controls, separators and
    direction overrides written as escapes (`\\n`, `\\x1b`, `\\u2028`), and a start that a CI
    runner would take for a workflow command too (`\\x3a:error::`, `\\x23#[error]`). Every
    piece of text that came from a file goes through this before it is written to a line of
    output."""
    return _COMMAND.sub(_inert, _UNSAFE_IN_A_LINE.sub(_escape, text))


def inert_json(text: str) -> str:
    """JSON text with GitHub's older command prefix `##[` written `#\\u0023[`: the same JSON,
    which no CI runner reads as a command (`::` cannot start a line of JSON)."""
    return text.replace("##[", "#\\u0023[")


def located_line(d: Diagnostic) -> str:
    """`path:line:col: CODE message`, the form editors and CI logs link to."""
    level = "" if d.severity is Severity.ERROR else "warning: "
    return one_line(f"{d.path}:{d.line}:{d.col}: {d.code} {level}{d.message}")


def sorted_diagnostics(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(set(diagnostics), key=Diagnostic.sort_key)
