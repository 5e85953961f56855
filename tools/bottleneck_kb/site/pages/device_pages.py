"""A device's page (its figures with their sources, and the entries evaluated on it) and the
index of devices."""

from __future__ import annotations

from collections.abc import Sequence

from ...knowledge.addresses import (
    DEVICES,
    device_page,
    entry_page,
)
from ...records.device import PER_DIRECTION, Device, Figure
from ...records.entry import Entry
from ...records.fields import PEAK_FLOPS, field_shapes
from ...schemas import HARDWARE, documented, schema
from .. import charts
from ..prose import block, inline, text
from ..view import (
    EntryView,
    format_quantity,
    format_seconds,
    number,
    ridge_points,
)
from .answers import device_label, featured_first
from .entry_pages import entry_link
from .html import (
    DEVICE_SCRIPT,
    SORT_SCRIPT,
    Links,
    dtype_names,
    figure_unit,
    markdown_page,
    number_cell,
    table,
)


def _source(device: Device, source_id: str) -> str:
    """A figure's source as its number in the page's list of sources, the full title on
    hover and in the list: a long title in every row would bury the figures."""
    number = next((i for i, s in enumerate(device.sources, 1) if s.id == source_id), None)
    if number is None:
        return text(source_id)
    found = device.sources[number - 1]
    return (
        f'<a class="kb-source-ref" href="#source-{number}" title="{text(found.title)}">'
        f"[{number}]</a>"
    )


def _figure_cell(value: float, name: str) -> str:
    """A device figure's value in its unit; a count (the scale-up domain's devices) as a
    whole number, not as a ratio's `8.0`."""
    unit = figure_unit(name)
    return number_cell(value, format_quantity(value, unit) if unit else number(value))


def _label(name: str, figure: Figure) -> str:
    """A figure's name as a reader reads it; a link bandwidth says it is one direction's."""
    label = name.replace("_", " ")
    return f"{label}, per direction" if figure.direction is not None else label


def _figure_note(figure: Figure) -> str:
    """What the catalog says beside a figure; and for a link bandwidth whose source counts
    both directions, the figure the source gives (the table shows one direction)."""
    said = []
    if figure.direction == "both_directions":
        both = format_quantity(figure.value.value / PER_DIRECTION[figure.direction], "B/s")
        said.append(f"the source gives {text(both)} for both directions summed")
    if figure.note:
        said.append(inline(figure.note))
    return "; ".join(said)


def _figure_row(device: Device, name: str, label: str) -> list[str]:
    """A figure's row: figure, value, basis, source, note."""
    figure = device.figures[name]
    return [
        text(label),
        _figure_cell(figure.value.value, name),
        text(figure.basis),
        _source(device, figure.source),
        _figure_note(figure),
    ]


def _measured(device: Device, name: str, label: str) -> list[list[str]]:
    """The row under figure `name` (shown as `label`) for its measured value, if it has one:
    figure, value, basis, source, how it was measured."""
    measured = device.figures[name].measured
    if measured is None:
        return []
    value = measured.value.value
    return [
        [
            f"{text(label)}, measured",
            _figure_cell(value, name),
            "measured",
            _source(device, measured.source),
            inline(measured.how),
        ]
    ]


def _achieved(device: Device, field: str, label: str) -> list[list[str]]:
    """The row for the typical achieved fraction of catalog field `field` (shown as `label`),
    if the device has one: figure, fraction, basis, source, what the catalog says of it."""
    fraction = device.achieved.get(field)
    if fraction is None:
        return []
    rows = []
    if fraction.value is not None and fraction.source is not None:
        rows.append(
            [
                f"{text(label)}, typical achieved fraction",
                number_cell(fraction.value, number(fraction.value)),
                "fraction of the datasheet value reached in practice",
                _source(device, fraction.source),
                inline(fraction.note) if fraction.note else "",
            ]
        )
    for row in fraction.by_class:
        sizes = (
            f", messages {format_quantity(row.message[0], 'B')} to "
            f"{format_quantity(row.message[1], 'B')}"
            if row.message
            else ""
        )
        rested = ", ".join(f"`{key}`" for key in row.measurements)
        rows.append(
            [
                f"{text(label)}, achieved fraction for {text(row.cls)}{text(sizes)}",
                number_cell(row.value, number(row.value)),
                "fraction reached by kernels of this class",
                _source(device, row.source) if row.source else f"measurements {rested}",
                inline(row.note) if row.note else "",
            ]
        )
    return rows


