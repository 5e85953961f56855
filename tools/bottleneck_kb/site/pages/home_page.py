"""The home page: what the knowledge base holds and where to start (by what bounds a workload,
by device, by model, by search), from the knowledge base itself, so another team's site says
what theirs holds."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from ...core.numbers import format_quantity
from ...knowledge.addresses import (
    DEVICES,
    ENTRIES_BY_BOUND,
    ENTRIES_BY_CLASS,
    HOME,
    MEASUREMENTS,
    MODELS_INDEX,
    device_page,
    model_page,
)
from ...records.device import Device
from ...records.entry import Entry
from ...schemas import ENTRY
from ..prose import text
from ..view import ModelView, ridge_points
from .answers import device_label
from .html import Links, markdown_page, schema_titles


def render_home(
    entries: Sequence[Entry],
    devices: Sequence[Device],
    models: Mapping[str, ModelView],
    measurements: int,
    featured: Sequence[str],
    links: Links,
) -> str:
    def href(page: str, anchor: str = "") -> str:
        return text(links.href(HOME, page, anchor))

    bounds = schema_titles(ENTRY, "bound_by")
    counted = Counter(e.bound_by for e in entries)
    by_bound = "".join(
        f'<li><a href="{href(ENTRIES_BY_BOUND, value)}">{text(title)}</a> ({counted[value]})</li>'
        for value, title in bounds.items()
        if counted[value]
    )
    by_id = {d.id: d for d in devices}
    featured_items = "".join(
        f"<li>{device_label(device, links.href(HOME, device_page(device.id)))}: "
        f"{text(format_quantity(device.quantities['memory_bandwidth'].value, 'B/s'))}, "
        + (
            f"bf16 ridge point {text(format_quantity(ridge_points(device)['bf16'], 'FLOP/B'))}"
            if "bf16" in device.peak_flops
            else ""
        )
        + "</li>"
        for device in (by_id[d] for d in featured if d in by_id)
        if "memory_bandwidth" in device.quantities
    )
    model_items = "".join(
        f'<li><a href="{href(model_page(model_id))}">{text(view.model.title)}</a></li>'
        for model_id, view in sorted(models.items())
    )
    classes = len({e.cls for e in entries})
    body = [
        "# Bottleneck KB",
        '<p class="kb-lede">A knowledge base of ML-systems performance bottlenecks whose '
        "numbers are live. Each entry says what a kernel or phase is bound by, gives its FLOPs "
        "and bytes as formulas over named quantities, and evaluates them on every device of a "
        "sourced hardware catalog: what bounds it, how long it takes at best, where the "
        "verdict flips and how people work around it.</p>",
        '<section class="kb-answer kb-holds" aria-label="What it holds"><p>'
        f'<a href="{href(ENTRIES_BY_CLASS)}"><strong>{len(entries)} entries</strong></a> in '
        f"{classes} classes, "
        f'<a href="{href(DEVICES)}"><strong>{len(devices)} devices</strong></a>, '
        f'<a href="{href(MODELS_INDEX)}"><strong>{len(models)} models</strong></a> composed '
        "from the entries, and "
        f'<a href="{href(MEASUREMENTS)}"><strong>{measurements} measurements</strong></a> '
        "set beside their bounds.</p></section>",
        "## Where to start",
        '<div class="kb-start">'
        "<div><h3>By what bounds a workload</h3>"
        f'<ul>{by_bound}</ul><p><a href="{href(ENTRIES_BY_CLASS)}">Every entry by class</a></p>'
        "</div>"
        f"<div><h3>By device</h3><ul>{featured_items}</ul>"
        f'<p><a href="{href(DEVICES)}">Every device side by side</a>; a device page can be '
        "made your device, which every entry page then shows.</p></div>"
        f"<div><h3>By model</h3><ul>{model_items}</ul></div>"
        "<div><h3>By search</h3><p>The search box at the top (or the <kbd>/</kbd> key) finds "
        "an entry, device or model by any word of its page.</p></div>"
        "</div>",
        "## How it works",
        "<p>The entries live in <code>entries/&lt;namespace&gt;/&lt;slug&gt;.yaml</code>, the "
        "devices in <code>hardware/&lt;id&gt;.yaml</code>, the models in "
        "<code>models/&lt;id&gt;.yaml</code>, and their JSON Schemas in <code>schema/</code>. "
        "<code>kb check</code> validates every file and evaluates every formula on every "
        f'<a href="{href(DEVICES)}">device</a>; <code>kb eval</code> answers "on this '
        'device, at these values, what bounds it and how long does it take at best?".</p>',
        f'<p><a href="{href("model.md")}">How the model works</a> explains the roofline '
        "the numbers come from and what <code>kb check</code> proves of every formula and claim; "
        f'<a href="{href("commands.md")}">The kb command</a> gives every command and option; '
        f'<a href="{href("about.md")}">About this site</a> says what the pages and the '
        "explorer show.</p>",
    ]
    return markdown_page("Bottleneck KB", body)
