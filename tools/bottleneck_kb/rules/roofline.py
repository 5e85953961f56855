"""Claims against the roofline: the formulas are defined wherever commands evaluate them, the
declared bound_by holds on every device of the catalog, and each check holds."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..diagnostics import Diagnostic
from ..evaluation import crossover, sweep
from ..formula import Bounds, Formula
from ..intervals import Box, bounds
from ..model import Device, Entry, WrittenFormula
from ..numbers import number
from ..roofline import (
    EvaluationError,
    Formulas,
    Result,
    check_failures,
    describe,
    evaluate,
    explain,
    located,
    work,
)
from . import Context, Scope, rule

EVALUATION = "KB405"
BOUND_BY = "KB406"
CHECK = "KB407"


def _devices(context: Context, names: Iterable[str]) -> list[Device]:
    return [context.devices[name] for name in dict.fromkeys(names) if name in context.devices]


def _runnable(entry: Entry, context: Context) -> list[Device]:
    """The devices of the catalog with a dense peak for the entry's dtype."""
    dtype = entry.intensity.dtype
    return [d for d in context.devices.values() if dtype in d.peak_flops]


def _box(entry: Entry) -> Box:
    """Every value a command may give each symbol: its range, or its typical value alone."""
    box: dict[str, Bounds] = {}
    for symbol in entry.scales_with:
        if symbol.range is not None:
            box[symbol.symbol] = symbol.range
        elif symbol.typical is not None:
            box[symbol.symbol] = (symbol.typical, symbol.typical)
    return box


def _proven(entry: Entry, formulas: Formulas) -> bool:
    """True when interval arithmetic shows FLOPs >= 0, bytes > 0 and a finite intensity at
    every point of the ranges, for the entry and each workaround."""
    box = _box(entry)
    pairs: list[tuple[Formula, Formula, Box]] = [(formulas.flops, formulas.bytes, box)]
    for workaround, (flops, bytes_) in zip(entry.workarounds, formulas.workaround, strict=True):
        if workaround.model is not None:
            pinned = {**box, **{k: (v, v) for k, v in workaround.model.overrides.items()}}
            pairs.append((flops or formulas.flops, bytes_ or formulas.bytes, pinned))
    for flops, bytes_, at in pairs:
        if not flops.symbols | bytes_.symbols <= at.keys():
            return False
        f, b = bounds(flops, at), bounds(bytes_, at)
        if f is None or b is None or f[0] < 0 or b[0] <= 0 or f[1] / b[0] == float("inf"):
            return False
    return True


def _points(entry: Entry, formulas: Formulas, devices: list[Device]) -> Iterator[str]:
    """Evaluate every point a command evaluates without being told other values, raising
    EvaluationError at the first that fails; yields what each point was, for the message."""
    for index in [None, *(i for i, w in enumerate(entry.workarounds) if w.model)]:
        yield "typical values" if index is None else f"workaround {index + 1}'s settings"
        work(entry, formulas, workaround=index)
    for check in entry.checks:
        yield "a check's settings"
        work(entry, formulas, check.overrides)
    for symbol in entry.scales_with:
        if symbol.range is None or symbol.symbol not in formulas.symbols:
            continue
        for x in sweep(*symbol.range):
            yield f"{symbol.symbol}={number(x)}, sweeping {symbol.symbol} over its range"
            work(entry, formulas, {symbol.symbol: x})
        for device in devices:
            yield f"the crossover search for {symbol.symbol} on {device.id}"
            crossover(entry, formulas, device, symbol.symbol)


