"""Reading one file of a knowledge base: bytes, then a document with positions, then the
schema, then a record; a failure kb did not foresee becomes a located internal error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from .. import schemas
from ..core.codes import INTERNAL, PORTABLE_NUMBER, WRONG_TYPE
from ..core.diagnostics import Diagnostic, error
from ..records.device import Device, build_device
from ..records.entry import Entry, build_entry
from ..records.model import Model, build_model
from ..source import Document, load, read_file
from .files import display_path

T = TypeVar("T")


def read_document(
    path: Path,
    root: Path,
    kind: str,
    shown_from: Path | None = None,
    words: schemas.Words = schemas.BUILT_IN,
) -> tuple[Document | None, list[Diagnostic]]:
    """Read, parse and validate one file of the repository at `root` against the schema of
    `kind` (with the knowledge base's own `words`), its path shown from `shown_from`
    (default: root)."""
    display = display_path(path, shown_from or root)
    raw, problems = read_file(path, display, root)
    if raw is None:
        return None, problems
    document, problems = load(raw, display)
    if document is None:
        return None, problems
    invalid = schemas.validate(kind, document, words)
    if invalid:
        # A number where the schema wants another type (a figure's value, which carries its
        # unit) is told so by the schema; KB014's hint to spell the number otherwise would
        # only lead to that same error.
        retyped = {(d.line, d.col) for d in invalid if d.code == WRONG_TYPE}
        kept = [p for p in problems if p.code != PORTABLE_NUMBER or (p.line, p.col) not in retyped]
        return None, kept + invalid
    return document, problems


def read_entry(
    path: Path, root: Path, words: schemas.Words = schemas.BUILT_IN
) -> tuple[Entry | None, list[Diagnostic]]:
    """One entry, read against the entry schema with the knowledge base's own `words`."""
    document, problems = read_document(path, root, schemas.ENTRY, words=words)
    if document is None:
        return None, problems
    return build_entry(document), problems


def read_model(path: Path, root: Path) -> tuple[Model | None, list[Diagnostic]]:
    document, problems = read_document(path, root, schemas.MODEL)
    if document is None:
        return None, problems
    return build_model(document), problems


def read_device(
    path: Path, root: Path, shown_from: Path | None = None
) -> tuple[Device | None, list[Diagnostic]]:
    document, problems = read_document(path, root, schemas.HARDWARE, shown_from)
    if document is None:
        return None, problems
    device, invalid = build_device(document)
    return device, problems + invalid


def guarded(
    read: Callable[[Path, Path], tuple[T | None, list[Diagnostic]]],
    path: Path,
    root: Path,
    shown_from: Path | None = None,
) -> tuple[T | None, list[Diagnostic]]:
    """`read(path, root)`, with a failure kb did not foresee turned into an internal-error
    diagnostic on that file, so that one file's surprise never hides the other files' results."""
    try:
        return read(path, root)
    except Exception as exc:  # the point is to catch what nobody foresaw
        return None, [
            error(
                INTERNAL,
                display_path(path, shown_from or root),
                1,
                1,
                f"internal error while checking this file: {type(exc).__name__}: {exc}",
                "this is a bug in kb; please report it with the file",
            )
        ]
