"""The files of a knowledge base: which are read as entries and devices, what looks like one
but is not read (and is said), the files a check of paths names, and paths as a user sees
them."""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable, Iterable
from pathlib import Path

from .. import schemas
from ..core.codes import NOT_A_FILE, NOT_READ
from ..core.diagnostics import Diagnostic, error
from ..core.errors import BadRequest
from ..core.text import closest

ENTRIES = "entries"


HARDWARE = "hardware"


MODELS = "models"


#: The folders whose files lie flat (a device or model a file, no subfolder is read).
FLAT = (HARDWARE, MODELS)


SUFFIX = ".yaml"


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
        folder if folder in FLAT else None,
        [] if diagnostics is None else diagnostics,
        shown_from or root,
    )
    return [Path(path) for path in found]


def entry_files(root: Path, diagnostics: list[Diagnostic]) -> list[str]:
    """The files of entries/ that `discover` finds, as text: a check of them all makes each
    file's Path where it reads the file, in the workers, instead of 10,000 at its start."""
    return _walk(root, Path(root, ENTRIES), None, diagnostics, root)


def _inside(path: Path, root: Path) -> bool:
    """Whether `path` lies in the repository once every link on the way to it is followed. A
    link as its last part is not followed here: reading judges where that one points."""
    parent, name = os.path.split(os.path.abspath(path))
    where = os.path.join(os.path.realpath(parent), name)
    if not os.path.islink(where):
        where = os.path.realpath(where)
    return Path(where).is_relative_to(os.path.realpath(root))


def _walk(
    root: Path, base: Path, flat: str | None, diagnostics: list[Diagnostic], shown_from: Path
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
        readable = not hidden and not (flat and here != base)
        for name in files:
            if readable and name.endswith(SUFFIX) and not name.startswith("."):
                found.append(os.path.join(current, name))  # nearly every file: decided at once
                continue
            if not _seen_as(name).lower().endswith(_MEANT_AS_DATA):
                continue
            why = _not_read(name, hidden, flat if here != base else None)
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
    name: str, in_hidden_folder: bool, in_subfolder_of: str | None
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
    if in_subfolder_of:
        return (
            f"is in a subfolder of {in_subfolder_of}/, which kb does not read",
            f"move it to {in_subfolder_of}/{name}",
        )
    return None


def _refused(
    path: Path, root: Path, message: str, hint: str = "commit the files themselves"
) -> Diagnostic:
    return error(NOT_A_FILE, display_path(path, root), 1, 1, message, hint)


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
    for path in paths:
        if not existing(root, [path], diagnostics):  # said in the order the paths were given
            continue
        real = Path(os.path.realpath(path))
        if any(real.is_relative_to(Path(top, f)) and f not in folders for f in FLAT):
            continue
        if path.is_dir() and not path.is_symlink():
            if str(real) == top:  # the whole repository
                chosen += every()
            elif not any(real.is_relative_to(Path(top, folder)) for folder in folders):
                # tests/, docs/: no file there is read as an entry or a device.
                message = _outside_folders(folders)
                diagnostics.append(error(NOT_READ, display_path(path, root), 1, 1, message))
            else:
                flat = next((f for f in FLAT if real.is_relative_to(Path(top, f))), None)
                walked = _walk(root, path, flat, diagnostics, root)
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
    named = [f"{f}/" for f in folders]
    listed = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} or {named[-1]}"
    return f"is not read: kb reads the files in {listed}"


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
            why = _not_read(
                where.name, hidden, folder if folder in FLAT and len(parts) > 1 else None
            )
            break
    else:
        why = _outside_folders(folders), None
    if why is None:
        return None
    message, hint = why
    return error(NOT_READ, display_path(path, root), 1, 1, message, hint)


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
        close = closest(entry_id, known)
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
