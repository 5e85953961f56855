"""The files a git change touches: since a ref (a pull request's) or staged for commit (pre-
commit's), deletions included."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ..core.errors import BadRequest


class ChangedFilesError(BadRequest):
    """The files changed since a git ref cannot be listed (no repository, no such ref)."""


#: Seconds any one git command may take before listing changed files is given up.
GIT_TIMEOUT = 60


def _run_git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", *args],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ChangedFilesError(f"cannot run git in {root}: {exc}") from None


def _git(root: Path, *args: str) -> str:
    done = _run_git(root, *args)
    if done.returncode != 0:
        raise ChangedFilesError(f"git {args[0]} failed in {root}: {done.stderr.strip()}")
    return done.stdout


def changed_paths(root: Path, ref: str) -> tuple[list[Path], list[Path]]:
    """The files of `root` changed since `ref` (what a pull request touches): those that
    exist, and those the change removed, whose dependents must be checked again. Every file,
    not only entries and devices: a file elsewhere may be what a link in entries/ leads to,
    and one misnamed in entries/ (`x.yml`) is reported, as a full check reports it.

    Changes are counted from the merge base of `ref` and HEAD to the working tree, untracked
    files included.
    """
    _inside_git(root)
    try:
        commit = _git(root, "rev-parse", "--verify", "--end-of-options", f"{ref}^{{commit}}")
    except ChangedFilesError:
        raise ChangedFilesError(
            f"'{ref}' is not a commit of the git repository at {root}"
        ) from None
    base = _git(root, "merge-base", commit.strip(), "HEAD").strip()
    tracked = _git(root, "diff", "--name-only", "--no-renames", "--relative", "-z", base, "--")
    untracked = _git(root, "ls-files", "--others", "--exclude-standard", "-z")
    present: list[Path] = []
    removed: list[Path] = []
    for name in dict.fromkeys((tracked + untracked).split("\0")):
        if not name:
            continue
        path = root / name
        (present if path.exists() or path.is_symlink() else removed).append(path)
    return present, removed


def staged_paths(root: Path) -> tuple[list[Path], list[Path]]:
    """The files of `root` staged for commit (git's index against HEAD, or against nothing
    before the first commit): those that exist, and those the commit deletes. pre-commit hands
    a hook only the files that exist, so a deletion alone would check nothing, and the entries
    relating to a deleted one would go unchecked. A file the commit deletes is removed though
    it stays on disk (`git rm --cached`). Files are read from disk, as pre-commit leaves them
    (unstaged changes set aside, untracked files in place): an untracked device on disk is
    still in the catalog, as in a full run of the working tree."""
    _inside_git(root)
    listed = _git(root, "diff", "--cached", "--name-status", "--no-renames", "--relative", "-z")
    fields = listed.split("\0")
    present: list[Path] = []
    removed: list[Path] = []
    for status, name in zip(fields[0::2], fields[1::2], strict=False):
        if name:
            (removed if status == "D" else present).append(root / name)
    return present, removed


def _inside_git(root: Path) -> None:
    if _run_git(root, "rev-parse", "--is-inside-work-tree").stdout.strip() != "true":
        raise ChangedFilesError(f"{root} is not in a git repository")
