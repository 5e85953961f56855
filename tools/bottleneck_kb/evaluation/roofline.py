"""One entry on one device at one assignment of its symbols: work, roofs, verdict, times.

The roofline here is the simplest honest one: a kernel takes at least the longest of the times
its roofs give (FLOPs / dense peak, bytes / memory bandwidth), overlap assumed; the verdict is
the roof that sets that bound. Whole-entry evaluation (every device, sweeps, checks) is the
business of `evaluation`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..core.numbers import exact_number, format_quantity
from ..maths import formula
from ..records.device import Device
from ..records.entry import Entry, WrittenFormula
from .claims import describe
from .formulas import EvaluationError, Formulas, figures_needed
from .result import DATASHEET, Basis, Result, Work, basis_figure
from .roofs import COMPUTE, MEMORY, ROOFS, device_figures


def assignment(
    entry: Entry, overrides: Mapping[str, float] | None = None, workaround: int | None = None
) -> dict[str, float]:
    """Each declared symbol's typical value, with `overrides` on top and a workaround's own
    settings on top of those (they are what the workaround is); symbols with none of these
    are left out (a formula that needs one fails with a message naming it)."""
    values = {s.symbol: s.typical for s in entry.scales_with if s.typical is not None}
    values.update(overrides or {})
    if workaround is not None:
        model = entry.workarounds[workaround].model
        if model is not None:
            values.update(model.overrides)
    return values


def _value(source: WrittenFormula, parsed: formula.Formula, values: Mapping[str, float]) -> float:
    missing = sorted(parsed.symbols - values.keys())
    if missing:
        raise EvaluationError(
            f"symbol `{missing[0]}` has no typical value; give it one in scales_with or set it",
            source,
        )
    try:
        return formula.evaluate(parsed, values)
    except formula.FormulaError as exc:
        raise EvaluationError(exc.message, source, exc.offset) from None


def work(
    entry: Entry,
    formulas: Formulas,
    overrides: Mapping[str, float] | None = None,
    workaround: int | None = None,
) -> Work:
    """The entry's (or one of its workarounds', by index) FLOPs and bytes at an assignment."""
    values = assignment(entry, overrides, workaround)
    key = (tuple(sorted(values.items())), workaround)
    done = formulas.worked.get(key)
    if done is None:
        done = formulas.worked[key] = _work(entry, formulas, values, workaround)
    return done


def _work(
    entry: Entry, formulas: Formulas, values: dict[str, float], workaround: int | None
) -> Work:
    flops_source, bytes_source = entry.intensity.flops, entry.intensity.bytes
    flops_parsed, bytes_parsed = formulas.flops, formulas.bytes
    if workaround is not None:
        model = entry.workarounds[workaround].model
        if model is not None:
            replace_flops, replace_bytes = formulas.workaround[workaround]
            if replace_flops is not None and model.flops is not None:
                flops_source, flops_parsed = model.flops, replace_flops
            if replace_bytes is not None and model.bytes is not None:
                bytes_source, bytes_parsed = model.bytes, replace_bytes
    flops = _value(flops_source, flops_parsed, values)
    bytes_ = _value(bytes_source, bytes_parsed, values)
    if flops < 0 or bytes_ <= 0:
        raise EvaluationError(
            f"FLOPs must be >= 0 and bytes > 0; got {format_quantity(flops, 'FLOP')}, "
            f"{format_quantity(bytes_, 'B')} at {describe(values, formulas)}",
            bytes_source if bytes_ <= 0 else flops_source,
        )
    if flops / bytes_ == float("inf"):
        raise EvaluationError(
            f"intensity is too large to compute at {describe(values, formulas)}", bytes_source
        )
    return Work(values, flops, bytes_, workaround)


def missing_figures(
    entry: Entry, formulas: Formulas, device: Device, needed: Sequence[str] | None = None
) -> list[str]:
    """What `device` lacks of what the entry needs (`needed`, if already known), said as a
    reader would look for it."""
    missing = []
    for name in figures_needed(formulas) if needed is None else needed:
        if name == "peak_flops":
            if entry.intensity.dtype not in device.peak_flops:
                missing.append(f"dense {entry.intensity.dtype} peak")
        elif device.parameter(name) is None:
            missing.append(name)
    return missing


def beyond_bound(formulas: Formulas, device: Device, values: Mapping[str, float]) -> str | None:
    """Why `device` cannot run the entry at `values`: a symbol more than the device figure it
    is bounded by (a tensor-parallel ring of 16 on a scale-up domain of 8); None when none
    is. A device without the figure is not runnable at all (`missing_figures`)."""
    for symbol, figure in formulas.bounds:
        value, limit = values.get(symbol), device.parameter(figure)
        if value is not None and limit is not None and value > limit.value:
            # Every digit it takes: 8.0001 is more than 8, and must not read as 8.
            return (
                f"{symbol} = {exact_number(value)} is more than its {figure} "
                f"({exact_number(limit.value)})"
            )
    return None


def beyond_bounds(
    formulas: Formulas, devices: Iterable[Device], values: Mapping[str, float]
) -> dict[str, str]:
    """Device id -> why it cannot run the entry at `values` (`beyond_bound`), for those of
    `devices` that cannot."""
    if not formulas.bounds:  # most entries bound nothing: no call for each device
        return {}
    return {d.id: why for d in devices if (why := beyond_bound(formulas, d, values))}


def runnable(entry: Entry, formulas: Formulas, devices: Iterable[Device]) -> list[Device]:
    """The devices with every figure the entry's formulas read."""
    needed = figures_needed(formulas)
    return [d for d in devices if not missing_figures(entry, formulas, d, needed)]


