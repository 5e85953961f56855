"""What the figures of a device are, read from the hardware schema (the only list of them):
their shapes and dimensions, plausible ranges, the data types of peak_flops, and the roof
formulas besides FLOPs and bytes."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from ..schemas import roofs
from .quantity import Dimension, parse_quantity

PEAK_FLOPS = "peak_flops"


@dataclass(frozen=True, slots=True)
class FieldShape:
    """What a device field measures, read from the hardware schema: the `x-dimension` of the
    `$defs` shape the field references (None for a count), and its plausible range if any."""

    dimension: Dimension | None
    plausible: tuple[float, float] | None


@dataclass(frozen=True, slots=True)
class DtypeTraits:
    """What the catalog rules need to know of a data type, from its annotations in the schema."""

    bits: int
    tensor: bool
    #: An integer type (int8): its rate is not compared with the floating types' (KB312,
    #: KB315), which a part may run faster or slower.
    integer: bool = False


@cache
def roof_formulas() -> frozenset[str]:
    """The formulas of the roof table besides FLOPs and bytes (`interconnect_bytes`, ...)."""
    return frozenset(row["formula"] for row in roofs()) - {"flops", "bytes"}


def _hardware_schema() -> dict[str, Any]:
    from ..schemas import HARDWARE, schema

    return schema(HARDWARE)


def _shape_of(node: dict[str, Any]) -> FieldShape | None:
    """The shape of a property that references a figure of `$defs`; None for anything else."""
    if "$ref" not in node:
        return None
    from ..schemas import at_pointer

    shape = at_pointer(_hardware_schema(), node["$ref"].removeprefix("#"))
    name = shape.get("x-dimension")
    if name is None:
        return None
    dimension = None if name == "count" else Dimension[name.upper()]
    plausible = None
    if "x-plausible" in shape and dimension is not None:
        low, high = (parse_quantity(text, dimension).value for text in shape["x-plausible"])
        plausible = (low, high)
    return FieldShape(dimension, plausible)


@cache
def field_shapes() -> dict[str, FieldShape]:
    """Every figure field of a device by parameter name (`memory_bandwidth`,
    `peak_flops.bf16`), with its shape: the hardware schema is the only list of them."""
    properties = _hardware_schema()["properties"]
    shapes: dict[str, FieldShape] = {}
    rows = [(name, node) for name, node in properties.items() if name != PEAK_FLOPS]
    rows += [
        (f"{PEAK_FLOPS}.{dtype}", row)
        for dtype, row in properties[PEAK_FLOPS]["properties"].items()
    ]
    for name, node in rows:
        shape = _shape_of(node)
        if shape is not None:
            shapes[name] = shape
    return shapes


@cache
def dtype_traits() -> dict[str, DtypeTraits]:
    """The data types of peak_flops in display order, with their annotations."""
    rows = _hardware_schema()["properties"][PEAK_FLOPS]["properties"]
    return {
        dtype: DtypeTraits(int(row["x-bits"]), bool(row["x-tensor"]), bool(row.get("x-integer")))
        for dtype, row in rows.items()
    }


@cache
def parameter_names() -> tuple[str, ...]:
    """Every name an entry's hardware parameter may take."""
    return tuple(field_shapes())


def parameter_dimension(name: str) -> Dimension | None:
    """What a hardware parameter measures; None for a count or an unknown name."""
    shape = field_shapes().get(name)
    return None if shape is None else shape.dimension
