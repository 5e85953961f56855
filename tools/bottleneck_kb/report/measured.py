"""Published measurements under an evaluation or an estimate, as the terminal shows them."""

from __future__ import annotations

from ..core.numbers import format_seconds, number
from ..evaluation.measured import MeasuredOutcome
from . import aligned_columns


def measured_lines(measured: list[MeasuredOutcome]) -> list[str]:
    """The measurements under an evaluation (or an estimate): each at its own workload, beside
    its bound (a model's floor), with its achieved fraction of the bound (1 would be at the
    roofline)."""
    if not measured:
        return []
    out = ["", "Measured (published; each at its own workload, beside its bound there):"]
    rows = [
        [
            m.device,
            m.workload or "typical",
            m.result,
            format_seconds(m.measured_s),
            format_seconds(m.bound_s),
            number(round(m.fraction, 2)),
            m.verdict,
            m.software,
        ]
        for m in measured
    ]
    heads = [
        "device",
        "workload",
        "as published",
        "measured",
        "bound",
        "of bound",
        "verdict",
        "software",
    ]
    out += ["  " + line for line in aligned_columns(heads, rows)]
    return out
