"""Where a part of a record was read from (its document and pointer), so that a rule that finds
a problem in a typed value can say where the user wrote it."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.diagnostics import Diagnostic
from ..source import Document, Pointer


@dataclass(slots=True)
class Located:
    """Where a model part was read from."""

    source: Document
    pointer: Pointer

    def error(
        self,
        code: str,
        message: str,
        hint: str | None = None,
        *,
        at: Pointer = (),
        key: bool = False,
        offset: int | None = None,
    ) -> Diagnostic:
        """An error at this part (or at `at` below it); see Document.error_at."""
        return self.source.error_at(
            code, (*self.pointer, *at), message, hint, key=key, offset=offset
        )
