"""Files written whole or not at all: the text goes to a temporary file beside its place,
which the caller then renames or links there, so a reader never sees half a file."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def written_beside(path: Path, text: str, durable: bool = True) -> str:
    """`text` in a new temporary file in `path`'s folder, flushed to disk when `durable` (a
    user's file; a cache that can be computed again need not wait for the disk); its name."""
    descriptor, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(text.encode("utf-8"))
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    return temporary
