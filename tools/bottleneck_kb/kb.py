"""Finding and reading the files of a knowledge base into typed entries and devices."""

from __future__ import annotations

import os
import subprocess
import unicodedata
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from . import schemas
from .diagnostics import INTERNAL, Diagnostic, error
from .errors import BadRequest
from .model import Device, Entry, build_device, build_entry
from .source import NOT_A_FILE, PORTABLE_NUMBER, Document, load, read_file

T = TypeVar("T")

ENTRIES = "entries"
HARDWARE = "hardware"
SUFFIX = ".yaml"
#: A file under entries/ or hardware/ that looks like an entry or a device but is not read.
NOT_READ = "KB019"
#: Two entries, or two devices, with one id.
DUPLICATE_ID = "KB202"


def display_path(path: Path, root: Path) -> str:
    """The path as the user should see it: relative to the root when inside it, else whole."""
    text, base = str(path), str(root)
    if base == "." and not path.is_absolute():
        return path.as_posix()
    if text.startswith(base + os.sep):  # the usual case: found below the root as given
        return text[len(base) + 1 :].replace(os.sep, "/")
    absolute, base = os.path.abspath(text), os.path.abspath(base)
    if absolute.startswith(base + os.sep):
        return absolute[len(base) + 1 :].replace(os.sep, "/")
    # Outside the root, by its whole path: one relative to the current folder would read as
    # one relative to the root, which paths shown from elsewhere are taken to be.
    return Path(absolute).as_posix()


def related_folders(root: Path, here: Path) -> bool:
    """Whether the folder `here` is `root`, inside it or above it: where a path shown from
    one opens from the other once made relative."""
    # Real paths: the current folder is one (the system resolves its links), and a root
    # named through a link is the same folder.
    top, at = os.path.realpath(root), os.path.realpath(here)
    return at == top or at.startswith(top + os.sep) or top.startswith(at + os.sep)


def shown_from_here(root: Path, here: Path) -> Callable[[str], str] | None:
    """How a path shown from `root` (`entries/x/y.yaml`) is shown to a user in the folder
    `here`, where kb runs: from `here` when one of the two folders holds the other, so that
    it opens from there (in a subfolder of the knowledge base, `y.yaml`; from the top of a
    repository that keeps its knowledge base in `perf/`, `perf/entries/x/y.yaml`, which is
    also where CI's annotations must point); as it is when they are the same folder or
    apart (None: nothing to change), and for a whole path (another catalog's file)."""
    top, at = os.path.realpath(root), os.path.realpath(here)
    if at == top or not related_folders(root, here):
        return None

    def shown(path: str) -> str:
        if os.path.isabs(path):
            return path
        return Path(os.path.relpath(os.path.join(top, path), at)).as_posix()

    return shown


def discover(
    root: Path,
    folder: str,
    diagnostics: list[Diagnostic] | None = None,
    shown_from: Path | None = None,
) -> list[Path]:
    """Every file of root/folder that is read as an entry (or, in hardware/, as a device), in
    a stable order. Whatever else there looks as if it were meant as one (another ending, a
    hidden name, a linked folder, a subfolder of hardware/) goes to `diagnostics`, located,
    its path shown from `shown_from` (default: root; another catalog's files are shown from
    the knowledge base that reads them)."""
    found = _walk(
        root,
        Path(root, folder),
        folder == HARDWARE,
        [] if diagnostics is None else diagnostics,
        shown_from or root,
    )
    return [Path(path) for path in found]


def entry_files(root: Path, diagnostics: list[Diagnostic]) -> list[str]:
    """The files of entries/ that `discover` finds, as text: a check of them all makes each
    file's Path where it reads the file, in the workers, instead of 10,000 at its start."""
    return _walk(root, Path(root, ENTRIES), False, diagnostics, root)


def _inside(path: Path, root: Path) -> bool:
    """Whether `path` lies in the repository once every link on the way to it is followed. A
    link as its last part is not followed here: reading judges where that one points."""
    parent, name = os.path.split(os.path.abspath(path))
    where = os.path.join(os.path.realpath(parent), name)
    if not os.path.islink(where):
        where = os.path.realpath(where)
    return Path(where).is_relative_to(os.path.realpath(root))


