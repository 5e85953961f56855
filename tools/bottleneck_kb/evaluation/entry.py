"""An entry over a set of devices: which devices apply and why others are skipped, the result
on each, where the verdict flips as each symbol sweeps its range, each workaround's modeled
effect and each check's outcome. Typed results that `kb eval`, the reporters and the site
share; how they are shown is the reporters' business."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ..core.errors import BadRequest, KBError
from ..core.numbers import exact_number, format_seconds, number
from ..maths.formula import Formula, FormulaError
from ..records.device import Device
from ..records.entry import Entry, WrittenFormula
from ..schemas import suggest
from .roofline import (
    DATASHEET,
    Basis,
    EvaluationError,
    Formulas,
    Result,
    assignment,
    beyond_bound,
    beyond_bounds,
    check_failures,
    checked_values,
    describe,
    device_figures,
    evaluate,
    explain,
    missing_figures,
    on_device,
    parse_formulas,
    verdicts,
    work,
)

if TYPE_CHECKING:
    from ..maths.symbolic import Rendered

#: Sample points per range when looking for a crossover, and bisection steps after one is
#: found; both bound the work a hostile range can ask for.
CROSSOVER_SAMPLES = 64
BISECTION_STEPS = 60
#: The most formula steps (nodes of formulas evaluated, `Formula.size`) one evaluation of an
#: entry on the catalog may take, counted before it runs (`evaluation_cost`): an entry past
#: it is refused by `kb check` (KB416) and by every command, so that nothing `kb check`
#: accepts takes a command or the site build much longer than a real card (the cards of
#: this repository take 5,000 to 50,000; a step costs about a microsecond).
EVALUATION_BUDGET = 3_000_000
#: The most formula steps the bisection of crossovers may take in one evaluation: the number
#: of flips is known only once the ranges are sampled (a sawtooth flips at every sample).
#: Past it, a flip is placed at the first sample past it rather than bisected.
BISECTION_BUDGET = 1_000_000


@dataclass(frozen=True, slots=True)
class Skipped:
    """A device of the catalog the entry was not evaluated on, and why."""

    device: str
    reason: str


@dataclass(frozen=True, slots=True)
class Crossover:
    """Where the verdict flips as one symbol moves through its range (None: not in range)."""

    symbol: str
    at: float | None
    below: str
    above: str
    range: tuple[float, float]


@dataclass(frozen=True)
class WorkaroundEffect:
    title: str
    reported: str | None
    modeled: dict[str, Result]
    speedup: dict[str, float]
    bytes_cut: dict[str, float]
    #: Devices the workaround's settings cannot run on, and why (a symbol past its bound).
    beyond: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CheckOutcome:
    #: Which of the entry's checks (from 0): two checks may share a claim's words.
    check: int
    claim: str
    device: str
    passed: bool
    detail: str


@dataclass(frozen=True)
class EntryEvaluation:
    entry: Entry
    formulas: Formulas
    #: The values of the symbols, typical with overrides applied.
    values: dict[str, float]
    results: list[Result]
    skipped: list[Skipped]
    crossovers: dict[str, list[Crossover]]
    intensity: Rendered | None = None
    workarounds: list[WorkaroundEffect] = field(default_factory=list)
    checks: list[CheckOutcome] = field(default_factory=list)
    #: The symbols set (overrides) that change nothing: no formula reads them, or only a
    #: workaround's that sets its own value. The report says so.
    unread: dict[str, float] = field(default_factory=dict)

    @property
    def verdicts(self) -> dict[str, list[str]]:
        """The devices by verdict: more than one key when the verdict differs between them."""
        found: dict[str, list[str]] = {}
        for result in self.results:
            found.setdefault(result.verdict, []).append(result.device)
        return found

    @property
    def assignment(self) -> str:
        """`B=1, k=4`: the values of the symbols that change a number shown (a workaround's
        formulas' too, where it does not set them itself)."""
        return describe(self.values, self.formulas, reader_symbols(self.entry, self.formulas))


@dataclass(frozen=True, slots=True)
class Cost:
    """What evaluating an entry on `devices` devices costs in formula steps, by part: the
    results, the workarounds, the checks and the sweeps for crossovers (their bisection is
    bounded apart, by BISECTION_BUDGET)."""

    devices: int
    parts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.parts.values())

    @property
    def largest(self) -> str:
        return max(self.parts, key=self.parts.__getitem__)


