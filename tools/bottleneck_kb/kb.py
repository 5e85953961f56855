"""Finding and reading the files of a knowledge base into typed entries and devices."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from . import schemas
from .diagnostics import INTERNAL, Diagnostic, error
from .model import Device, Entry, build_device, build_entry
from .source import NOT_A_FILE, Document, load, read_file

T = TypeVar("T")

ENTRIES = "entries"
HARDWARE = "hardware"
SUFFIX = ".yaml"


def display_path(path: Path, root: Path) -> str:
    """The path as the user should see it: relative to the root when inside it."""
    text, base = str(path), str(root)
    if base == "." and not path.is_absolute():
        return path.as_posix()
    if text.startswith(base + os.sep):  # the usual case: found below the root as given
        return text[len(base) + 1 :].replace(os.sep, "/")
    absolute, base = os.path.abspath(text), os.path.abspath(base)
    if absolute.startswith(base + os.sep):
        return absolute[len(base) + 1 :].replace(os.sep, "/")
    return path.as_posix()


def discover(root: Path, folder: str) -> list[Path]:
    """Every .yaml path below root/folder, in a stable order, hidden ones left out. Symlinks
    and directories named *.yaml are listed too, to be judged (and refused) when read; walking
    never follows a symlink into a directory."""
    base = os.path.join(root, folder)
    found = []
    for current, folders, files in os.walk(base):
        folders[:] = [name for name in folders if not name.startswith(".")]
        found += [
            os.path.join(current, name)
            for name in (*files, *folders)
            if name.endswith(SUFFIX) and not name.startswith(".")
        ]
    return [Path(path) for path in sorted(found)]


def read_document(path: Path, root: Path, kind: str) -> tuple[Document | None, list[Diagnostic]]:
    """Read, parse and validate one file against the schema of `kind`."""
    display = display_path(path, root)
    raw, problems = read_file(path, display, root)
    if raw is None:
        return None, problems
    document, problems = load(raw, display)
    if document is None:
        return None, problems
    invalid = schemas.validate(kind, document)
    if invalid:
        return None, problems + invalid
    return document, problems


def read_entry(path: Path, root: Path) -> tuple[Entry | None, list[Diagnostic]]:
    document, problems = read_document(path, root, schemas.ENTRY)
    if document is None:
        return None, problems
    return build_entry(document), problems


def read_device(path: Path, root: Path) -> tuple[Device | None, list[Diagnostic]]:
    document, problems = read_document(path, root, schemas.HARDWARE)
    if document is None:
        return None, problems
    device, invalid = build_device(document)
    return device, problems + invalid


def guarded(
    read: Callable[[Path, Path], tuple[T | None, list[Diagnostic]]], path: Path, root: Path
) -> tuple[T | None, list[Diagnostic]]:
    """`read(path, root)`, with a failure kb did not foresee turned into an internal-error
    diagnostic on that file, so that one file's surprise never hides the other files' results."""
    try:
        return read(path, root)
    except Exception as exc:  # the point is to catch what nobody foresaw
        return None, [
            error(
                INTERNAL,
                display_path(path, root),
                1,
                1,
                f"internal error while checking this file: {type(exc).__name__}: {exc}",
                "this is a bug in kb; please report it with the file",
            )
        ]


@dataclass
class Catalog:
    """The devices of hardware/, by id."""

    devices: dict[str, Device] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @classmethod
    def load(cls, root: Path) -> Catalog:
        catalog = cls()
        for path in discover(root, HARDWARE):
            device, problems = guarded(read_device, path, root)
            catalog.diagnostics.extend(problems)
            if device is not None:
                catalog.devices.setdefault(device.id, device)
        return catalog


@dataclass
class KnowledgeBase:
    """Entries and devices read from a root, with every problem found while reading them."""

    root: Path
    catalog: Catalog
    entries: list[Entry]
    diagnostics: list[Diagnostic]

    @classmethod
    def load(cls, root: Path, paths: Sequence[Path] | None = None) -> KnowledgeBase:
        catalog = Catalog.load(root)
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


def entry_ids(paths: Iterable[Path], root: Path) -> frozenset[str]:
    """The ids the files at `paths` (found below root/entries) have: an entry's id is its
    path, so this needs no file read."""
    prefix = len(ENTRIES) + 1
    return frozenset(display_path(path, root)[prefix : -len(SUFFIX)] for path in paths)


def entry_paths(
    root: Path, paths: Iterable[Path] | None, diagnostics: list[Diagnostic]
) -> list[Path]:
    """The entry files to read: all of entries/, or those named (directories expanded).

    Named hardware files are skipped here because the whole catalog is always read; a named
    path that does not exist is reported rather than silently ignored.
    """
    if paths is None:
        return discover(root, ENTRIES)
    chosen: list[Path] = []
    hardware = (root / HARDWARE).absolute()
    for path in paths:
        if path.absolute().is_relative_to(hardware):
            continue
        if path.is_dir() and not path.is_symlink():
            chosen.extend(sorted(p for p in path.rglob(f"*{SUFFIX}")))
        elif path.exists() or path.is_symlink():
            chosen.append(path)
        else:
            diagnostics.append(
                error(NOT_A_FILE, display_path(path, root), 1, 1, "no such file or directory")
            )
    return list(dict.fromkeys(chosen))