def _basis_legend() -> str:
    """What each basis of the tables above means, as the schema says: "datasheet" is the
    figure as its source publishes it, which may be a secondary source."""
    said = documented(schema(HARDWARE)["$defs"]["basis"])
    items = "; ".join(
        f"<em>{text(value)}</em>: {text(description)}" for value, (_, description) in said.items()
    )
    return f'<p class="kb-legend">Basis: {items}</p>'


def _sources(device: Device) -> str:
    """Every source of the device's figures: title, publisher, kind and the date it was read."""
    items = "".join(
        f'<li id="source-{i}"><a href="{text(s.url)}" rel="nofollow noopener">{text(s.title)}</a> '
        f"({text(s.publisher)}, {text(s.kind)}, read {text(s.read)})</li>"
        for i, s in enumerate(device.sources, 1)
    )
    return f'<ol class="kb-sources">{items}</ol>'


def render_device(
    device: Device, entries: Sequence[Entry], views: dict[str, EntryView], links: Links
) -> str:
    here = device_page(device.id)
    ridges = ridge_points(device)
    bandwidth = device.quantities["memory_bandwidth"].value
    # Each figure's measured value and typical achieved fraction are rows under its own.
    figures = []
    for name, figure in device.figures.items():
        if name.startswith(PEAK_FLOPS + "."):
            continue
        label = _label(name, figure)
        figures.append(_figure_row(device, name, label))
        figures += _measured(device, name, label) + _achieved(device, name, label)
    # The peaks' table has the ridge point each gives as its third column.
    peaks = []
    for dtype in dtype_names(device.peak_flops):
        name = f"{PEAK_FLOPS}.{dtype}"
        ridge = number_cell(ridges[dtype], format_quantity(ridges[dtype], "FLOP/B"))
        row = _figure_row(device, name, dtype)
        peaks.append([*row[:2], ridge, *row[2:]])
        peaks += [[*row[:2], "", *row[2:]] for row in _measured(device, name, dtype)]
    achieved = _achieved(device, PEAK_FLOPS, "every data type")
    peaks += [[*row[:2], "", *row[2:]] for row in achieved]
    body = [
        f'<h1 id="kb-title">{text(device.name)}</h1>',
        f'<p class="kb-vendor">{text(device.vendor)}</p>',
        _device_answer(device, ridges),
        "## Figures",
        table("Figures", ["figure", "value", "basis", "source", "note"], figures, "kb-figures"),
        "## Ridge point per data type",
        table(
            "Ridge point per data type",
            ["data type", "dense peak", "ridge point", "basis", "source", "note"],
            peaks,
            "kb-ridges",
        ),
        _basis_legend(),
        "## Sources",
        _sources(device),
    ]
    if device.notes:
        body += ["## Notes", f'<div class="kb-prose">{block(device.notes)}</div>']
    # A dot sits at its intensity and its FLOPs over its time, on logarithmic axes: an entry
    # with no FLOPs, or whose time rounds to 0 s (bytes of 5e-324), has no place there.
    placed = [
        (e, r)
        for e in entries
        if (r := views[e.id].result(device.id)) is not None and r.flops > 0 and r.time > 0
    ]
    dots = [
        charts.Dot(e.title, links.href(here, entry_page(e.id)), r.intensity, r.flops / r.time)
        for e, r in placed
    ]
    body.append("## Roofline with every entry")
    if dots:
        used = dtype_names(views[e.id].dtype for e, _ in placed)
        roofs = [
            charts.RoofLine(
                f"{t} peak {format_quantity(device.peak_flops[t].value, 'FLOP/s')}",
                device.peak_flops[t].value,
            )
            for t in used
        ]
        body.append(
            '<figure class="kb-figure">'
            + charts.roofline_chart(device.name, bandwidth, roofs, dots)
            + "<figcaption>Each dot is an entry at its typical values (hover for its title, "
            "click to open it); the roofs are the dense peaks of the data types the entries "
            "use, joined to the memory-bandwidth slope at their ridge points.</figcaption></figure>"
        )
    else:
        body.append("<p>No entry can be placed on this device.</p>")
    body.append(
        table(
            "Roofline with every entry",
            ["entry", "data type", "intensity", "bound by", "lower bound"],
            (
                [
                    entry_link(links.href(here, entry_page(e.id)), e),
                    text(views[e.id].dtype),
                    number_cell(r.intensity, format_quantity(r.intensity, "FLOP/B")),
                    text(r.verdict),
                    number_cell(r.time, format_seconds(r.time)),
                ]
                for e, r in placed
            ),
            "kb-device-entries",
        )
    )
    body.append(f'<script src="{links.asset(here, DEVICE_SCRIPT)}"></script>')
    return markdown_page(device.name, body)


