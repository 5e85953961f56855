"""`kb eval` results -> a table for people, or plain data in base units (JSON, the site)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from ..core.diagnostics import inert_json, one_line
from ..core.numbers import exact_number, format_quantity, format_seconds, number, times
from ..evaluation.crossovers import Crossover
from ..evaluation.entry import CheckOutcome, Evaluated, Expected, Skipped, WorkaroundEffect
from ..evaluation.measured import MeasuredOutcome
from ..evaluation.result import Result
from . import EVALUATION, aligned_columns, reporter
from .measured import measured_lines

if TYPE_CHECKING:
    from ..evaluation.entry import EntryEvaluation


def result_data(result: Result) -> dict[str, Any]:
    return {
        "device": result.device,
        "flops": result.flops,
        "bytes": result.bytes,
        "intensity": result.intensity,
        "peak_flops": result.peak,
        "memory_bandwidth": result.bandwidth,
        "ridge": result.ridge,
        "basis": dict(result.basis),
        "verdict": result.verdict,
        "times": result.times,
        "quantities": dict(result.quantities),
        "derived": dict(result.derived),
        "memory_capacity": result.capacity,
        "fits": result.fits,
        "compute_time": result.compute_time,
        "memory_time": result.memory_time,
        "time": result.time,
    }


def evaluation_data(evaluation: Evaluated) -> dict[str, Any]:
    """Plain data in base units (FLOP, B, FLOP/B, FLOP/s, B/s, s)."""
    rendered = evaluation.intensity
    return {
        "id": evaluation.entry_id,
        "dtype": evaluation.dtype,
        "values": evaluation.values,
        "intensity_formula": rendered.text if rendered else None,
        "intensity_latex": rendered.latex if rendered else None,
        "intensity_mathml": rendered.mathml if rendered else None,
        "results": [result_data(r) for r in evaluation.results],
        "verdicts": evaluation.verdicts,
        "skipped": [{"device": s.device, "reason": s.reason} for s in evaluation.skipped],
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
                # The values its modeled results were evaluated at: the workaround's settings.
                "values": _settings(w, evaluation.values),
                "modeled": {d: result_data(r) for d, r in w.modeled.items()},
                "speedup": w.speedup,
                "bytes_cut": w.bytes_cut,
                "beyond": w.beyond,
            }
            for w in evaluation.workarounds
        ],
        "checks": [
            {
                "check": c.check,
                "claim": c.claim,
                "device": c.device,
                "passed": c.passed,
                "detail": c.detail,
            }
            for c in evaluation.checks
        ],
        "measurements": [m.as_json() for m in evaluation.measured],
        "expected": {device: asdict(e) for device, e in evaluation.expected.items()},
    }


def _settings(workaround: WorkaroundEffect, values: dict[str, float]) -> dict[str, float]:
    # Every modeled result of a workaround is at the same values (its sets over the entry's).
    return dict(next(iter(workaround.modeled.values())).values) if workaround.modeled else values


def result_from_data(data: dict[str, Any], values: dict[str, float]) -> Result:
    """The Result `result_data` wrote (the symbols' values are the evaluation's)."""
    return Result(
        data["device"],
        values,
        data["flops"],
        data["bytes"],
        data["peak_flops"],
        data["memory_bandwidth"],
        dict(data["times"]),
        dict(data["quantities"]),
        dict(data["derived"]),
        data["memory_capacity"],
        dict(data["basis"]),
    )


def evaluated_from_data(data: dict[str, Any]) -> Evaluated:
    """The evaluation `evaluation_data` wrote: what the site's cache reads back (a KeyError
    or a TypeError for data of another shape)."""
    from ..maths.symbolic import Rendered  # sympy: only where a view is read back

    values = dict(data["values"])
    rendered = None
    if data["intensity_formula"] is not None:
        rendered = Rendered(
            data["intensity_formula"], data["intensity_latex"], data["intensity_mathml"]
        )
    return Evaluated(
        entry_id=data["id"],
        dtype=data["dtype"],
        values=values,
        results=[result_from_data(r, values) for r in data["results"]],
        skipped=[Skipped(s["device"], s["reason"]) for s in data["skipped"]],
        crossovers={
            device: [
                Crossover(c["symbol"], c["at"], c["below"], c["above"], tuple(c["range"]))
                for c in found
            ]
            for device, found in data["crossovers"].items()
        },
        intensity=rendered,
        workarounds=[
            WorkaroundEffect(
                w["title"],
                w["reported"],
                {d: result_from_data(r, dict(w["values"])) for d, r in w["modeled"].items()},
                dict(w["speedup"]),
                dict(w["bytes_cut"]),
                dict(w["beyond"]),
            )
            for w in data["workarounds"]
        ],
        checks=[
            CheckOutcome(c["check"], c["claim"], c["device"], c["passed"], c["detail"])
            for c in data["checks"]
        ],
        measured=[MeasuredOutcome.from_json(m) for m in data["measurements"]],
        expected={device: Expected(**e) for device, e in data["expected"].items()},
    )


_COLUMNS = [
    *("device", "FLOPs", "bytes", "intensity", "ridge", "bound"),
    *("compute", "memory", "lower bound"),
]


def _unread(unread: dict[str, float]) -> list[str]:
    """The header's line on symbols set that change nothing, if any."""
    if not unread:
        return []
    said = ", ".join(f"{k}={exact_number(v)}" for k, v in sorted(unread.items()))
    # A workaround's formula may read one, but at the value the workaround sets.
    them = "it at that value" if len(unread) == 1 else "them at those values"
    return [f"  {said}: set, but no formula reads {them}"]