def evaluation_cost(entry: Entry, formulas: Formulas, devices: int) -> Cost:
    """The formula steps `evaluate_entry` takes for `entry` on `devices` devices, as the
    sizes of its formulas and the number of times each is evaluated give them."""
    figures = frozenset(device_figures())
    derived = sum(parsed.size for _, parsed in formulas.derived)

    def roofs(replacements: Mapping[str, Formula]) -> tuple[int, int]:
        """Steps at one point: those every device shares, and those of each device."""
        chosen = {"flops": formulas.flops, "bytes": formulas.bytes, **formulas.others}
        chosen.update(replacements)
        each = sum(f.size for f in chosen.values() if not f.symbols.isdisjoint(figures))
        return sum(f.size for f in chosen.values()) - each, each

    shared, each = roofs({})
    one = shared + devices * (each + derived)
    modeled = [i for i, w in enumerate(entry.workarounds) if w.model is not None]
    workarounds = 0
    for index in modeled:
        shared_w, each_w = roofs(formulas.replacements(index))
        workarounds += shared_w + devices * (each_w + derived)
    checks = sum(len(check.devices) * (shared + each + derived) for check in entry.checks)
    swept = sum(
        1 for s in entry.scales_with if s.symbol in formulas.symbols and s.range is not None
    )
    sweeps = swept * CROSSOVER_SAMPLES * (shared + devices * each)
    parts = {"results": one, "workarounds": workarounds, "checks": checks, "sweeps": sweeps}
    return Cost(devices, parts)


def select_devices(
    entry: Entry,
    formulas: Formulas,
    catalog: Mapping[str, Device],
    on: Sequence[str] = (),
    broken: Mapping[str, str] | None = None,
) -> tuple[list[Device], list[Skipped]]:
    """The devices to evaluate `entry` on (`on`, or the whole catalog) and those skipped: a
    device without a figure the entry reads (a dense peak for its dtype, an interconnect
    bandwidth, ...) cannot place it on its roofs, and one whose file has errors (`broken`:
    device id -> file, as Catalog.broken) is not in the catalog at all."""
    broken = broken or {}
    for name in on:
        if name in broken:
            where = PurePosixPath(broken[name])
            # Another catalog's file is named by its whole path: it is checked in its own root.
            check = f"--root {where.parent.parent}" if where.is_absolute() else str(where)
            raise BadRequest(
                f"device '{name}' is defined in {where}, which has errors",
                f"run kb check {check}",
            )
        if name not in catalog:
            raise BadRequest(f"no device '{name}'", suggest(name, sorted(catalog), "devices"))
    chosen: list[Device] = []
    skipped: list[Skipped] = []
    if not on:
        skipped += [Skipped(d, f"{path} has errors") for d, path in sorted(broken.items())]
    for device in [catalog[name] for name in dict.fromkeys(on)] or list(catalog.values()):
        missing = missing_figures(entry, formulas, device)
        if missing:
            skipped.append(Skipped(device.id, f"no {', '.join(missing)} in the catalog"))
        else:
            chosen.append(device)
    return chosen, skipped


def check_overrides(entry: Entry, overrides: Mapping[str, float]) -> None:
    """Overrides name declared symbols and lie in their ranges: a symbol's range is its
    domain, the one `kb check` has shown the formulas to be defined on."""
    for name, value in overrides.items():
        symbol = entry.symbols.get(name)
        if symbol is None:
            raise BadRequest(
                f"'{name}' is not a symbol of {entry.id}",
                suggest(name, sorted(entry.symbols), "symbols"),
            )
        if not math.isfinite(value):
            raise BadRequest(f"{name}={value} is not a finite number")
        if symbol.range is None and value != symbol.typical:
            raise BadRequest(
                f"'{name}' has no range in {entry.id}, so it keeps its typical value",
                "the formulas are checked on a symbol's range only",
            )
        if symbol.range is not None and not symbol.range[0] <= value <= symbol.range[1]:
            lo, hi = symbol.range
            raise BadRequest(
                f"{name}={exact_number(value)} is outside its range [{number(lo)}, {number(hi)}]",
                f"the formulas of {entry.id} are checked on that range only",
            )


