"""`kb check` as a library: read the catalog, check every entry, then the knowledge base.

Entries are independent once the catalog is read, so they are checked in worker processes
when there are enough of them to repay the start-up; workers send back only diagnostics and
small summaries. A file that breaks a check in a way the code did not foresee becomes an
internal-error diagnostic for that file, and the other files' results still stand.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from .. import schemas
from ..composition.cards import cards_by_id, recipe_card_ids, recipe_cards
from ..composition.kinds import kinds
from ..core.codes import NOT_READ
from ..core.diagnostics import Diagnostic, Severity, error, sorted_diagnostics
from ..core.outputs import committed_outputs
from ..core.parallel import map_items
from ..evaluation.cost import evaluation_cost
from ..evaluation.evaluator import Evaluator
from ..evaluation.measured import Judged
from ..knowledge.base import Catalog, KnowledgeBase, read_models
from ..knowledge.config import CONFIG_FILE, read_config
from ..knowledge.files import (
    ENTRIES,
    HARDWARE,
    MODELS,
    SUFFIX,
    discover,
    display_path,
    entry_files,
    entry_ids,
    existing,
)
from ..knowledge.links import ALIASES, RELATED, entries_naming
from ..knowledge.read import guarded, read_entry
from ..records.device import Device
from ..records.entry import Entry
from ..records.model import Model
from ..rules import Context, Rule, Scope, rules_for, rules_in
from ..rules.identity import Summary, summarize
from ..rules.measurements import FRACTION_MEASUREMENTS, JUDGED, cited_fractions
from ..schemas import BUILT_IN, Words
from .results import CheckResult

#: Below this many entries one process is faster than starting workers.
PARALLEL_THRESHOLD = 400


#: The codes to report, or None for all: `kb check --select` and one-rule tests.
Selection = frozenset[str] | None


@dataclass(frozen=True)
class EntryChecks:
    """The entry-scope rules of one run (all, or the selected ones) and what they consult
    that is the same for every entry: the catalog, and the kinds whose schemas the knowledge
    base publishes."""

    catalog: Catalog
    rules: tuple[Rule, ...]
    published: frozenset[str] = frozenset()
    #: The namespaces and classes the knowledge base adds (kb.yaml).
    words: Words = BUILT_IN
    #: The devices that can evaluate an entry depend only on its dtype and the figures its
    #: formulas read, a handful of combinations in a whole knowledge base: found once each.
    _runnable: dict[tuple[str, tuple[str, ...]], tuple[Device, ...]] = field(
        default_factory=dict, repr=False
    )

    @classmethod
    def of(
        cls,
        catalog: Catalog,
        select: Selection = None,
        published: frozenset[str] = frozenset(),
        words: Words = BUILT_IN,
    ) -> EntryChecks:
        return cls(catalog, tuple(rules_for(Scope.ENTRY, select)), published, words)

    def __call__(
        self,
        entry: Entry,
        parsed: tuple[Evaluator | None, list[Diagnostic]] | None = None,
        measured: list[tuple[str, float]] | None = None,
    ) -> list[Diagnostic]:
        """Every rule on one typed entry; `parsed` is `Evaluator.parse(entry)` where the
        caller has it (the site parses each entry once for its checks and its pages)."""
        evaluator, problems = parsed or Evaluator.parse(entry)
        catalog = self.catalog
        able: tuple[Device, ...] = ()
        cost = None
        if evaluator is not None:
            key = (entry.intensity.dtype, tuple(evaluator.needs))
            known = self._runnable.get(key)
            if known is None:
                known = self._runnable[key] = tuple(evaluator.runnable(catalog.devices.values()))
            able = known
            cost = evaluation_cost(evaluator, len(able))
        context = Context(
            catalog.devices,
            evaluator,
            tuple(problems),
            able,
            cost,
            broken_devices=catalog.broken,
            hardware_folder=catalog.folder,
            published=self.published,
            words=self.words,
        )
        found: list[Diagnostic] = []
        for rule in self.rules:
            # Rule.run, without a list and a call for each rule: most find nothing.
            assert rule.check is not None
            for diagnostic in rule.check(entry, context):
                found.append(rule.stamped(diagnostic))
        if measured is not None:  # what the measurement rules judged, each once
            measured += _judged_fractions(context, entry)
        return found


def _check_file(
    path: Path, root: Path, checks: EntryChecks
) -> tuple[list[Diagnostic], Summary | None]:
    def read_and_check(path: Path, root: Path) -> tuple[Summary | None, list[Diagnostic]]:
        entry, problems = read_entry(path, root, checks.words)
        if entry is None:
            return None, problems
        measured: list[tuple[str, float]] = []
        found = checks(entry, measured=measured)
        return summarize(entry)._replace(measured=tuple(measured)), problems + found

    summary, found = guarded(read_and_check, path, root)
    return found, summary


def _judged_fractions(context: Context, subject: Entry | Model) -> list[tuple[str, float]]:
    """The measurements of `subject` the measurement rules judged in `context` (none where
    they did not run), each with its achieved fraction of the bound."""
    return [
        (outcome.key, outcome.fraction)
        for _, outcome in context.memo.get((JUDGED, subject.path, subject.id), ())
        if isinstance(outcome, Judged)
    ]


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for a run; then, if it was on, one collection of
    young objects.

    Files, models and results hold no cycles, so every object dies by its reference count,
    and the collector's passes over the growing results were pure cost: a full one near the
    end took a twentieth of a run. The one collection at the end is for a cycle an error path
    may have left; a caller that runs without the collector is left without it.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.collect(0)
        gc.enable()


@dataclass(frozen=True)
class Coverage:
    """What a check of some paths covers: the entry files to check, the files whose
    diagnostics are reported, and every entry file a full run reads."""

    entries: list[Path]
    shown: set[str]
    every_entry: list[Path]
    #: Whether every model is checked (a device changed: every model is evaluated on every
    #: device), and the model files named or touched by the change.
    every_model: bool = False
    models: tuple[str, ...] = ()
    #: The ids of the entries the check touched or that are gone: a model whose recipe binds
    #: one is checked again.
    entry_ids: frozenset[str] = frozenset()


def covering(
    root: Path,
    paths: Sequence[Path],
    removed: Sequence[Path],
    own_catalog: bool,
    changed: Sequence[Path] = (),
) -> tuple[Coverage, list[Diagnostic]]:
    """The entries a check of `paths` reads, and the files it reports on: those a full run
    reads among them, and every entry that depends on what they, or the `removed` files,
    define. An edited, added or deleted device re-checks every entry (`bound_by` and the
    formulas' domains are judged on every device of the catalog, so a device can fail an entry
    that never names it), and an entry that is gone (deleted, or no longer read) the entries
    that relate to it.

    Paths are matched to the files a full run finds, not read as given: whatever their
    spelling, a folder stands for the files below it and a changed file for the links that
    lead to it, and what a full run says of a path it does not read (`x.yml`, a link to a
    folder) is said of it here. A file the user names outside entries/ and hardware/ is
    read as an entry, as asked; `changed` files (kb check --changed-since) are only matched.
    Problems with the named paths (one that does not exist) are returned beside the
    coverage, with those. Devices of hardware/ count only when they are the catalog
    (`own_catalog`, not kb check --catalog)."""
    problems: list[Diagnostic] = []
    present = existing(root, paths, problems)
    unread: list[Diagnostic] = []
    entries = discover(root, ENTRIES, unread)
    devices = discover(root, HARDWARE, unread) if own_catalog else []
    every = (*paths, *changed, *removed)
    named = _Named(every)
    # Found below an absolute root, a file's path is already its absolute path.
    absolute = str(root) == os.path.abspath(root)
    absolute_of = {f: str(f) if absolute else os.path.abspath(f) for f in entries}
    touched = [f for f in entries if named.touches(f, absolute_of[f])]
    read_by_kb = tuple(
        os.path.join(os.path.abspath(root), f, "") for f in (ENTRIES, HARDWARE, MODELS)
    )
    # The published schemas are read for KB020 alone, as a full run reads them.
    schema_files = [root / schemas.published_path(k) for k in (schemas.ENTRY, schemas.HARDWARE)]
    schema_named = [f for f in schema_files if named.touches(f, os.path.abspath(f))]
    not_entries = {os.path.abspath(f) for f in schema_files}
    touched += [
        p
        for p in present
        if (p.is_symlink() or not p.is_dir())
        and not (where := os.path.abspath(p)).startswith(read_by_kb)
        and where not in not_entries
    ]
    hardware = os.path.join(os.path.abspath(root), HARDWARE, "")
    devices_named = [f for f in devices if named.touches(f, os.path.abspath(f))]
    device_changed = bool(devices_named) or (
        own_catalog and any(os.path.abspath(p).startswith(hardware) for p in removed)
    )
    problems += [d for d in unread if named.touches(root / d.path, os.path.abspath(root / d.path))]
    files = list(entries) if device_changed else touched
    # Related links are checked against the entries a full run reads, so only an entry that
    # is gone changes what the entries relating to it are told (an added one only mends a
    # broken link).
    read = set(absolute_of.values())
    below = os.path.join(os.path.abspath(root), ENTRIES, "")
    gone = [
        p
        for p in every
        if (where := os.path.abspath(p)).startswith(below)
        and where.endswith(SUFFIX)
        and where not in read
    ]
    if gone and not device_changed:
        relating = entries_naming(root, entries, entry_ids(gone, root), RELATED)
        files += _new(root, relating, files)
    models_named = [
        display_path(f, root)
        for f in discover(root, MODELS)
        if named.touches(f, os.path.abspath(f))
    ]
    shown = {display_path(p, root) for p in (*files, *every)}
    shown |= {display_path(f, root) for f in (*devices_named, *schema_named)}
    shown |= {d.path for d in problems}
    ids = entry_ids([*touched, *gone], root)
    return Coverage(files, shown, entries, device_changed, tuple(models_named), ids), problems


class _Named:
    """The paths a check was given, as they match the files a full run finds: the file
    itself however spelled, every file below a folder, a file above one, and a link that
    leads to one."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.exact = {os.path.abspath(p) for p in paths}
        # A file changed below what a full run takes for one file (a folder named x.yaml, a
        # link to a folder) names that one.
        self.above = {str(parent) for p in self.exact for parent in Path(p).parents}
        folders = [p for p in paths if p.is_dir() and not p.is_symlink()]
        self.folders = tuple(os.path.join(os.path.abspath(p), "") for p in folders)
        self.targets = {os.path.realpath(p) for p in paths}
        self.real_folders = tuple(os.path.join(os.path.realpath(p), "") for p in folders)

    def touches(self, path: Path, where: str) -> bool:
        """Whether `path`, whose absolute path is `where`, is named."""
        if where in self.exact or where in self.above or where.startswith(self.folders):
            return True
        if not os.path.islink(path):
            return False
        target = os.path.realpath(path)
        return target in self.targets or target.startswith(self.real_folders)


