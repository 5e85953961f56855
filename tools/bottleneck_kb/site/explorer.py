"""The in-page explorer: each entry's model as data and compiled formulas, for the scripts of
`assets/` to re-evaluate as a reader moves its symbols, devices, dtype and workaround.

Per entry, one script asset (`assets/explorer/entries/<id>.js`) registers the entry's payload (its
symbols with ranges, the roofs in the order that breaks ties, each workaround's settings, the
devices with the figures the formulas read) and its formulas compiled from the validated trees by
`formula_js`. Entry pages load it through `explorer_block`; the compare page loads the entries a
reader picks. Nothing a contributor wrote reaches a script as code: text goes through JSON
(escaped for HTML), formulas through `formula_js`.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import resources
from typing import Any

from ..maths.formula import Formula
from ..records.device import Device
from ..records.entry import Entry
from ..records.fields import PEAK_FLOPS, dtype_traits
from .export import symbol_record
from .formula_js import compile_formula, js_literal
from .prose import plain
from .view import CAPACITY, ROOFS, Evaluator, Parsed, Roof, evaluated_on

__all__ = [
    "ASSETS",
    "compare_body",
    "entry_script",
    "explorer_assets",
    "explorer_block",
    "script",
    "script_path",
]

#: The explorer's static files, by path below the site's root: its scripts in the order a page
#: loads them (each reads what those before it define; the explorer's own, one a job, share
#: theirs from kb-explorer-model.js to kb-explorer-start.js, which starts it), then its styles.
ASSETS = {
    "assets/explorer/kb-numbers.js": "kb-numbers.js",  # kb-formula.js writes numbers with it
    "assets/explorer/kb-formula.js": "kb-formula.js",
    "assets/explorer/kb-explorer-model.js": "kb-explorer-model.js",
    "assets/explorer/kb-explorer-fragment.js": "kb-explorer-fragment.js",
    "assets/explorer/kb-explorer-elements.js": "kb-explorer-elements.js",
    "assets/explorer/kb-explorer-entry-page.js": "kb-explorer-entry-page.js",
    "assets/explorer/kb-explorer-chart.js": "kb-explorer-chart.js",
    "assets/explorer/kb-explorer-compare-page.js": "kb-explorer-compare-page.js",
    "assets/explorer/kb-explorer-start.js": "kb-explorer-start.js",
    "assets/explorer/kb-explorer.css": "kb-explorer.css",
}
*SCRIPTS, STYLES = ASSETS
#: The compare page, below the docs folder.


def script_path(entry_id: str) -> str:
    """The entry's explorer script below the site's root."""
    return f"assets/explorer/entries/{entry_id}.js"


def _figures(device: Device, names: Iterable[str]) -> dict[str, Any]:
    """The device's datasheet figures by the names formulas read them under, those it has:
    `peak_flops` is the dense peak of each dtype it lists (the reader may pick another dtype
    than the entry's)."""
    figures: dict[str, Any] = {}
    for name in names:
        if name == PEAK_FLOPS:
            peaks = device.peak_flops
            figures[name] = {t: peaks[t].value for t in dtype_traits() if t in peaks}
        elif (measure := device.parameter(name)) is not None:
            figures[name] = measure.value
    return figures


def _roof(roof: Roof) -> dict[str, str | None]:
    return {"name": roof.name, "quantity": roof.quantity, "figure": roof.figure}


def _functions(named: Mapping[str, Formula]) -> str:
    return "{" + ",".join(f"{js_literal(k)}:{compile_formula(f)}" for k, f in named.items()) + "}"


def _reads(entry: Entry, formulas: Iterable[Formula]) -> list[str]:
    """The entry's symbols that `formulas` read, in the order the entry lists them."""
    read = set().union(*(f.symbols for f in formulas))
    return [s.symbol for s in entry.scales_with if s.symbol in read]


def script(
    payload: Mapping[str, Any],
    formulas: Mapping[str, Formula],
    derived: Sequence[tuple[str, Formula]],
    replacements: Sequence[Mapping[str, Formula]],
) -> str:
    """An entry's explorer script: `payload` (data) and its formulas compiled. `formulas` are
    the roofs' demands by quantity name (`flops`, `bytes`, and any other roof's), `derived` the
    named derived formulas in order, `replacements` each modeled workaround's formulas (in the
    order of `payload["workarounds"]`). The page reads the device's figures by name for the
    formulas that name them."""
    derived_js = ",".join(f"[{js_literal(name)},{compile_formula(f)}]" for name, f in derived)
    replaced = ",".join(_functions(r) for r in replacements)
    return (
        f"KBExplorer.register({js_literal(payload)},function(R){{return {{"
        f"formulas:{_functions(formulas)},derived:[{derived_js}],workarounds:[{replaced}]}};}});\n"
    )


def entry_script(evaluator: Evaluator, devices: Sequence[Device]) -> str:
    """The entry's explorer script."""
    entry, formulas = evaluator.entry, evaluator.formulas
    base = {"flops": formulas.flops, "bytes": formulas.bytes, **formulas.others}
    workarounds = []
    replacements = []
    for index, workaround in enumerate(entry.workarounds):
        if workaround.model is None:
            continue
        replacement = formulas.replacements(index)
        replacements.append(replacement)
        in_effect = {**base, **replacement}.values()
        workarounds.append(
            {
                "title": plain(workaround.title),
                "set": workaround.model.overrides,
                # The symbols its formulas and the derived ones read (not those it sets).
                "uses": _reads(entry, [*in_effect, *(f for _, f in formulas.derived)]),
            }
        )
    given = set(base).union(*replacements)
    needs = evaluator.needs
    chosen = evaluated_on(evaluator, devices)
    payload = {
        "id": entry.id,
        "title": plain(entry.title),
        "dtype": entry.intensity.dtype,
        "symbols": [symbol_record(s) for s in entry.scales_with],
        # The symbols the formulas read without a workaround: the others change nothing.
        "uses": _reads(entry, [*base.values(), *(f for _, f in formulas.derived)]),
        # The dtypes in the catalog's order (the hardware schema's), for the dtype picker.
        "dtypes": list(dtype_traits()),
        "roofs": [_roof(r) for r in ROOFS if r.quantity in given],
        "capacity": _roof(CAPACITY) if CAPACITY.quantity in given else None,
        "needs": needs,
        "derived": [{"name": d.name, "unit": d.unit} for d in entry.derived],
        "workarounds": workarounds,
        "devices": [
            {"id": d.id, "name": d.name, "short_name": d.short_name, "figures": _figures(d, needs)}
            for d in devices
        ],
        "evaluated": [d.id for d in chosen],
    }
    return script(payload, base, formulas.derived, replacements)


def explorer_assets(
    entries: Sequence[Entry], devices: Sequence[Device], parsed: Mapping[str, Parsed]
) -> dict[str, str]:
    """Every file the explorer serves: its scripts and styles, and one script per entry whose
    formulas parse (`parsed`, by path: `view.parse_all`)."""
    package = resources.files(__package__).joinpath("assets")
    files = {path: package.joinpath(name).read_text("utf-8") for path, name in ASSETS.items()}
    for entry in entries:
        evaluator = parsed[entry.path][0]
        if evaluator is not None:
            files[script_path(entry.id)] = entry_script(evaluator, devices)
    return files


def _scripts(asset_url: Callable[[str], str], entry_ids: Iterable[str]) -> str:
    tags = [f'<link rel="stylesheet" href="{html.escape(asset_url(STYLES))}">']
    for path in (*SCRIPTS, *map(script_path, entry_ids)):
        tags.append(f'<script src="{html.escape(asset_url(path))}"></script>')
    return "".join(tags)


def explorer_block(entry: Entry, asset_url: Callable[[str], str], explorable: bool) -> str:
    """The explorer on an entry page: its heading in Markdown (so that the page's table of
    contents lists it), then a raw HTML block of a placeholder the script fills (hidden until
    it runs, so without JavaScript the static table and chart are the page, as a note under
    the heading says) and the scripts; empty for an entry that is not `explorable`.
    `asset_url` makes a path below the site's root relative to the page; `explorable`,
    whether its formulas parse (else its page says why)."""
    if not explorable:
        return ""
    return (
        "## Explore\n\n"
        f'<div class="kb-explorer" data-entry="{html.escape(entry.id)}" hidden></div>'
        + _scripts(asset_url, [entry.id])
        + "<noscript><p>Exploring the model needs JavaScript; the evaluation above is at the "
        "typical values.</p></noscript>"
    )


def compare_body(
    entries: Sequence[Entry],
    asset_url: Callable[[str], str],
    run_time_url: Callable[[str], str],
    parsed: Mapping[str, Parsed],
) -> str:
    """The compare page's content: a placeholder listing the entries a reader may pick (those
    whose formulas parse), with where each one's script is (`run_time_url`: the script loads
    those picked, from the page's URL); `asset_url` for the page's own tags."""
    listed = [
        {"id": e.id, "title": plain(e.title), "script": run_time_url(script_path(e.id))}
        for e in entries
        if parsed[e.path][0] is not None
    ]
    return (
        '<div class="kb-compare" hidden></div>'
        f'<script type="application/json" id="kb-compare-entries">{js_literal(listed)}</script>'
        + _scripts(asset_url, [])
        + "<noscript><p>The compare view needs JavaScript; each entry's page has its "
        "evaluation on every device.</p></noscript>"
    )