def evaluate_entry(
    entry: Entry,
    catalog: Mapping[str, Device],
    on: Sequence[str] = (),
    overrides: Mapping[str, float] | None = None,
    *,
    basis: Basis = DATASHEET,
    symbolic: bool = True,
    broken: Mapping[str, str] | None = None,
) -> EntryEvaluation:
    """Everything `kb eval` shows, on the device figures `basis` picks (checks are judged on
    the datasheet's whatever it is); devices whose files have errors (`broken`) are skipped
    and said. Raises KBError (EvaluationError for a formula that
    cannot be evaluated) with a message and, where known, the place in the entry."""
    overrides = dict(overrides or {})
    check_overrides(entry, overrides)
    formulas, problems = parse_formulas(entry)
    if formulas is None:
        if not problems:  # a derived formula: the derived-formula rule says where
            raise KBError(f"a derived formula of {entry.id} does not parse; run kb check")
        first = problems[0]
        raise KBError(first.message, first.hint, first.path, first.line, first.col)
    values = assignment(entry, overrides)
    # Checks and workarounds run at values of their own: on every device with the figures
    # (`able`), whether or not it can run the reader's (`devices`).
    able, skipped = select_devices(entry, formulas, catalog, on, broken)
    cost = evaluation_cost(entry, formulas, len(able))
    if cost.total > EVALUATION_BUDGET:
        at = entry.source.error_at("", budget_pointer(entry, cost), "", key=True)
        raise KBError(over_budget(cost), "kb check refuses it", at.path, at.line, at.col)
    beyond = beyond_bounds(formulas, able, values)
    devices = [d for d in able if d.id not in beyond]
    skipped += [Skipped(device, why) for device, why in beyond.items()]
    results = [evaluate(entry, formulas, device, overrides, basis=basis) for device in devices]
    if not on:  # the whole catalog: fastest first, which is what a reader choosing looks for
        order = sorted(range(len(results)), key=lambda i: (results[i].time, results[i].device))
        results = [results[i] for i in order]
        devices = [devices[i] for i in order]
    allowance = Allowance(BISECTION_BUDGET)
    swept = [
        found
        for symbol in entry.scales_with
        if symbol.symbol in formulas.symbols
        and (
            found := crossovers(
                entry, formulas, devices, symbol.symbol, overrides, basis, allowance
            )
        )
        is not None
    ]
    by_device = {
        device.id: [c for found in swept for c in found[i]] for i, device in enumerate(devices)
    }
    effects = []
    for index, workaround in enumerate(entry.workarounds):
        if workaround.model is None:
            continue
        settings = assignment(entry, overrides, index)
        beyond = beyond_bounds(formulas, able, settings)
        modeled = {
            d.id: evaluate(entry, formulas, d, overrides, workaround=index, basis=basis)
            for d in able
            if d.id not in beyond
        }
        where = workaround.model.bytes or entry.intensity.bytes
        effects.append(
            WorkaroundEffect(
                workaround.title,
                workaround.reported,
                modeled,
                {
                    r.device: _ratio(r.time, modeled[r.device].time, "time", where)
                    for r in results
                    if r.device in modeled
                },
                {
                    r.device: _ratio(r.bytes, modeled[r.device].bytes, "bytes", where)
                    for r in results
                    if r.device in modeled
                },
                beyond,
            )
        )
    outcomes = [
        _check(entry, formulas, device, index)
        for index, check in enumerate(entry.checks)
        for device in able
        if device.id in check.devices
    ]
    rendered = None
    if symbolic:
        from ..maths.symbolic import render_intensity, to_sympy

        try:
            rendered = render_intensity(formulas.flops, formulas.bytes)
        except FormulaError as exc:  # what the symbolic side refuses, kb check refused first
            # Said at the formula that has it: the one its conversion refuses alone.
            where, offset = entry.intensity.flops, 0
            for side, written in ((formulas.bytes, entry.intensity.bytes), (formulas.flops, where)):
                try:
                    to_sympy(side)
                except FormulaError as alone:
                    where, offset = written, alone.offset
                    break
            raise EvaluationError(exc.message, where, offset) from None
    read = reader_symbols(entry, formulas)
    unread = {name: value for name, value in overrides.items() if name not in read}
    return EntryEvaluation(
        entry, formulas, values, results, skipped, by_device, rendered, effects, outcomes, unread
    )


