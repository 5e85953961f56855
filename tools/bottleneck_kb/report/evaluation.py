"""`kb eval` results -> a table for people, or plain data in base units (JSON, the site)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from ..core.diagnostics import inert_json, one_line
from ..core.numbers import (
    amount,
    amount_range,
    exact_number,
    format_quantity,
    format_seconds,
    number,
    times,
)
from ..evaluation.crossovers import Crossover
from ..evaluation.entry import CheckOutcome, Evaluated, Expected, Skipped, WorkaroundEffect
from ..evaluation.measured import MeasuredOutcome
from ..evaluation.result import Result, verdict_summary
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


def _unread(unread: dict[str, float]) -> list[str]:
    """The header's line on symbols set that change nothing, if any."""
    if not unread:
        return []
    said = ", ".join(f"{k}={exact_number(v)}" for k, v in sorted(unread.items()))
    # A workaround's formula may read one, but at the value the workaround sets.
    them = "it at that value" if len(unread) == 1 else "them at those values"
    return [f"  {said}: set, but no formula reads {them}"]


#: What every device's row would repeat when it does not depend on the device.
_WORK = (("FLOPs", "FLOP", "flops"), ("bytes", "B", "bytes"), ("intensity", "FLOP/B", "intensity"))


@reporter(EVALUATION, "table")
def evaluation_table(evaluation: EntryEvaluation) -> str:
    """The answer first (the verdicts counted, the work every device does), then the table:
    of the devices `shown` (kb eval's featured devices) with the rest summed up in a line,
    or of every device. What does not change from device to device is said once."""
    entry = evaluation.entry
    rendered = evaluation.intensity
    results = evaluation.results
    listed = _listed(results, evaluation.shown)
    left = [r for r in results if r not in listed]
    out = [f"{entry.id}: {entry.title}"]
    units = {s.symbol: s.unit for s in entry.scales_with}
    at = ", ".join(f"{k} = {amount(v, units.get(k))}" for k, v in evaluation.assigned.items())
    summary = f"{verdict_summary(results)} " if results else ""
    out.append(f"  {summary}at {at} (dtype {entry.intensity.dtype})")
    out.append(f"  intensity = {rendered.text if rendered else '?'} FLOP/B")
    out += _unread(evaluation.unread)
    same = [w for w in _WORK if results and len({getattr(r, w[2]) for r in results}) == 1]
    if same:
        out.append(
            ("  on every device: " if len(results) > 1 else "  work: ")
            + ", ".join(
                f"{label} {format_quantity(getattr(results[0], key), unit)}"
                if label == "intensity"
                else format_quantity(getattr(results[0], key), unit)
                for label, unit, key in same
            )
        )
    out.append("")
    varying = [w for w in _WORK if w not in same]
    extra = list(dict.fromkeys(n for r in results for n in r.times))[2:]
    fits = any(r.capacity is not None for r in results)
    if not results:
        out.append("No device evaluated at these values; each is skipped, with the reason:")
    else:
        out += aligned_columns(
            [
                "device",
                *(label for label, _, _ in varying),
                *("ridge", "bound", "compute", "memory"),
                *extra,
                *(["fits"] if fits else []),
                "lower bound",
            ],
            [
                [
                    r.device,
                    *(format_quantity(getattr(r, key), unit) for _, unit, key in varying),
                    format_quantity(r.ridge, "FLOP/B"),
                    r.verdict,
                    format_seconds(r.compute_time),
                    format_seconds(r.memory_time),
                    *(format_seconds(r.times[n]) if n in r.times else "-" for n in extra),
                    *(["yes" if r.fits else "no"] if fits else []),
                    format_seconds(r.time),
                ]
                for r in listed
            ],
        )
    if left:
        fastest = min(left, key=lambda r: r.time)
        slowest = max(left, key=lambda r: r.time)
        out.append(
            f"  and {len(left)} more device{'s' if len(left) > 1 else ''}: lower bound "
            f"{format_seconds(fastest.time)} ({fastest.device}) to "
            f"{format_seconds(slowest.time)} ({slowest.device}); "
            f"kb eval {entry.id} --all lists each"
        )
    out += _derived(evaluation, listed, bool(left))
    verdicts = evaluation.verdicts
    if len(verdicts) > 1:
        out += ["", "The verdict differs between devices:"]
        out += [f"  {verdict}: {', '.join(devices)}" for verdict, devices in verdicts.items()]
    other = [
        f"{r.device}: " + ", ".join(f"{name} {said}" for name, said in r.basis.items())
        for r in listed
        if set(r.basis.values()) != {"datasheet"}
    ]
    if other:
        out += ["", "Device figures other than the datasheet's:", *(f"  {o}" for o in other)]
    for skipped in evaluation.skipped:
        out.append(f"{skipped.device}: skipped, {skipped.reason}")
    out += _crossovers(evaluation, [r.device for r in listed], bool(left))
    out += _workarounds(evaluation, [r.device for r in listed], bool(left))
    shown = {r.device for r in listed}
    expected = {d: e for d, e in evaluation.expected.items() if d in shown}
    if expected:
        out += ["", "Expected, on the achieved fraction kernels of this class reach:"]
        for device, e in expected.items():
            out.append(
                f"  {device}: about {format_seconds(e.seconds)} ({number(e.fraction)} of "
                f"{e.figure}, from {e.rests_on})"
            )
    out += measured_lines(evaluation.measured)
    out += _checks(evaluation.checks, bool(left))
    return "".join(f"{one_line(line)}\n" for line in out)