def _new(root: Path, candidates: Iterable[Path], known: Iterable[Path]) -> list[Path]:
    """The candidates that are not already known, however either was spelled."""
    seen = {display_path(p, root) for p in known}
    return [p for p in candidates if display_path(p, root) not in seen]


def check(
    root: Path,
    paths: Sequence[Path] | None = None,
    jobs: int | None = None,
    select: Selection = None,
    catalog_root: Path | None = None,
    removed: Sequence[Path] = (),
    changed: Sequence[Path] = (),
) -> CheckResult:
    """Check the knowledge base at `root`, or only `paths` and the entries that depend on them,
    reporting every code or only those in `select`.

    A check of paths reports what a full run reports on the covered files, provided the files
    left out pass on their own (as on a clean main branch): an id is compared only with the ids
    of the covered files and of the file that each covered id names. `removed` files (deleted
    by a change) are not checked, but what depends on them is; nor are `changed` files (the
    others a change touched) except those a full run reads. Devices come from the hardware/
    of `catalog_root` (another repository's catalog), by default `root`'s.
    """

    # kb.yaml is read by every check, not as a file of a folder: naming it (a pre-commit
    # hook passes the files a commit touches) must not report it unread.
    def not_config(named: Sequence[Path]) -> list[Path]:
        config = os.path.abspath(root / CONFIG_FILE)
        return [p for p in named if os.path.abspath(p) != config]

    with _collector_paused():
        return _check(
            root,
            None if paths is None else not_config(paths),
            jobs,
            select,
            catalog_root,
            not_config(removed),
            not_config(changed),
        )


