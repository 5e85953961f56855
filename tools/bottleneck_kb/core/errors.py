"""The one error contract: every error the library raises on purpose derives from KBError.

An error carries a message, an optional hint, and, where it is known, the place in a file that
caused it. Commands turn any KBError into a located message and an exit status, never a
traceback; anything else escaping a command is a bug in kb and is reported as one.
"""

from __future__ import annotations


class KBError(Exception):
    """A problem kb can explain: `message`, an optional `hint`, and where it is if known."""

    def __init__(
        self,
        message: str,
        hint: str | None = None,
        path: str | None = None,
        line: int | None = None,
        col: int | None = None,
    ) -> None:
        # Exception pickles as `type(self)(*self.args)`: subclasses with other signatures set
        # `args` to their own arguments so that errors cross worker processes whole.
        super().__init__(message, hint, path, line, col)
        self.message = message
        self.hint = hint
        self.path = path
        self.line = line
        self.col = col

    def location(self) -> tuple[str, int, int] | None:
        """(path, line, col) of what caused the error, when known."""
        if self.path is None or self.line is None or self.col is None:
            return None
        return self.path, self.line, self.col

    def __str__(self) -> str:
        return f"{self.message}; {self.hint}" if self.hint else self.message


class BadRequest(KBError):
    """A request that names what is not there or asks for what may not be asked (an unknown
    device or symbol, a value outside a symbol's range): a usage error, exit status 2."""
