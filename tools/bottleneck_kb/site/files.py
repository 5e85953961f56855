"""The site as files, for any builder: `kb site DIR` writes a docs folder (the hand-written
pages and every generated page, asset, schema and the export) that MkDocs or Zensical builds
with the same mkdocs.yml and no plugin; the MkDocs plugin hands the same files to MkDocs.

The folder is written whole or not at all: into a new folder beside it, which then takes its
place. Only a folder that is new, empty or one `kb site` wrote (it holds `MARKER`) is
replaced; the folder is checked as every output of kb is (`core.outputs.guard_output`: no
link on the way or inside, nothing git tracks), and the hand-written pages are copied only
from real files, never through a link."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from ..core.diagnostics import Severity
from ..core.errors import KBError
from ..core.outputs import MAX_WALKED, OutputRefused, guard_output
from .pages.build import Site, build_site
from .pages.html import Options

#: The file that marks a folder `kb site` wrote, which the next `kb site` may replace.
MARKER = ".kb-site"
_MARKER_TEXT = "Written by kb site, which replaces this folder whole; edit the sources.\n"


def generated(site: Site) -> dict[str, str]:
    """Every generated file of `site` by its path below the docs folder."""
    return {**site.pages, **site.assets}


def refuse_collision(site: Site, taken: Callable[[str], bool], docs: str) -> None:
    """KBError when a hand-written file of the docs folder `docs` is at a generated file's
    path (`taken`): one of the two would be lost without a word."""
    for path in generated(site):
        if taken(path):
            raise KBError(
                f"{docs}/{path} is where the site's generated page {path} goes; "
                "move or rename that file"
            )


def write_site(root: Path, folder: Path, options: Options, docs: Path | None) -> Site:
    """The site of the knowledge base at `root` written into `folder` (named by the user),
    with the hand-written pages of `docs` when given; nothing is written when kb check finds
    errors in the knowledge base (the returned site's diagnostics say them)."""
    guard_output(folder, root, "the site's pages", named=True)
    _refuse_foreign(folder)
    handwritten = dict(_handwritten(docs, folder)) if docs is not None else {}
    site = build_site(root, options)
    if any(d.severity is Severity.ERROR for d in site.diagnostics):
        return site
    if docs is not None:
        refuse_collision(site, lambda path: path in handwritten, str(docs))
    folder.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.new."))
    try:
        fresh.chmod(0o755)  # a folder to publish, not mkdtemp's private one
        for path, source in handwritten.items():
            _place(fresh, path).write_bytes(source.read_bytes())
        for path, content in generated(site).items():
            _place(fresh, path).write_text(content, "utf-8")
        (fresh / MARKER).write_text(_MARKER_TEXT, "utf-8")
        _replace(folder, fresh)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    return site


def _refuse_foreign(folder: Path) -> None:
    """OutputRefused unless `folder` is absent, an empty folder or one kb site wrote."""
    if not folder.exists():
        return
    if not folder.is_dir():
        raise OutputRefused(
            f"the site's pages would replace {folder}, which is not a folder",
            "name a new folder, or one kb site wrote",
        )
    marker = folder / MARKER
    if marker.is_file() and not marker.is_symlink():
        return
    with os.scandir(folder) as entries:
        if next(entries, None) is None:
            return
    raise OutputRefused(
        f"the site's pages would replace {folder}, which holds files kb site did not write "
        f"(it has no {MARKER})",
        "name a new or empty folder; kb site replaces its folder whole",
    )


def _handwritten(docs: Path, folder: Path) -> Iterator[tuple[str, Path]]:
    """The files of the docs folder `docs` by their path below it, none through a link."""
    where, output = Path(os.path.abspath(docs)), Path(os.path.abspath(folder))
    if where.is_symlink() or not where.is_dir():
        raise KBError(
            f"the site's hand-written pages are read from {docs}, which is not a folder",
            "name the docs folder with --docs (its pages are not followed through a link)",
        )
    if output.is_relative_to(where) or where.is_relative_to(output):
        raise KBError(
            f"the site's pages would be written to {folder}, which holds or lies in the "
            f"folder of hand-written pages {docs}",
            "name a folder outside the docs folder",
        )
    seen = 0
    for current, folders, files in os.walk(where):
        for name in sorted((*folders, *files)):
            path = Path(current, name)
            seen += 1
            if path.is_symlink():
                raise KBError(
                    f"{path} is a link; the site's hand-written pages are copied from real "
                    "files only",
                    "replace the link with the file it points to",
                )
            if seen > MAX_WALKED:
                raise KBError(f"{docs} holds more than {MAX_WALKED:,} files and folders")
            if path.is_file():
                yield path.relative_to(where).as_posix(), path


def _place(folder: Path, path: str) -> Path:
    target = folder / path
    target.parent.mkdir(parents=True, exist_ok=True)
    return target


def _replace(folder: Path, fresh: Path) -> None:
    """`fresh` in the place of `folder`: a reader sees the old folder or the new one whole."""
    if not folder.exists():
        fresh.rename(folder)
        return
    old = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.old."))
    old.rmdir()  # a free name beside the folder, for the old one
    folder.rename(old)
    try:
        fresh.rename(folder)
    except BaseException:
        with contextlib.suppress(OSError):
            old.rename(folder)
        raise
    shutil.rmtree(old, ignore_errors=True)
