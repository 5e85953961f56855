"""The unit patterns the schemas write accept exactly the units the quantity parser reads in
each dimension, so an editor and `kb check` refuse the same figures; and every quantity of the
schemas carries the pattern of its dimension."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from bottleneck_kb import schemas
from bottleneck_kb.core.units import MICRO_SIGNS, TOKEN_RATE, Dimension, spellings, unit_pattern
from bottleneck_kb.records.quantity import QuantityError, parse_quantity

MEASURES = ("information", "computation", "time")
#: Every spelling of every unit, with the micro signs, and spellings no parser reads.
TOPS = [s for m in MEASURES for s in spellings(m)]
TOPS += [s.replace("u", sign) for s in TOPS if "u" in s for sign in MICRO_SIGNS]
TOPS += ["Bs", "hs", "kBs", "GX", "gb", "Tb", "b", "TBps", "Gbps", "TFLOPS", "flops", "FLOPSs"]
#: Every time a rate may be over, and what a rate may not be over.
BOTTOMS = [*spellings("time"), "B", "kbit", "FLOP", "Mflop", "µs", "hs", "ss"]


def accepted(text: str, dimension: Dimension) -> bool:
    try:
        parse_quantity(text, dimension)
    except QuantityError:
        return False
    return True


def candidates() -> Iterator[str]:
    """Every unit alone and over a second; every time under one unit of each measure."""
    for top in TOPS:
        yield top
        yield f"{top}/s"
    for top in ("GB", "Gbit", "TFLOP", "flops", "ms", "µs"):
        for bottom in BOTTOMS:
            yield f"{top}/{bottom}"


@pytest.mark.parametrize("dimension", list(Dimension), ids=lambda d: d.name)
def test_the_pattern_accepts_exactly_what_the_parser_reads(dimension: Dimension) -> None:
    pattern = re.compile(unit_pattern(dimension))
    differ = [
        unit
        for unit in candidates()
        if bool(pattern.search(f"3.35 {unit}")) != accepted(f"3.35 {unit}", dimension)
    ]
    assert differ == []
    read = [unit for unit in candidates() if pattern.search(f"3.35 {unit}")]
    assert len(read) > 100  # the candidates reach into the dimension, not only past it


@pytest.mark.parametrize(
    ("dimension", "written", "other"),
    [
        (Dimension.BYTES, ["80 GB", "64 MiB", "2 kilobytes"], ["80 GB/s", "1 TFLOP", "3 us"]),
        (Dimension.BANDWIDTH, ["3.35 TB/s", "400 Gbit/s", "1 GB/ms"], ["3.35 TFLOP/s", "80 GB"]),
        (Dimension.FLOP_RATE, ["989.4 TFLOP/s", "2e15 flop/s"], ["989.4 TFLOPS", "3 TB/s"]),
        (Dimension.TIME, ["3 us", "41.2 µs", "6.44 ms", "2 min"], ["3 B", "3 us/s"]),
    ],
)
def test_the_pattern_reads_what_people_write(
    dimension: Dimension, written: list[str], other: list[str]
) -> None:
    pattern = re.compile(unit_pattern(dimension))
    assert [bool(pattern.search(text)) for text in written + other] == [True] * len(written) + [
        False
    ] * len(other)


def test_the_token_rate_pattern_is_the_models_token_rate() -> None:
    pattern = re.compile(f"^{TOKEN_RATE}$")
    assert [bool(pattern.search(t)) for t in ("1250 tok/s", "1.2 ktok/s", "95 tokens/s")] == [
        True
    ] * 3
    assert not any(pattern.search(t) for t in ("1250 tok", "3 TB/s", "1 Gtok/s"))


def _strings(node: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        if node.get("type") == "string" and "x-dimension" in node:
            yield where, node
        for key, value in node.items():
            yield from _strings(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _strings(value, f"{where}/{i}")


@pytest.mark.parametrize("kind", [schemas.ENTRY, schemas.HARDWARE, schemas.MODEL])
def test_every_quantity_of_the_schemas_has_its_dimensions_pattern_and_sentence(kind: str) -> None:
    found = list(_strings(schemas.schema(kind)))
    assert found
    for where, node in found:
        name = node["x-dimension"]
        expected = (
            f"^{TOKEN_RATE}$" if name == "token_rate" else unit_pattern(Dimension[name.upper()])
        )
        assert node["pattern"] == expected, where
        assert node["patternErrorMessage"].endswith(")") or node["patternErrorMessage"].endswith(
            "."
        ), where


def test_a_figures_values_have_the_dimension_of_the_figure() -> None:
    """The dimension `records.fields` reads from a figure's mapping is its value's, and its
    measured value's."""
    figures = schemas.schema(schemas.HARDWARE)["$defs"]
    shapes = {n: f for n, f in figures.items() if f.get("x-dimension") not in (None, "count")}
    assert set(shapes) >= {"bytes_figure", "bandwidth_figure", "flop_rate_figure", "time_figure"}
    for name, shape in shapes.items():
        properties = shape["properties"]
        measured = properties["measured"]["allOf"][1]["properties"]["value"]
        assert properties["value"]["x-dimension"] == shape["x-dimension"], name
        assert measured["x-dimension"] == shape["x-dimension"], name
