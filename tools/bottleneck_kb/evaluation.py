"""`kb eval` as a library: an entry on devices, its crossovers, workarounds and checks, as
plain data (for JSON and the site) and as a table for people."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .evaluate import (
    Crossover,
    EvaluationError,
    Formulas,
    Result,
    check_failures,
    crossover,
    describe,
    evaluate,
    explain,
    number,
    speedup,
)
from .model import Check, Device, Entry, dtype_traits
from .quantity import format_ratio, format_seconds, format_si


@dataclass(frozen=True)
class WorkaroundEffect:
    title: str
    reported: str | None
    modeled: dict[str, Result]
    speedup: dict[str, float]
    bytes_cut: dict[str, float]


@dataclass(frozen=True)
class CheckOutcome:
    claim: str
    device: str
    passed: bool
    detail: str


@dataclass(frozen=True)
class EntryEvaluation:
    entry: Entry
    assignment: str
    intensity: str
    intensity_latex: str
    intensity_mathml: str
    results: list[Result]
    crossovers: dict[str, list[Crossover]]
    workarounds: list[WorkaroundEffect] = field(default_factory=list)
    checks: list[CheckOutcome] = field(default_factory=list)


def evaluate_entry(
    entry: Entry,
    formulas: Formulas,
    devices: Sequence[Device],
    overrides: Mapping[str, float] | None = None,
) -> EntryEvaluation:
    """Everything `kb eval` shows; raises EvaluationError when the entry cannot be evaluated."""
    from .symbolic import intensity, to_latex, to_mathml

    results = [evaluate(entry, formulas, device, overrides) for device in devices]
    symbolic = intensity(formulas.flops, formulas.bytes)
    crossovers = {
        device.id: [
            found
            for symbol in entry.scales_with
            if symbol.symbol in formulas.flops.symbols | formulas.bytes.symbols
            and symbol.symbol not in (overrides or {})
            and (found := crossover(entry, formulas, device, symbol.symbol, overrides)) is not None
        ]
        for device in devices
    }
    effects = []
    for index, workaround in enumerate(entry.workarounds):
        if workaround.model is None:
            continue
        modeled = {d.id: evaluate(entry, formulas, d, overrides, workaround=index) for d in devices}
        effects.append(
            WorkaroundEffect(
                workaround.title,
                workaround.reported,
                modeled,
                {r.device: speedup(r, modeled[r.device]) for r in results},
                {r.device: r.bytes / modeled[r.device].bytes for r in results},
            )
        )
    outcomes = [
        _check(entry, formulas, device, check)
        for check in entry.checks
        for device in devices
        if device.id in check.devices
    ]
    return EntryEvaluation(
        entry=entry,
        assignment=describe(results[0].values, formulas) if results else "",
        intensity=str(symbolic),
        intensity_latex=to_latex(symbolic),
        intensity_mathml=to_mathml(symbolic),
        results=results,
        crossovers=crossovers,
        workarounds=effects,
        checks=outcomes,
    )


def _check(entry: Entry, formulas: Formulas, device: Device, check: Check) -> CheckOutcome:
    try:
        result = evaluate(entry, formulas, device, check.overrides)
    except EvaluationError as exc:
        return CheckOutcome(check.claim, device.id, False, exc.message)
    failures = check_failures(check, result, formulas)
    detail = "; ".join(failures) or (
        f"{explain(result, describe(result.values, formulas))}, "
        f"time >= {format_seconds(result.time)}"
    )
    return CheckOutcome(check.claim, device.id, not failures, detail)


def result_dict(result: Result) -> dict[str, Any]:
    return {
        "device": result.device,
        "flops": result.flops,
        "bytes": result.bytes,
        "intensity": result.intensity,
        "peak_flops": result.peak,
        "memory_bandwidth": result.bandwidth,
        "ridge": result.ridge,
        "verdict": result.verdict,
        "compute_time": result.compute_time,
        "memory_time": result.memory_time,
        "time": result.time,
    }


def to_dict(evaluation: EntryEvaluation) -> dict[str, Any]:
    """Plain data in base units (FLOP, B, FLOP/B, FLOP/s, B/s, s)."""
    return {
        "id": evaluation.entry.id,
        "dtype": evaluation.entry.intensity.dtype,
        "values": dict(evaluation.results[0].values) if evaluation.results else {},
        "intensity_formula": evaluation.intensity,
        "intensity_latex": evaluation.intensity_latex,
        "intensity_mathml": evaluation.intensity_mathml,
        "results": [result_dict(r) for r in evaluation.results],
        "crossovers": {
            device: [
                {
                    "symbol": c.symbol,
                    "at": c.at,
                    "below": c.below,
                    "above": c.above,
                    "range": list(c.range),
                }
                for c in found
            ]
            for device, found in evaluation.crossovers.items()
        },
        "workarounds": [
            {
                "title": w.title,
                "reported": w.reported,
                "modeled": {d: result_dict(r) for d, r in w.modeled.items()},
                "speedup": w.speedup,
                "bytes_cut": w.bytes_cut,
            }
            for w in evaluation.workarounds
        ],
        "checks": [
            {"claim": c.claim, "device": c.device, "passed": c.passed, "detail": c.detail}
            for c in evaluation.checks
        ],
    }


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return [line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def to_text(evaluation: EntryEvaluation) -> str:
    entry = evaluation.entry
    out = [
        f"{entry.id}: {entry.title}",
        f"  intensity = {evaluation.intensity} FLOP/B   (dtype {entry.intensity.dtype}; "
        f"at {evaluation.assignment})",
        "",
    ]
    out += _table(
        [
            "device",
            "FLOPs",
            "bytes",
            "intensity",
            "ridge",
            "bound",
            "compute",
            "memory",
            "lower bound",
        ],
        [
            [
                r.device,
                format_si(r.flops, "FLOP"),
                format_si(r.bytes, "B"),
                f"{format_ratio(r.intensity)} FLOP/B",
                f"{format_ratio(r.ridge)} FLOP/B",
                r.verdict,
                format_seconds(r.compute_time),
                format_seconds(r.memory_time),
                format_seconds(r.time),
            ]
            for r in evaluation.results
        ],
    )
    out += ["", "Crossovers (where the verdict flips as one symbol sweeps its range):"]
    for device, found in evaluation.crossovers.items():
        for c in found:
            lo, hi = c.range
            where = (
                f"{c.below} below, {c.above} from {c.symbol} = {number(c.at)}"
                if c.at is not None
                else f"none in range ({c.below} throughout)"
            )
            out.append(f"  {device}  {c.symbol} in [{number(lo)}, {number(hi)}]: {where}")
    if evaluation.workarounds:
        out += ["", "Workarounds (modeled on the roofline, beside what the source reports):"]
        for w in evaluation.workarounds:
            out.append(f"  {w.title}")
            for device, gain in w.speedup.items():
                modeled = w.modeled[device]
                out.append(
                    f"    {device}: {gain:.2f}x faster (bytes cut {w.bytes_cut[device]:.2f}x; "
                    f"{format_si(modeled.bytes, 'B')}, {format_seconds(modeled.time)}, "
                    f"{modeled.verdict}-bound)"
                )
            if w.reported:
                out.append(f"    reported: {w.reported}")
    if evaluation.checks:
        out += ["", "Checks:"]
        for c in evaluation.checks:
            out.append(f"  {'ok  ' if c.passed else 'FAIL'} {c.detail}")
            out.append(f"       {c.claim}")
    return "\n".join(out) + "\n"


def hardware_rows(devices: Sequence[Device]) -> list[dict[str, Any]]:
    """Each device with its bandwidth and, per dtype, dense peak and ridge point."""
    return [
        {
            "id": d.id,
            "name": d.name,
            "memory_bandwidth": d.memory_bandwidth,
            "memory_capacity": d.quantities["memory_capacity"].value,
            "peaks": {k: v.value for k, v in d.peak_flops.items()},
            "ridge": {k: v.value / d.memory_bandwidth for k, v in d.peak_flops.items()},
        }
        for d in devices
    ]


def hardware_text(devices: Sequence[Device]) -> str:
    dtypes = sorted({k for d in devices for k in d.peak_flops}, key=list(dtype_traits()).index)
    rows = [
        [
            d.id,
            format_si(d.memory_bandwidth, "B/s"),
            format_si(d.quantities["memory_capacity"].value, "B"),
        ]
        + [
            f"{format_ratio(d.peak_flops[t].value / d.memory_bandwidth)}"
            if t in d.peak_flops
            else "-"
            for t in dtypes
        ]
        for d in devices
    ]
    lines = _table(["device", "bandwidth", "memory", *(f"ridge {t}" for t in dtypes)], rows)
    return (
        "\n".join([*lines, "", "Ridge points in FLOP/B: dense peak FLOP/s / memory bandwidth."])
        + "\n"
    )