def _check(
    root: Path,
    paths: Sequence[Path] | None,
    jobs: int | None,
    select: Selection,
    catalog_root: Path | None,
    removed: Sequence[Path],
    changed: Sequence[Path],
) -> CheckResult:
    read = Catalog.load(root, catalog_root)
    published = schemas.published(root)
    # Another repository's catalog (--catalog) rests its fractions on its own cards: its
    # own check holds them, not this one.
    cards = checked_cards(root, read.devices.values())
    catalog, found_on_devices = checked_catalog(
        read, published, select, cards if read.own else None
    )
    diagnostics = [*read.diagnostics, *found_on_devices, *committed_outputs(root)]
    # A featured device whose file has errors is said there, not again in kb.yaml.
    known = {**read.devices, **read.broken}
    config, config_problems = read_config(root, known if read.own else None)
    diagnostics += config_problems
    devices = catalog.devices

    checks = EntryChecks.of(catalog, select, published, config.words)
    shown: set[str] | None = None  # the files reported on: None for every file
    coverage: Coverage | None = None
    if paths is None and not changed and not removed:
        every = entry_files(root, diagnostics)
        if not read.own:
            diagnostics += _not_in_the_catalog(root, None, read.folder)
        results = _check_files(root, checks, every, jobs)
        count = len(every)
        ids = entry_ids(every, root)
    else:
        coverage, problems = covering(root, paths or (), removed, read.own, changed)
        diagnostics += problems
        shown = coverage.shown
        if not read.own:
            unread = _not_in_the_catalog(root, [*(paths or ()), *changed], read.folder)
            diagnostics += unread
            shown.update(d.path for d in unread)
        # A device file that fails is left out of the catalog: said, or the entries would seem
        # checked against it.
        shown.update(catalog.broken.values())
        # Whatever was changed, the configuration's errors are said: a removed device may be
        # one it features.
        shown.add(CONFIG_FILE)
        # A changed card re-checks the achieved fractions that cite its measurements.
        cited = cited_fractions(read.devices.values())
        shown.update(path for card in coverage.entry_ids for path in cited.get(card, ()))
        results, count = _check_covered(root, checks, coverage, jobs)
        ids = entry_ids(coverage.every_entry, root)

    summaries = []
    for found, summary in results:
        diagnostics.extend(found)
        if summary is not None:
            summaries.append(summary)
    model_diagnostics: list[Diagnostic] = []
    every_model = read_models(root, model_diagnostics)
    models = every_model
    if shown is not None and coverage is not None:
        models = _covered_models(every_model, coverage)
        shown.update(m.path for m in models)
    diagnostics += model_diagnostics
    model_fractions: list[tuple[str, float]] = []
    diagnostics += model_findings(
        root, models, devices, select, every_model, catalog.broken, model_fractions, cards
    )
    # Knowledge-base checks get every entry's id, checked this run or not, for related links.
    diagnostics += _knowledge_base_findings(
        summaries,
        devices,
        ids,
        select,
        schemas.stale(root, published, config.words),
        schemas.unpublished(published, (root / MODELS).is_dir()),
    )
    if select is not None:
        # A selected rule that runs on what was read never ran on a file that could not be
        # read: what stopped that file is said too, as a compiler says a syntax error, or the
        # rule would seem to pass there.
        checked = {s.path for s in summaries}
        checked |= {d.path for d in (*read.devices.values(), *read.duplicates)}
        checked |= {m.path for m in models}
        after_reading = any(r.scope is not Scope.READ for r in rules_in(select))
        diagnostics = [
            d
            for d in diagnostics
            if d.code in select
            or (after_reading and d.path not in checked and d.severity is Severity.ERROR)
        ]
    if shown is not None:
        diagnostics = [d for d in diagnostics if d.path in shown]
    measured = [m for s in summaries for m in s.measured] + model_fractions
    return CheckResult(
        sorted_diagnostics(diagnostics), count, len(devices), len(models), sorted(measured)
    )


