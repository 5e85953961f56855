"""The one diagnostic type that every check produces and every reporter consumes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

#: A bug in kb met while checking a file; the only code that makes `kb check` exit 2.
INTERNAL = "KB000"


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

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.line, self.col, self.code, self.message)


def error(
    code: str, path: str, line: int, col: int, message: str, hint: str | None = None
) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, path, line, col, message, hint)


#: C0 and C1 controls but tab and newline. Entries may not contain them (the loader refuses
#: them) and output never shows them raw: messages quote what users wrote, and nothing a user
#: wrote may move a terminal's cursor or reach a page as markup.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """`text` with every control character shown as an escape (`\\x1b`)."""
    return CONTROL_CHARACTERS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def located_line(d: Diagnostic) -> str:
    """`path:line:col: CODE message`, the form editors and CI logs link to."""
    level = "" if d.severity is Severity.ERROR else "warning: "
    return printable(f"{d.path}:{d.line}:{d.col}: {d.code} {level}{d.message}")


def sorted_diagnostics(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(set(diagnostics), key=Diagnostic.sort_key)
