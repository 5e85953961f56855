"""An entry over a set of devices: which devices apply and why others are skipped, the result
on each, where the verdict flips as each symbol sweeps its range, each workaround's modeled
effect and each check's outcome. Typed results that `kb eval`, the reporters and the site
share; how they are shown is the reporters' business."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ..core.errors import BadRequest, KBError
from ..core.numbers import exact_number, format_seconds, number
from ..core.text import suggest
from ..maths.formula import FormulaError
from ..records.device import Device
from ..records.entry import Entry, WrittenFormula
from .claims import check_failures, checked_values, describe, explain_verdict
from .cost import EVALUATION_BUDGET, budget_pointer, evaluation_cost, over_budget
from .crossovers import BISECTION_BUDGET, Allowance, Crossover, crossovers
from .evaluator import Evaluator
from .formulas import EvaluationError, Formulas
from .measured import MeasuredOutcome, card_outcomes
from .result import DATASHEET, Basis, Result
from .roofs import ROOFS

if TYPE_CHECKING:
    from ..maths.symbolic import Rendered


@dataclass(frozen=True, slots=True)
class Skipped:
    """A device of the catalog the entry was not evaluated on, and why."""

    device: str
    reason: str


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
class Expected:
    """The time a kernel is expected to take: the bound on figures derated by the achieved
    fraction its class reaches, and where that fraction comes from."""

    seconds: float
    fraction: float
    figure: str
    #: The fraction's source id, or the measurements it rests on.
    rests_on: str


@dataclass(frozen=True, kw_only=True)
class Evaluated:
    """An entry's evaluation as data: what `kb eval --format json`, the site and the export
    show, and what the site's cache keeps between builds (`report.evaluation` writes it as
    plain data and reads it back)."""

    entry_id: str
    dtype: str
    #: The values of the symbols, typical with overrides applied.
    values: dict[str, float]
    results: list[Result]
    skipped: list[Skipped]
    crossovers: dict[str, list[Crossover]]
    intensity: Rendered | None = None
    workarounds: list[WorkaroundEffect] = field(default_factory=list)
    checks: list[CheckOutcome] = field(default_factory=list)
    #: The card's published measurements beside its bound (each at its own workload).
    measured: list[MeasuredOutcome] = field(default_factory=list)
    #: Device id -> the time expected at the evaluated values, where the device gives an
    #: achieved fraction for the entry's class on the figure that binds, and what it rests on.
    expected: dict[str, Expected] = field(default_factory=dict)

    @property
    def verdicts(self) -> dict[str, list[str]]:
        """The devices by verdict: more than one key when the verdict differs between them."""
        found: dict[str, list[str]] = {}
        for result in self.results:
            found.setdefault(result.verdict, []).append(result.device)
        return found

    def result(self, device_id: str) -> Result | None:
        """The result on one device, or None when it was skipped."""
        return next((r for r in self.results if r.device == device_id), None)

    def plain(self) -> Evaluated:
        """This evaluation as data alone (without what made it): what a cache can keep and
        compare with what it kept."""
        return Evaluated(**{f.name: getattr(self, f.name) for f in fields(Evaluated)})


@dataclass(frozen=True, kw_only=True)
class EntryEvaluation(Evaluated):
    """An evaluation as it was made, with the Evaluator that made it."""

    evaluator: Evaluator
    #: The symbols set (overrides) that change nothing: no formula reads them, or only a
    #: workaround's that sets its own value. The report says so.
    unread: dict[str, float] = field(default_factory=dict)
    #: The devices a report lists row by row, in order (kb eval's featured devices); the
    #: others are summed up in a line. None: every device evaluated.
    shown: tuple[str, ...] | None = None

    @property
    def entry(self) -> Entry:
        return self.evaluator.entry

    @property
    def formulas(self) -> Formulas:
        return self.evaluator.formulas

    @property
    def assignment(self) -> str:
        """`B=1, k=4`: the values of the symbols that change a number shown (a workaround's
        formulas' too, where it does not set them itself)."""
        return describe(self.values, self.formulas, reader_symbols(self.evaluator))

    @property
    def assigned(self) -> dict[str, float]:
        """The values `assignment` names, by symbol, in its order."""
        read = reader_symbols(self.evaluator)
        return {name: self.values[name] for name in sorted(read) if name in self.values}


def select_devices(
    evaluator: Evaluator,
    catalog: Mapping[str, Device],
    on: Sequence[str] = (),
    broken: Mapping[str, str] | None = None,
) -> tuple[list[Device], list[Skipped]]:
    """The devices to evaluate the entry on (`on`, or the whole catalog) and those skipped: a
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
        missing = evaluator.missing(device)
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
    return evaluate_parsed(
        Evaluator.of(entry), catalog, on, overrides, basis=basis, symbolic=symbolic, broken=broken
    )


def evaluate_parsed(
    evaluator: Evaluator,
    catalog: Mapping[str, Device],
    on: Sequence[str] = (),
    overrides: Mapping[str, float] | None = None,
    *,
    basis: Basis = DATASHEET,
    symbolic: bool = True,
    broken: Mapping[str, str] | None = None,
    brief: bool = False,
) -> EntryEvaluation:
    """`evaluate_entry` of an entry already parsed (`evaluator`); `brief`, only the results,
    the checks and the measurements (what `kb diff` compares), without the crossovers, the
    workarounds' effects and the expected times, which are most of the work."""
    entry, formulas = evaluator.entry, evaluator.formulas
    overrides = dict(overrides or {})
    check_overrides(entry, overrides)
    values = evaluator.values(overrides)
    # Checks and workarounds run at values of their own: on every device with the figures
    # (`able`), whether or not it can run the reader's (`devices`).
    able, skipped = select_devices(evaluator, catalog, on, broken)
    cost = evaluation_cost(evaluator, len(able))
    if cost.total > EVALUATION_BUDGET:
        at = entry.source.error_at("", budget_pointer(entry, cost), "", key=True)
        raise KBError(over_budget(cost), "kb check refuses it", at.path, at.line, at.col)
    beyond = evaluator.beyond_all(able, values)
    devices = [d for d in able if d.id not in beyond]
    skipped += [Skipped(device, why) for device, why in beyond.items()]
    results = [evaluator.result(device, overrides, basis=basis) for device in devices]
    if not on:  # the whole catalog: fastest first, which is what a reader choosing looks for
        order = sorted(range(len(results)), key=lambda i: (results[i].time, results[i].device))
        results = [results[i] for i in order]
        devices = [devices[i] for i in order]
    allowance = Allowance(BISECTION_BUDGET)
    swept = [
        found
        for symbol in (() if brief else entry.scales_with)
        if symbol.symbol in formulas.symbols
        and (found := crossovers(evaluator, devices, symbol.symbol, overrides, basis, allowance))
        is not None
    ]
    by_device = {
        device.id: [c for found in swept for c in found[i]] for i, device in enumerate(devices)
    }
    effects = []
    for index, workaround in enumerate(() if brief else entry.workarounds):
        if workaround.model is None:
            continue
        settings = evaluator.values(overrides, index)
        beyond = evaluator.beyond_all(able, settings)
        modeled = {
            d.id: evaluator.result(d, overrides, workaround=index, basis=basis)
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
        _check(evaluator, device, index)
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
    read = reader_symbols(evaluator)
    unread = {name: value for name, value in overrides.items() if name not in read}
    measured = card_outcomes(evaluator, catalog, on or None)
    expected = {
        d.id: time
        for d, r in zip(devices, results, strict=True)
        if not brief and (time := expected_time(evaluator, d, r, overrides)) is not None
    }
    return EntryEvaluation(
        entry_id=entry.id,
        dtype=entry.intensity.dtype,
        values=values,
        results=results,
        skipped=skipped,
        crossovers=by_device,
        intensity=rendered,
        workarounds=effects,
        checks=outcomes,
        measured=measured,
        expected=expected,
        evaluator=evaluator,
        unread=unread,
    )


def expected_time(
    evaluator: Evaluator, device: Device, result: Result, overrides: Mapping[str, float]
) -> Expected | None:
    """The time expected on `device` (whose bound is `result`): the evaluation on derated
    figures, where the device gives an achieved fraction for the entry's class on the figure
    of the roof that binds; None where it gives none (a figure-wide fraction is no ground for
    saying what this kind of kernel reaches)."""
    figure = next((r.figure for r in ROOFS if r.name == result.verdict), None)
    if figure is None:
        return None
    done = evaluator.work(overrides)
    fraction = device.class_fraction(figure, evaluator.entry.cls, evaluator.message_size(done))
    if fraction is None:
        return None
    derated = evaluator.on(device, done, Basis(derated=True), derived=False)
    rests_on = fraction.source or ", ".join(fraction.measurements)
    return Expected(derated.time, fraction.value, figure, rests_on)


def reader_symbols(evaluator: Evaluator) -> frozenset[str]:
    """The symbols whose values, typical or set, change a number shown: those the entry's
    formulas read, and a workaround's where it does not set them itself."""
    entry, formulas = evaluator.entry, evaluator.formulas
    read = set(formulas.symbols)
    for index, workaround in enumerate(entry.workarounds):
        if workaround.model is not None:
            for parsed in formulas.replacements(index).values():
                read |= parsed.symbols - workaround.model.overrides.keys()
    return frozenset(read)


def _check(evaluator: Evaluator, device: Device, index: int) -> CheckOutcome:
    entry, formulas = evaluator.entry, evaluator.formulas
    check = entry.checks[index]
    beyond = evaluator.beyond(device, evaluator.values(check.overrides))
    if beyond is not None:  # kb check refuses such a check; said, should one reach here
        return CheckOutcome(index, check.claim, device.id, False, beyond)
    try:
        result = evaluator.result(device, check.overrides)
    except EvaluationError as exc:
        return CheckOutcome(index, check.claim, device.id, False, exc.message)
    units = {d.name: d.unit for d in entry.derived}
    failures = check_failures(check, result, formulas, units)
    detail = "; ".join(failures) or (
        "".join(f"{said}; " for said in checked_values(check, result, units))
        + f"{explain_verdict(result, describe(result.values, formulas))}, "
        f"time >= {format_seconds(result.time)}"
    )
    return CheckOutcome(index, check.claim, device.id, not failures, detail)


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