def _covered_models(models: list[Model], coverage: Coverage) -> list[Model]:
    """The models a check of paths covers: those named or changed, every model when a device
    changed, and those whose recipe binds a card the check touched."""
    if coverage.every_model:
        return models
    named = set(coverage.models)
    kinds_found = kinds()
    return [
        m
        for m in models
        if m.path in named
        or (
            m.architecture in kinds_found and kinds_found[m.architecture].cards & coverage.entry_ids
        )
    ]


def model_findings(
    root: Path,
    models: Sequence[Model],
    devices: Mapping[str, Device],
    select: Selection = None,
    everyone: Sequence[Model] | None = None,
    broken: Mapping[str, str] | None = None,
    measured: list[tuple[str, float]] | None = None,
    cards: Mapping[str, Evaluator] | None = None,
) -> list[Diagnostic]:
    """What the model rules find in `models`, the catalog being `devices` (drafts are looked
    up among `everyone`, by default `models`)."""
    rules = rules_for(Scope.MODEL, select)
    if not models or not rules:
        return []
    context = Context(
        devices,
        published=schemas.published(root),
        broken_devices=broken or {},
        cards=recipe_cards(root) if cards is None else cards,
        models={m.id: m for m in (models if everyone is None else everyone)},
    )
    found: list[Diagnostic] = []
    for model in models:

        def run(_: Path, __: Path, model: Model = model) -> tuple[None, list[Diagnostic]]:
            return None, [d for r in rules for d in r.run(model, context)]

        found += guarded(run, Path(model.path), root)[1]
    if measured is not None:  # what the measurement rules judged, each once
        for model in models:
            measured += _judged_fractions(context, model)
    return found