def _figures(
    entry: Entry, formulas: Formulas, device: Device, basis: Basis
) -> tuple[dict[str, float], dict[str, str]]:
    """The device figures the entry reads, on `basis`, and where each came from (found once
    for each device and basis: read-only to callers)."""
    key = ("figures", device.id, basis)
    known = formulas.memo.get(key)
    if known is not None and known[0] is device:
        return known[1], known[2]
    values, said = _read_figures(entry, formulas, device, basis)
    formulas.memo[key] = (device, values, said)
    return values, said


def _read_figures(
    entry: Entry, formulas: Formulas, device: Device, basis: Basis
) -> tuple[dict[str, float], dict[str, str]]:
    values: dict[str, float] = {}
    said: dict[str, str] = {}
    dtype = entry.intensity.dtype
    for name in figures_needed(formulas):
        key = f"peak_flops.{dtype}" if name == "peak_flops" else name
        measure = device.parameter(key)
        if measure is None:
            what = f"dense {dtype} peak" if name == "peak_flops" else name
            raise EvaluationError(f"{device.id} has no {what} in the catalog")
        values[name], said[name] = basis_figure(device, key, measure.value, basis)
    return values, said


def on_device(
    entry: Entry,
    formulas: Formulas,
    device: Device,
    done: Work,
    basis: Basis = DATASHEET,
    derived: bool = True,
) -> Result:
    """`done` on `device`'s roofs: FLOPs at the dense peak of the entry's dtype, bytes at the
    memory bandwidth, and the other roofs and (unless not `derived`: no verdict reads them)
    the derived values the entry gives."""
    if basis is DATASHEET and not formulas.device_dependent:
        # The common case, kept cheap: `kb check` asks it of every device for every entry.
        rate, bandwidth = dense_peak(device, entry.intensity.dtype), device.memory_bandwidth
        times = {COMPUTE: done.flops / rate, MEMORY: done.bytes / bandwidth}
        return Result(device.id, done.values, done.flops, done.bytes, rate, bandwidth, times)
    figures, said = _figures(entry, formulas, device, basis)
    rate, bandwidth = figures["peak_flops"], figures["memory_bandwidth"]
    times = {COMPUTE: done.flops / rate, MEMORY: done.bytes / bandwidth}
    # The symbols and figures together, made only where a formula reads a figure.
    env: dict[str, float] | None = None
    quantities: dict[str, float] = {}
    figure_names = device_figures()
    for name, (parsed, written) in _other_formulas(entry, formulas, done.workaround).items():
        if parsed.symbols.isdisjoint(figure_names):
            value = done.shared.get(name)
            if value is None:
                value = done.shared[name] = _value(written, parsed, done.values)
        else:
            if env is None:
                env = {**done.values, **figures}
            value = _value(written, parsed, env)
        if value < 0:
            raise EvaluationError(
                f"{name} must be >= 0; got {value:.3g} at {describe(done.values, formulas)}",
                written,
            )
        quantities[name] = value
    for roof in ROOFS:
        if roof.quantity in quantities:
            demand = quantities[roof.quantity]
            times[roof.name] = demand / figures[roof.figure] if roof.figure else demand
    values: dict[str, float] = {}
    if derived and formulas.derived:
        env = {**done.values, **figures}
        for (name, parsed), item in zip(formulas.derived, entry.derived, strict=True):
            values[name] = env[name] = _value(item.formula, parsed, env)
    capacity = figures.get("memory_capacity") if "footprint" in quantities else None
    return Result(
        device.id,
        done.values,
        done.flops,
        done.bytes,
        rate,
        bandwidth,
        times,
        quantities,
        values,
        capacity,
        said,
    )


