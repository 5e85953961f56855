"""Typed entries and devices, built from documents the schema has accepted.

Models are read-only by convention: nothing changes them after `build_entry`/`build_device`.
They are not frozen dataclasses because freezing makes construction twice as slow, and
`kb check` builds some thirty of them for every entry.

Each model keeps its Document and the pointer it was read from, so a rule that finds a problem
in a typed value can still say where the user wrote it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from .diagnostics import Diagnostic
from .quantity import Dimension, Measure, QuantityError, parse
from .source import Document, Pointer

BAD_QUANTITY = "KB301"

#: Catalog fields that hold a quantity, and what each measures. Entries name these in
#: `hardware_parameters[].parameter`; `peak_flops.<dtype>` names one row of peak_flops.
DEVICE_QUANTITIES: dict[str, Dimension] = {
    "memory_capacity": Dimension.BYTES,
    "memory_bandwidth": Dimension.BANDWIDTH,
    "interconnect_bandwidth": Dimension.BANDWIDTH,
}
PEAK_FLOPS = "peak_flops"


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
    arxiv: str | None
    url: str | None

    @property
    def link(self) -> str:
        return f"https://arxiv.org/abs/{self.arxiv}" if self.arxiv else str(self.url)


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


@dataclass(slots=True)
class Intensity:
    summary: str
    flops: WrittenFormula
    bytes: WrittenFormula
    dtype: str


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
    bounds: dict[str, tuple[float | None, float | None]]
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
    notes: str | None
    source: Document = field(repr=False)
    #: Former ids, which the site redirects to this entry.
    aliases: tuple[str, ...] = ()
    #: scales_with by symbol; derived, but asked for by nearly every rule.
    symbols: dict[str, Symbol] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.symbols = {s.symbol: s for s in self.scales_with}

    @property
    def path(self) -> str:
        return self.source.path


@dataclass(slots=True)
class Source:
    url: str
    supports: str


@dataclass(slots=True)
class Device:
    id: str
    name: str
    vendor: str
    quantities: dict[str, Measure]
    peak_flops: dict[str, Measure]
    notes: str | None
    sources: tuple[Source, ...]
    source: Document = field(repr=False)

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
def parameter_names() -> tuple[str, ...]:
    """Every name an entry's hardware parameter may take."""
    from .schemas import HARDWARE, schema

    dtypes = schema(HARDWARE)["properties"][PEAK_FLOPS]["properties"]
    return (*DEVICE_QUANTITIES, *(f"{PEAK_FLOPS}.{dtype}" for dtype in dtypes))


def _references(items: list[dict[str, Any]] | None) -> tuple[Reference, ...]:
    return tuple(Reference(r["title"], r.get("arxiv"), r.get("url")) for r in items or ())


def _range(value: list[float] | None) -> tuple[float, float] | None:
    return (float(value[0]), float(value[1])) if value else None


def build_entry(source: Document) -> Entry:
    """An Entry from a document the entry schema has accepted."""
    data = source.data

    def at(*pointer: str | int) -> Located:
        return Located(source, pointer)

    def formula(text: str, *pointer: str | int) -> WrittenFormula:
        return WrittenFormula(text, at(*pointer))

    ai = data["arithmetic_intensity"]
    workarounds = []
    for i, item in enumerate(data.get("workarounds", [])):
        model = item.get("model")
        workarounds.append(
            Workaround(
                title=item["title"],
                description=item["description"],
                references=_references(item.get("references")),
                model=None
                if model is None
                else WorkaroundModel(
                    overrides={k: float(v) for k, v in model.get("set", {}).items()},
                    flops=formula(model["flops"], "workarounds", i, "model", "flops")
                    if "flops" in model
                    else None,
                    bytes=formula(model["bytes"], "workarounds", i, "model", "bytes")
                    if "bytes" in model
                    else None,
                    where=at("workarounds", i, "model"),
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
            dtype=ai.get("dtype", "bf16"),
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
                bounds={
                    name: (bound.get("min"), bound.get("max"))
                    for name, bound in c["expect"].items()
                    if name != "bound_by"
                },
                where=at("checks", i),
            )
            for i, c in enumerate(data.get("checks", []))
        ),
        references=_references(data.get("references")),
        notes=data.get("notes"),
        source=source,
        aliases=tuple(data.get("aliases", ())),
    )


def build_device(source: Document) -> tuple[Device | None, list[Diagnostic]]:
    """A Device from a document the hardware schema has accepted; quantities are parsed here,
    so a figure in the wrong dimension is reported where it was written."""
    data = source.data
    problems: list[Diagnostic] = []

    def measure(text: str, dimension: Dimension, *pointer: str) -> Measure | None:
        try:
            return parse(text, dimension)
        except QuantityError as exc:
            problems.append(
                source.error_at(
                    BAD_QUANTITY, pointer, f"{'.'.join(pointer)}: {exc.message}", exc.hint
                )
            )
            return None

    quantities = {
        name: measure(data[name], dimension, name)
        for name, dimension in DEVICE_QUANTITIES.items()
        if name in data
    }
    peaks = {
        dtype: measure(text, Dimension.FLOP_RATE, PEAK_FLOPS, dtype)
        for dtype, text in data[PEAK_FLOPS].items()
    }
    if problems:
        return None, problems
    return Device(
        id=data["id"],
        name=data["name"],
        vendor=data["vendor"],
        quantities={k: v for k, v in quantities.items() if v is not None},
        peak_flops={k: v for k, v in peaks.items() if v is not None},
        notes=data.get("notes"),
        sources=tuple(Source(s["url"], s["supports"]) for s in data["sources"]),
        source=source,
    ), []
