"""Typed entries and devices, built from documents the schema has accepted.

Models are read-only by convention: nothing changes them after `build_entry`/`build_device`.
They are not frozen dataclasses because freezing makes construction twice as slow, and
`kb check` builds some thirty of them for every entry.

Each model keeps its Document and the pointer it was read from, so a rule that finds a problem
in a typed value can still say where the user wrote it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from .diagnostics import Diagnostic
from .quantity import Dimension, Measure, QuantityError, parse
from .schemas import default_dtype, roofs
from .source import Document, Pointer

BAD_QUANTITY = "KB301"

PEAK_FLOPS = "peak_flops"
#: What each `direction` of a link bandwidth is multiplied by to give one direction.
PER_DIRECTION = {"per_direction": 1.0, "both_directions": 0.5}


@dataclass(slots=True)
class Located:
    """Where a model part was read from."""

    source: Document
    pointer: Pointer

    def error(
        self,
        code: str,
        message: str,
        hint: str | None = None,
        *,
        at: Pointer = (),
        key: bool = False,
        offset: int | None = None,
    ) -> Diagnostic:
        """An error at this part (or at `at` below it); see Document.error_at."""
        return self.source.error_at(
            code, (*self.pointer, *at), message, hint, key=key, offset=offset
        )


@dataclass(slots=True)
class Reference:
    title: str
    first_author: str
    year: int
    arxiv: str | None
    url: str | None
    where: Located

    @property
    def link(self) -> str:
        return f"https://arxiv.org/abs/{self.arxiv}" if self.arxiv else str(self.url)

    @property
    def key(self) -> str:
        """What a claim names the reference by: its arXiv id, or its URL."""
        return self.arxiv or str(self.url)


@dataclass(slots=True)
class Claim:
    """A statement of the card beside what its cited source says (see the schema's claims)."""

    card: str
    source: str | None
    reference: str | None
    verdict: str
    check: int | None
    where: Located


@dataclass(slots=True)
class WrittenFormula:
    """A formula as written; parsing is the formula module's business."""

    text: str
    where: Located


@dataclass(slots=True)
class Symbol:
    name: str
    symbol: str
    description: str
    unit: str | None
    typical: float | None
    range: tuple[float, float] | None
    where: Located
    #: The device figure (a count) the symbol cannot exceed on a device, if any.
    at_most: str | None = None


@dataclass(slots=True)
class Intensity:
    summary: str
    flops: WrittenFormula
    bytes: WrittenFormula
    dtype: str
    #: The other roofs' formulas the entry gives, by name (`latency`, `footprint`: the roof
    #: table's formulas besides flops and bytes).
    others: dict[str, WrittenFormula] = field(default_factory=dict)


@dataclass(slots=True)
class Derived:
    """A named formula over symbols, device figures and earlier derived names."""

    name: str
    formula: WrittenFormula
    unit: str
    description: str
    where: Located


@dataclass(slots=True)
class Related:
    id: str
    relation: str
    where: Located


@dataclass(slots=True)
class HardwareParameter:
    parameter: str
    effect: str
    values_for: tuple[str, ...]
    magnitude: str | None
    basis: str
    where: Located


@dataclass(slots=True)
class WorkaroundModel:
    overrides: dict[str, float]
    flops: WrittenFormula | None
    bytes: WrittenFormula | None
    where: Located
    #: Replacements for the other roofs' formulas, by name, where the workaround changes them.
    others: dict[str, WrittenFormula] = field(default_factory=dict)


@dataclass(slots=True)
class Workaround:
    title: str
    description: str
    references: tuple[Reference, ...]
    model: WorkaroundModel | None
    reported: str | None


@dataclass(slots=True)
class Check:
    claim: str
    overrides: dict[str, float]
    devices: tuple[str, ...]
    bound_by: str | None
    #: Bounds on the built-in quantities (flops, bytes, intensity, time, the roofs).
    bounds: dict[str, tuple[float | None, float | None]]
    #: Bounds on derived values, by name.
    derived: dict[str, tuple[float | None, float | None]]
    where: Located


@dataclass(slots=True)
class Entry:
    id: str
    title: str
    cls: str
    bound_by: str
    intensity: Intensity
    scales_with: tuple[Symbol, ...]
    hardware_parameters: tuple[HardwareParameter, ...]
    workarounds: tuple[Workaround, ...]
    checks: tuple[Check, ...]
    references: tuple[Reference, ...]
    claims: tuple[Claim, ...]
    notes: str | None
    source: Document = field(repr=False)
    derived: tuple[Derived, ...] = ()
    related: tuple[Related, ...] = ()
    #: Former ids, which the site redirects to this entry.
    aliases: tuple[str, ...] = ()
    #: scales_with by symbol; derived, but asked for by nearly every rule.
    symbols: dict[str, Symbol] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.symbols = {s.symbol: s for s in self.scales_with}

    @property
    def path(self) -> str:
        return self.source.path

    def all_references(self) -> Iterator[Reference]:
        """The entry's references, then each workaround's."""
        yield from self.references
        for workaround in self.workarounds:
            yield from workaround.references


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


@dataclass(slots=True)
class Source:
    """A document a device's figures come from; `kind` is vendor or secondary, `read` the
    date it was read."""

    id: str
    title: str
    url: str
    publisher: str
    kind: str
    read: str
    where: Located


@dataclass(slots=True)
class Measured:
    """A measured value beside a datasheet figure, converted like the figure."""

    value: Measure
    how: str
    source: str
    where: Located


@dataclass(slots=True)
class Figure:
    """One figure of a device: its datasheet value in the model's units (a link bandwidth per
    direction; a count as a number), and what the file says about it."""

    value: Measure
    source: str
    basis: str
    note: str | None
    direction: str | None
    measured: Measured | None
    where: Located


@dataclass(slots=True)
class Fraction:
    """A typical achieved fraction of a datasheet peak, with its source."""

    value: float
    source: str
    note: str | None
    where: Located


@dataclass(slots=True)
class Device:
    id: str
    name: str
    vendor: str
    #: Every figure by parameter name: `memory_bandwidth`, `peak_flops.bf16`, ...
    figures: dict[str, Figure]
    achieved: dict[str, Fraction]
    notes: str | None
    sources: tuple[Source, ...]
    source: Document = field(repr=False)
    #: Datasheet values by field name, dense peaks by dtype, measured values by parameter
    #: name and achieved fractions by field: views of `figures` and `achieved`, asked for by
    #: every evaluation.
    quantities: dict[str, Measure] = field(init=False, repr=False, compare=False)
    peak_flops: dict[str, Measure] = field(init=False, repr=False, compare=False)
    measured: dict[str, Measure] = field(init=False, repr=False, compare=False)
    achieved_fraction: dict[str, float] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        prefix = PEAK_FLOPS + "."
        self.quantities = {
            name: f.value for name, f in self.figures.items() if not name.startswith(prefix)
        }
        self.peak_flops = {
            name.removeprefix(prefix): f.value
            for name, f in self.figures.items()
            if name.startswith(prefix)
        }
        self.measured = {
            name: f.measured.value for name, f in self.figures.items() if f.measured is not None
        }
        self.achieved_fraction = {name: a.value for name, a in self.achieved.items()}

    @property
    def path(self) -> str:
        return self.source.path

    @property
    def memory_bandwidth(self) -> float:
        return self.quantities["memory_bandwidth"].value

    def parameter(self, name: str) -> Measure | None:
        """The value of a hardware parameter named as entries name it, or None if absent."""
        if name.startswith(PEAK_FLOPS + "."):
            return self.peak_flops.get(name.removeprefix(PEAK_FLOPS + "."))
        return self.quantities.get(name)


@cache
def roof_formulas() -> frozenset[str]:
    """The formulas of the roof table besides FLOPs and bytes (`interconnect_bytes`, ...)."""
    return frozenset(row["formula"] for row in roofs()) - {"flops", "bytes"}


def _hardware_schema() -> dict[str, Any]:
    from .schemas import HARDWARE, schema

    return schema(HARDWARE)


def _shape_of(node: dict[str, Any]) -> FieldShape | None:
    """The shape of a property that references a figure of `$defs`; None for anything else."""
    if "$ref" not in node:
        return None
    shape = _hardware_schema()["$defs"][node["$ref"].removeprefix("#/$defs/")]
    name = shape.get("x-dimension")
    if name is None:
        return None
    dimension = None if name == "count" else Dimension[name.upper()]
    plausible = None
    if "x-plausible" in shape and dimension is not None:
        low, high = (parse(text, dimension).value for text in shape["x-plausible"])
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


def _references(items: list[dict[str, Any]] | None, where: Located) -> tuple[Reference, ...]:
    return tuple(
        Reference(
            title=r["title"],
            first_author=r["first_author"],
            year=int(r["year"]),
            arxiv=r.get("arxiv"),
            url=r.get("url"),
            where=Located(where.source, (*where.pointer, i)),
        )
        for i, r in enumerate(items or ())
    )


def _range(value: list[float] | None) -> tuple[float, float] | None:
    return (float(value[0]), float(value[1])) if value else None


def _bounds(items: dict[str, dict[str, float]]) -> dict[str, tuple[float | None, float | None]]:
    return {name: (bound.get("min"), bound.get("max")) for name, bound in items.items()}


#: Keys of a check's `expect` that are not bounds on a built-in quantity.
_NOT_BOUNDS = frozenset({"bound_by", "derived"})


def build_entry(source: Document) -> Entry:
    """An Entry from a document the entry schema has accepted."""
    data = source.data

    def at(*pointer: str | int) -> Located:
        return Located(source, pointer)

    def formula(text: str, *pointer: str | int) -> WrittenFormula:
        return WrittenFormula(text, at(*pointer))

    def optional(mapping: dict[str, Any], key: str, *pointer: str | int) -> WrittenFormula | None:
        return formula(mapping[key], *pointer, key) if key in mapping else None

    def others(mapping: dict[str, Any], *pointer: str | int) -> dict[str, WrittenFormula]:
        """The roof formulas besides FLOPs and bytes that `mapping` gives: the schema allows
        only the roof table's names there."""
        return {
            key: formula(value, *pointer, key)
            for key, value in mapping.items()
            if key in roof_formulas()
        }

    ai = data["arithmetic_intensity"]
    workarounds = []
    for i, item in enumerate(data.get("workarounds", [])):
        model = item.get("model")
        workarounds.append(
            Workaround(
                title=item["title"],
                description=item["description"],
                references=_references(item.get("references"), at("workarounds", i, "references")),
                model=None
                if model is None
                else WorkaroundModel(
                    overrides={k: float(v) for k, v in model.get("set", {}).items()},
                    flops=optional(model, "flops", "workarounds", i, "model"),
                    bytes=optional(model, "bytes", "workarounds", i, "model"),
                    where=at("workarounds", i, "model"),
                    others=others(model, "workarounds", i, "model"),
                ),
                reported=item.get("reported"),
            )
        )
    return Entry(
        id=data["id"],
        title=data["title"],
        cls=data["class"],
        bound_by=data["bound_by"],
        intensity=Intensity(
            summary=ai["summary"],
            flops=formula(ai["flops"], "arithmetic_intensity", "flops"),
            bytes=formula(ai["bytes"], "arithmetic_intensity", "bytes"),
            dtype=ai.get("dtype") or default_dtype(),
            others=others(ai, "arithmetic_intensity"),
        ),
        scales_with=tuple(
            Symbol(
                name=s["name"],
                symbol=s["symbol"],
                description=s["description"],
                unit=s.get("unit"),
                typical=float(s["typical"]) if "typical" in s else None,
                range=_range(s.get("range")),
                where=at("scales_with", i),
                at_most=s.get("at_most"),
            )
            for i, s in enumerate(data["scales_with"])
        ),
        hardware_parameters=tuple(
            HardwareParameter(
                parameter=h["parameter"],
                effect=h["effect"],
                values_for=tuple(h["values_for"]),
                magnitude=h.get("magnitude"),
                basis=h["basis"],
                where=at("hardware_parameters", i),
            )
            for i, h in enumerate(data.get("hardware_parameters", []))
        ),
        workarounds=tuple(workarounds),
        checks=tuple(
            Check(
                claim=c["claim"],
                overrides={k: float(v) for k, v in c.get("set", {}).items()},
                devices=tuple(c["devices"]),
                bound_by=c["expect"].get("bound_by"),
                bounds=_bounds({k: v for k, v in c["expect"].items() if k not in _NOT_BOUNDS}),
                derived=_bounds(c["expect"].get("derived", {})),
                where=at("checks", i),
            )
            for i, c in enumerate(data.get("checks", []))
        ),
        references=_references(data.get("references"), at("references")),
        claims=tuple(
            Claim(
                card=c["card"],
                source=c.get("source"),
                reference=c.get("reference"),
                verdict=c["verdict"],
                check=c.get("check"),
                where=at("claims", i),
            )
            for i, c in enumerate(data.get("claims", []))
        ),
        notes=data.get("notes"),
        source=source,
        derived=tuple(
            Derived(
                name=d["name"],
                formula=formula(d["formula"], "derived", i, "formula"),
                unit=d["unit"],
                description=d["description"],
                where=at("derived", i),
            )
            for i, d in enumerate(data.get("derived", []))
        ),
        related=tuple(
            Related(r["id"], r["relation"], at("related", i))
            for i, r in enumerate(data.get("related", []))
        ),
        aliases=tuple(data.get("aliases", ())),
    )


def build_device(source: Document) -> tuple[Device | None, list[Diagnostic]]:
    """A Device from a document the hardware schema has accepted; quantities are parsed here,
    so a figure in the wrong dimension is reported where it was written."""
    data = source.data
    problems: list[Diagnostic] = []

    def at(*pointer: str | int) -> Located:
        return Located(source, pointer)

    def measure(value: Any, shape: FieldShape, pointer: tuple[str, ...]) -> Measure | None:
        if shape.dimension is None:  # a count: the schema made it a whole number
            return Measure(float(value), 0.5)
        try:
            return parse(value, shape.dimension)
        except QuantityError as exc:
            problems.append(
                source.error_at(
                    BAD_QUANTITY, pointer, f"{'.'.join(pointer)}: {exc.message}", exc.hint
                )
            )
            return None

    figures: dict[str, Figure] = {}
    for name, shape in field_shapes().items():
        pointer = tuple(name.split(".", 1))
        item = data.get(pointer[0])
        if len(pointer) == 2 and item is not None:
            item = item.get(pointer[1])
        if item is None:
            continue
        factor = PER_DIRECTION[item["direction"]] if "direction" in item else 1.0
        value = measure(item["value"], shape, (*pointer, "value"))
        measured = None
        if "measured" in item:
            seen = item["measured"]
            measured_value = measure(seen["value"], shape, (*pointer, "measured", "value"))
            if measured_value is not None:
                measured = Measured(
                    _scaled(measured_value, factor),
                    seen["how"],
                    seen["source"],
                    at(*pointer, "measured"),
                )
        if value is None:
            continue
        figures[name] = Figure(
            value=_scaled(value, factor),
            source=item["source"],
            basis=item.get("basis", "datasheet"),
            note=item.get("note"),
            direction=item.get("direction"),
            measured=measured,
            where=at(*pointer),
        )
    if problems:
        return None, problems
    return Device(
        id=data["id"],
        name=data["name"],
        vendor=data["vendor"],
        figures=figures,
        achieved={
            name: Fraction(
                float(item["value"]),
                item["source"],
                item.get("note"),
                at("achieved_fraction", name),
            )
            for name, item in data.get("achieved_fraction", {}).items()
        },
        notes=data.get("notes"),
        sources=tuple(
            Source(
                s["id"],
                s["title"],
                s["url"],
                s["publisher"],
                s["kind"],
                s["read"],
                at("sources", i),
            )
            for i, s in enumerate(data["sources"])
        ),
        source=source,
    ), []


def _scaled(measure: Measure, factor: float) -> Measure:
    if factor == 1.0:
        return measure
    return Measure(measure.value * factor, measure.resolution * factor)
