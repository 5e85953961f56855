"""The site's one door into the evaluation: every call the site makes into the roofline
arithmetic and the symbolic code is in this module, so a change of the evaluation's API is met
here alone (tests/contracts/test_layers.py holds the rest of the site to it).

Each entry is parsed once a build (`parse_all`): its checks, its view and its explorer reuse
the same Evaluator. What a view hands the pages is data (numbers in base units, MathML as a
tree of elements), which is also what `cache` keeps between builds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..composition.cards import recipe_card_ids
from ..composition.deployment import DEGREES, PARAMETERS, SPECULATIVE
from ..composition.estimate import DeviceEstimate, ModelEstimate, field_values, kind_of
from ..composition.kinds import Kind
from ..composition.measured import model_outcomes
from ..composition.request import estimate_model
from ..core.diagnostics import Diagnostic
from ..core.errors import KBError
from ..core.numbers import format_quantity, format_seconds, number
from ..core.parallel import map_items
from ..evaluation.crossovers import Crossover, sweep
from ..evaluation.entry import (
    CheckOutcome,
    Evaluated,
    Expected,
    Skipped,
    WorkaroundEffect,
    evaluate_parsed,
    select_devices,
)
from ..evaluation.evaluator import Evaluator
from ..evaluation.formulas import EvaluationError
from ..evaluation.measured import MeasuredOutcome
from ..evaluation.result import Result, verdict_summary
from ..evaluation.roofs import CAPACITY, COMPUTE, MEMORY, ROOFS, Roof
from ..maths.formula import FormulaError
from ..records.device import Device
from ..records.entry import Entry
from ..records.model import Model
from . import mathml

__all__ = [
    "CAPACITY",
    "COMPUTE",
    "MEMORY",
    "ROOFS",
    "CheckOutcome",
    "Crossover",
    "DeviceEstimate",
    "EntryView",
    "Evaluated",
    "Evaluator",
    "Expected",
    "MeasuredOutcome",
    "ModelEstimate",
    "ModelView",
    "Parsed",
    "Result",
    "Roof",
    "Skipped",
    "Sweep",
    "WorkaroundEffect",
    "evaluated_on",
    "format_quantity",
    "format_seconds",
    "model_parts",
    "model_views",
    "number",
    "parse_all",
    "recipe_evaluators",
    "ridge_points",
    "verdict_summary",
]

#: An entry's Evaluator, or None and why its formulas do not parse.
Parsed = tuple[Evaluator | None, list[Diagnostic]]


def parse_all(entries: Sequence[Entry]) -> dict[str, Parsed]:
    """Each entry's formulas parsed, by its path: once a build, for its checks, its view and
    its explorer."""
    return {entry.path: Evaluator.parse(entry) for entry in entries}


def evaluated_on(evaluator: Evaluator, devices: Sequence[Device]) -> list[Device]:
    """The devices of `devices` that have every figure the entry reads."""
    return select_devices(evaluator, {d.id: d for d in devices})[0]


#: Points on an entry chart's curve: enough for a smooth line, few enough to stay cheap.
SWEEP_POINTS = 48


@dataclass(frozen=True)
class Sweep:
    """The intensity as one symbol moves through its range, the others at typical values."""

    symbol: str
    log: bool
    points: list[tuple[float, float]]


@dataclass(frozen=True)
class EntryView:
    """What the pages show of one entry: its evaluation on the devices that have the figures
    it reads (as `kb eval --format json` gives it), the devices skipped and why, its formulas as
    MathML (trees: `mathml.markup` writes their markup) and the sweep its chart draws.
    `error` says why there are no numbers, if so."""

    entry_id: str
    dtype: str
    skipped: dict[str, str] = field(default_factory=dict)
    evaluation: Evaluated | None = None
    flops_mathml: list[Any] = field(default_factory=list)
    bytes_mathml: list[Any] = field(default_factory=list)
    sweep: Sweep | None = None
    error: str | None = None
    intensity_mathml: list[Any] = field(default_factory=list)

    def result(self, device_id: str) -> Result | None:
        """The evaluation's result on one device, or None when it was skipped."""
        return None if self.evaluation is None else self.evaluation.result(device_id)


def compute_view(
    entry: Entry, devices: Sequence[Device], parsed: Parsed | None = None
) -> EntryView:
    """Evaluate `entry` on every device of `devices` that has the figures it reads, from its
    parse where the caller has it (`parse_all`)."""
    from ..maths.symbolic import to_mathml, to_sympy

    dtype = entry.intensity.dtype
    try:
        evaluator = Evaluator.of(entry, parsed)
        evaluation = evaluate_parsed(evaluator, {d.id: d for d in devices})
        formulas = evaluation.formulas
        flops_mathml = mathml.tree(to_mathml(to_sympy(formulas.flops)))
        bytes_mathml = mathml.tree(to_mathml(to_sympy(formulas.bytes)))
        rendered = evaluation.intensity
        intensity_mathml = mathml.tree(rendered.mathml) if rendered is not None else []
    except (KBError, FormulaError) as exc:
        return EntryView(entry.id, dtype, error=str(exc))
    except Exception as exc:  # one entry's surprise must not stop the site of all the others
        return EntryView(entry.id, dtype, error=f"internal error: {type(exc).__name__}: {exc}")
    skipped = {s.device: s.reason for s in evaluation.skipped}
    sweeps = [
        sweep
        for symbol in entry.scales_with
        if symbol.symbol in formulas.symbols
        and symbol.range is not None
        and (sweep := _sweep(evaluator, symbol.symbol, symbol.range)) is not None
    ]
    return EntryView(
        entry.id,
        dtype,
        skipped,
        evaluation.plain(),
        flops_mathml,
        bytes_mathml,
        # The chart follows the symbol that moves the intensity most.
        max(sweeps, key=_spread) if sweeps else None,
        intensity_mathml=intensity_mathml,
    )


