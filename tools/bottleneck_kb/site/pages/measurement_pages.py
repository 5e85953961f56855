"""Published measurements on the site: a card's or a model's beside its bounds (a table and a
chart of measured against bound), and the page that lists every measurement with its achieved
fraction of the bound, sortable where JavaScript runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit

from ...knowledge.addresses import MEASUREMENTS, device_page
from .. import charts
from ..prose import inline, text
from ..view import MeasuredOutcome, format_seconds
from .html import SORT_SCRIPT, Links, markdown_page, number_cell, table


def measured_section(
    measured: Sequence[MeasuredOutcome], names: Mapping[str, str], here: str, links: Links
) -> list[str]:
    """A card's or a model's measurements beside their bounds: the heading, a line that
    answers first (how close the best comes), the chart and the table. Nothing where it has
    none."""
    if not measured:
        return []
    model = any(m.serial_s is not None for m in measured)
    bound = "floor" if model else "lower bound"
    best = max(measured, key=lambda m: m.fraction)
    lead = (
        f'<p class="kb-measured-lead">{len(measured)} published measurement'
        f"{'s' * (len(measured) != 1)}, each at its own workload; the closest to its "
        f"{bound} runs at <strong>{best.fraction:.2f}</strong> of it "
        f"({text(best.software)} on {text(names.get(best.device, best.device))}). "
        "The achieved fraction of the bound is the bound over the measured time: 1 would be "
        "at the roofline.</p>"
    )
    points = [
        charts.MeasuredPoint(
            f"{names.get(m.device, m.device)}, {m.workload or 'typical'}", m.bound_s, m.measured_s
        )
        for m in measured
    ]
    chart = (
        '<figure class="kb-figure">'
        + charts.measured_chart(f"Measured against the {bound}", points, bound)
        + f"<figcaption>Each measurement at its {bound} (across) and its measured time (up), "
        "log axes; the dashed diagonal is measured = bound, and the height above it is how "
        "far the kernel runs from its roofline.</figcaption></figure>"
    )
    return ["## Measured", lead, chart, measured_table(measured, names, here, links, model)]


def measured_table(
    measured: Sequence[MeasuredOutcome],
    names: Mapping[str, str],
    here: str,
    links: Links,
    model: bool,
    owners: Mapping[str, str] | None = None,
) -> str:
    """The measurements as rows narrow enough for the page's column: what was measured (with
    `owners`, each card's or model's page by id, the owner first) with its software and
    workload beneath, the device, the measured time (what was published on hover), the bound,
    the achieved fraction of the bound and the source."""
    bound = "bound" if owners is not None else "floor" if model else "lower bound"
    header = ["measured", "device", "time", bound, "fraction of the bound", "source"]
    rows = []
    for m in measured:
        owner, _, name = m.key.partition("#")
        what = text(name)
        if owners is not None:
            page = owners.get(owner)
            shown = text(owner)
            what = (f'<a href="{links.href(here, page)}">{shown}</a>' if page else shown) + (
                f"<br><small>{text(name)}</small>"
            )
        how = f"{m.software}; {m.workload or 'typical values'}"
        what += f'<br><small class="kb-measured-how">{text(how)}</small>'
        # The link names the source's site; where in it, beneath in small type, so that a
        # long table reference does not widen the table past its column.
        opened = urlsplit(m.reference).hostname if m.reference.startswith("http") else None
        source = (
            f'<a href="{text(m.reference)}">{text(opened.removeprefix("www."))}</a>'
            if opened
            else "source"
        )
        if m.secondary:
            source += " (secondary)"
        source += f'<br><small class="kb-measured-where">{text(m.where_in_source)}</small>'
        if m.note:
            source += (
                '<details class="kb-measured-note"><summary>note</summary>'
                f"{inline(m.note)}</details>"
            )
        device = (
            f'<a href="{links.href(here, device_page(m.device))}">'
            f"{text(names.get(m.device, m.device))}</a>"
        )
        fraction = f"{m.fraction:.2f}" + (
            " (work overlapped)" if m.verdict.startswith("faster than serial") else ""
        )
        rows.append(
            [
                what,
                device,
                f'<td class="kb-number" data-value="{text(repr(m.measured_s))}" '
                f'title="published: {text(m.result)}">{text(format_seconds(m.measured_s))}</td>',
                number_cell(m.bound_s, format_seconds(m.bound_s)),
                number_cell(m.fraction, fraction),
                source,
            ]
        )
    name = "Every measurement" if owners is not None else "Measured"
    return table(name, header, rows, "kb-measurements")


def render_measurements(
    by_owner: Mapping[str, Sequence[MeasuredOutcome]],
    pages: Mapping[str, str],
    names: Mapping[str, str],
    links: Links,
) -> str:
    """The page listing every measurement (`by_owner`: a card's or a model's id -> its
    judged measurements; `pages`: each owner's page), most of the bound first."""
    here = MEASUREMENTS
    every = sorted(
        (m for found in by_owner.values() for m in found), key=lambda m: (-m.fraction, m.key)
    )
    body = [
        '<h1 id="kb-title">Measured beside the bounds</h1>',
        f'<p class="kb-answer">{len(every)} published measurements on '
        f"{len({m.device for m in every})} devices, of {len(by_owner)} cards and models: each "
        "judged by kb check at its own workload against the bound on datasheet figures (a "
        "model's against its floor, the largest roof total, which holds under any overlap). "
        "None is faster than its bound; the achieved fraction of the bound (bound over "
        "measured) says how close each kernel comes to its roofline. Sort by any column.</p>",
    ]
    if every:
        body.append(
            '<div class="kb-sortable">'
            + measured_table(every, names, here, links, model=False, owners=pages)
            + "</div>"
        )
        body.append(f'<script src="{links.asset(here, SORT_SCRIPT)}"></script>')
    return markdown_page("Measured beside the bounds", body)
