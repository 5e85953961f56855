"""A knowledge base as read: its entries, and its catalog of devices with the files that failed
to give one."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .. import schemas
from ..core.codes import DUPLICATE_ID
from ..core.diagnostics import Diagnostic
from ..records.device import Device
from ..records.entry import Entry
from ..records.model import Model
from .config import Config, read_config, words_of
from .files import HARDWARE, MODELS, SUFFIX, discover, display_path, entry_paths
from .read import guarded, read_device, read_entry, read_model


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
    #: The model files of models/ that read (every one, whatever `paths` named).
    models: list[Model] = field(default_factory=list)
    #: kb.yaml's settings (its defaults where it has errors, which `diagnostics` holds).
    config: Config = field(default_factory=Config)

    @classmethod
    def load(
        cls, root: Path, paths: Sequence[Path] | None = None, catalog_root: Path | None = None
    ) -> KnowledgeBase:
        """The entries of root (all, or those of `paths`), and the devices of its catalog or
        of the one at `catalog_root`."""
        catalog = Catalog.load(root, catalog_root)
        entries: list[Entry] = []
        diagnostics = list(catalog.diagnostics)
        words = words_of(root)
        for path in entry_paths(root, paths, diagnostics):
            entry, problems = read_entry(path, root, words)
            diagnostics.extend(problems)
            if entry is not None:
                entries.append(entry)
        models = read_models(root, diagnostics)
        # Another repository's catalog (--catalog) is not the one kb.yaml features devices of.
        # A featured device whose file has errors is said there, not again in kb.yaml.
        known = {**catalog.devices, **catalog.broken}
        config, problems = read_config(root, known if catalog.own else None)
        return cls(root, catalog, entries, diagnostics + problems, models, config)

    def entry(self, entry_id: str) -> Entry | None:
        return next((e for e in self.entries if e.id == entry_id), None)

    def model(self, model_id: str) -> Model | None:
        return next((m for m in self.models if m.id == model_id), None)


def read_models(
    root: Path, diagnostics: list[Diagnostic], paths: Sequence[Path] | None = None
) -> list[Model]:
    """The models of root's models/ (or of `paths`) that read, in a stable order; what stops
    the others goes to `diagnostics`."""
    models = []
    for path in discover(root, MODELS, diagnostics) if paths is None else paths:
        model, problems = guarded(read_model, path, root)
        diagnostics.extend(problems)
        if model is not None:
            models.append(model)
    return models
