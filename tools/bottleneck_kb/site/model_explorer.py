"""The explorer on a model page: the model's recipe, its cards' formulas and the devices'
figures as data and compiled formulas, for `assets/kb-model-explorer.js` to re-estimate as a
reader moves the deployment (the same steps as `composition.estimate`, so the same numbers as
`kb estimate`).

Per model, one script asset (`assets/explorer/models/<id>.js`) registers the payload and the
formulas compiled from their validated trees by `formula_js`; nothing a contributor wrote
reaches the script as code."""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any

from ..records.device import Device
from ..records.fields import PEAK_FLOPS, dtype_traits
from .explorer import ASSETS as ENTRY_ASSETS
from .formula_js import compile_formula, js_literal
from .prose import plain
from .view import ROOFS, Evaluator, ModelView, model_parts

#: The model explorer's own script, after the number and formula runtimes it shares with the
#: entry explorer.
SCRIPT = "assets/explorer/kb-model-explorer.js"
ASSETS = {SCRIPT: "kb-model-explorer.js"}
_RUNTIME = [path for path in ENTRY_ASSETS if path.endswith(("kb-numbers.js", "kb-formula.js"))]
_STYLES = next(path for path in ENTRY_ASSETS if path.endswith(".css"))

#: The device figures a model's rows may divide by, besides the dense peaks.
_FIGURES = (
    "memory_bandwidth",
    "memory_capacity",
    "interconnect_bandwidth",
    "host_link_bandwidth",
    "scale_out_bandwidth",
    "scale_up_domain",
    "launch_latency",
)


def asset_files() -> dict[str, str]:
    """The model explorer's own script, by path below the site's root."""
    package = resources.files(__package__).joinpath("assets")
    return {path: package.joinpath(name).read_text("utf-8") for path, name in ASSETS.items()}


def script_path(model_id: str) -> str:
    return f"assets/explorer/models/{model_id}.js"


def _device(device: Device) -> dict[str, Any]:
    figures: dict[str, Any] = {
        PEAK_FLOPS: {
            t: device.peak_flops[t].value for t in dtype_traits() if t in device.peak_flops
        }
    }
    for name in _FIGURES:
        measure = device.parameter(name)
        if measure is not None:
            figures[name] = measure.value
    return {"id": device.id, "figures": figures}


def _card(evaluator: Evaluator) -> tuple[dict[str, Any], str]:
    entry, formulas = evaluator.entry, evaluator.formulas
    named = {"flops": formulas.flops, "bytes": formulas.bytes, **formulas.others}
    data = {
        "dtype": entry.intensity.dtype,
        "typical": {s.symbol: s.typical for s in entry.scales_with if s.typical is not None},
        "roofs": [
            {"name": r.name, "quantity": r.quantity, "figure": r.figure}
            for r in ROOFS
            if r.quantity in named
        ],
        "needs": evaluator.needs,
        "bounds": [list(pair) for pair in formulas.bounds],
    }
    compiled = (
        "{" + ",".join(f"{js_literal(k)}:{compile_formula(f)}" for k, f in named.items()) + "}"
    )
    return data, compiled


def model_script(view: ModelView, devices: Sequence[Device], cards: Mapping[str, Evaluator]) -> str:
    """A model's explorer script."""
    assert view.estimate is not None
    kind, fields, parameters = model_parts(view.model, view.estimate.deployment)
    used = {row.card for row in kind.rows}
    card_data: dict[str, Any] = {}
    compiled_cards = []
    for card_id in sorted(used):
        data, compiled = _card(cards[card_id])
        card_data[card_id] = data
        compiled_cards.append(f"{js_literal(card_id)}:{compiled}")
    rows = [
        {"phase": r.phase, "label": r.label, "card": r.card, "deploymentDtype": r.deployment_dtype}
        for r in kind.rows
    ]
    compiled_rows = ",".join(
        "{count:"
        + compile_formula(r.count)
        + ",set:{"
        + ",".join(f"{js_literal(s)}:{compile_formula(f)}" for s, f in r.bindings.items())
        + "}}"
        for r in kind.rows
    )
    memory = {
        "parameters": kind.parameters,
        "parametersPerDevice": kind.parameters_per_device,
        "kvPerToken": kind.kv_values_per_token,
        "kvPerTokenPerDevice": kind.kv_values_per_token_per_device,
        "activationsPerDevice": kind.activation_values_per_device,
    }
    compiled_memory = (
        "{" + ",".join(f"{js_literal(k)}:{compile_formula(f)}" for k, f in memory.items()) + "}"
    )
    payload = {
        "id": view.model.id,
        "title": plain(view.model.title),
        "parameters": parameters,
        "fields": fields,
        "rows": rows,
        "cards": card_data,
        "roofs": [r.name for r in ROOFS],
        "devices": [_device(d) for d in devices],
    }
    return (
        f"KBModelExplorer.register({js_literal(payload)},function(R){{return {{"
        f"rows:[{compiled_rows}],cards:{{{','.join(compiled_cards)}}},memory:{compiled_memory}}};}});\n"
    )


def model_explorer_block(model_id: str, asset_url: Callable[[str], str]) -> str:
    """The explorer on a model page: its heading (in the table of contents), a placeholder the
    script fills (hidden until it runs) and the scripts."""
    tags = [f'<link rel="stylesheet" href="{html.escape(asset_url(_STYLES))}">']
    for path in (*_RUNTIME, SCRIPT, script_path(model_id)):
        tags.append(f'<script src="{html.escape(asset_url(path))}"></script>')
    return (
        "## Explore\n\n"
        f'<div class="kb-model-explorer" data-model="{html.escape(model_id)}" hidden></div>'
        + "".join(tags)
        + "<noscript><p>Exploring the deployment needs JavaScript; the tables above are at "
        "the typical deployment.</p></noscript>"
    )
