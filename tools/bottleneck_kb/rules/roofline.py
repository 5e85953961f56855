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
    on_device,
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
    """The formulas give finite numbers wherever a command evaluates them.

    ## What it checks
    FLOPs >= 0, bytes > 0 and a finite intensity, for the entry and each workaround's model,
    at the typical values, at each check's and workaround's settings and at every value of
    every symbol's range. Interval arithmetic shows this for whole ranges at once; where it
    cannot, every point the commands evaluate is evaluated. Every device the entry names has
    a dense peak for its dtype.
    ## Why it matters
    A formula that divides by zero at one end of a range passes at the typical values and
    then breaks `kb eval`, the site and every tool that sweeps the range.
    ## How to fix
    Narrow the range to where the formula is defined, or fix the formula; the message says
    at which values it fails.
    ## Fails
    ```yaml
    arithmetic_intensity: {bytes: 2 * N / (B - 2)}
    ```
    ## Passes
    ```yaml
    arithmetic_intensity: {bytes: 2 * N / B}
    ```
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
    """The claimed bound_by holds on every device of the catalog.

    ## What it checks
    At the typical values, the roof that sets the time is the one `bound_by` names, on every
    device that has the entry's dtype, not only those `hardware_parameters` names. Where the
    claim holds on some devices and not others, the others must be named by a check at the
    typical values (no `set`) that expects what is found there.
    ## Why it matters
    `bound_by` is the headline of the card; a reader picks a device by it.
    ## How to fix
    Fix the formulas or typical values, change `bound_by`, or add a check naming the devices
    where it does not hold.
    ## Fails
    ```yaml
    bound_by: compute
    ```
    ## Passes
    ```yaml
    bound_by: memory
    ```
    """
    formulas = context.formulas
    if formulas is None:
        return
    try:
        done = work(entry, formulas)
    except EvaluationError:
        return  # reported by evaluates
    results: list[Result] = [on_device(entry, d, done) for d in _runnable(entry, context)]
    if not results:
        return
    if entry.bound_by not in results[0].times:
        # cards branch, until the four-roof evaluation lands: a roof whose formula the entry
        # gives (interconnect_bytes, latency, footprint) is not judged by this evaluation.
        written = {
            "interconnect": entry.intensity.interconnect_bytes,
            "latency": entry.intensity.latency,
            "capacity": entry.intensity.footprint,
        }
        if written.get(entry.bound_by) is not None:
            return
        modeled = ", ".join(results[0].times)
        yield entry.source.error_at(
            BOUND_BY,
            ("bound_by",),
            f"bound_by is {entry.bound_by}, but the entry gives no formula for that roof "
            f"(it models {modeled})",
            f"give the formula of the {entry.bound_by} roof, or change bound_by",
        )
        return
    verdicts = [(r, r.verdict) for r in results]
    holds = [r.device for r, verdict in verdicts if verdict == entry.bound_by]
    if len(holds) == len(results):
        return
    # A check can say where the claim does not hold, but not that it holds nowhere.
    wrong = [
        r
        for r, verdict in verdicts
        if verdict != entry.bound_by and not (holds and _excused(entry, r.device, verdict))
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

    ## What it checks
    Every `checks[]` item, evaluated at its `set` on each of its `devices`, gives the expected
    verdict and values within the expected bounds.
    ## Why it matters
    Checks are the card's claims in numbers: a wrong one is a wrong claim.
    ## How to fix
    Correct the claim (and its expectation), or the formulas; the message gives both sides.
    ## Fails
    ```yaml
    checks:
      - claim: Compute-bound at batch 16.
        set: {B: 16}
        devices: [nvidia-h100-sxm]
        expect: {bound_by: compute}
    ```
    ## Passes
    ```yaml
    checks:
      - claim: Memory-bound at batch 16.
        set: {B: 16}
        devices: [nvidia-h100-sxm]
        expect: {bound_by: memory}
    ```
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
