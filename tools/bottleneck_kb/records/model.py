"""Typed model files (an ML model: its publisher's config, its parameter count, its typical and
offered deployments), built from documents the model schema has accepted. What a model's
config means, and how a forward step is made of cards, is its architecture kind's business
(`composition`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..source import Document
from .device import Citation, citations
from .located import Located
from .measurement import Measurement, build_measurements

#: A config value as published: a number, a boolean, a string, null or a list of numbers.
ConfigValue = float | int | bool | str | None | list[float]


@dataclass(slots=True)
class PublishedCount:
    """The parameter count as the publisher states it, and how far the count the architecture
    implies may lie from it."""

    value: float
    tolerance: float
    source: str
    quote: str | None
    note: str | None
    where: Located


@dataclass(slots=True)
class Model:
    id: str
    title: str
    publisher: str
    architecture: str
    config: Mapping[str, ConfigValue]
    config_source: str
    parameters: PublishedCount
    #: The typical deployment, by parameter (`dtype` a name, every other a number).
    typical: Mapping[str, float | str]
    #: The offered deployments: `[low, high]` for a numeric parameter, the values for tp, ep
    #: and pp, the names for dtype.
    offered: Mapping[str, list[Any]]
    drafts: tuple[str, ...]
    notes: str | None
    sources: tuple[Citation, ...]
    source: Document = field(repr=False)
    #: Published timings of the model, a step or a request.
    measurements: tuple[Measurement, ...] = ()

    @property
    def path(self) -> str:
        return self.source.path

    def at(self, *pointer: str | int) -> Located:
        """Where a part of the file was written, for a rule to point at."""
        return Located(self.source, pointer)


def build_model(source: Document) -> Model:
    """A Model from a document the model schema has accepted."""
    data = source.data
    count = data["parameters"]
    return Model(
        id=data["id"],
        title=data["title"],
        publisher=data["publisher"],
        architecture=data["architecture"],
        config=dict(data["config"]),
        config_source=data["config_source"],
        parameters=PublishedCount(
            float(count["value"]),
            float(count["tolerance"]),
            count["source"],
            count.get("quote"),
            count.get("note"),
            Located(source, ("parameters",)),
        ),
        typical=dict(data["typical"]),
        offered={k: list(v) for k, v in data["offered"].items()},
        drafts=tuple(data.get("drafts", ())),
        notes=data.get("notes"),
        sources=citations(source),
        source=source,
        measurements=build_measurements(source, data["id"], "deployment"),
    )