def _listed(results: list[Result], shown: tuple[str, ...] | None) -> list[Result]:
    """The results listed row by row: the `shown` devices' in their order (every result when
    none of them was evaluated, or `shown` is None)."""
    if shown is None:
        return results
    by_device = {r.device: r for r in results}
    listed = [by_device[d] for d in shown if d in by_device]
    return listed or results


def _derived(evaluation: EntryEvaluation, listed: list[Result], folded: bool) -> list[str]:
    derived = evaluation.entry.derived
    if not derived or not evaluation.results:
        return []
    out = ["", "Derived values:"]
    for item in derived:
        values = {amount(r.derived[item.name], item.unit) for r in evaluation.results}
        shown = (
            values.pop()
            if len(values) == 1
            else "; ".join(f"{r.device} {amount(r.derived[item.name], item.unit)}" for r in listed)
            + ("; ..." if folded else "")
        )
        out.append(f"  {item.name} = {shown}")
    return out


def _crossovers(evaluation: EntryEvaluation, devices: list[str], folded: bool) -> list[str]:
    """Per device, the symbols that flip the verdict in their range and where; the symbols
    that flip it nowhere, in one line."""
    found = {d: evaluation.crossovers.get(d, []) for d in devices if evaluation.crossovers.get(d)}
    if not found:
        return []
    units = {s.symbol: s.unit for s in evaluation.entry.scales_with}
    out = [
        "",
        "Crossovers (where the verdict flips as one symbol sweeps its range, the others "
        "held at the values above):",
    ]
    steady: list[str] = []
    for device, crossovers in found.items():
        flips: dict[str, list[Crossover]] = {}
        for c in crossovers:
            if c.at is not None:
                flips.setdefault(c.symbol, []).append(c)
        if not flips:
            steady.append(device)
            continue
        said = "; ".join(
            f"{symbol} ({amount_range(*cs[0].range, units.get(symbol))}): "
            + ", ".join(
                f"{c.below} to {c.above} at {amount(c.at, units.get(symbol))}"
                for c in cs
                if c.at is not None
            )
            for symbol, cs in flips.items()
        )
        out.append(f"  {device}  {said}")
    flipping = {c.symbol for cs in found.values() for c in cs if c.at is not None}
    swept = dict.fromkeys(c.symbol for cs in found.values() for c in cs)
    never = [s for s in swept if s not in flipping]
    if never:
        out.append(f"  {', '.join(never)}: no flip in range on these devices")
    if steady:
        out.append(f"  no symbol flips the verdict in range on {', '.join(steady)}")
    if folded:
        out.append("  (--all gives every device's)")
    return out