def _walk(
    root: Path, base: Path, devices: bool, diagnostics: list[Diagnostic], shown_from: Path
) -> list[str]:
    if not base.is_dir():
        return []
    if not Path(os.path.realpath(base)).is_relative_to(os.path.realpath(root)):
        refused = _refused(base, shown_from, "is a link to a folder outside the repository")
        diagnostics.append(refused)
        return []
    # Paths as text: joining and sorting text is a fraction of what building and sorting
    # Path objects costs.
    found: list[str] = []
    # os.walk never follows a link into a folder; a linked folder is said, not skipped.
    for current, folders, files in os.walk(base):
        here = Path(current)
        hidden = any(part.startswith(".") for part in here.relative_to(base).parts)
        linked = [name for name in folders if os.path.islink(os.path.join(current, name))]
        diagnostics += [
            _refused(here / name, shown_from, "is a link to a folder") for name in linked
        ]
        folders[:] = [name for name in folders if name not in linked]
        # A folder named *.yaml is listed, to be refused as "a directory" when read.
        found += [
            os.path.join(current, name) for name in folders if name.endswith(SUFFIX) and not hidden
        ]
        # Where every file ending in SUFFIX is read (not a hidden folder, nor a subfolder of
        # hardware/), such a file that is not hidden is read: what `_not_read` says of it.
        readable = not hidden and not (devices and here != base)
        for name in files:
            if readable and name.endswith(SUFFIX) and not name.startswith("."):
                found.append(os.path.join(current, name))  # nearly every file: decided at once
                continue
            if not _seen_as(name).lower().endswith(_MEANT_AS_DATA):
                continue
            why = _not_read(name, hidden, devices and here != base)
            if why is None:
                found.append(os.path.join(current, name))
            else:
                message, hint = why
                diagnostics.append(
                    error(NOT_READ, display_path(here / name, root), 1, 1, message, hint)
                )
    return sorted(found)


_OUTSIDE_HINT = "run kb with --root set to its own repository, or copy it into entries/"
#: Endings of files that may have been meant as an entry or a device; only SUFFIX is read.
_MEANT_AS_DATA = (".yaml", ".yml", ".json")


def _seen_as(name: str) -> str:
    """A file name as a reader sees it: without the spaces and invisible characters that may
    end it (`x.yaml `, `x.yaml` and a zero-width space), which make it another file's name."""
    end = len(name)
    while end and (name[end - 1].isspace() or unicodedata.category(name[end - 1]) == "Cf"):
        end -= 1
    return name[:end]


def _not_read(
    name: str, in_hidden_folder: bool, in_subfolder_of_hardware: bool
) -> tuple[str, str | None] | None:
    """Why a file that looks like an entry or a device is not read, and what would make it
    read; None when it is read."""
    visible = _seen_as(name).lstrip(".")
    stem = visible.rsplit(".", 1)[0] if "." in visible else ""
    renamed = f"rename it to {stem}{SUFFIX}" if stem else None
    if in_hidden_folder:
        return "is in a hidden folder, which kb does not read", "move it out of the hidden folder"
    if name.startswith("."):
        return "is hidden, and kb does not read hidden files", renamed
    if not name.endswith(SUFFIX):
        return f"is not read: kb reads files ending in {SUFFIX}", renamed
    if in_subfolder_of_hardware:
        return (
            f"is in a subfolder of {HARDWARE}/, which kb does not read",
            f"move it to {HARDWARE}/{name}",
        )
    return None


def _refused(
    path: Path, root: Path, message: str, hint: str = "commit the files themselves"
) -> Diagnostic:
    return error(NOT_A_FILE, display_path(path, root), 1, 1, message, hint)


