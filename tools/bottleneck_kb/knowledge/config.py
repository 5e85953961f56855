"""A knowledge base's own settings: the one file kb.yaml at its root, read as every other file
is (hostile input: size, depth and links bounded, its schema, located errors), by `kb check`
and by the page generation alike, so that whichever builder renders the pages, another
team's knowledge base shows its own featured devices."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from .. import schemas
from ..core.codes import BUILT_IN_WORD, UNKNOWN_DEVICE
from ..core.diagnostics import Diagnostic
from ..core.text import suggest
from ..schemas import BUILT_IN, Word, Words
from ..source import Document
from .read import guarded, read_document

#: The configuration's one name, at the knowledge base's root.
CONFIG_FILE = "kb.yaml"
#: How many devices pages feature where the configuration names none: the first by id.
DEFAULT_FEATURED = 3


@dataclass(frozen=True, slots=True)
class Config:
    """What kb.yaml says; its defaults where there is none, or where it has errors."""

    featured_devices: tuple[str, ...] = ()
    #: The namespaces and classes the knowledge base adds to kb's own.
    words: Words = BUILT_IN

    def featured(self, device_ids: Sequence[str]) -> list[str]:
        """The featured devices among `device_ids` (a catalog's, in its order), in the order
        pages show them: the configuration's that the catalog has, else the first by id."""
        present = set(device_ids)
        named = [d for d in self.featured_devices if d in present]
        return named or sorted(device_ids)[:DEFAULT_FEATURED]


def read_config(
    root: Path, device_ids: Mapping[str, object] | None = None
) -> tuple[Config, list[Diagnostic]]:
    """The configuration of the knowledge base at `root`, and what is wrong with its file:
    its schema, and (given the catalog's `device_ids`) each featured device the catalog does
    not have. No file is no error: every key has its default."""
    path = root / CONFIG_FILE
    if not path.exists() and not path.is_symlink():
        return Config(), []

    def read(path: Path, root: Path) -> tuple[Config | None, list[Diagnostic]]:
        document, problems = read_document(path, root, schemas.CONFIG)
        if document is None:
            return None, problems
        featured = tuple(document.data.get("featured_devices", ()))
        words, taken = _words(document)
        problems += taken
        if device_ids is not None:
            known = sorted(device_ids)
            problems += [
                document.error_at(
                    UNKNOWN_DEVICE,
                    ("featured_devices", i),
                    f"no device '{name}' in hardware/",
                    suggest(name, known, "devices") if known else "add hardware/ first",
                )
                for i, name in enumerate(featured)
                if name not in device_ids
            ]
        return Config(featured, words), problems

    config, problems = guarded(read, path, root)
    return config or Config(), problems


#: The namespace kb keeps for its own test fixtures: no knowledge base may take it.
RESERVED_NAMESPACE = "fixtures"


def _words(document: Document) -> tuple[Words, list[Diagnostic]]:
    """The namespaces and classes `document` (a valid kb.yaml) adds, and an error at each
    that redefines a built-in word, takes the reserved namespace or is named twice: those
    are left out, the others kept."""
    built_in = schemas.built_in_words()
    found: dict[str, tuple[Word, ...]] = {}
    problems: list[Diagnostic] = []
    for key in ("namespaces", "classes"):
        kept: dict[str, Word] = {}
        rows: list[dict[str, Any]] = document.data.get(key, [])
        for index, row in enumerate(rows):
            name = row["name"]
            said = None
            if name == RESERVED_NAMESPACE and key == "namespaces":
                said = f"'{name}' is reserved for kb's own test fixtures"
            elif name in built_in[key]:
                said = f"'{name}' is one of kb's own {key}, which a knowledge base cannot redefine"
            elif name in kept:
                said = f"'{name}' is named twice in {key}"
            if said is not None:
                problems.append(
                    document.error_at(
                        BUILT_IN_WORD,
                        (key, index, "name"),
                        said,
                        f"entries may use kb's own {key} as they are; add only words kb "
                        "does not have, each once",
                    )
                )
                continue
            kept[name] = Word(name, row["title"], row["description"])
        found[key] = tuple(kept.values())
    return Words(found["namespaces"], found["classes"]), problems


def words_of(root: Path) -> Words:
    """The namespaces and classes the knowledge base at `root` adds (its kb.yaml's valid
    ones), read once while the file is unchanged: every entry read asks."""
    try:
        stat = os.stat(root / CONFIG_FILE)
    except (OSError, ValueError):
        return BUILT_IN
    return _words_of(os.path.abspath(root), stat.st_mtime_ns, stat.st_size, stat.st_ino)


@lru_cache(maxsize=16)
def _words_of(root: str, mtime: int, size: int, inode: int) -> Words:
    return read_config(Path(root))[0].words
