"""`kb estimate` results -> a table for people, answer first, or plain data in base units
(JSON, which the export carries too)."""

from __future__ import annotations

import json

from ..composition.estimate import DeviceEstimate, ModelEstimate
from ..core.diagnostics import inert_json, one_line
from ..core.numbers import format_quantity, format_seconds, grouped, number
from . import ESTIMATE, aligned_columns, reporter
from .measured import measured_lines


def _deployment(found: ModelEstimate) -> str:
    d = found.deployment
    parts = [
        f"{name} {number(float(d[name]))}" for name in ("batch", "prompt", "context", "output")
    ]
    parts += [f"{name} {number(float(d[name]))}" for name in ("tp", "ep", "pp") if d[name] != 1]
    bits = f"{number(float(d['weight_bits']))}-bit weights, {number(float(d['kv_bits']))}-bit KV"
    basis = "measured figures" if found.basis.measured else "datasheet figures"
    if found.basis.derated:
        basis += ", derated"
    return f"{', '.join(parts)} ({bits}, {d['dtype']} compute; {basis})"


@reporter(ESTIMATE, "table")
def as_table(found: ModelEstimate) -> str:
    lines = [one_line(f"{found.model} at {_deployment(found)}")]
    results = sorted(found.results, key=lambda r: r.phase_seconds("decode"))
    if results:
        best = results[0]
        fitting = [r for r in results if r.fits]
        lines.append(
            f"Fastest decode: {best.device}, {format_seconds(best.phase_seconds('decode'))} a "
            f"token (floor {format_seconds(best.floor('decode'))}, {best.bound('decode')}-bound) "
            f"on {best.devices_used} device{'s' * (best.devices_used != 1)}; "
            f"{len(fitting)} of {len(results)} devices hold it"
        )
        m = best.memory
        lines.append(
            f"On every device: weights {format_quantity(m.weights_bytes, 'B')} "
            f"({format_quantity(m.weights_bytes_per_device, 'B')} a device), KV cache "
            f"{format_quantity(m.kv_bytes_per_token, 'B')} a token "
            f"({format_quantity(m.kv_bytes_per_token_per_device, 'B')} a device)"
        )
    lines.append("")
    header = [
        "device",
        "fits",
        "prefill",
        "floor",
        "decode/token",
        "floor",
        "bound",
        "tokens/s",
        "per device",
        "memory/device",
        "max batch",
    ]
    rows = []
    for r in results:
        decode = r.phase_seconds("decode")
        rows.append(
            [
                r.device,
                "yes" if r.fits else "no",
                format_seconds(r.phase_seconds("prefill")),
                format_seconds(r.floor("prefill")),
                format_seconds(decode),
                format_seconds(r.floor("decode")),
                r.bound("decode"),
                grouped(r.batch / decode),
                grouped(r.batch / decode / r.devices_used),
                format_quantity(r.footprint_bytes_per_device, "B"),
                f"{r.max_batch:,}",
            ]
        )
    if rows:
        lines += aligned_columns(header, rows)
    for s in found.skipped:
        lines.append(one_line(f"skipped {s.device}: {s.reason}"))
    if found.speculative is not None:
        spec = found.speculative
        lines.append("")
        lines.append(
            one_line(
                f"Speculative decoding with {spec['draft']}: {number(spec['draft_k'])} drafted "
                f"tokens a step at acceptance {number(spec['acceptance_rate'])} give "
                f"{number(spec['tokens_per_step'])} tokens a step"
            )
        )
        spec_rows = [
            [
                device,
                format_seconds(s["step_s"]),
                f"{s['speedup']:.2f}x",
                number(s["break_even_batch"]),
            ]
            for device, s in spec["devices"].items()
        ]
        lines += aligned_columns(["device", "step", "speedup", "break-even batch"], spec_rows)
    lines += measured_lines(list(found.measured))
    if len(results) == 1:
        lines += ["", *_breakdown(results[0])]
    elif results:
        lines += ["", "(kb estimate --on DEVICE shows the breakdown of a device's steps)"]
    return "\n".join(lines) + "\n"


def _breakdown(result: DeviceEstimate) -> list[str]:
    lines = []
    for phase in ("prefill", "decode"):
        total = result.phase_seconds(phase)
        floor = format_seconds(result.floor(phase))
        lines.append(f"{phase} on {result.device}: {format_seconds(total)}, floor {floor}")
        rows = [
            [
                t.label,
                t.card,
                number(t.count),
                format_seconds(t.seconds),
                t.bound,
                f"{t.seconds / total:.1%}",
            ]
            for t in result.terms
            if t.phase == phase
        ]
        lines += aligned_columns(["as", "card", "count", "seconds", "bound", "share"], rows)
        lines.append("")
    return lines[:-1]


@reporter(ESTIMATE, "json")
def as_json(found: ModelEstimate) -> str:
    return inert_json(json.dumps(found.as_json(), indent=2, allow_nan=False)) + "\n"