def read_document(
    path: Path, root: Path, kind: str, shown_from: Path | None = None
) -> tuple[Document | None, list[Diagnostic]]:
    """Read, parse and validate one file of the repository at `root` against the schema of
    `kind`, its path shown from `shown_from` (default: root)."""
    display = display_path(path, shown_from or root)
    raw, problems = read_file(path, display, root)
    if raw is None:
        return None, problems
    document, problems = load(raw, display)
    if document is None:
        return None, problems
    invalid = schemas.validate(kind, document)
    if invalid:
        # A number where the schema wants another type (a figure's value, which carries its
        # unit) is told so by the schema; KB014's hint to spell the number otherwise would
        # only lead to that same error.
        retyped = {(d.line, d.col) for d in invalid if d.code == schemas.WRONG_TYPE}
        kept = [p for p in problems if p.code != PORTABLE_NUMBER or (p.line, p.col) not in retyped]
        return None, kept + invalid
    return document, problems


def read_entry(path: Path, root: Path) -> tuple[Entry | None, list[Diagnostic]]:
    document, problems = read_document(path, root, schemas.ENTRY)
    if document is None:
        return None, problems
    return build_entry(document), problems


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


@dataclass
class Catalog:
    """The devices of hardware/, by id, and the files that failed to give one."""

    devices: dict[str, Device] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: Device id -> the file of hardware/ that would define it but has errors: an entry that
    #: names the device is pointed there once, instead of being told it does not exist.
    broken: dict[str, str] = field(default_factory=dict)
    #: Devices read whole but left out because another file has their id (reported).
    duplicates: list[Device] = field(default_factory=list)
    #: The folder the devices were read from, as messages name it: the knowledge base's own
    #: hardware/, or another's (kb check --catalog) by its whole path.
    folder: str = f"{HARDWARE}/"
    #: Whether the devices are the knowledge base's own: another's files are formatted (and
    #: their schema line judged) by the repository that keeps them.
    own: bool = True

    @classmethod
    def load(cls, root: Path, elsewhere: Path | None = None) -> Catalog:
        """The devices of root's hardware/, or of another knowledge base's at `elsewhere`
        (kb check --catalog), which messages name by its whole path."""
        if elsewhere is not None and os.path.realpath(elsewhere) == os.path.realpath(root):
            elsewhere = None  # --catalog naming the knowledge base itself
        # Another catalog's files are named by their whole path, in every message: they are
        # not the files of this knowledge base's hardware/ that have their names.
        catalog_root = root if elsewhere is None else Path(os.path.abspath(elsewhere))
        catalog = cls(
            folder=f"{catalog_root / HARDWARE}/" if elsewhere else f"{HARDWARE}/",
            own=elsewhere is None,
        )
        read: list[Device] = []
        for path in discover(catalog_root, HARDWARE, catalog.diagnostics, root):
            device, problems = guarded(
                lambda p, r: read_device(p, r, root), path, catalog_root, root
            )
            catalog.diagnostics.extend(problems)
            if device is not None:
                read.append(device)
            else:
                catalog.broken[path.name.removesuffix(SUFFIX)] = display_path(path, root)
        for device in sorted(read, key=_owns_its_id):
            owner = catalog.devices.setdefault(device.id, device)
            if owner is not device:
                catalog.duplicates.append(device)
                catalog.diagnostics.append(_duplicate_device(device, owner))
        # By id, not by file name: hardware/x-y.yaml sorts before hardware/x.yaml.
        catalog.devices = dict(sorted(catalog.devices.items()))
        return catalog


def _owns_its_id(device: Device) -> tuple[bool, str]:
    """Devices whose id is their file name first: of two files with one id, the other one
    introduced the duplicate."""
    return (Path(device.path).stem != device.id, device.path)


def _duplicate_device(device: Device, owner: Device) -> Diagnostic:
    own_id = Path(device.path).stem
    valid = schemas.is_id(schemas.HARDWARE, own_id)
    return device.source.error_at(
        DUPLICATE_ID,
        ("id",),
        f"device id '{device.id}' is already used by {owner.path}",
        f"set id: {own_id}"
        if valid
        else f"rename the file to {HARDWARE}/<id>.yaml and set id to match",
    )


