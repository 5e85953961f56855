"""Where kb may write: the folders a build writes (the site, the cache of views) are checked
before anything is written or deleted there.

A repository is a stranger's input, and so is what it holds at the places kb writes: a pull
request can commit `build/site` as a link to a folder outside the repository (MkDocs empties
its output folder before writing) or commit files into an output or cache folder (a fresh
clone then has them). So an output folder is refused when a link lies on its way below the
repository or inside it, when git tracks a file in it, and when it lies outside the
repository, unless the user named it on the command line (and then not through a link).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from .codes import COMMITTED_OUTPUT
from .diagnostics import Diagnostic, error
from .errors import KBError

#: Entries of an output folder looked at for links: a build's output is far smaller; a
#: folder past this is not walked further (nothing in it is trusted for that, only written).
MAX_WALKED = 200_000
#: Seconds `git ls-files` may take before the folder is taken to hold nothing tracked.
GIT_TIMEOUT = 30


class OutputRefused(KBError):
    """An output folder kb will not write to, and why."""


def guard_output(folder: Path, repository: Path, what: str, *, named: bool = False) -> None:
    """Raise OutputRefused unless `what` (`the site`, `the cache of views`) may be written at
    `folder`: no link on the way to it from `repository` or inside it, no file in it that git
    tracks, and inside `repository` unless the user `named` it (on the command line)."""
    where = Path(os.path.abspath(folder))
    top = Path(os.path.abspath(repository))
    shown = _shown(where, top)
    if where.is_relative_to(top):
        step = top
        for part in where.relative_to(top).parts:
            step = step / part
            if step.is_symlink():
                raise OutputRefused(
                    f"{what} would be written through a link: {_shown(step, top)} is a link "
                    f"to {os.readlink(step)}",
                    f"remove the link (git rm {_shown(step, top)} if it is committed); kb "
                    "writes only to real folders",
                )
    elif not named:
        raise OutputRefused(
            f"{what} would be written outside the repository, at {shown}",
            "name a folder inside the repository, or give the folder on the command line",
        )
    elif where.is_symlink():
        raise OutputRefused(
            f"{what} would be written through a link: {shown} is a link to {os.readlink(where)}",
            "name the folder the link points to, or another one",
        )
    link = _link_inside(where)
    if link is not None:
        raise OutputRefused(
            f"{what} would be written through a link: {_shown(link, top)} is a link to "
            f"{os.readlink(link)}",
            f"remove the link; {shown} is an output folder, written anew by each build",
        )
    if where.is_relative_to(top):
        tracked = tracked_files(top, where)
        if tracked:
            more = f" and {len(tracked) - 1} more" if len(tracked) > 1 else ""
            raise OutputRefused(
                f"{what} would be written where git tracks files: {tracked[0]}{more}",
                f"an output folder is never committed: git rm -r --cached {shown}",
            )


def tracked_files(repository: Path, below: Path) -> list[str]:
    """The files git tracks below `below` in the work tree at `repository`, as git names
    them; [] outside a git work tree or when git cannot say."""
    try:
        done = subprocess.run(
            ["git", "ls-files", "-z", "--", os.path.relpath(below, repository)],
            cwd=repository,
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return []
    if done.returncode != 0:
        return []
    return [name for name in done.stdout.decode("utf-8", "replace").split("\0") if name]


def _link_inside(folder: Path) -> Path | None:
    """The first link found in `folder` (not followed), or None."""
    if not folder.is_dir():
        return None
    seen = 0
    for current, folders, files in os.walk(folder):
        for name in (*folders, *files):
            seen += 1
            path = Path(current, name)
            if path.is_symlink():
                return path
            if seen >= MAX_WALKED:
                return None
    return None


def _shown(path: Path, top: Path) -> str:
    return path.relative_to(top).as_posix() if path.is_relative_to(top) else path.as_posix()


BUILD = "build"
#: Committed build files said one by one; past these, one more line counts the rest.
MAX_SAID = 20


def committed_outputs(root: Path) -> list[Diagnostic]:
    """A located error for each file git tracks under `root`/build/ (at most MAX_SAID, then
    one that counts the rest): a fresh clone holds them where the site build reads and
    writes, so they are build artefacts a pull request smuggled in."""
    build = Path(root, BUILD)
    if not (build.exists() or build.is_symlink()):  # nothing tracked can be there: no git run
        return []
    tracked = tracked_files(Path(root), build)
    said = [
        error(
            COMMITTED_OUTPUT,
            name,
            1,
            1,
            f"is committed under {BUILD}/, where the site build writes its output and caches",
            f"build artefacts are never committed: git rm -r --cached {BUILD}",
        )
        for name in tracked[:MAX_SAID]
    ]
    if len(tracked) > MAX_SAID:
        rest = len(tracked) - MAX_SAID
        said.append(
            error(
                COMMITTED_OUTPUT,
                tracked[MAX_SAID],
                1,
                1,
                f"and {rest - 1} more files are committed under {BUILD}/"
                if rest > 1
                else f"is committed under {BUILD}/ too",
                f"git rm -r --cached {BUILD}",
            )
        )
    return said