def budget_pointer(entry: Entry, cost: Cost) -> tuple[str, ...]:
    """Where the entry spends most of its evaluation: the key an error past the budget
    points at."""
    return {
        "results": ("derived",) if entry.derived else ("arithmetic_intensity",),
        "workarounds": ("workarounds",),
        "checks": ("checks",),
        "sweeps": ("scales_with",),
    }[cost.largest]


def over_budget(cost: Cost) -> str:
    """What KB416 and the commands say of an entry past the evaluation budget."""
    return (
        f"evaluating this entry on the {cost.devices} devices that can run it takes about "
        f"{cost.total:,} formula steps, past the budget of {EVALUATION_BUDGET:,}; its "
        f"{cost.largest} take {cost.parts[cost.largest]:,}"
    )


def reader_symbols(entry: Entry, formulas: Formulas) -> frozenset[str]:
    """The symbols whose values, typical or set, change a number shown: those the entry's
    formulas read, and a workaround's where it does not set them itself."""
    read = set(formulas.symbols)
    for index, workaround in enumerate(entry.workarounds):
        if workaround.model is not None:
            for parsed in formulas.replacements(index).values():
                read |= parsed.symbols - workaround.model.overrides.keys()
    return frozenset(read)


def _check(entry: Entry, formulas: Formulas, device: Device, index: int) -> CheckOutcome:
    check = entry.checks[index]
    beyond = beyond_bound(formulas, device, assignment(entry, check.overrides))
    if beyond is not None:  # kb check refuses such a check; said, should one reach here
        return CheckOutcome(index, check.claim, device.id, False, beyond)
    try:
        result = evaluate(entry, formulas, device, check.overrides)
    except EvaluationError as exc:
        return CheckOutcome(index, check.claim, device.id, False, exc.message)
    units = {d.name: d.unit for d in entry.derived}
    failures = check_failures(check, result, formulas, units)
    detail = "; ".join(failures) or (
        "".join(f"{said}; " for said in checked_values(check, result, units))
        + f"{explain(result, describe(result.values, formulas))}, "
        f"time >= {format_seconds(result.time)}"
    )
    return CheckOutcome(index, check.claim, device.id, not failures, detail)


@dataclass(slots=True)
class Allowance:
    """Formula steps left for the bisection of crossovers in one evaluation."""

    left: int


def crossovers(
    entry: Entry,
    formulas: Formulas,
    devices: Sequence[Device],
    symbol: str,
    overrides: Mapping[str, float] | None = None,
    basis: Basis = DATASHEET,
    allowance: Allowance | None = None,
) -> list[list[Crossover]] | None:
    """Where the verdict on each of `devices` flips as `symbol` sweeps its declared range,
    holding the rest at their typical (or overridden) values: each sample whose verdict
    differs from the one before, bisected down to where it flips (an entry with more than two
    roofs may flip more than once: memory, then compute, then interconnect). One Crossover
    with no place where it never flips. None when the symbol has no range. Bisection takes
    formula steps from `allowance` (by default BISECTION_BUDGET of its own); once it runs
    out, a flip is placed at the first sample past it."""
    declared = entry.symbols[symbol]
    if declared.range is None:
        return None
    lo, hi = declared.range
    base = dict(overrides or {})
    # A symbol bounded by a device figure is swept on each device only up to that figure.
    tops: dict[float, list[int]] = {}
    for i, device in enumerate(devices):
        tops.setdefault(_top(formulas, device, symbol, hi), []).append(i)
    found: dict[int, list[Crossover]] = {}
    for top, indices in tops.items():
        chosen = [devices[i] for i in indices]
        flips = _flips(
            entry,
            formulas,
            chosen,
            symbol,
            (lo, max(lo, top)),
            base,
            basis,
            allowance or Allowance(BISECTION_BUDGET),
        )
        found.update(zip(indices, flips, strict=True))
    return [found[i] for i in range(len(devices))]


def _top(formulas: Formulas, device: Device, symbol: str, hi: float) -> float:
    """The highest value of `symbol` swept on `device`: its range's, or the device figure it
    is bounded by where that is lower."""
    for bounded, figure in formulas.bounds:
        limit = device.parameter(figure)
        if bounded == symbol and limit is not None:
            hi = min(hi, limit.value)
    return hi


