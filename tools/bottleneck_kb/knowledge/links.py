"""The entries that name others (in related, as aliases), found by their text: only the files
whose bytes hold a name are parsed."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from pathlib import Path

from ..source import load, read_file
from .files import display_path

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