def _spread(sweep: Sweep) -> float:
    values = [y for _, y in sweep.points]
    return max(values) / min(values) if min(values) > 0 else math.inf


def _sweep(evaluator: Evaluator, symbol: str, bounds: tuple[float, float]) -> Sweep | None:
    lo, hi = bounds
    log = lo > 0 and math.log10(hi) - math.log10(lo) >= 2  # spans decades: a log axis
    points = []
    for x in sweep(lo, hi, SWEEP_POINTS, log):
        try:
            done = evaluator.work({symbol: x})
        except EvaluationError:
            continue  # a point where the model is undefined is left out of the curve
        if done.flops > 0:
            points.append((x, done.flops / done.bytes))
    return Sweep(symbol, log, points) if len(points) >= 2 else None


#: Below this many entries to evaluate, one process: an entry takes milliseconds here (sympy),
#: not the fraction of one it takes `kb check`, so forking repays itself much sooner (16
#: entries: 0.10 s in one process, 0.07 s in two).
PARALLEL_THRESHOLD = 16


def compute_all(
    entries: Sequence[Entry], devices: Sequence[Device], parsed: Mapping[str, Parsed]
) -> list[EntryView]:
    """compute_view of each entry; sympy makes it slow, so many are shared among processes."""
    return map_items(
        lambda entry: compute_view(entry, devices, parsed.get(entry.path)),
        entries,
        None,
        PARALLEL_THRESHOLD,
        8,
    )


def ridge_points(device: Device) -> dict[str, float]:
    """The device's ridge point (FLOP/B) per dtype: dense peak over memory bandwidth."""
    bandwidth = device.quantities["memory_bandwidth"].value
    return {dtype: peak.value / bandwidth for dtype, peak in device.peak_flops.items()}


# --- whole models ------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelView:
    """A model on the site: its estimate at the typical deployment, and each device's decode
    time a token at the batches the model is offered at, up to the largest that fits."""

    model: Model
    estimate: ModelEstimate | None
    error: str | None
    #: Device id -> (batch, decode seconds a token) at powers of two of the offered batches.
    sweep: Mapping[str, list[tuple[float, float]]] = field(default_factory=dict)


def recipe_evaluators(
    entries: Sequence[Entry], parsed: Mapping[str, Parsed]
) -> dict[str, Evaluator]:
    """The recipe cards among `entries`, ready to evaluate (their parses reused)."""
    wanted = recipe_card_ids()
    return {
        e.id: evaluator
        for e in entries
        if e.id in wanted and (evaluator := parsed[e.path][0]) is not None
    }


def model_views(
    models: Sequence[Model], devices: Sequence[Device], cards: Mapping[str, Evaluator]
) -> dict[str, ModelView]:
    """Each model's view, by id; one that cannot be estimated keeps why (kb check says where)."""
    views = {}
    for model in models:
        try:
            found = estimate_model(model, {}, devices, cards)
        except (KBError, FormulaError) as exc:
            views[model.id] = ModelView(model, None, str(exc))
            continue
        by_id = {d.id: d for d in devices}
        found = replace(found, measured=tuple(model_outcomes(model, by_id, cards)))
        views[model.id] = ModelView(model, found, None, _batch_sweep(model, found, cards, devices))
    return views


def _batch_sweep(
    model: Model, found: ModelEstimate, cards: Mapping[str, Evaluator], devices: Sequence[Device]
) -> dict[str, list[tuple[float, float]]]:
    low, high = (float(v) for v in model.offered.get("batch", [found.deployment["batch"]] * 2))
    batches = sorted({b for b in (2.0**p for p in range(0, 21)) if low <= b <= high} | {low, high})
    limits = {r.device: r.max_batch for r in found.results}
    by_id = {d.id: d for d in devices if d.id in limits}
    sweep: dict[str, list[tuple[float, float]]] = {device: [] for device in limits}
    for batch in batches:
        wanted = [by_id[d] for d, most in limits.items() if batch <= most]
        if not wanted:
            break
        at = estimate_model(model, {"batch": batch}, wanted, cards).results
        for result in at:
            sweep[result.device].append((batch, result.phase_seconds("decode")))
    # Each line ends at the largest batch its device holds: where the capacity limit is.
    for device, most in limits.items():
        if low <= most <= high and most not in batches:
            at = estimate_model(model, {"batch": float(most)}, [by_id[device]], cards).results
            sweep[device] += [(float(most), r.phase_seconds("decode")) for r in at]
    return sweep


def model_parts(
    model: Model, deployment: Mapping[str, Any]
) -> tuple[Kind, dict[str, float], list[dict[str, Any]]]:
    """What the model explorer needs of a model: its kind, its fields' values, and each
    deployment parameter a reader may move (its value now, and the range or the choices the
    model is offered at; one not offered is fixed at its value)."""
    kind = kind_of(model)
    parameters = []
    for parameter in PARAMETERS:
        name = parameter.name
        if name in SPECULATIVE:
            continue
        value = deployment[name]
        offered = model.offered.get(name)
        item: dict[str, Any] = {"name": name, "meaning": parameter.meaning, "value": value}
        if name == "dtype" or name in DEGREES:
            item["choices"] = list(offered) if offered else [value]
        else:
            item["range"] = [float(v) for v in offered] if offered else [float(value)] * 2
        parameters.append(item)
    return kind, field_values(model, kind), parameters
