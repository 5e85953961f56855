"""A knowledge base's own settings: the one file kb.yaml at its root, read as every other file
is (hostile input: size, depth and links bounded, its schema, located errors), by `kb check`
and by the page generation alike, so that whichever builder renders the pages, another
team's knowledge base shows its own featured devices."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .. import schemas
from ..core.codes import UNKNOWN_DEVICE
from ..core.diagnostics import Diagnostic
from ..core.text import suggest
from .read import guarded, read_document

#: The configuration's one name, at the knowledge base's root.
CONFIG_FILE = "kb.yaml"
#: How many devices pages feature where the configuration names none: the first by id.
DEFAULT_FEATURED = 3


@dataclass(frozen=True, slots=True)
class Config:
    """What kb.yaml says; its defaults where there is none, or where it has errors."""

    featured_devices: tuple[str, ...] = ()

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
        return Config(featured), problems

    config, problems = guarded(read, path, root)
    return config or Config(), problems
