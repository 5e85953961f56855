"""The files a git change touches: since a ref (a pull request's) or staged for commit (pre-
commit's), deletions included; and the knowledge base's files as a commit holds them."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from ..core.errors import BadRequest
from ..source import MAX_FILE_BYTES
from .config import CONFIG_FILE
from .files import ENTRIES, HARDWARE, MODELS


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
    base = merge_base(root, ref)
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


def merge_base(root: Path, ref: str) -> str:
    """The commit a change since `ref` is counted from: the merge base of `ref` and HEAD."""
    _inside_git(root)
    try:
        commit = _git(root, "rev-parse", "--verify", "--end-of-options", f"{ref}^{{commit}}")
    except ChangedFilesError:
        raise ChangedFilesError(
            f"'{ref}' is not a commit of the git repository at {root}"
        ) from None
    try:
        return _git(root, "merge-base", commit.strip(), "HEAD").strip()
    except ChangedFilesError:
        raise ChangedFilesError(f"'{ref}' and HEAD have no common ancestor") from None


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


#: What kb reads of a commit's tree (`write_tree`): its folders and files, from the root.
KNOWLEDGE_PATHS = (ENTRIES, HARDWARE, MODELS, "schema", CONFIG_FILE)
#: At most this many files are taken from a commit's tree, and this many bytes in all; each
#: file at most the reader's limit.
MAX_TREE_FILES = 100_000
MAX_TREE_BYTES = 256 * 2**20
#: The modes of a tree's entries that are files (a link, 120000, or a submodule is not).
_FILES = {b"100644", b"100755"}


def write_tree(root: Path, commit: str, into: Path) -> dict[str, str]:
    """Write the knowledge base's files (`KNOWLEDGE_PATHS`) as `commit` holds them below
    `root` into the empty folder `into`, nothing run from them; return the files not written,
    by path from the root, with why (a link, a file past the reader's limit). A tree holding
    more than MAX_TREE_FILES files or MAX_TREE_BYTES bytes there is refused whole."""
    skipped: dict[str, str] = {}
    wanted: list[tuple[str, str, int]] = []
    total = 0
    for record in _tree_records(root, commit):
        if not record:
            continue
        meta, _, raw_name = record.partition(b"\t")
        fields = meta.split()
        if len(fields) != 4:
            raise ChangedFilesError(f"git ls-tree gave an unexpected line for {commit}")
        mode, kind, oid, size = fields
        name = os.fsdecode(raw_name)
        parts = name.split("/")
        if parts[0] not in KNOWLEDGE_PATHS or any(
            p in ("", ".", "..") or p.lower() == ".git" for p in parts
        ):
            skipped[name] = "is no path kb reads"
        elif kind != b"blob" or mode not in _FILES:
            if kind == b"blob":  # a submodule is no file of the knowledge base
                skipped[name] = "is a symbolic link, which kb diff does not follow"
        elif not size.isdigit() or int(size) > MAX_FILE_BYTES:
            skipped[name] = f"is larger than {MAX_FILE_BYTES // 1024} KiB, the most kb reads"
        else:
            total += int(size)
            if total > MAX_TREE_BYTES:
                raise ChangedFilesError(
                    f"{commit} holds more than {MAX_TREE_BYTES // 2**20} MiB of files for kb"
                )
            wanted.append((name, oid.decode("ascii"), int(size)))
    _write_blobs(root, wanted, into, skipped)
    return skipped


def _tree_records(root: Path, commit: str) -> list[bytes]:
    """`git ls-tree -r -l` of the knowledge base's paths at `commit`, one record a file, read
    as a stream and refused past MAX_TREE_FILES records (names are bytes: any a tree holds)."""
    command = ["git", "ls-tree", "-r", "-z", "-l", commit, "--", *KNOWLEDGE_PATHS]
    try:
        process = subprocess.Popen(
            command, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
    except OSError as exc:
        raise ChangedFilesError(f"cannot run git in {root}: {exc}") from None
    assert process.stdout is not None
    chunks: list[bytes] = []
    records = 0
    with process:
        while chunk := process.stdout.read(1 << 16):
            chunks.append(chunk)
            records += chunk.count(b"\0")
            if records > MAX_TREE_FILES:
                process.kill()
                raise ChangedFilesError(f"{commit} holds more than {MAX_TREE_FILES:,} files for kb")
        if process.wait(timeout=GIT_TIMEOUT) != 0:
            raise ChangedFilesError(f"git ls-tree failed in {root} for {commit}")
    return b"".join(chunks).split(b"\0")


def _write_blobs(
    root: Path, wanted: list[tuple[str, str, int]], into: Path, skipped: dict[str, str]
) -> None:
    """The blobs of `wanted` (path, object id, size) written below `into`, read from one
    `git cat-file --batch` as a stream; a path that cannot be written goes to `skipped`."""
    with tempfile.TemporaryFile() as ids:
        ids.write("".join(f"{oid}\n" for _, oid, _ in wanted).encode("ascii"))
        ids.seek(0)
        try:
            process = subprocess.Popen(
                ["git", "cat-file", "--batch"],
                cwd=root,
                stdin=ids,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError as exc:
            raise ChangedFilesError(f"cannot run git in {root}: {exc}") from None
        assert process.stdout is not None
        with process:
            for name, oid, size in wanted:
                header = process.stdout.readline(200).split()
                if header[:3] != [oid.encode("ascii"), b"blob", str(size).encode("ascii")]:
                    process.kill()
                    raise ChangedFilesError(f"git cat-file gave no blob {oid} for {name}")
                data = process.stdout.read(size)
                process.stdout.read(1)  # the newline after each object
                target = into.joinpath(*name.split("/"))
                try:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    with open(target, "xb") as handle:  # a fresh folder: nothing to follow
                        handle.write(data)
                except OSError as exc:
                    skipped[name] = f"cannot be written out ({exc.strerror})"
            process.wait(timeout=GIT_TIMEOUT)