def _flips(
    entry: Entry,
    formulas: Formulas,
    devices: Sequence[Device],
    symbol: str,
    swept: tuple[float, float],
    base: Mapping[str, float],
    basis: Basis,
    allowance: Allowance,
) -> list[list[Crossover]]:
    """Each device's crossovers as `symbol` sweeps `swept`, the rest held at `base`."""
    lo, hi = swept
    # What one bisection step evaluates: the roof formulas at a new point, on one device.
    step = formulas.flops.size + formulas.bytes.size + sum(f.size for f in formulas.others.values())

    def verdicts_at(chosen: Sequence[Device], x: float) -> list[str]:
        # FLOPs and bytes at a point do not depend on the device: one work judged on each.
        done = work(entry, formulas, {**base, symbol: x})
        if basis == DATASHEET:
            return verdicts(entry, formulas, chosen, done)
        return [
            on_device(entry, formulas, device, done, basis, derived=False).verdict
            for device in chosen
        ]

    points = sweep(lo, hi)
    first = verdicts_at(devices, points[0])
    # By device index: the samples on either side of each flip, with the verdict before it.
    flips: dict[int, list[tuple[float, float, str]]] = {i: [] for i in range(len(devices))}
    previous, before = points[0], first
    for x in points[1:]:
        try:
            now = verdicts_at(devices, x)
        except EvaluationError:
            # Past where the formulas are defined, which kb check refuses in a range (the
            # entry is evaluated all the same, with its errors): the flips found up to here.
            break
        for i, verdict in enumerate(now):
            if verdict != before[i]:
                flips[i].append((previous, x, before[i]))
        previous, before = x, now
    found: list[list[Crossover]] = []
    for i, device in enumerate(devices):
        if not flips[i]:
            found.append([Crossover(symbol, None, first[i], first[i], (lo, hi))])
            continue
        crossings = []
        for left, right, below in flips[i]:
            for _ in range(BISECTION_STEPS):
                middle = _midpoint(left, right)
                if middle in (left, right) or allowance.left < step:
                    break
                allowance.left -= step
                if verdicts_at([device], middle)[0] == below:
                    left = middle
                else:
                    right = middle
            above = verdicts_at([device], right)[0]
            crossings.append(Crossover(symbol, right, below, above, (lo, hi)))
        found.append(crossings)
    return found


def sweep(
    lo: float, hi: float, count: int = CROSSOVER_SAMPLES, geometric: bool | None = None
) -> list[float]:
    """`count` points spread over [lo, hi], both ends included and none past them, whatever
    their size: geometric when `geometric` (by default, when the range spans more than a
    decade of positive values), else even."""
    if lo == hi:
        return [lo]
    last = count - 1
    if geometric is None:
        geometric = lo > 0 and hi / lo > 10
    if geometric:
        # From the logarithms: hi / lo overflows across more than 308 decades.
        start, end = math.log(lo), math.log(hi)
        inner = [_exp_at_most(start + (end - start) / last * i, hi) for i in range(1, last)]
    else:
        step = (hi - lo) / last
        if math.isfinite(step):
            inner = [lo + step * i for i in range(1, last)]
        else:  # hi - lo is past the largest float: weigh the ends instead
            inner = [lo / last * (last - i) + hi / last * i for i in range(1, last)]
    return [lo, *(min(max(x, lo), hi) for x in inner), hi]


def _exp_at_most(exponent: float, limit: float) -> float:
    """e ** exponent, or `limit` where the rounded logarithms put it past the largest float."""
    try:
        return math.exp(exponent)
    except OverflowError:
        return limit


def _ratio(base: float, modeled: float, what: str, where: WrittenFormula) -> float:
    """How many times less a workaround's `what` is; a located error where that is no number
    (a modeled time that rounds to 0 s, or a ratio past the largest float)."""
    ratio = base / modeled if modeled > 0 else math.inf
    if not math.isfinite(ratio):
        raise EvaluationError(
            f"the workaround's modeled {what} ({modeled:.3g}) is too small against the "
            f"entry's ({base:.3g}) for their ratio to be a number",
            where,
        )
    return ratio


def _midpoint(left: float, right: float) -> float:
    if left > 0 and right / left > 4:
        # The geometric mean, as a product of roots: left * right overflows past 1e154 and
        # underflows to 0 below 1e-162, and a midpoint outside the range is evaluated there.
        return math.sqrt(left) * math.sqrt(right)
    middle = left + (right - left) / 2
    # right - left overflows when the two are past the largest float apart.
    return middle if math.isfinite(middle) else left / 2 + right / 2
