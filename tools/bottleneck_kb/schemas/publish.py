"""What a knowledge base publishes for editors: its schema/ folder (which kinds it holds,
whether each is the schema kb checks with, and where it first departs) and the first line of
each file that points an editor at it."""

from __future__ import annotations

import json
import posixpath
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..source import read_file
from . import ENTRY, FILE_KINDS, HARDWARE, MODEL, published_text, schema
from .words import BUILT_IN, Words


def schema_line(root: Path, relative_path: str, kind: str) -> str | None:
    """The first line a file of `kind` at `relative_path` ('/'-separated, from `root`) carries:
    editors (yaml-language-server) find the file's schema by it, in the root's schema/ folder.
    None when the knowledge base publishes no schema/ folder (one kept outside this
    repository), since no relative path leads to one. `kb fmt` and `kb new` write the line;
    `kb check` asks for it."""
    if kind not in published(root):
        return None
    return line_to_schema(relative_path, kind)


def published(root: Path) -> frozenset[str]:
    """The kinds whose schema the knowledge base at `root` publishes in its schema/ folder."""
    return frozenset(k for k in FILE_KINDS if (root / published_path(k)).is_file())


def unpublished(found: frozenset[str], models: bool = False) -> frozenset[str]:
    """The kinds whose schema is missing from a schema/ folder that publishes another kind's
    (`found`: what `published` found there): the files' first lines still point editors
    there (`kb new` and `kb fmt` wrote them when it was published), at nothing. The model
    schema is asked for only of a knowledge base with a models/ folder (`models`): one
    published before kb read models need not publish it."""
    expected = {ENTRY, HARDWARE} | ({MODEL} if models else set())
    return frozenset(expected - found) if found else frozenset()


def published_path(kind: str) -> str:
    """Where a knowledge base publishes `kind`'s schema for editors, from its root."""
    return f"schema/{kind}.schema.json"


def stale(root: Path, kinds: frozenset[str], words: Words = BUILT_IN) -> dict[str, tuple[int, int]]:
    """The `kinds` whose published schema at `root` is not the schema kb checks with (with
    the knowledge base's own `words`; another JSON document, or none that reads: a copy from
    another version of kb, edited by hand), each with the line and column where its text
    first departs from that schema's."""
    found = {}
    for kind in sorted(kinds):
        # Read as entries are: not through a link out of the repository, nor past the size
        # limit, nor a FIFO.
        raw, _ = read_file(root / published_path(kind), published_path(kind), root)
        try:
            same = raw is not None and json.loads(raw, object_pairs_hook=_once) == schema(
                kind, words
            )
        except (ValueError, RecursionError):  # not UTF-8, not JSON, nested past Python's stack
            same = False
        if not same:
            text = "" if raw is None else raw.decode("utf-8", "replace")
            found[kind] = _first_difference(text, published_text(schema(kind, words)))
    return found


def _first_difference(text: str, expected: str) -> tuple[int, int]:
    """1-based line and column of the first character of `text` that `expected` does not
    have there (a key written twice, a value changed by hand, where another kb's copy
    differs); the end of `text` when it stops short."""
    written, wanted = text.replace("\r\n", "\n").split("\n"), expected.split("\n")
    for number, line in enumerate(written, 1):
        other = wanted[number - 1] if number <= len(wanted) else ""
        if line != other:
            pairs = enumerate(zip(line, other, strict=False))
            same = next((at for at, (a, b) in pairs if a != b), min(len(line), len(other)))
            return number, same + 1
    return len(written), len(written[-1]) + 1


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are each written once. Of a key written twice, Python keeps
    the last and some editors the first: such a copy cannot be the schema kb checks with."""
    found = dict(pairs)
    if len(found) < len(pairs):
        raise ValueError("a key is written twice")
    return found


def line_to_schema(relative_path: str, kind: str) -> str:
    """The schema line of a file at `relative_path` in a knowledge base that publishes `kind`'s
    schema."""
    return _line_from(posixpath.dirname(relative_path), kind)


@lru_cache(maxsize=1024)
def _line_from(folder: str, kind: str) -> str:
    # Cached: every entry of a namespace shares its folder, and relpath is slow.
    target = posixpath.relpath(published_path(kind), folder)
    return f"# yaml-language-server: $schema={target}"
