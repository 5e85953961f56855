"""The one diagnostic type that every check produces and every reporter consumes."""

from __future__ import annotations

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


def sorted_diagnostics(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(set(diagnostics), key=Diagnostic.sort_key)