def _device_answer(device: Device, ridges: dict[str, float]) -> str:
    """The figures that set the device's ridge points, and the ridge point per data type,
    first on its page; and the button that makes it the reader's device (kb-device.js)."""
    said = [
        f"{label} {format_quantity(device.quantities[name].value, unit)}"
        for name, label, unit in (
            ("memory_bandwidth", "memory bandwidth", "B/s"),
            ("memory_capacity", "memory", "B"),
        )
        if name in device.quantities
    ]
    rows = "".join(
        f'<tr><th scope="row">{text(dtype)}</th>'
        f'<td class="kb-number">{text(format_quantity(device.peak_flops[dtype].value, "FLOP/s"))}'
        f'</td><td class="kb-number">{text(format_quantity(ridges[dtype], "FLOP/B"))}</td></tr>'
        for dtype in dtype_names(device.peak_flops)
    )
    return (
        '<section class="kb-answer" aria-label="The answer">'
        f"<p><strong>{text(device.short_name)}</strong>: {text(', '.join(said))}. A kernel "
        "whose intensity is below a data type's ridge point (its dense peak over the memory "
        "bandwidth) is memory-bound here.</p>"
        '<div class="kb-answer-ridges"><table aria-label="Ridge points at a glance"><thead><tr>'
        '<th scope="col">data type</th><th scope="col">dense peak</th>'
        '<th scope="col">ridge point</th></tr></thead>'
        f"<tbody>{rows}</tbody></table></div>"
        '<p><button type="button" class="md-button kb-my-device" '
        f'data-kb-device-page="{text(device.id)}" hidden>Make this my device</button></p>'
        "</section>"
    )


def _tera(flops: float) -> str:
    """A peak in TFLOP/s, three significant digits (989, 66.9) or whole where it is past a
    thousand (1,979): the comparison's unit is in its heading."""
    tera = flops / 1e12
    return f"{tera:,.0f}" if tera >= 1000 else f"{tera:.3g}"


def render_device_index(
    devices: Sequence[Device], links: Links, featured: Sequence[str] = ()
) -> str:
    """Every device side by side, in two tables that each fit the column: memory and links,
    then the dense peak and ridge point per data type. The featured devices first."""
    ordered = featured_first(devices, lambda d: d.id, featured)
    dtypes = dtype_names(t for d in devices for t in d.peak_flops)
    quantities = [n for n in field_shapes() if any(n in d.quantities for d in devices)]

    def name(device: Device) -> str:
        return device_label(device, links.href(DEVICES, device_page(device.id)))

    figures = []
    peaks = []
    for device in ordered:
        ridges = ridge_points(device)
        row = [name(device), text(device.vendor)]
        for quantity in quantities:
            measure = device.quantities.get(quantity)
            row.append(_figure_cell(measure.value, quantity) if measure else "-")
        figures.append(row)
        peaks.append(
            [
                name(device),
                *(
                    number_cell(
                        ridges[dtype],
                        f"{_tera(peak.value)} / "
                        f"{format_quantity(ridges[dtype], 'FLOP/B').removesuffix(' FLOP/B')}",
                    )
                    if (peak := device.peak_flops.get(dtype))
                    else "-"
                    for dtype in dtypes
                ),
            ]
        )
    header = [
        "device",
        "vendor",
        *(
            n.replace("_", " ")
            + (
                " (per direction)"
                if any(n in d.figures and d.figures[n].direction for d in devices)
                else ""
            )
            for n in quantities
        ),
    ]
    return markdown_page(
        "Devices",
        [
            "# Devices",
            "Every device of the hardware catalog, side by side, the featured devices first (a "
            "column's heading sorts by it); each device's page gives every figure's source.",
            "## Memory and links",
            table("Memory and links", header, figures, "kb-device-comparison kb-sortable"),
            "## Dense peak and ridge point per data type",
            "<p>Dense peak per data type in TFLOP/s, and the ridge point it gives (peak over "
            "memory bandwidth, in FLOP/B): 989 / 295 is 989 TFLOP/s with a ridge at 295 FLOP/B. "
            "A kernel whose intensity is below a device's ridge point is memory-bound on it.</p>",
            table(
                "Dense peak and ridge point per data type",
                ["device", *(f"{dtype}<br><small>TFLOP/s / FLOP/B</small>" for dtype in dtypes)],
                peaks,
                "kb-device-comparison kb-sortable",
            ),
            f'<script src="{links.asset(DEVICES, SORT_SCRIPT)}"></script>',
        ],
    )
