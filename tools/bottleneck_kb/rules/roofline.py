"""Claims against the roofline: the formulas are defined wherever commands evaluate them, the
declared bound_by holds on every device of the catalog, and each check holds."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.diagnostics import Diagnostic
from ..evaluation.claims import check_failures, describe, explain_verdict
from ..evaluation.domain import describe_box, unproven
from ..evaluation.evaluator import no_dense_peak
from ..evaluation.formulas import EvaluationError, located
from ..evaluation.result import Result
from ..evaluation.roofs import CAPACITY, ROOFS
from ..records.device import Device
from ..records.entry import Entry
from . import Context, Scope, rule

EVALUATION = "KB405"
BOUND_BY = "KB406"
CHECK = "KB407"

_NAME_ABLE_DEVICES = (
    "name devices with every figure the entry reads (each device's page, or its file under "
    "hardware/, lists its figures), or leave this one out"
)

#: Devices whose arithmetic a bound_by message spells out.
SHOWN_DEVICES = 2


def _devices(context: Context, names: Iterable[str]) -> list[Device]:
    return [context.devices[name] for name in dict.fromkeys(names) if name in context.devices]


@rule(EVALUATION, "evaluates", Scope.ENTRY)
def evaluates_everywhere(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """The formulas give finite numbers wherever a command evaluates them.

    ## What it checks
    FLOPs >= 0, bytes > 0 and a finite intensity, for the entry and each workaround's model,
    at the typical values, at each check's and workaround's settings and at every value of
    every symbol's range; formulas that read device figures, on each device's datasheet,
    measured and derated figures. Each workaround's time and bytes stay large enough against
    the entry's for their ratio (what `kb eval` shows as its effect) to be a number.
    Interval arithmetic shows this for whole ranges at once; where it cannot, every point the
    commands evaluate is evaluated. Every device the entry names has a dense peak for its
    dtype.
    An editor cannot show this: a JSON Schema cannot parse or evaluate a formula.
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
                no_dense_peak(device, dtype),
                "use a dtype the devices the entry names support",
            )
    evaluator, formulas = context.evaluator, context.formulas
    if evaluator is None or formulas is None or not context.evaluable:
        return  # KB416 says an entry is past the evaluation budget
    if any(entry.symbols[name].typical is None for name in formulas.symbols):
        return  # symbol-has-typical says which
    found = unproven(evaluator, list(context.runnable))
    if found is None:
        return
    if found.failure is not None:
        where = found.failure.where or found.obligation.written
        yield located(where, found.failure, EVALUATION)
        return
    must = {"positive": "> 0", "nonnegative": ">= 0", "finite": "finite"}[found.obligation.must_be]
    names = [s.symbol for s in entry.scales_with if s.symbol in found.box]
    yield found.obligation.written.where.error(
        EVALUATION,
        f"cannot show {found.obligation.name} stays {must} for every value of the ranges "
        f"(interval arithmetic fails on {describe_box(found.box, names)})",
        "narrow a range to where the formula is defined, or write it so that each symbol "
        "appears once",
    )


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
    device that has the entry's dtype, not only those `hardware_parameters` names (and that
    can run it there: not one whose figure is below a symbol bounded by it). Where the
    claim holds on some devices and not others, the others must be named by a check at the
    typical values (no `set`) that expects what is found there.
    An editor cannot show this: a JSON Schema cannot parse or evaluate a formula.
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
    evaluator, formulas = context.evaluator, context.formulas
    if evaluator is None or formulas is None or not context.evaluable:
        return  # KB416 says an entry is past the evaluation budget
    try:
        done = evaluator.work()
    except EvaluationError:
        return  # reported by evaluates
    devices = list(context.runnable)
    if not devices:
        if context.devices:
            lacking = sorted({m for d in context.devices.values() for m in evaluator.missing(d)})
            yield entry.source.error_at(
                BOUND_BY,
                ("bound_by",),
                f"no device of the catalog has the figures the entry reads ({', '.join(lacking)})"
                ", so bound_by is checked nowhere",
                "make what the devices lack a symbol of the entry, with a sourced typical value",
            )
        return
    beyond = evaluator.beyond_all(devices, done.values)
    if len(beyond) == len(devices):
        yield entry.source.error_at(
            BOUND_BY,
            ("bound_by",),
            "at the typical values no device of the catalog can run the entry, so bound_by is "
            f"checked nowhere ({devices[0].id}: {beyond[devices[0].id]})",
            "give the bounded symbol a typical value within the devices' figures",
        )
        return
    devices = [d for d in devices if d.id not in beyond]
    try:
        if all(v == entry.bound_by for v in evaluator.verdicts(devices, done)):
            return  # the common case, decided without building a result per device
        results: list[Result] = [evaluator.on(d, done) for d in devices]
    except EvaluationError:
        return  # reported by evaluates
    modeled = [*results[0].times, *(["capacity"] if results[0].capacity is not None else [])]
    if entry.bound_by not in modeled:
        quantity = next(
            (r.quantity for r in (*ROOFS, CAPACITY) if r.name == entry.bound_by), entry.bound_by
        )
        yield entry.source.error_at(
            BOUND_BY,
            ("bound_by",),
            f"bound_by is {entry.bound_by}, but the entry gives no formula for that roof "
            f"({quantity}); it models {', '.join(modeled)}",
            f"give arithmetic_intensity.{quantity}, or change bound_by",
        )
        return
    judged = [(r, r.verdict) for r in results]
    holds = [r.device for r, verdict in judged if verdict == entry.bound_by]
    if len(holds) == len(results):
        return
    # A check can say where the claim does not hold, but not that it holds nowhere.
    wrong = [
        r
        for r, verdict in judged
        if verdict != entry.bound_by and not (holds and _excused(entry, r.device, verdict))
    ]
    if not wrong:
        return
    at = describe(results[0].values, formulas)
    by_verdict: dict[str, list[Result]] = {}
    for result in wrong:
        by_verdict.setdefault(result.verdict, []).append(result)
    found = "; ".join(
        f"{verdict} on {', '.join(r.device for r in group)}"
        for verdict, group in by_verdict.items()
    )
    # The arithmetic of a few devices, enough to see both sides without a wall of text.
    shown = "; ".join(
        f"{r.device}: {explain_verdict(r, at).removeprefix(f'on {r.device} at {at}: ')}"
        for r in wrong[:SHOWN_DEVICES]
    )
    more = f" (and {len(wrong) - SHOWN_DEVICES} more)" if len(wrong) > SHOWN_DEVICES else ""
    if holds:  # the check that would say so, device by device
        excuse = "; ".join(
            f"on {', '.join(r.device for r in group)} expecting {{bound_by: {verdict}}}"
            for verdict, group in by_verdict.items()
        )
        hint = (
            "fix the formulas or typical values, change bound_by, or add a check at the "
            f"typical values (no set) {excuse}"
        )
    else:
        most = max(by_verdict, key=lambda verdict: len(by_verdict[verdict]))
        hint = (
            f"fix the formulas or typical values, or change bound_by (it is {most} on "
            f"{len(by_verdict[most])} of {len(results)} devices): a check cannot excuse a "
            "claim that holds on no device"
        )
    yield entry.source.error_at(
        BOUND_BY,
        ("bound_by",),
        f"bound_by is {entry.bound_by}, but at {at} it is {found} ({shown}{more})"
        + (f"; it holds on {', '.join(holds)}" if holds else ""),
        hint,
    )