def verdicts(entry: Entry, formulas: Formulas, devices: Sequence[Device], done: Work) -> list[str]:
    """`done`'s verdict on each of `devices` on datasheet figures, as
    `on_device(...).verdict` gives it, without building a Result where only FLOPs and bytes
    are modelled: `kb check` asks it of every device of the catalog for every entry."""
    if formulas.device_dependent:
        return [
            on_device(entry, formulas, device, done, derived=False).verdict for device in devices
        ]
    dtype, flops, bytes_ = entry.intensity.dtype, done.flops, done.bytes
    found = []
    for device in devices:
        rate = dense_peak(device, dtype)
        # The first roof wins a tie, as in Result.verdict.
        found.append(COMPUTE if flops / rate >= bytes_ / device.memory_bandwidth else MEMORY)
    return found


def dense_peak(device: Device, dtype: str) -> float:
    """The device's dense peak for `dtype` (FLOP/s); an EvaluationError when the catalog gives
    none."""
    dense = device.peak_flops.get(dtype)
    if dense is None:
        raise EvaluationError(no_dense_peak(device, dtype))
    return dense.value


def no_dense_peak(device: Device, dtype: str) -> str:
    return f"{device.id} has no dense {dtype} peak in the catalog"


def _other_formulas(
    entry: Entry, formulas: Formulas, workaround: int | None
) -> dict[str, tuple[formula.Formula, WrittenFormula]]:
    """The other roofs' formulas (parsed, as written), a workaround's replacing the entry's
    (found once for each workaround: read-only to callers)."""
    key = ("others", workaround)
    known: dict[str, tuple[formula.Formula, WrittenFormula]] | None = formulas.memo.get(key)
    if known is None:
        known = formulas.memo[key] = _choose_other_formulas(entry, formulas, workaround)
    return known


def _choose_other_formulas(
    entry: Entry, formulas: Formulas, workaround: int | None
) -> dict[str, tuple[formula.Formula, WrittenFormula]]:
    chosen: dict[str, tuple[formula.Formula, WrittenFormula]] = {}
    for name, parsed in formulas.others.items():
        written = entry.intensity.others[name]
        chosen[name] = (parsed, written)
    model = None if workaround is None else entry.workarounds[workaround].model
    if workaround is not None and model is not None:
        for name, parsed in formulas.workaround_others[workaround].items():
            chosen[name] = (parsed, model.others[name])
    return chosen


def evaluate(
    entry: Entry,
    formulas: Formulas,
    device: Device,
    overrides: Mapping[str, float] | None = None,
    workaround: int | None = None,
    basis: Basis = DATASHEET,
    derived: bool = True,
) -> Result:
    """The entry (or one of its workarounds, by index) on `device`, its derived values
    included unless not `derived`."""
    done = work(entry, formulas, overrides, workaround)
    return on_device(entry, formulas, device, done, basis, derived)
