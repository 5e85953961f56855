"""The whole knowledge base as one JSON document for other tools: entries, devices and every
entry's evaluation on every device, in base units (FLOP, B, FLOP/B, FLOP/s, B/s, s). Its
shape is described by `export.schema.json`, published beside the entry and device schemas."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

from .. import __version__
from ..records.device import Device
from ..records.entry import Entry, Symbol
from ..report.evaluation import evaluation_data
from .view import EntryView, ModelView, ridge_points

KIND = "export"
#: Raised when the export's shape changes incompatibly.
FORMAT = 2


@cache
def export_schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        resources.files(__package__).joinpath("export.schema.json").read_text("utf-8")
    )
    return loaded


def symbol_record(symbol: Symbol) -> dict[str, Any]:
    """A symbol as plain data: what the export and the explorer's payload give of each."""
    return {
        "symbol": symbol.symbol,
        "name": symbol.name,
        "unit": symbol.unit,
        "typical": symbol.typical,
        "range": list(symbol.range) if symbol.range else None,
        "at_most": symbol.at_most,
    }


def _entry(entry: Entry, view: EntryView, linked_from: list[dict[str, str]]) -> dict[str, Any]:
    return {
        "id": entry.id,
        "aliases": list(entry.aliases),
        "title": entry.title,
        "class": entry.cls,
        "bound_by": entry.bound_by,
        "path": entry.path,
        "dtype": view.dtype,
        "flops": entry.intensity.flops.text,
        "bytes": entry.intensity.bytes.text,
        "scales_with": [symbol_record(s) for s in entry.scales_with],
        "related": [{"id": r.id, "relation": r.relation} for r in entry.related],
        "related_from": linked_from,
        "claims": [
            {
                "card": c.card,
                "source": c.source,
                "reference": c.reference,
                "verdict": c.verdict,
                "check": c.check,
            }
            for c in entry.claims
        ],
        "skipped": view.skipped,
        "error": view.error,
        "evaluation": None if view.evaluation is None else evaluation_data(view.evaluation),
        "measurements": []
        if view.evaluation is None
        else [m.as_json() for m in view.evaluation.measured],
    }


def related_from(entries: Sequence[Entry]) -> dict[str, list[tuple[Entry, str]]]:
    """By entry id, the entries that list it in their related, each with the relation it
    gives; in one pass, since looking for them entry by entry grows with the square of the
    knowledge base."""
    found: dict[str, list[tuple[Entry, str]]] = {}
    for other in entries:
        for r in other.related:
            found.setdefault(r.id, []).append((other, r.relation))
    return found


def _device(device: Device) -> dict[str, Any]:
    return {
        "id": device.id,
        "name": device.name,
        "vendor": device.vendor,
        "quantities": {name: m.value for name, m in device.quantities.items()},
        "peak_flops": {dtype: m.value for dtype, m in device.peak_flops.items()},
        "ridge": ridge_points(device),
        "measured": {
            name: {"value": m.value.value, "how": m.how, "source": m.source}
            for name, figure in device.figures.items()
            if (m := figure.measured) is not None
        },
        "achieved_fraction": {
            name: {
                "value": a.value,
                "source": a.source,
                **({"note": a.note} if a.note else {}),
                **(
                    {
                        "by_class": [
                            {
                                "class": c.cls,
                                "value": c.value,
                                "message_bytes": list(c.message) if c.message else None,
                                "source": c.source,
                                "measurements": list(c.measurements),
                            }
                            for c in a.by_class
                        ]
                    }
                    if a.by_class
                    else {}
                ),
            }
            for name, a in device.achieved.items()
        },
        "notes": {name: f.note for name, f in device.figures.items() if f.note},
        "sources": [
            {
                "id": s.id,
                "title": s.title,
                "url": s.url,
                "publisher": s.publisher,
                "kind": s.kind,
                "read": s.read,
            }
            for s in device.sources
        ],
    }


def knowledge_base(
    entries: Sequence[Entry],
    devices: Sequence[Device],
    views: Mapping[str, EntryView],
    models: Mapping[str, ModelView] | None = None,
) -> dict[str, Any]:
    """The export document; `views` holds every entry's view by id, `models` every model's."""
    linking = related_from(entries)
    return {
        "format": FORMAT,
        "generator": f"bottleneck-kb {__version__}",
        "entries": [
            _entry(
                e,
                views[e.id],
                [{"id": other.id, "relation": how} for other, how in linking.get(e.id, [])],
            )
            for e in entries
        ],
        "devices": [_device(d) for d in devices],
        "models": [_model(v) for _, v in sorted((models or {}).items())],
    }


def _model(view: ModelView) -> dict[str, Any]:
    """A model: what its file says, and its estimate at the typical deployment as
    `kb estimate --format json` prints it."""
    model = view.model
    return {
        "id": model.id,
        "title": model.title,
        "publisher": model.publisher,
        "architecture": model.architecture,
        "config": dict(model.config),
        "parameters": model.parameters.value,
        "typical": dict(model.typical),
        "offered": dict(model.offered),
        "estimate": None if view.estimate is None else view.estimate.as_json(),
        "error": view.error,
        "measurements": []
        if view.estimate is None
        else [m.as_json() for m in view.estimate.measured],
    }
