"""Typed devices, built from documents the hardware schema has accepted: each figure in base
units (a link bandwidth per direction), with its source, note and measured value."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.codes import BAD_QUANTITY
from ..core.diagnostics import Diagnostic
from ..source import Document
from .fields import PEAK_FLOPS, FieldShape, field_shapes
from .located import Located
from .quantity import Dimension, Measure, QuantityError, parse_quantity

#: What each `direction` of a link bandwidth is multiplied by to give one direction.
PER_DIRECTION = {"per_direction": 1.0, "both_directions": 0.5}


@dataclass(slots=True)
class Citation:
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
class ClassFraction:
    """The fraction of a figure that kernels of one entry class reach (for a collective, at
    message sizes within `message`), with its source or the measurements it rests on."""

    cls: str
    value: float
    #: The message sizes (a card's derived message_bytes) it holds for, in bytes.
    message: tuple[float, float] | None
    source: str | None
    #: `<card-id>#<measurement-id>` of each measurement it rests on.
    measurements: tuple[str, ...]
    note: str | None
    where: Located

    def holds_for(self, cls: str, message_bytes: float | None) -> bool:
        """Whether it is the fraction of a card of class `cls` whose message is
        `message_bytes` (None: the card gives no message size)."""
        if cls != self.cls:
            return False
        if self.message is None:
            return True
        return message_bytes is not None and self.message[0] <= message_bytes <= self.message[1]


@dataclass(slots=True)
class Fraction:
    """A typical achieved fraction of a datasheet peak: figure-wide (`value`, with its
    source), by entry class, or both."""

    value: float | None
    source: str | None
    note: str | None
    where: Located
    by_class: tuple[ClassFraction, ...] = ()


@dataclass(slots=True)
class Device:
    id: str
    name: str
    vendor: str
    #: What tables and charts show, the full name on hover: the file's `short_name`, or one
    #: derived from `name` by the rule its schema states (`derived_short_name`).
    short_name: str
    #: Every figure by parameter name: `memory_bandwidth`, `peak_flops.bf16`, ...
    figures: dict[str, Figure]
    achieved: dict[str, Fraction]
    notes: str | None
    sources: tuple[Citation, ...]
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
        self.achieved_fraction = {
            name: a.value for name, a in self.achieved.items() if a.value is not None
        }

    @property
    def path(self) -> str:
        return self.source.path

    @property
    def memory_bandwidth(self) -> float:
        return self.quantities["memory_bandwidth"].value

    def class_fraction(
        self, figure: str, cls: str, message_bytes: float | None = None
    ) -> ClassFraction | None:
        """The achieved fraction of `figure` (a field name: `peak_flops`, not its dtype) for
        a card of class `cls` whose message is `message_bytes`: the first by-class value
        that holds for it, a ranged one before one without a range."""
        fraction = self.achieved.get(figure)
        if fraction is None:
            return None
        holding = [c for c in fraction.by_class if c.holds_for(cls, message_bytes)]
        holding.sort(key=lambda c: c.message is None)
        return holding[0] if holding else None

    def parameter(self, name: str) -> Measure | None:
        """The value of a hardware parameter named as entries name it, or None if absent."""
        if name.startswith(PEAK_FLOPS + "."):
            return self.peak_flops.get(name.removeprefix(PEAK_FLOPS + "."))
        return self.quantities.get(name)


def citations(source: Document) -> tuple[Citation, ...]:
    """The `sources` of a device or model file, each where it was written."""
    return tuple(
        Citation(
            s["id"],
            s["title"],
            s["url"],
            s["publisher"],
            s["kind"],
            s["read"],
            Located(source, ("sources", i)),
        )
        for i, s in enumerate(source.data["sources"])
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
            return parse_quantity(value, shape.dimension)
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
    achieved = {
        name: _fraction(item, at("achieved_fraction", name), problems)
        for name, item in data.get("achieved_fraction", {}).items()
    }
    if problems:
        return None, problems
    return Device(
        id=data["id"],
        name=data["name"],
        vendor=data["vendor"],
        short_name=data.get("short_name") or derived_short_name(data["name"], data["vendor"]),
        figures=figures,
        achieved=achieved,
        notes=data.get("notes"),
        sources=citations(source),
        source=source,
    ), []


def derived_short_name(name: str, vendor: str) -> str:
    """A device's name without the vendor word it starts with and anything from a parenthesis
    on, as the hardware schema's `short_name` states: `NVIDIA B200 (HGX B200, 1000 W)` is
    `B200`. The whole name where that would leave nothing."""
    short = name.split("(", 1)[0].strip()
    if short.casefold().startswith(vendor.casefold() + " "):
        short = short[len(vendor) + 1 :].strip()
    return short or name


def _fraction(item: dict[str, Any], where: Located, problems: list[Diagnostic]) -> Fraction:
    """An achieved fraction as the schema accepted it; a message size in the wrong dimension
    is a problem where it was written."""
    by_class = []
    for i, row in enumerate(item.get("by_class", ())):
        message = None
        if "message" in row:
            sizes = []
            for j, text in enumerate(row["message"]):
                pointer = (*where.pointer, "by_class", i, "message", j)
                try:
                    sizes.append(parse_quantity(text, Dimension.BYTES).value)
                except QuantityError as exc:
                    problems.append(
                        where.source.error_at(BAD_QUANTITY, pointer, exc.message, exc.hint)
                    )
            if len(sizes) == 2:
                message = (sizes[0], sizes[1])
        by_class.append(
            ClassFraction(
                row["class"],
                float(row["value"]),
                message,
                row.get("source"),
                tuple(row.get("measurements", ())),
                row.get("note"),
                Located(where.source, (*where.pointer, "by_class", i)),
            )
        )
    value = item.get("value")
    return Fraction(
        None if value is None else float(value),
        item.get("source"),
        item.get("note"),
        where,
        tuple(by_class),
    )


def _scaled(measure: Measure, factor: float) -> Measure:
    if factor == 1.0:
        return measure
    return Measure(measure.value * factor, measure.resolution * factor)