@reporter(EVALUATION, "table")
def evaluation_table(evaluation: EntryEvaluation) -> str:
    entry = evaluation.entry
    rendered = evaluation.intensity
    out = [
        f"{entry.id}: {entry.title}",
        f"  intensity = {rendered.text if rendered else '?'} FLOP/B   "
        f"(dtype {entry.intensity.dtype}; at {evaluation.assignment})",
        *_unread(evaluation.unread),
        "",
    ]
    extra = list(dict.fromkeys(n for r in evaluation.results for n in r.times))[2:]
    fits = any(r.capacity is not None for r in evaluation.results)
    if not evaluation.results:
        out.append("No device evaluated at these values; each is skipped, with the reason:")
    out += (
        []
        if not evaluation.results
        else aligned_columns(
            [*_COLUMNS[:-1], *extra, *(["fits"] if fits else []), _COLUMNS[-1]],
            [
                [
                    r.device,
                    format_quantity(r.flops, "FLOP"),
                    format_quantity(r.bytes, "B"),
                    format_quantity(r.intensity, "FLOP/B"),
                    format_quantity(r.ridge, "FLOP/B"),
                    r.verdict,
                    format_seconds(r.compute_time),
                    format_seconds(r.memory_time),
                    *(format_seconds(r.times[n]) if n in r.times else "-" for n in extra),
                    *(["yes" if r.fits else "no"] if fits else []),
                    format_seconds(r.time),
                ]
                for r in evaluation.results
            ],
        )
    )
    derived = evaluation.entry.derived
    if derived and evaluation.results:
        out += ["", "Derived values:"]
        for item in derived:
            values = {format_quantity(r.derived[item.name], item.unit) for r in evaluation.results}
            shown = (
                values.pop()
                if len(values) == 1
                else "; ".join(
                    f"{r.device} {format_quantity(r.derived[item.name], item.unit)}"
                    for r in evaluation.results
                )
            )
            out.append(f"  {item.name} = {shown}")
    verdicts = evaluation.verdicts
    if len(verdicts) > 1:
        out += ["", "The verdict differs between devices:"]
        out += [f"  {verdict}: {', '.join(devices)}" for verdict, devices in verdicts.items()]
    other = [
        f"{r.device}: " + ", ".join(f"{name} {said}" for name, said in r.basis.items())
        for r in evaluation.results
        if set(r.basis.values()) != {"datasheet"}
    ]
    if other:
        out += ["", "Device figures other than the datasheet's:", *(f"  {o}" for o in other)]
    for skipped in evaluation.skipped:
        out.append(f"{skipped.device}: skipped, {skipped.reason}")
    if any(evaluation.crossovers.values()):
        out += [
            "",
            "Crossovers (where the verdict flips as one symbol sweeps its range, the others "
            "held at the values above):",
        ]
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
            for device, modeled in w.modeled.items():
                result = (
                    f"{format_quantity(modeled.bytes, 'B')}, {format_seconds(modeled.time)}, "
                    f"{modeled.verdict}-bound"
                )
                if device not in w.speedup:  # the entry itself cannot run there: no ratio
                    out.append(f"    {device}: {result} (the entry itself is skipped there)")
                    continue
                gain = w.speedup[device]
                effect = f"{times(gain)} faster" if gain >= 1 else f"{times(1 / gain)} slower"
                if not modeled.fits:  # a time it cannot run at is no speedup
                    effect = "does not fit"
                out.append(
                    f"    {device}: {effect} (bytes cut {times(w.bytes_cut[device])}; {result})"
                )
            for device, why in w.beyond.items():
                out.append(f"    {device}: not modeled, {why}")
            if not w.modeled and not w.beyond:
                out.append("    on no device evaluated")
            if w.reported:
                out.append(f"    reported: {w.reported}")
    if evaluation.expected:
        out += ["", "Expected, on the achieved fraction kernels of this class reach:"]
        for device, e in evaluation.expected.items():
            out.append(
                f"  {device}: about {format_seconds(e.seconds)} ({number(e.fraction)} of "
                f"{e.figure}, from {e.rests_on})"
            )
    out += measured_lines(evaluation.measured)
    if evaluation.checks:
        out += ["", "Checks:"]
        for outcome in evaluation.checks:
            out.append(f"  {'ok  ' if outcome.passed else 'FAIL'} {outcome.detail}")
            out.append(f"       {outcome.claim}")
    return "".join(f"{one_line(line)}\n" for line in out)


@reporter(EVALUATION, "json")
def evaluation_json(evaluation: EntryEvaluation) -> str:
    return inert_json(json.dumps(evaluation_data(evaluation), indent=2, ensure_ascii=True)) + "\n"
