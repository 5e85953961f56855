"""Published measurements, as a card or a model file records them: what was run (the
workload, the software, the scope), on which device, what it took, and where it is published.
What a measurement says against a bound is the evaluation's business (`evaluation.measured`
for a card's, `composition.measured` for a model's)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..source import Document
from .located import Located

#: The scope a card's measurements have, and those a model's may have.
CARD_SCOPES = ("kernel",)
MODEL_SCOPES = ("step", "request")


@dataclass(slots=True)
class Measurement:
    #: The card's or model's id, and the measurement's own (`<owner>#<id>` names it elsewhere).
    owner: str
    id: str
    device: str
    #: A card's `set` (symbol -> value) or a model's `deployment` (parameter -> value).
    workload: Mapping[str, float | str]
    software: str
    version: str
    scope: str
    #: A model's step: decode or prefill.
    phase: str | None
    cuda_graphs: bool | None
    includes: str | None
    #: The result as written: a time, or a throughput and what it counts.
    time: str | None
    throughput: str | None
    counts: str | None
    how: str
    reference: str
    read: str
    where_in_source: str
    secondary: bool
    quote: str | None
    note: str | None
    where: Located

    @property
    def key(self) -> str:
        return f"{self.owner}#{self.id}"

    @property
    def result(self) -> str:
        """The result as written, with what a throughput counts."""
        if self.time is not None:
            return self.time
        return f"{self.throughput} ({self.counts})"

    @property
    def result_key(self) -> str:
        """Which key holds the result, for a rule to point at."""
        return "time" if self.time is not None else "throughput"


def build_measurements(source: Document, owner: str, workload_key: str) -> tuple[Measurement, ...]:
    """The `measurements` of a document its schema has accepted; `workload_key` is `set` for
    a card, `deployment` for a model."""
    found = []
    for i, item in enumerate(source.data.get("measurements", ())):
        software: Mapping[str, Any] = item["software"]
        cited: Mapping[str, Any] = item["source"]
        found.append(
            Measurement(
                owner=owner,
                id=item["id"],
                device=item["device"],
                workload={
                    k: v if isinstance(v, str) else float(v)
                    for k, v in item.get(workload_key, {}).items()
                },
                software=software["name"],
                version=software["version"],
                scope=item["scope"],
                phase=item.get("phase"),
                cuda_graphs=item.get("cuda_graphs"),
                includes=item.get("includes"),
                time=item.get("time"),
                throughput=item.get("throughput"),
                counts=item.get("counts"),
                how=item["how"],
                reference=cited["reference"],
                read=cited["read"],
                where_in_source=cited["where"],
                secondary=bool(cited.get("secondary", False)),
                quote=item.get("quote"),
                note=item.get("note"),
                where=Located(source, ("measurements", i)),
            )
        )
    return tuple(found)