@rule(CHECK, "check-holds", Scope.ENTRY)
def checks_hold(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """Each check's expectation holds on each of its devices.

    ## What it checks
    Every `checks[]` item, evaluated at its `set` on each of its `devices`, gives the expected
    verdict and values within the expected bounds.
    An editor cannot show this: a JSON Schema cannot parse or evaluate a formula.
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
    evaluator, formulas = context.evaluator, context.formulas
    if evaluator is None or formulas is None or not context.evaluable:
        return  # KB416 says an entry is past the evaluation budget
    units = {d.name: d.unit for d in entry.derived}
    for check in entry.checks:
        try:
            done = evaluator.work(check.overrides)  # the same on every device
        except EvaluationError:
            continue  # reported by evaluates, or by known-override
        for device in _devices(context, check.devices):
            named = ("devices", check.devices.index(device.id))
            missing = evaluator.missing(device)
            if missing:
                # A device without a figure the entry reads cannot bear the claim out; a
                # missing dense peak is evaluates' to say, at the dtype.
                if entry.intensity.dtype in device.peak_flops:
                    yield check.where.error(
                        CHECK,
                        "the check names a device it cannot be evaluated on: "
                        f"{device.id} has no {', '.join(missing)} in the catalog",
                        _NAME_ABLE_DEVICES,
                        at=named,
                    )
                continue
            beyond = evaluator.beyond(device, done.values)
            if beyond is not None:
                yield check.where.error(
                    CHECK,
                    f"the check names a device that cannot run it at its values: on "
                    f"{device.id}, {beyond}",
                    "set values within the device's figures, or leave this device out",
                    at=named,
                )
                continue
            try:
                result = evaluator.on(device, done)
            except EvaluationError as exc:
                yield check.where.error(
                    CHECK,
                    f"the check names a device it cannot be evaluated on: {exc.message}",
                    _NAME_ABLE_DEVICES,
                    at=named,
                )
                continue
            for failure in check_failures(check, result, formulas, units):
                yield check.where.error(CHECK, failure, f"claim: {check.claim}", at=("expect",))
