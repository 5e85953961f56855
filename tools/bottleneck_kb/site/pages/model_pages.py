"""A page per model, and the index of models: answer first (the typical deployment's best
device and what bounds it), the values that do not depend on the device stated once, then one
row a device, decode time against batch with each device's capacity limit, and the breakdown
of a step as a stacked bar whose every term links to its card."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...core.numbers import grouped
from ...knowledge.addresses import MODELS_INDEX, device_page, entry_page, model_page
from ...records.device import Device
from .. import charts
from ..prose import block, text
from ..view import ModelView, format_quantity, format_seconds, number
from .answers import device_label, featured_first
from .html import Links, markdown_page, number_cell, table
from .measurement_pages import measured_section

#: Devices drawn on a model's batch chart, spread over those that hold it.
CHARTED = 6

#: The deployment parameters a page states, in order.
_SHOWN = (
    "batch",
    "prompt",
    "context",
    "output",
    "tp",
    "ep",
    "pp",
    "weight_bits",
    "kv_bits",
    "dtype",
)


def _deployment(view: ModelView) -> str:
    assert view.estimate is not None
    d = view.estimate.deployment
    return ", ".join(
        f"{name} {text(str(d[name]) if name == 'dtype' else number(float(d[name])))}"
        for name in _SHOWN
    )


def render_model(
    view: ModelView,
    links: Links,
    explorer: str = "",
    names: Mapping[str, str] | None = None,
    devices: Mapping[str, Device] | None = None,
    featured: Sequence[str] = (),
) -> str:
    """A model's page; `explorer` is its explorer block (empty where it has none), `names`
    the devices' names by id, `devices` the devices (for their short names) and `featured`
    the devices its answer and table give first."""
    model = view.model
    here = model_page(model.id)

    def label(device_id: str) -> str:
        device = (devices or {}).get(device_id)
        if device is None:
            return text(device_id)
        return device_label(device, links.href(here, device_page(device_id)))

    body = [
        f'<h1 id="kb-title">{text(model.title)}</h1>',
        f'<p class="kb-vendor">{text(model.publisher)}</p>',
    ]
    found = view.estimate
    if found is None or not found.results:
        why = view.error or "; ".join(
            f"{s.device}: {s.reason}" for s in (found.skipped if found else ())
        )
        body.append(
            f"<p>No device of the catalog can run this model's typical deployment: {text(why)}.</p>"
        )
        return markdown_page(model.title, body)
    results = sorted(found.results, key=lambda r: r.phase_seconds("decode"))
    best = results[0]
    fitting = [r for r in results if r.fits]
    decode = best.phase_seconds("decode")
    body.append(
        '<p class="kb-answer">'
        f"At its typical deployment ({_deployment(view)}), {text(model.title)} decodes a token in "
        f"at least <strong>{text(format_seconds(decode))}</strong> on "
        f"{label(best.device)} ({best.devices_used} device{'s' * (best.devices_used != 1)}), "
        f"{text(best.bound('decode'))}-bound (floor {text(format_seconds(best.floor('decode')))} "
        f"whatever overlaps), and prefills its prompt in at least "
        f"{text(format_seconds(best.phase_seconds('prefill')))}. "
        f"{len(fitting)} of {len(results)} devices that can run it hold it.</p>"
    )
    body.append(_featured_answer(results, featured, label))
    memory = best.memory
    body += [
        "## On every device",
        table(
            "On every device",
            ["quantity", "value"],
            [
                [
                    "parameters (published)",
                    number_cell(model.parameters.value, f"{model.parameters.value:,.0f}"),
                ],
                [
                    "weights",
                    number_cell(memory.weights_bytes, format_quantity(memory.weights_bytes, "B")),
                ],
                [
                    "weights a device",
                    number_cell(
                        memory.weights_bytes_per_device,
                        format_quantity(memory.weights_bytes_per_device, "B"),
                    ),
                ],
                [
                    "KV cache a token",
                    number_cell(
                        memory.kv_bytes_per_token, format_quantity(memory.kv_bytes_per_token, "B")
                    ),
                ],
                [
                    "KV cache a token, a device",
                    number_cell(
                        memory.kv_bytes_per_token_per_device,
                        format_quantity(memory.kv_bytes_per_token_per_device, "B"),
                    ),
                ],
            ],
            "kb-model-constants",
        ),
        "## On each device",
    ]
    rows = []
    for r in featured_first(results, lambda r: r.device, featured):
        step = r.phase_seconds("decode")
        rows.append(
            [
                label(r.device),
                "yes" if r.fits else "no",
                number_cell(r.phase_seconds("prefill"), format_seconds(r.phase_seconds("prefill"))),
                number_cell(r.floor("prefill"), format_seconds(r.floor("prefill"))),
                number_cell(step, format_seconds(step)),
                number_cell(r.floor("decode"), format_seconds(r.floor("decode"))),
                text(r.bound("decode")),
                number_cell(r.batch / step, grouped(r.batch / step)),
                number_cell(
                    r.footprint_bytes_per_device, format_quantity(r.footprint_bytes_per_device, "B")
                ),
                number_cell(float(r.max_batch), f"{r.max_batch:,}"),
            ]
        )
    body.append(
        table(
            "On each device",
            [
                "device",
                "fits",
                "prefill",
                "prefill floor",
                "decode a token",
                "decode floor",
                "decode bound",
                "tokens/s",
                "memory a device",
                "max batch",
            ],
            rows,
            "kb-model-devices kb-sortable",
        )
    )
    if found.skipped:
        items = "".join(f"<li>{text(s.device)}: {text(s.reason)}</li>" for s in found.skipped)
        body.append(
            f'<p>Devices that cannot run this deployment:</p><ul class="kb-skipped">{items}</ul>'
        )
    body += measured_section(found.measured, names or {}, here, links)
    # A few devices that hold the model, spread from the fastest to the slowest: every line
    # labelled, and apart.
    able = [r for r in fitting if view.sweep.get(r.device)]
    picks = sorted({round(i * (len(able) - 1) / max(CHARTED - 1, 1)) for i in range(CHARTED)})
    charted = [able[i] for i in picks] if able else []
    series = [charts.Series(r.device, view.sweep[r.device], r.max_batch) for r in charted]
    if series:
        body += [
            "## Decode time against batch",
            '<figure class="kb-figure">'
            + charts.batch_chart(f"{model.title}: decode time a token against batch", series)
            + f"<figcaption>{len(series)} of the devices that hold the model, from the fastest "
            "to the slowest, each at the "
            "typical deployment but the batch; a line ends at the largest batch whose KV cache "
            "fits at the typical context (the bar). The table above has every device."
            "</figcaption></figure>",
        ]
    if explorer:
        body.append(explorer)
    body += ["## What a step is made of"]
    for phase in ("decode", "prefill"):
        bars = [
            (
                r.device,
                [
                    charts.Segment(
                        f"{t.label} ({t.card})", links.href(here, entry_page(t.card)), t.seconds
                    )
                    for t in r.terms
                    if t.phase == phase
                ],
            )
            for r in results
        ]
        body.append(
            '<figure class="kb-figure">'
            + charts.stacked_bar(f"{model.title}: the {phase} step's terms", bars)
            + f"<figcaption>The {phase} step's rows one after another on each device (hover "
            "for a term, click to open its card).</figcaption></figure>"
        )
    terms = [
        [
            f'<a href="{text(links.href(here, entry_page(t.card)))}">{text(t.label)}</a>',
            text(t.phase),
            text(t.card),
            number_cell(t.count, number(t.count)),
            number_cell(t.seconds, format_seconds(t.seconds)),
            text(t.bound),
        ]
        for t in best.terms
    ]
    body += [
        f"### The terms on {text(best.device)}",
        table(
            f"The terms on {best.device}",
            ["as", "phase", "card", "count", "seconds", "bound"],
            terms,
            "kb-model-terms",
        ),
        "## Config",
        table(
            "Config",
            ["name", "value"],
            [[text(k), text(str(v))] for k, v in model.config.items()],
            "kb-model-config",
        ),
        "## Sources",
        "<ul>"
        + "".join(
            f'<li><a href="{text(s.url)}">{text(s.title)}</a> ({text(s.publisher)}, '
            f"read {text(s.read)})</li>"
            for s in model.sources
        )
        + "</ul>",
    ]
    if model.parameters.note:
        body += [f'<div class="kb-prose">{block(model.parameters.note)}</div>']
    if model.notes:
        body += ["## Notes", f'<div class="kb-prose">{block(model.notes)}</div>']
    return markdown_page(model.title, body)


def _featured_answer(results: Sequence[Any], featured: Sequence[str], label: Any) -> str:
    """The typical deployment on the featured devices, as the answer's table: decode a token,
    its floor and bound, the prefill, and whether it fits."""
    by_device = {r.device: r for r in results}
    shown = [by_device[d] for d in featured if d in by_device]
    if not shown:
        return ""
    rows = "".join(
        f'<tr><th scope="row">{label(r.device)}</th>'
        f'<td class="kb-number">{text(format_seconds(r.phase_seconds("decode")))}</td>'
        f'<td class="kb-number">{text(format_seconds(r.floor("decode")))}</td>'
        f"<td>{text(r.bound('decode'))}</td>"
        f'<td class="kb-number">{text(format_seconds(r.phase_seconds("prefill")))}</td>'
        f"<td>{'yes' if r.fits else 'no'}</td></tr>"
        for r in shown
    )
    return (
        '<div class="kb-answer-table"><table aria-label="On the featured devices"><thead><tr>'
        '<th scope="col">device</th><th scope="col">decode a token</th>'
        '<th scope="col">floor</th><th scope="col">bound</th><th scope="col">prefill</th>'
        f'<th scope="col">fits</th></tr></thead><tbody>{rows}</tbody></table></div>'
    )


def render_model_index(views: Mapping[str, ModelView], links: Links) -> str:
    rows: list[Sequence[str]] = []
    for model_id, view in sorted(views.items()):
        found = view.estimate
        results = sorted(found.results, key=lambda r: r.phase_seconds("decode")) if found else []
        href = links.href(MODELS_INDEX, model_page(model_id))
        link = f'<a href="{text(href)}">{text(view.model.title)}</a>'
        if not results:
            rows.append([link, text(view.model.architecture), "", "", ""])
            continue
        best = results[0]
        step = best.phase_seconds("decode")
        rows.append(
            [
                link,
                text(view.model.architecture),
                text(best.device),
                number_cell(step, format_seconds(step)),
                text(best.bound("decode")),
            ]
        )
    body = [
        "<p>Each model at its typical deployment: the device that decodes a token fastest, its "
        "lower bound, and what bounds it. A model's page has every device.</p>",
        table(
            "Models",
            ["model", "architecture", "fastest device", "decode a token", "bound"],
            rows,
            "kb-models",
        ),
    ]
    return markdown_page("Models", body)