@rule(EVALUATION, "evaluates", Scope.ENTRY)
def evaluates_everywhere(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """The formulas, and each workaround's model, give finite numbers (FLOPs >= 0, bytes > 0)
    wherever a command evaluates them: at the typical values, at each check's and each
    workaround's settings, and at every value of every symbol's range. Interval arithmetic
    shows this for the whole range at once; where it cannot, every point the commands
    evaluate is evaluated.

    Every device the entry names has a dense peak for its dtype.

    Fails: `bytes: 2 * N / (s - 1)` with `s` ranging over `[0, 2]` (zero bytes at s = 1)
    Passes: `bytes: 2 * N / s` with `s` ranging over `[1, 2]`
    """
    dtype = entry.intensity.dtype
    named = [n for p in entry.hardware_parameters for n in p.values_for]
    for device in _devices(context, [*named, *(n for c in entry.checks for n in c.devices)]):
        if dtype not in device.peak_flops:
            yield entry.source.error_at(
                EVALUATION,
                ("arithmetic_intensity", "dtype"),
                f"{device.id} has no dense {dtype} peak in the catalog",
                "use a dtype the devices the entry names support",
            )
    formulas = context.formulas
    if formulas is None:
        return
    if any(entry.symbols[name].typical is None for name in formulas.symbols):
        return  # symbol-has-typical says which
    if _proven(entry, formulas):
        return
    points = _points(entry, formulas, _runnable(entry, context))
    point = "typical values"
    try:
        for point in points:  # noqa: B007 (the last point named is the one that failed)
            continue
    except EvaluationError as exc:
        where: WrittenFormula = exc.where or entry.intensity.bytes
        exc.message = f"{exc.message} (at {point})"
        yield located(where, exc, EVALUATION)


def _excused(entry: Entry, device: str, verdict: str) -> bool:
    """The entry says the claim does not hold on `device`: a check at the typical values
    (no settings) names the device and expects the verdict found there."""
    return any(
        not check.overrides and check.bound_by == verdict and device in check.devices
        for check in entry.checks
    )


@rule(BOUND_BY, "bound-by-holds", Scope.ENTRY)
def bound_by_holds(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """The claimed bound_by is the roof that sets the time at the typical values on every
    device of the catalog that has the entry's dtype, not only those hardware_parameters
    names; a device where it does not hold must be named by a check at the typical values
    that expects what is found there.

    Fails: `bound_by: compute` for a draft pass of intensity 4 (every ridge point is higher)
    Passes: `bound_by: memory`
    """
    formulas = context.formulas
    if formulas is None:
        return
    results: list[Result] = []
    for device in _runnable(entry, context):
        try:
            results.append(evaluate(entry, formulas, device))
        except EvaluationError:
            return  # reported by evaluates
    if not results:
        return
    if entry.bound_by not in results[0].times:
        modeled = ", ".join(results[0].times)
        yield entry.source.error_at(
            BOUND_BY,
            ("bound_by",),
            f"bound_by is {entry.bound_by}, but the entry gives no formula for that roof "
            f"(it models {modeled})",
            f"give the formula of the {entry.bound_by} roof, or change bound_by",
        )
        return
    holds = [r.device for r in results if r.verdict == entry.bound_by]
    # A check can say where the claim does not hold, but not that it holds nowhere.
    wrong = [
        r
        for r in results
        if r.verdict != entry.bound_by and not (holds and _excused(entry, r.device, r.verdict))
    ]
    if not wrong:
        return
    at = describe(results[0].values, formulas)
    found = "; ".join(explain(r, at).removeprefix("on ") for r in wrong)
    yield entry.source.error_at(
        BOUND_BY,
        ("bound_by",),
        f"bound_by is {entry.bound_by}, but {found}"
        + (f"; it holds on {', '.join(holds)}" if holds else ""),
        "fix the formulas or typical values, change bound_by, or add a check at the typical "
        "values on those devices expecting what is found there",
    )


@rule(CHECK, "check-holds", Scope.ENTRY)
def checks_hold(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """Each check's expectation holds on each of its devices.

    Fails: `expect: {bound_by: compute}` at `set: {B: 1}` for the LM head on an H100
    Passes: `expect: {bound_by: memory}` there
    """
    if context.formulas is None:
        return
    for check in entry.checks:
        for device in _devices(context, check.devices):
            try:
                result = evaluate(entry, context.formulas, device, check.overrides)
            except EvaluationError:
                continue  # reported by evaluates, or by known-override
            for failure in check_failures(check, result, context.formulas):
                yield check.where.error(CHECK, failure, f"claim: {check.claim}", at=("expect",))