def _check_covered(
    root: Path, checks: EntryChecks, coverage: Coverage, jobs: int | None
) -> tuple[list[tuple[list[Diagnostic], Summary | None]], int]:
    """The results of the covered entries, and of the entries they claim an id of, added to
    those reported on; and how many files that checked."""
    results = _check_files(root, checks, coverage.entries, jobs)
    files = list(coverage.entries)
    covered = [s for _, s in results if s is not None]
    # An id that is not its file's path claims another file's id: check that file too
    # (for files a full run reads; one outside entries/ is told to move first).
    claimed = [
        root / ENTRIES / f"{s.id}{SUFFIX}" for s in covered if s.path.startswith(f"{ENTRIES}/")
    ]
    # So do the entries that keep one of these ids, or aliases, as an alias of their own.
    names = {s.id for s in covered} | {a for s in covered for a, _, _ in s.aliases}
    claimed += entries_naming(root, _new(root, coverage.every_entry, files), names, ALIASES)
    extra = [p for p in _new(root, dict.fromkeys(claimed), files) if p.is_file()]
    results += _check_files(root, checks, extra, jobs)
    coverage.shown.update(display_path(p, root) for p in extra)
    return results, len(files) + len(extra)


def check_read(
    kb: KnowledgeBase,
    checked: tuple[Catalog, list[Diagnostic]] | None = None,
    parsed: Mapping[str, tuple[Evaluator | None, list[Diagnostic]]] | None = None,
) -> CheckResult:
    """What `kb check` finds in a knowledge base already read, as the site has it: what
    reading found, then every rule, without reading a file again. `checked` is what
    `checked_catalog` gave for `kb.catalog`, when the caller has it (the device rules then
    run once); `parsed`, each entry's `Evaluator.parse` by path, where the caller has them
    (the formulas are then not parsed again)."""
    with _collector_paused():
        published = schemas.published(kb.root)
        cards = checked_cards(kb.root, kb.catalog.devices.values(), kb.entries)
        catalog, found_on_devices = checked or checked_catalog(kb.catalog, published, cards=cards)
        diagnostics = [*kb.diagnostics, *found_on_devices, *committed_outputs(kb.root)]
        checks = EntryChecks.of(catalog, None, published, kb.config.words)
        read = {kb.root / entry.path: entry for entry in kb.entries}

        def check_entry(path: Path, _: Path) -> tuple[None, list[Diagnostic]]:
            entry = read[path]
            return None, checks(entry, (parsed or {}).get(entry.path))

        for path in read:  # a rule's surprise on one entry is said, as kb check says it
            diagnostics += guarded(check_entry, path, kb.root)[1]
        summaries = [summarize(entry) for entry in kb.entries]
        files = entry_files(kb.root, [])  # a walk of the folders: no file is read again
        ids = entry_ids(files, kb.root)
        stale = schemas.stale(kb.root, published, kb.config.words)
        missing = schemas.unpublished(published, (kb.root / MODELS).is_dir())
        diagnostics += _knowledge_base_findings(
            summaries, catalog.devices, ids, None, stale, missing
        )
        models = list(kb.models)
        diagnostics += model_findings(
            kb.root, models, catalog.devices, None, models, catalog.broken, cards=cards
        )
        return CheckResult(
            sorted_diagnostics(diagnostics), len(files), len(catalog.devices), len(models)
        )


