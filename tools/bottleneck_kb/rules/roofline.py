"""Claims against the roofline: the declared bound_by and each check, on real devices."""

from __future__ import annotations

from collections.abc import Iterable

from ..diagnostics import Diagnostic
from ..model import Device, Entry
from ..roofline import (
    EvaluationError,
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

_VERDICTS = ("memory", "compute")


def _devices(entry: Entry, context: Context, names: Iterable[str]) -> list[Device]:
    return [context.devices[name] for name in dict.fromkeys(names) if name in context.devices]


def _claimed_devices(entry: Entry, context: Context) -> list[Device]:
    names = [n for p in entry.hardware_parameters for n in p.values_for]
    return _devices(entry, context, names)


@rule(EVALUATION, "evaluates", Scope.ENTRY)
def evaluates_at_typical(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """The formulas, and each workaround's model, give finite numbers at the typical values,
    and every device the entry names has a peak for its dtype.

    Fails: `bytes: 2 * N_d - 2 * N_d` (zero bytes), or `dtype: fp4` on a device without FP4
    Passes: `bytes: 2 * N_d`
    """
    formulas = context.formulas
    if formulas is None:
        return
    used = formulas.flops.symbols | formulas.bytes.symbols
    if any(entry.symbols[name].typical is None for name in used):
        return  # symbol-has-typical says which
    for index in [None, *(i for i, w in enumerate(entry.workarounds) if w.model)]:
        try:
            work(entry, formulas, workaround=index)
        except EvaluationError as exc:
            assert exc.where is not None
            yield located(exc.where, exc, EVALUATION)
    dtype = entry.intensity.dtype
    for device in _claimed_devices(entry, context):
        if dtype not in device.peak_flops:
            yield entry.source.error_at(
                EVALUATION,
                ("arithmetic_intensity", "dtype"),
                f"{device.id} has no dense {dtype} peak in the catalog",
                "use a dtype the devices of hardware_parameters support",
            )


@rule(BOUND_BY, "bound-by-holds", Scope.ENTRY)
def bound_by_holds(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """A memory- or compute-bound claim holds at the typical values on every device of the
    entry's hardware_parameters.

    Fails: `bound_by: compute` for a draft pass of intensity 4 on an H100 (ridge 295)
    Passes: `bound_by: memory`
    """
    if context.formulas is None or entry.bound_by not in _VERDICTS:
        return
    for device in _claimed_devices(entry, context):
        try:
            result = evaluate(entry, context.formulas, device)
        except EvaluationError:
            continue  # reported by evaluates
        if result.verdict != entry.bound_by:
            yield entry.source.error_at(
                BOUND_BY,
                ("bound_by",),
                f"bound_by is {entry.bound_by}, but "
                f"{explain(result, describe(result.values, context.formulas))}: FAIL",
                "fix the formulas or typical values, or change bound_by",
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
        for device in _devices(entry, context, check.devices):
            try:
                result = evaluate(entry, context.formulas, device, check.overrides)
            except EvaluationError:
                continue  # reported by evaluates, or by known-override
            for failure in check_failures(check, result, context.formulas):
                yield check.where.error(CHECK, failure, f"claim: {check.claim}", at=("expect",))