@dataclass
class KnowledgeBase:
    """Entries and devices read from a root, with every problem found while reading them."""

    root: Path
    catalog: Catalog
    entries: list[Entry]
    diagnostics: list[Diagnostic]

    @classmethod
    def load(
        cls, root: Path, paths: Sequence[Path] | None = None, catalog_root: Path | None = None
    ) -> KnowledgeBase:
        """The entries of root (all, or those of `paths`), and the devices of its catalog or
        of the one at `catalog_root`."""
        catalog = Catalog.load(root, catalog_root)
        entries: list[Entry] = []
        diagnostics = list(catalog.diagnostics)
        for path in entry_paths(root, paths, diagnostics):
            entry, problems = read_entry(path, root)
            diagnostics.extend(problems)
            if entry is not None:
                entries.append(entry)
        return cls(root, catalog, entries, diagnostics)

    def entry(self, entry_id: str) -> Entry | None:
        return next((e for e in self.entries if e.id == entry_id), None)


def entry_ids(paths: Iterable[Path | str], root: Path) -> frozenset[str]:
    """The ids the files at `paths` (found below root/entries) have: an entry's id is its
    path, so this needs no file read."""
    prefix = len(ENTRIES) + 1
    below = os.path.join(str(root), ENTRIES, "")
    if os.sep != "/":
        below = "\0"  # display_path turns the separators: every path takes the long way
    # What display_path gives, without its call, for a path found below the root as given.
    return frozenset(
        text[len(below) : -len(SUFFIX)]
        if (text := str(path)).startswith(below)
        else display_path(Path(path), root)[prefix : -len(SUFFIX)]
        for path in paths
    )


def entry_paths(
    root: Path, paths: Iterable[Path] | None, diagnostics: list[Diagnostic]
) -> list[Path]:
    """The entry files to read: all of entries/, or those named (folders expanded). Named
    hardware files are left out, because the whole catalog is always read."""
    return named_files(root, paths, diagnostics, (ENTRIES,))


def existing(root: Path, paths: Iterable[Path], diagnostics: list[Diagnostic]) -> list[Path]:
    """The named paths that exist (a link counts, whatever it points to) and lie in the
    repository; the others are reported rather than silently ignored or read (or, by
    `kb fmt`, written)."""
    kept = []
    for path in paths:
        if not _inside(path, root):
            diagnostics.append(_refused(path, root, "is outside the repository", _OUTSIDE_HINT))
        elif path.exists() or path.is_symlink():
            kept.append(path)
        else:
            diagnostics.append(
                error(NOT_A_FILE, display_path(path, root), 1, 1, "no such file or directory")
            )
    return kept


def named_files(
    root: Path,
    paths: Iterable[Path] | None,
    diagnostics: list[Diagnostic],
    folders: tuple[str, ...],
) -> list[Path]:
    """The files of `folders` (entries/, hardware/) to read: all of them, or those named, a
    named folder read as `discover` reads one; each file once, however it was spelled. A named
    path that does not exist, or that leads out of the repository, is reported."""

    def every() -> list[Path]:
        return [path for folder in folders for path in discover(root, folder, diagnostics)]

    if paths is None:
        return every()
    chosen: list[Path] = []
    top = os.path.realpath(root)
    hardware = Path(top, HARDWARE)
    for path in paths:
        if not existing(root, [path], diagnostics):  # said in the order the paths were given
            continue
        real = Path(os.path.realpath(path))
        if real.is_relative_to(hardware) and HARDWARE not in folders:
            continue
        if path.is_dir() and not path.is_symlink():
            if str(real) == top:  # the whole repository
                chosen += every()
            elif not any(real.is_relative_to(Path(top, folder)) for folder in folders):
                # tests/, docs/: no file there is read as an entry or a device.
                message = _outside_folders(folders)
                diagnostics.append(error(NOT_READ, display_path(path, root), 1, 1, message))
            else:
                walked = _walk(root, path, real.is_relative_to(hardware), diagnostics, root)
                chosen += map(Path, walked)
        elif (unread := _named_file_unread(root, path, folders)) is not None:
            diagnostics.append(unread)
        else:
            chosen.append(path)
    once: dict[str, Path] = {}
    for path in chosen:  # a link is a file of its own: spellings are merged, links are not
        once.setdefault(os.path.abspath(path), path)
    return list(once.values())