def _not_in_the_catalog(
    root: Path, paths: Sequence[Path] | None, catalog_folder: str
) -> list[Diagnostic]:
    """The knowledge base's own device files (all, or those in `paths`) when its devices come
    from another catalog: they are not read, and are said not to be."""
    files = discover(root, HARDWARE)
    if paths is not None:
        named = _Named(paths)
        files = [f for f in files if named.touches(f, os.path.abspath(f))]
    return [
        error(
            NOT_READ,
            display_path(path, root),
            1,
            1,
            f"is not read: the devices come from the catalog {catalog_folder}",
            "add the device to that catalog, or check without --catalog",
        )
        for path in files
    ]


def checked_cards(
    root: Path, devices: Iterable[Device], read: list[Entry] | None = None
) -> dict[str, Evaluator]:
    """The cards a check evaluates beside the entries it checks, read once: those the
    architecture kinds' recipes bind (the models are checked with them) and those whose
    measurements the devices' achieved fractions cite (KB705)."""
    return cards_by_id(root, {*recipe_card_ids(), *cited_fractions(devices)}, read)


def checked_catalog(
    catalog: Catalog,
    published: frozenset[str],
    select: Selection = None,
    cards: Mapping[str, Evaluator] | None = None,
) -> tuple[Catalog, list[Diagnostic]]:
    """The devices entries are judged and evaluated on (every command's, and the site's): those
    whose files read and pass their own rules; and what those rules found. Given the
    knowledge base's `cards` (`checked_cards`), the achieved fractions that cite measurements
    are held to them (KB705): `kb check`'s business, not every command's."""
    found = _device_findings(catalog, select, published if catalog.own else frozenset(), cards)
    return without_failing(catalog, found), found


def without_failing(catalog: Catalog, found_on_devices: Sequence[Diagnostic]) -> Catalog:
    """The catalog that entries are checked against: devices with an error of their own
    (a ridge point or a figure no device has) left out, as broken files are, so that the
    error is said once, on the device's file, instead of on every entry evaluated there;
    an entry that names such a device is pointed to its file. An achieved fraction its
    measurements do not bear out (KB705) leaves the figures sound: the device stays, and the
    measurements that show it wrong are judged on it."""
    failing = {
        d.path
        for d in found_on_devices
        if d.severity is Severity.ERROR and d.code != FRACTION_MEASUREMENTS
    }
    if not failing:
        return catalog
    left_out = {i: d.path for i, d in catalog.devices.items() if d.path in failing}
    return replace(
        catalog,
        devices={i: d for i, d in catalog.devices.items() if i not in left_out},
        broken={**catalog.broken, **left_out},
    )


def _device_findings(
    catalog: Catalog,
    select: Selection,
    published: frozenset[str],
    cards: Mapping[str, Evaluator] | None = None,
) -> list[Diagnostic]:
    context = Context(
        catalog.devices,
        published=published,
        cards=cards or {},
        cited_cards_read=cards is not None,
    )
    rules = rules_for(Scope.DEVICE, select)
    return [
        d
        for device in [*catalog.devices.values(), *catalog.duplicates]
        for rule in rules
        for d in rule.run(device, context)
    ]


def _knowledge_base_findings(
    summaries: list[Summary],
    devices: dict[str, Device],
    ids: frozenset[str],
    select: Selection,
    stale_schemas: Mapping[str, tuple[int, int]],
    unpublished_schemas: frozenset[str],
) -> list[Diagnostic]:
    context = Context(
        devices,
        entry_ids=ids,
        stale_schemas=stale_schemas,
        unpublished_schemas=unpublished_schemas,
    )
    return [
        d for rule in rules_for(Scope.KNOWLEDGE_BASE, select) for d in rule.run(summaries, context)
    ]


def _check_files(
    root: Path, checks: EntryChecks, files: Sequence[Path | str], jobs: int | None
) -> list[tuple[list[Diagnostic], Summary | None]]:
    # Spans of at most 50 files: each is one claim, and one message back from a worker. A
    # file given as text becomes a Path there.
    return map_items(
        lambda path: _check_file(Path(path), root, checks), files, jobs, PARALLEL_THRESHOLD, 50
    )
