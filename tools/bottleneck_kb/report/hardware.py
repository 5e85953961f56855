"""`kb hardware` results -> a table of devices with their ridge points, or plain data."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..core.diagnostics import inert_json, one_line
from ..core.numbers import format_quantity
from ..records.fields import dtype_traits
from . import HARDWARE, aligned_columns, reporter

if TYPE_CHECKING:
    from ..checking.results import HardwareListing


def hardware_data(listing: HardwareListing) -> list[dict[str, Any]]:
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
        for d in listing.devices
    ]


@reporter(HARDWARE, "table")
def hardware_table(listing: HardwareListing) -> str:
    present = {k for d in listing.devices for k in d.peak_flops}
    columns = [t for t in dtype_traits() if t in present]
    rows = [
        [
            d.id,
            format_quantity(d.memory_bandwidth, "B/s"),
            format_quantity(d.quantities["memory_capacity"].value, "B"),
        ]
        + [
            format_quantity(d.peak_flops[t].value / d.memory_bandwidth, "FLOP/B").removesuffix(
                " FLOP/B"
            )
            if t in d.peak_flops
            else "-"
            for t in columns
        ]
        for d in listing.devices
    ]
    header = ["device", "bandwidth", "memory", *(f"ridge {t}" for t in columns)]
    lines = aligned_columns(header, rows)
    footer = ["", "Ridge points in FLOP/B: dense peak FLOP/s / memory bandwidth."]
    return "".join(f"{one_line(line)}\n" for line in [*lines, *footer])


@reporter(HARDWARE, "json")
def hardware_json(listing: HardwareListing) -> str:
    return inert_json(json.dumps(hardware_data(listing), indent=2, ensure_ascii=True)) + "\n"
