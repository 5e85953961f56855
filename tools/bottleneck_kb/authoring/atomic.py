"""A formatted file put in the place of the old one, all or nothing and as the same file
(its mode, owner and extended attributes kept), or left as it is: `kb fmt`'s one way of
writing."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from ..core.files import written_beside


class ChangedMeanwhile(OSError):
    """The file is no longer what kb fmt read: someone saved it while kb fmt ran."""


def _extended_attributes(path: Path) -> dict[str, bytes]:
    """The file's extended attributes (a label, an ACL), which a new file must carry too;
    none where the system or the file system keeps none."""
    if not hasattr(os, "listxattr"):
        return {}
    try:
        return {name: os.getxattr(path, name) for name in os.listxattr(path)}
    except OSError:
        return {}


class KeptAsItIs(OSError):
    """The file is not replaced: a new file in its place would not be the same file to its
    other names, or to an owner who made it read-only."""


def write_atomic(path: Path, text: str, read: str | None = None) -> None:
    """Replace the file at `path` with `text`, all or nothing: a temporary file in the same
    folder, flushed to disk, then renamed over it, with the file's mode kept. An interrupted
    run leaves the old file whole (and at worst a hidden temporary file beside it).

    With `read` (the file as it was read), a file that no longer holds it is left alone and
    ChangedMeanwhile is raised: an edit saved while kb fmt ran is not overwritten. The last
    look is taken right before the rename, so only an edit in that instant could be lost.
    """
    status = os.stat(path)
    mode = stat.S_IMODE(status.st_mode)
    # A rename makes a new file: the other names of a hard-linked file would keep the old
    # text, and a file its owner made read-only would be rewritten (root may write anyway).
    if status.st_nlink > 1:
        raise KeptAsItIs(
            f"has {status.st_nlink - 1} other hard link(s), which would keep the old text"
        )
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise KeptAsItIs("is read-only")
    attributes = _extended_attributes(path)
    temporary = written_beside(path, text)
    try:
        os.chmod(temporary, mode)
        if (status.st_uid, status.st_gid) != (os.geteuid(), os.getegid()):
            try:  # only root may give a file away
                os.chown(temporary, status.st_uid, status.st_gid)
            except PermissionError:
                raise KeptAsItIs(
                    "belongs to another user or group, which a rewritten file cannot keep"
                ) from None
        for name, value in attributes.items():
            try:
                os.setxattr(temporary, name, value)
            except OSError:
                raise KeptAsItIs(
                    f"has the extended attribute {name}, which a rewritten file cannot keep"
                ) from None
        if read is not None and path.read_bytes() != read.encode("utf-8"):
            raise ChangedMeanwhile("changed after kb fmt read it; run kb fmt again")
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
