"""Reading a file from a checkout that a stranger's pull request controls: a regular file,
at most MAX_FILE_BYTES, never a device, a FIFO or a symlink out of the repository."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from ..core.codes import NOT_A_FILE
from ..core.diagnostics import Diagnostic, error
from .problems import MAX_FILE_BYTES, too_large


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
                return None, [too_large(display, info.st_size)]
            raw = _read_at_most(fd, MAX_FILE_BYTES + 1, info.st_size)
        finally:
            os.close(fd)
    except OSError as exc:
        return refuse(f"cannot be read: {exc.strerror or exc}")
    except RuntimeError:  # Path.resolve() on a symlink loop (Python 3.11)
        return refuse("is a symlink loop", "replace the link with the file itself")
    if len(raw) > MAX_FILE_BYTES:
        return None, [too_large(display, len(raw))]
    return raw, []


def _read_at_most(fd: int, limit: int, size: int) -> bytes:
    """Up to `limit` bytes: a file that grows after fstat still cannot make us read more.
    The `size` fstat gave is asked for first, with a byte more to see the end at once."""
    first = os.read(fd, min(size + 1, limit))
    if len(first) <= size:
        return first  # a regular file read short has ended
    chunks = [first]
    total = len(first)
    while total < limit:
        chunk = os.read(fd, limit - total)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)
