"""Typed entries and devices, built from documents the schema has accepted.

Models are read-only by convention: nothing changes them after `build_entry`/`build_device`.
They are not frozen dataclasses because freezing makes construction twice as slow, and
`kb check` builds some thirty of them for every entry.

Each model keeps its Document and the pointer it was read from, so a rule that finds a problem
in a typed value can still say where the user wrote it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..schemas import default_dtype
from ..source import Document
from .fields import roof_formulas
from .located import Located
from .measurement import Measurement, build_measurements


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
    #: Published timings of the card's kernel.
    measurements: tuple[Measurement, ...] = ()
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
        measurements=build_measurements(source, data["id"], "set"),
    )
