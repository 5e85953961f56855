"""`kb diff` as a library: what the working tree changes against the merge base of a ref and
HEAD (the commit `kb check --changed-since` counts from), across the whole knowledge base.

The base's files are written out of git into a folder of their own (`knowledge.git`'s
`write_tree`: files only, bounded in count and size, no link followed, nothing run) and read
there by this kb, as the working tree's are. Each side is evaluated alone, the two in two
processes where there are two cores: every entry on every device of its checked catalog (the
verdict and lower bound, its checks and measurements), every model at its typical deployment
(its prefill and decode times per device and its measurements), and what `kb check` refuses.
Then the two are compared on what both can evaluate; what one side cannot is said, with the
files the installed kb refuses on either side.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from .. import schemas
from ..composition.measured import model_outcomes
from ..composition.request import estimate_model
from ..core.diagnostics import Diagnostic, Severity
from ..core.errors import KBError
from ..core.numbers import format_seconds
from ..core.parallel import map_items
from ..evaluation.entry import evaluate_parsed
from ..evaluation.evaluator import Evaluator
from ..evaluation.measured import MeasuredOutcome
from ..knowledge.base import KnowledgeBase
from ..knowledge.files import ENTRIES, HARDWARE, MODELS, SUFFIX, discover, entry_files, entry_ids
from ..knowledge.git import merge_base, write_tree
from .results import BASE_SIDE, DIFF_KINDS, WORKING_TREE, Diff, Flip, Move, Turn, Unmatched
from .run import check_read, checked_cards, checked_catalog

#: A time moves when it changes by more than this fraction of itself (1 %).
DEFAULT_THRESHOLD = 0.01
#: What an entry's time on a device is called, and a model's two estimates.
LOWER_BOUND = "lower bound"
PHASES = ("prefill", "decode")

#: A check's key: entry, claim, which of the entry's checks with that claim (from 0), device.
_CheckKey = tuple[str, str, int, str]
#: A measurement's key: card or model, measurement key, device.
_MeasurementKey = tuple[str, str, str]
K = TypeVar("K", _CheckKey, _MeasurementKey)


@dataclass(frozen=True)
class Side:
    """One side evaluated, as plain data (a worker process sends it back)."""

    #: The cards, devices and models its files hold, by kind (DIFF_KINDS): read or not.
    present: dict[str, frozenset[str]]
    #: What it evaluates, by kind; what it holds but cannot evaluate, by kind, with why.
    evaluated: dict[str, frozenset[str]]
    unevaluated: dict[str, dict[str, str]]
    #: (entry, device) -> (verdict, lower bound in seconds).
    bounds: dict[tuple[str, str], tuple[str, float]]
    #: (model, device, phase) -> seconds (prefill; decode, a token).
    estimates: dict[tuple[str, str, str], float]
    checks: dict[_CheckKey, tuple[bool, str]]
    measurements: dict[_MeasurementKey, tuple[bool, str]]
    errors: list[Diagnostic]


def diff(
    root: Path, ref: str, threshold: float = DEFAULT_THRESHOLD, jobs: int | None = None
) -> Diff:
    """The working tree at `root` against the merge base of `ref` and HEAD; a time moves when
    it changes by more than `threshold` (a fraction). A ChangedFilesError where `root` is in
    no git repository or `ref` is no commit of it."""
    commit = merge_base(root, ref)
    with tempfile.TemporaryDirectory(prefix="kb-diff-") as folder:
        written = Path(folder)
        unread = write_tree(root, commit, written)
        sides = [(written, unread), (root, {})]
        before, after = map_items(lambda side: evaluate_side(*side), sides, jobs, 2, 1)
    return compare(ref, commit, threshold, before, after, unread)


def evaluate_side(root: Path, unread: Mapping[str, str] | None = None) -> Side:
    """The knowledge base at `root` evaluated for a comparison; `unread` are its files that
    could not be written out (path -> why), held but not evaluated."""
    kb = KnowledgeBase.load(root)
    parsed = {entry.path: Evaluator.parse(entry) for entry in kb.entries}
    cards = checked_cards(root, kb.catalog.devices.values(), kb.entries)
    checked = checked_catalog(kb.catalog, schemas.published(root), cards=cards)
    found = check_read(kb, checked, parsed)
    usable = checked[0]
    unevaluated: dict[str, dict[str, str]] = {kind: {} for kind in DIFF_KINDS}
    for device, path in usable.broken.items():
        unevaluated["devices"][device] = f"{path} has errors"
    bounds: dict[tuple[str, str], tuple[str, float]] = {}
    checks: dict[_CheckKey, tuple[bool, str]] = {}
    measurements: dict[_MeasurementKey, tuple[bool, str]] = {}
    evaluated: set[str] = set()
    for entry in kb.entries:
        evaluator = parsed[entry.path][0]
        if entry.id in evaluated or evaluator is None:
            unevaluated["cards"].setdefault(entry.id, f"{entry.path} has errors")
            continue
        try:
            evaluation = evaluate_parsed(
                evaluator, usable.devices, symbolic=False, broken=usable.broken, brief=True
            )
        except KBError as exc:
            unevaluated["cards"][entry.id] = f"{entry.path}: {exc.message}"
            continue
        evaluated.add(entry.id)
        for result in evaluation.results:
            bounds[(entry.id, result.device)] = (result.verdict, result.time)
        claims = [check.claim for check in entry.checks]
        for outcome in evaluation.checks:
            nth = claims[: outcome.check].count(outcome.claim)
            checks[(entry.id, outcome.claim, nth, outcome.device)] = (
                outcome.passed,
                outcome.detail,
            )
        measurements.update(_judged(entry.id, evaluation.measured))
    estimates: dict[tuple[str, str, str], float] = {}
    models: set[str] = set()
    devices = list(usable.devices.values())
    for model in kb.models:
        if model.id in models:
            continue
        try:
            estimate = estimate_model(model, {}, devices, cards)
            outcomes = model_outcomes(model, usable.devices, cards)
        except KBError as exc:
            unevaluated["models"][model.id] = f"{model.path}: {exc.message}"
            continue
        models.add(model.id)
        for on_device in estimate.results:
            for phase in PHASES:
                estimates[(model.id, on_device.device, phase)] = on_device.phase_seconds(phase)
        measurements.update(_judged(model.id, outcomes))
    present = _present(root)
    for path, why in (unread or {}).items():
        kind, subject = _subject(path)
        if kind is not None:
            present[kind] |= {subject}
            unevaluated[kind][subject] = f"{path} {why}"
    read_entries = {e.id for e in kb.entries}
    for subject in present["cards"] - read_entries:
        unevaluated["cards"].setdefault(subject, f"{ENTRIES}/{subject}{SUFFIX} has errors")
    read_models = {m.id for m in kb.models}
    for subject in present["models"] - read_models:
        unevaluated["models"].setdefault(subject, f"{MODELS}/{subject}{SUFFIX} has errors")
    return Side(
        present={kind: frozenset(found) for kind, found in present.items()},
        evaluated={
            "cards": frozenset(evaluated),
            "devices": frozenset(usable.devices),
            "models": frozenset(models),
        },
        unevaluated=unevaluated,
        bounds=bounds,
        estimates=estimates,
        checks=checks,
        measurements=measurements,
        errors=[d for d in found.diagnostics if d.severity is Severity.ERROR],
    )


def _judged(
    subject: str, outcomes: list[MeasuredOutcome]
) -> dict[_MeasurementKey, tuple[bool, str]]:
    """Each measurement judged, by key: whether it holds (not below the bound), and how."""
    return {
        (subject, m.key, m.device): (
            not m.below,
            f"measured {format_seconds(m.measured_s)}, bound {format_seconds(m.bound_s)}",
        )
        for m in outcomes
    }


def _present(root: Path) -> dict[str, set[str]]:
    """The cards, devices and models whose files `root` holds, by id (a file's name gives its
    id), whether they read or not."""
    devices = {p.name.removesuffix(SUFFIX) for p in discover(root, HARDWARE)}
    models = {p.name.removesuffix(SUFFIX) for p in discover(root, MODELS)}
    return {
        "cards": set(entry_ids(entry_files(root, []), root)),
        "devices": devices,
        "models": models,
    }


def _subject(path: str) -> tuple[str | None, str]:
    """The kind and id of the file at `path` (from the root), or None for another file."""
    folder, _, rest = path.partition("/")
    if not rest.endswith(SUFFIX):
        return None, path
    kind = {ENTRIES: "cards", HARDWARE: "devices", MODELS: "models"}.get(folder)
    return kind, rest.removesuffix(SUFFIX)


def compare(
    ref: str,
    commit: str,
    threshold: float,
    before: Side,
    after: Side,
    unread: Mapping[str, str] | None = None,
) -> Diff:
    """What moves from `before` (the merge base) to `after` (the working tree), on what both
    sides evaluate."""

    def moved(old: float, new: float) -> bool:
        return abs(new - old) > threshold * old if old else new != old

    both = {kind: before.evaluated[kind] & after.evaluated[kind] for kind in DIFF_KINDS}
    flips: list[Flip] = []
    times: list[Move] = []
    for key in sorted(before.bounds.keys() & after.bounds.keys()):
        (old_verdict, old_time), (new_verdict, new_time) = before.bounds[key], after.bounds[key]
        if old_verdict != new_verdict:
            flips.append(Flip(*key, old_verdict, new_verdict))
        if moved(old_time, new_time):
            times.append(Move(*key, LOWER_BOUND, old_time, new_time))
    estimates = [
        Move(model, device, phase, before.estimates[key], after.estimates[key])
        for key in sorted(
            before.estimates.keys() & after.estimates.keys(),
            key=lambda k: (k[0], k[1], PHASES.index(k[2])),
        )
        for model, device, phase in [key]
        if moved(before.estimates[key], after.estimates[key])
    ]
    unmatched = [
        Unmatched(kind, subject, side, why)
        for kind in DIFF_KINDS
        for side, one in ((BASE_SIDE, before), (WORKING_TREE, after))
        for subject, why in sorted(one.unevaluated[kind].items())
        if subject in before.present[kind] and subject in after.present[kind]
    ]
    return Diff(
        ref=ref,
        base=commit,
        threshold=threshold,
        compared={kind: len(found) for kind, found in both.items()},
        added={k: sorted(after.present[k] - before.present[k]) for k in DIFF_KINDS},
        removed={k: sorted(before.present[k] - after.present[k]) for k in DIFF_KINDS},
        verdicts=flips,
        times=times,
        estimates=estimates,
        checks=_turns(before.checks, after.checks, both["cards"]),
        measurements=_turns(
            before.measurements, after.measurements, both["cards"] | both["models"]
        ),
        unmatched=unmatched,
        base_errors=before.errors,
        errors=after.errors,
        unread=dict(unread or {}),
    )


def _turns(
    before: Mapping[K, tuple[bool, str]],
    after: Mapping[K, tuple[bool, str]],
    subjects: frozenset[str],
) -> list[Turn]:
    """The checks or measurements of `subjects` (evaluated on both sides) that fail now and
    did not before (passed, or were not there), or pass now and failed before."""
    found = []
    for key in sorted(after):
        if key[0] not in subjects:
            continue
        passed, detail = after[key]
        old = before.get(key)
        was = None if old is None else old[0]
        if was is not passed and not (passed and was is None):
            found.append(Turn(key[0], str(key[1]), str(key[-1]), was, passed, detail))
    return found