def _workarounds(evaluation: EntryEvaluation, devices: list[str], folded: bool) -> list[str]:
    if not evaluation.workarounds:
        return []
    out = ["", "Workarounds (modeled on the roofline, beside what the source reports):"]
    for w in evaluation.workarounds:
        out.append(f"  {w.title}")
        effects = {device: _effect(w, device) for device in w.modeled}
        if len(effects) > 1 and len({e[0] for e in effects.values()}) == 1:
            # One speedup on every device: said once, with the listed devices' times.
            effect = next(iter(effects.values()))[0]
            out.append(f"    {effect} on every device")
            if effect != "1.00x faster, bytes cut 1.00x":  # no change: no time to give
                shown = [d for d in devices if d in effects] if folded else list(effects)
                out += [f"    {device}: {effects[device][1]}" for device in shown]
        else:
            shown = [d for d in devices if d in effects] if folded else list(effects)
            out += [
                f"    {device}: {effects[device][1]} (the entry itself is skipped there)"
                if device not in w.speedup
                else f"    {device}: {effects[device][0]} ({effects[device][1]})"
                for device in shown
            ]
            if folded and len(shown) < len(effects):
                gains = [g for d, g in w.speedup.items() if w.modeled[d].fits]
                if gains:
                    out.append(
                        f"    {len(effects) - len(shown)} more devices; "
                        f"{times(min(gains))} to {times(max(gains))} across all"
                    )
        for device, why in w.beyond.items():
            out.append(f"    {device}: not modeled, {why}")
        if not w.modeled and not w.beyond:
            out.append("    on no device evaluated")
        if w.reported:
            out.append(f"    reported: {w.reported}")
    return out


def _effect(w: WorkaroundEffect, device: str) -> tuple[str, str]:
    """A workaround's effect on one device (`8.00x faster, bytes cut 8.00x`; "" where the
    entry itself is skipped), and its modeled result (`131 MB, 39.2 µs, memory-bound`)."""
    modeled = w.modeled[device]
    result = (
        f"{format_quantity(modeled.bytes, 'B')}, {format_seconds(modeled.time)}, "
        f"{modeled.verdict}-bound"
    )
    if device not in w.speedup:  # the entry itself cannot run there: no ratio
        return "", result
    gain = w.speedup[device]
    effect = f"{times(gain)} faster" if gain >= 1 else f"{times(1 / gain)} slower"
    if not modeled.fits:  # a time it cannot run at is no speedup
        effect = "does not fit"
    return f"{effect}, bytes cut {times(w.bytes_cut[device])}", result


def _checks(checks: list[CheckOutcome], folded: bool) -> list[str]:
    """Each check's outcome; folded, the ones that hold are counted and only a failure is
    said whole."""
    if not checks:
        return []
    out = ["", "Checks:"]
    failed = [c for c in checks if not c.passed]
    if folded:
        held = len({c.check for c in checks}) - len({c.check for c in failed})
        out.append(
            f"  {held} of {len({c.check for c in checks})} hold on every device they name"
            + ("" if failed else "; --all gives each")
        )
    for outcome in checks if not folded else failed:
        out.append(f"  {'ok  ' if outcome.passed else 'FAIL'} {outcome.detail}")
        out.append(f"       {outcome.claim}")
    return out


@reporter(EVALUATION, "json")
def evaluation_json(evaluation: EntryEvaluation) -> str:
    return inert_json(json.dumps(evaluation_data(evaluation), indent=2, ensure_ascii=True)) + "\n"