def _outside_folders(folders: tuple[str, ...]) -> str:
    return f"is not read: kb reads the files in {' or '.join(f'{f}/' for f in folders)}"


def _named_file_unread(root: Path, path: Path, folders: tuple[str, ...]) -> Diagnostic | None:
    """Why a file named on the command line is not read, as the walk of its folder would say
    it (hidden, another ending, a subfolder of hardware/), or because it lies in none of
    `folders`: a named mkdocs.yml or workflow is not an entry, and `kb fmt` must not rewrite
    it as one. None when it is read."""
    where = Path(os.path.abspath(path))
    for folder in folders:
        base = Path(os.path.abspath(root), folder)
        if where.is_relative_to(base):
            parts = where.relative_to(base).parts
            hidden = any(part.startswith(".") for part in parts[:-1])
            why = _not_read(where.name, hidden, folder == HARDWARE and len(parts) > 1)
            break
    else:
        why = _outside_folders(folders), None
    if why is None:
        return None
    message, hint = why
    return error(NOT_READ, display_path(path, root), 1, 1, message, hint)


#: Where an entry names entry ids: the list, and the key of each item that holds the id
#: (None: the item is the id).
Places = tuple[tuple[str, str | None], ...]
#: The entries an entry relates to.
RELATED: Places = (("related", "id"),)
#: The entry's former ids.
ALIASES: Places = (("aliases", None),)


def _named(data: object, places: Places) -> Iterator[object]:
    """The ids an entry's data names at `places`, whatever its shape: the data has not been
    validated yet."""
    if not isinstance(data, dict):
        return
    for part, key in places:
        items = data.get(part)
        for item in items if isinstance(items, list) else ():
            names = item if key is None else item.get(key) if isinstance(item, dict) else None
            if isinstance(names, list):
                yield from names
            elif names is not None:
                yield names


def entries_naming(
    root: Path, paths: Iterable[Path], entry_ids: Collection[str], places: Places
) -> list[Path]:
    """The entry files among `paths` that name one of `entry_ids` at `places`: in `related`,
    those whose diagnostics change when one of those entries is deleted; in `aliases`, those
    whose former ids an entry with one of those ids or aliases takes.

    Only files whose bytes hold an id, or a backslash (a double-quoted YAML string may spell
    an id with escapes), can name one, so only those are parsed; they are only parsed, the
    check proper comes later.
    """
    wanted = [name.encode() for name in entry_ids]
    found = []
    for path in paths:
        raw, _ = read_file(path, "", root)  # its problems are the check's to say, not these
        if raw is None or not (b"\\" in raw or any(name in raw for name in wanted)):
            continue
        document, _ = load(raw, display_path(path, root))
        data = None if document is None else document.data
        if any(isinstance(n, str) and n in entry_ids for n in _named(data, places)):
            found.append(path)
    return found


def entry_file(root: Path, entry_id: str) -> Path:
    """The file of entry `entry_id` below root; a BadRequest for what is not the id of an
    entry file (an id is its file's path, so `gemm/../gemm/x` and `./gemm/x` name none)."""
    if not schemas.is_id(schemas.ENTRY, entry_id):
        raise BadRequest(
            f"'{entry_id}' is not an entry id",
            schemas.schema(schemas.ENTRY)["properties"]["id"].get("description"),
        )
    path = root / ENTRIES / f"{entry_id}{SUFFIX}"
    if not path.is_file():
        known = sorted(entry_ids(discover(root, ENTRIES), root))
        close = schemas.closest(entry_id, known)
        if close is not None:
            hint = f"did you mean '{close}'?"
        elif known:
            hint = (
                f"an entry's id is the path of its file below {ENTRIES}/ without {SUFFIX}, "
                f"e.g. '{known[0]}'"
            )
        else:
            hint = f"{ENTRIES}/ holds no entry"
        raise BadRequest(f"no entry '{entry_id}'", hint)
    return path


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
