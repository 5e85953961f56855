"""An entry's page: its evaluation on every device, derived values, hardware parameters,
workarounds, checks, claims, related entries and references; and the redirect an alias leaves
behind."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...core.numbers import PREFIXED_UNITS, amount, amount_range, times
from ...knowledge.addresses import (
    ENTRIES_BY_BOUND,
    ENTRIES_BY_CLASS,
    device_page,
    entry_page,
)
from ...records.device import Device
from ...records.entry import Entry, Symbol
from ...schemas import BUILT_IN, ENTRY, Words, documented, schema
from .. import charts
from ..explorer import explorer_block
from ..formula_js import js_literal
from ..prose import block, inline, plain, text
from ..view import (
    COMPUTE,
    MEMORY,
    EntryView,
    Evaluated,
    Expected,
    Result,
    WorkaroundEffect,
    format_quantity,
    format_seconds,
    number,
)
from .answers import device_label, entry_answer, featured_first
from .html import (
    DEVICE_SCRIPT,
    SORT_SCRIPT,
    Links,
    Options,
    figure_unit,
    markdown_page,
    math,
    number_cell,
    row_header,
    schema_titles,
    table,
)
from .measurement_pages import measured_section


def render_entry(
    entry: Entry,
    view: EntryView,
    devices: Sequence[Device],
    links: Links,
    options: Options,
    entries_by_id: Mapping[str, Entry],
    linking: Mapping[str, Sequence[tuple[Entry, str]]],
    explorable: bool,
    featured: Sequence[str] = (),
    words: Words = BUILT_IN,
) -> str:
    here = entry_page(entry.id)
    names = {d.id: d.name for d in devices}
    by_id = {d.id: d for d in devices}
    classes, bounds = schema_titles(ENTRY, "class", words), schema_titles(ENTRY, "bound_by")
    body = [
        f'<h1 id="kb-title">{inline(entry.title)}</h1>',
        '<p class="kb-tags">'
        f'<a class="kb-tag" href="{links.href(here, ENTRIES_BY_CLASS, entry.cls)}">'
        f"class: {text(classes.get(entry.cls, entry.cls))}</a> "
        f'<a class="kb-tag kb-bound" href="{links.href(here, ENTRIES_BY_BOUND, entry.bound_by)}">'
        f"bound by: {text(bounds.get(entry.bound_by, entry.bound_by))}</a></p>",
    ]
    evaluation = view.evaluation
    if evaluation is not None and view.error is None:
        sweep = view.sweep.symbol if view.sweep is not None else None
        body.append(entry_answer(entry, evaluation, by_id, featured, sweep, here, links))
    body += [
        f'<div class="kb-prose kb-summary">{block(entry.intensity.summary)}</div>',
        "## Formulas",
    ]
    if view.error is not None or evaluation is None:
        body.append(f'<p class="kb-error">Not evaluated: {text(view.error or "")}</p>')
    else:
        body.append(
            '<div class="kb-formulas">'
            + math(view.flops_mathml, "FLOPs")
            + math(view.bytes_mathml, "bytes")
            + math(view.intensity_mathml, "intensity (FLOP/B)")
            + "</div>"
        )
        body += _evaluation_sections(entry, view, evaluation, by_id, featured, here, links)
        body += measured_section(evaluation.measured, names, here, links)
        body.append(explorer_block(entry, lambda path: links.asset(here, path), explorable))
    body += [
        "## Scales with",
        table(
            "Scales with",
            ["symbol", "name", "description", "unit", "typical", "range"],
            (
                [
                    f"<code>{text(s.symbol)}</code>",
                    text(s.name),
                    inline(s.description),
                    text(s.unit or ""),
                    text(amount(s.typical, s.unit)) if s.typical is not None else "",
                    _range_cell(s),
                ]
                for s in entry.scales_with
            ),
        ),
    ]
    if entry.hardware_parameters:
        body += ["## Hardware parameters", _hardware_parameters(entry, devices, here, links)]
    if entry.workarounds:
        body += ["## Workarounds", _workarounds(entry, evaluation, by_id, featured)]
    if entry.checks and evaluation is not None:
        body += ["## Checks", _checks(evaluation, names)]
    if entry.claims:
        body += ["## The card's claims beside their sources", _claims(entry, evaluation)]
    related = _related(entry, entries_by_id, linking.get(entry.id, ()), here, links)
    if related:
        body += ["## Related entries", related]
    if entry.references:
        body += ["## References", _references(entry.references)]
    if entry.notes:
        body += ["## Notes", f'<div class="kb-prose kb-notes">{block(entry.notes)}</div>']
    if options.edit_url:
        body.append(
            f'<p class="kb-edit"><a href="{text(options.edit_url + entry.path)}">'
            f"Edit this entry's YAML source</a> ({text(entry.path)})</p>"
        )
    body += [
        f'<script src="{links.asset(here, script)}"></script>'
        for script in (SORT_SCRIPT, DEVICE_SCRIPT)
    ]
    # The browser's tab and the header bar show text, not Markdown, and a title's words
    # before its colon ("LM head"), where it has one: the page's heading is the whole title.
    short = plain(entry.title).split(": ", 1)[0]
    return markdown_page(short, body)


def _evaluation_sections(
    entry: Entry,
    view: EntryView,
    evaluation: Evaluated,
    devices: Mapping[str, Device],
    featured: Sequence[str],
    here: str,
    links: Links,
) -> list[str]:
    units = {s.symbol: s.unit for s in entry.scales_with}
    values = ", ".join(
        f"{k} = {amount(v, units.get(k))}" for k, v in sorted(evaluation.values.items())
    )
    names = {d: device.name for d, device in devices.items()}
    results = featured_first(evaluation.results, lambda r: r.device, featured)
    # Every roof an entry has gets its column (an all-reduce is bound by the link, a launch
    # by latency): the lower bound is the largest of the times shown beside it.
    roofs = list(dict.fromkeys(name for r in results for name in r.times))
    fits = any(r.capacity is not None for r in results)
    # What does not depend on the device is said once, above the table, not in every row.
    work = [
        ("FLOPs", "FLOP", "flops"),
        ("bytes", "B", "bytes"),
        ("intensity", "FLOP/B", "intensity"),
    ]
    same = [w for w in work if len({getattr(r, w[2]) for r in results}) <= 1]
    varying = [w for w in work if w not in same]
    said = (
        " Every device does the same work: "
        + ", ".join(
            f"{label} {text(format_quantity(getattr(results[0], field), unit))}"
            for label, unit, field in same
        )
        + "."
        if same and results
        else ""
    )
    sections = [
        "## Evaluation on every device",
        f'<p class="kb-assignment">At the typical values ({text(values)}), dense '
        f"{text(view.dtype)} peak.{said} The featured devices first; a column's heading "
        "sorts by it.</p>",
        table(
            "Evaluation on every device",
            [
                "device",
                *(label for label, _, _ in varying),
                "ridge",
                "bound by",
                *(f"{text(name)} time" for name in roofs),
                *(["fits in memory"] if fits else []),
                "lower bound",
                *(["expected"] if evaluation.expected else []),
            ],
            (
                [
                    row_header(
                        device_label(devices[r.device], links.href(here, device_page(r.device))),
                        f' data-device="{text(r.device)}"',
                    ),
                    *(
                        number_cell(getattr(r, field), format_quantity(getattr(r, field), unit))
                        for _, unit, field in varying
                    ),
                    number_cell(r.ridge, format_quantity(r.ridge, "FLOP/B")),
                    f'<td class="kb-verdict kb-{text(r.verdict)}">{text(r.verdict)}</td>',
                    *(
                        number_cell(r.times[name], format_seconds(r.times[name]))
                        if name in r.times
                        else "-"
                        for name in roofs
                    ),
                    *([_fits_cell(r)] if fits else []),
                    number_cell(r.time, format_seconds(r.time), "kb-lower-bound"),
                    *(
                        [_expected_cell(evaluation.expected.get(r.device))]
                        if evaluation.expected
                        else []
                    ),
                ]
                for r in results
            ),
            "kb-evaluation kb-sortable",
        ),
    ]
    if evaluation.expected:
        sections.append(
            '<p class="kb-expected">Expected: the bound on figures derated by the achieved '
            f"fraction {text(entry.cls)} kernels reach on that device, where its catalog gives "
            "one (hover for what it rests on); blank where it gives none.</p>"
        )
    if entry.derived and results:
        sections += _derived_values(entry, results, names)
    if view.skipped:
        skipped = "; ".join(
            f"{text(names.get(d, d))}: {text(why)}" for d, why in view.skipped.items()
        )
        sections.append(f'<p class="kb-skipped">Skipped: {skipped}.</p>')
    if view.sweep is not None:
        symbol = entry.symbols[view.sweep.symbol]
        ridges = [
            charts.Ridge(
                devices[r.device].short_name,
                r.ridge,
                next(
                    (
                        c.at
                        for c in evaluation.crossovers.get(r.device, [])
                        # Where the intensity crosses the ridge: memory on one side, compute
                        # on the other (the entry's other roofs may flip it elsewhere).
                        if c.symbol == symbol.symbol and {c.below, c.above} == {MEMORY, COMPUTE}
                    ),
                    None,
                ),
                r.device in featured,
            )
            for r in featured_first(evaluation.results, lambda r: r.device, featured)
        ]
        sections += [
            "## Intensity against the ridge points",
            '<figure class="kb-figure">'
            + charts.intensity_chart(
                symbol.symbol, symbol.unit, view.sweep.log, view.sweep.points, ridges
            )
            + f"<figcaption>Intensity as {text(symbol.symbol)} sweeps its range, the other "
            "symbols at their typical values, against each device's ridge point: the featured "
            "devices in colour, where the verdict flips marked; the others grey (hover names "
            "them).</figcaption></figure>",
        ]
    sections += _crossovers(evaluation, devices, featured, units, here, links)
    return sections


def _crossovers(
    evaluation: Evaluated,
    devices: Mapping[str, Device],
    featured: Sequence[str],
    units: Mapping[str, str | None],
    here: str,
    links: Links,
) -> list[str]:
    """One row per device where a symbol flips the verdict in its range, a column for each
    symbol that flips anywhere; the devices where none does, in one line."""
    if not evaluation.crossovers:
        return []
    order = featured_first(list(evaluation.crossovers), lambda d: d, featured)
    flipping = list(
        dict.fromkeys(
            c.symbol for found in evaluation.crossovers.values() for c in found if c.at is not None
        )
    )
    rows = []
    steady: dict[str, list[str]] = {}
    for device in order:
        found = evaluation.crossovers[device]
        label = device_label(devices[device], links.href(here, device_page(device)))
        if not any(c.at is not None for c in found):
            steady.setdefault(found[0].below if found else "", []).append(label)
            continue
        rows.append(
            [
                label,
                *(
                    "; ".join(
                        f"{text(c.below)} to {text(c.above)} at "
                        f"{text(amount(c.at, _prefixed(units.get(symbol))))}"
                        for c in found
                        if c.symbol == symbol and c.at is not None
                    )
                    or "-"
                    for symbol in flipping
                ),
            ]
        )
    symbols = sorted({c.symbol for found in evaluation.crossovers.values() for c in found})
    swept = ", ".join(f"<code>{text(s)}</code>" for s in symbols)
    sections = [
        "## Crossovers",
        f"<p>Where the verdict flips as one symbol ({swept}) sweeps its range, the others at "
        "their typical values.</p>",
    ]
    if rows:
        header = [
            "device",
            *(
                f"<code>{text(s)}</code>"
                + (f" ({text(u)})" if (u := units.get(s)) and not _prefixed(u) else "")
                for s in flipping
            ),
        ]
        sections.append(table("Crossovers", header, rows, "kb-crossovers"))
    if steady:
        said = "; ".join(
            f"{text(verdict)}-bound throughout on {', '.join(labels)}"
            for verdict, labels in steady.items()
        )
        sections.append(
            f'<p class="kb-steady">No symbol flips the verdict in its range: {said}.</p>'
        )
    return sections


def _prefixed(unit: str | None) -> str | None:
    """`unit` where a value carries it with a prefix (`1.05 GB`, `3.6 µs`), else None: a
    word (tokens, sequences) is said once, in the column's heading."""
    return unit if unit == "s" or unit in PREFIXED_UNITS else None


def _expected_cell(expected: Expected | None) -> str:
    """About how long the kernel takes where a class fraction says so, with its ground."""
    if expected is None:
        return "<td></td>"
    ground = f"{number(expected.fraction)} of {expected.figure}, from {expected.rests_on}"
    return (
        f'<td class="kb-number" data-value="{text(repr(expected.seconds))}" '
        f'title="{text(ground)}">about {text(format_seconds(expected.seconds))}</td>'
    )


def _fits_cell(result: Result) -> str:
    if result.capacity is None:
        return "-"
    fits = result.fits is True
    return f'<td data-fits="{str(fits).lower()}">{"yes" if fits else "no"}</td>'


def _derived_values(entry: Entry, results: Sequence[Result], names: Mapping[str, str]) -> list[str]:
    """The entry's derived values at the typical values: one figure where every device gives
    the same, else a column by device."""
    same = [d for d in entry.derived if len({r.derived[d.name] for r in results}) == 1]
    varying = [d for d in entry.derived if d not in same]
    sections = [
        "## Derived values",
        "<p>At the same typical values, on the same datasheet figures.</p>",
    ]
    if same:
        sections.append(
            table(
                "Derived values",
                ["name", "value", "what it is"],
                (
                    [
                        f"<code>{text(d.name)}</code>",
                        number_cell(
                            results[0].derived[d.name],
                            amount(results[0].derived[d.name], d.unit),
                        ),
                        inline(d.description),
                    ]
                    for d in same
                ),
                "kb-derived",
            )
        )
    if varying:
        sections += [
            "<p>By device:</p>",
            table(
                "Derived values by device",
                ["device", *(f"<code>{text(d.name)}</code>" for d in varying)],
                (
                    [
                        row_header(text(names[r.device]), f' data-device="{text(r.device)}"'),
                        *(
                            number_cell(
                                r.derived[d.name],
                                amount(r.derived[d.name], d.unit),
                            )
                            for d in varying
                        ),
                    ]
                    for r in results
                ),
                "kb-derived-by-device",
            ),
            '<dl class="kb-derived-meaning">'
            + "".join(
                f"<dt><code>{text(d.name)}</code></dt><dd>{inline(d.description)}</dd>"
                for d in varying
            )
            + "</dl>",
        ]
    return sections


def _hardware_parameters(entry: Entry, devices: Sequence[Device], here: str, links: Links) -> str:
    by_id = {d.id: d for d in devices}
    rows = []
    for parameter in entry.hardware_parameters:
        values = []
        for device_id in parameter.values_for:
            device = by_id.get(device_id)
            measure = device.parameter(parameter.parameter) if device else None
            if device is None or measure is None:
                values.append(f"{text(device_id)}: not in the catalog")
                continue
            unit = figure_unit(parameter.parameter)
            # A count (a scale-up domain of 8) is written as a count, not as 8.0.
            shown = format_quantity(measure.value, unit) if unit else number(measure.value)
            values.append(
                f'<a href="{links.href(here, device_page(device.id))}">{text(device.name)}</a>: '
                f"{text(shown)}"
            )
        rows.append(
            [
                f"<code>{text(parameter.parameter)}</code>",
                inline(parameter.effect),
                "<br>".join(values),
                inline(parameter.magnitude or ""),
                text(parameter.basis),
            ]
        )
    return table(
        "Hardware parameters",
        ["parameter", "effect", "catalog values", "magnitude (entry)", "basis"],
        rows,
    )


def _range_cell(symbol: Symbol) -> str:
    """A symbol's range, and the device figure it cannot exceed (`at_most`), if any."""
    said = []
    if symbol.range:
        lo, hi = symbol.range
        said.append(text(amount_range(lo, hi, symbol.unit)))
    if symbol.at_most:
        said.append(f"at most the device's <code>{text(symbol.at_most)}</code>")
    return "; ".join(said)


def _workarounds(
    entry: Entry,
    evaluation: Evaluated | None,
    devices: Mapping[str, Device],
    featured: Sequence[str],
) -> str:
    # The evaluation lists the modeled workarounds, in the entry's order.
    modeled = iter(evaluation.workarounds if evaluation is not None else [])
    names = {d: device.name for d, device in devices.items()}
    parts = []
    for index, workaround in enumerate(entry.workarounds, 1):
        effect = next(modeled, None) if workaround.model else None
        lines = [
            f'<div class="kb-workaround" id="workaround-{index}">'
            f"<h3>{inline(workaround.title)}</h3>",
            f'<div class="kb-prose">{block(workaround.description)}</div>',
        ]
        if effect is not None:
            lines.append(_workaround_effect(workaround.title, effect, devices, featured))
            lines += [
                f'<p class="kb-unmodeled">Not modeled on {text(names[device])}: {text(why)}.</p>'
                for device, why in effect.beyond.items()
            ]
        else:
            lines.append('<p class="kb-unmodeled">Not modeled on the roofline.</p>')
        if workaround.reported:
            lines.append(f'<p class="kb-reported">Reported: {inline(workaround.reported)}</p>')
        if workaround.references:
            lines.append(_references(workaround.references))
        parts.append("".join(lines) + "</div>")
    return "".join(parts)


def _workaround_effect(
    title: str, effect: WorkaroundEffect, devices: Mapping[str, Device], featured: Sequence[str]
) -> str:
    """A modeled workaround's speedup: said once where every device gets the same, else its
    range; the table by device behind a summary."""

    def shown(device: str, gain: float) -> str:
        # A time the step cannot run at (it does not fit) is no speedup.
        return "does not fit" if not effect.modeled[device].fits else times(gain)

    gains = {device: shown(device, gain) for device, gain in effect.speedup.items()}
    cuts = {times(cut) for cut in effect.bytes_cut.values()}
    if not gains:
        return ""
    if len(set(gains.values())) == 1:
        said = f"Modeled speedup {next(iter(gains.values()))} on every device"
    else:
        fitting = [g for d, g in effect.speedup.items() if effect.modeled[d].fits]
        said = (
            f"Modeled speedup {times(min(fitting))} to {times(max(fitting))} across "
            f"{len(gains)} devices"
            if fitting
            else "Does not fit on any device at these values"
        )
    if len(cuts) == 1:
        said += f", bytes cut {next(iter(cuts))}"
    order = featured_first(list(effect.speedup), lambda d: d, featured)
    rows = (
        [
            text(devices[device].short_name),
            number_cell(effect.speedup[device], gains[device]),
            number_cell(effect.bytes_cut[device], times(effect.bytes_cut[device])),
            number_cell(effect.modeled[device].time, format_seconds(effect.modeled[device].time)),
            text(effect.modeled[device].verdict),
        ]
        for device in order
    )
    return (
        f'<details class="kb-effect"><summary>{text(said)}; by device</summary>'
        + table(
            plain(title),
            ["device", "modeled speedup", "bytes cut", "modeled lower bound", "bound by"],
            rows,
        )
        + "</details>"
    )


#: Past this many rows a table collapses behind a line that sums it up.
COLLAPSED_ROWS = 12


def _checks(evaluation: Evaluated, names: dict[str, str]) -> str:
    """One row per check and device it names, numbered from 1 in the entry's order; the first
    row of a check carries its anchor, `check-N`, which the claims table links to."""
    anchored: set[int] = set()
    rows = []
    for c in evaluation.checks:
        number = c.check + 1
        anchor = "" if number in anchored else f' id="check-{number}"'
        anchored.add(number)
        rows.append(
            [
                row_header(str(number), anchor),
                inline(c.claim),
                text(names.get(c.device, c.device)),
                f'<td class="kb-check-{"pass" if c.passed else "fail"}">'
                f"{'holds' if c.passed else 'fails'}</td>",
                text(c.detail),
            ]
        )
    checks = table("Checks", ["check", "claim", "device", "verdict", "detail"], rows, "kb-checks")
    if len(rows) <= COLLAPSED_ROWS:
        return checks
    # A long table behind its summary: what a reader needs is whether every check holds.
    failed = sum(not c.passed for c in evaluation.checks)
    said = f"{len(anchored)} checks, {len(rows)} device rows: " + (
        "every one holds" if not failed else f"{failed} fail"
    )
    opened = " open" if failed else ""  # a failing check is shown, not folded away
    return f'<details class="kb-collapsed"{opened}><summary>{said}</summary>{checks}</details>'


def _claims(entry: Entry, evaluation: Evaluated | None) -> str:
    """Card | source | the formulas' verdict: what the card says, what the cited source says,
    and where a check computes the claim, whether it holds on every device it names."""
    node = schema(ENTRY)["properties"]["claims"]["items"]["properties"]["verdict"]
    verdicts = {value: title for value, (title, _) in documented(node).items()}
    rows = []
    for claim in entry.claims:
        verdict = text(verdicts.get(claim.verdict, claim.verdict.replace("_", " ")))
        if claim.check is not None and evaluation is not None:
            outcomes = [c.passed for c in evaluation.checks if c.check == claim.check]
            said = "not evaluated" if not outcomes else "holds" if all(outcomes) else "fails"
            number = claim.check + 1
            verdict += f'; <a href="#check-{number}">check {number}</a> {said}'
        source = inline(claim.source) if claim.source else ""
        if claim.reference:
            source += f' <span class="kb-reference">({text(claim.reference)})</span>'
        rows.append([inline(claim.card), source, verdict])
    return table(
        "The card's claims beside their sources",
        ["the card says", "the cited source says", "the formulas' verdict"],
        rows,
        "kb-claims",
    )


def _related(
    entry: Entry,
    entries_by_id: Mapping[str, Entry],
    linked_from: Iterable[tuple[Entry, str]],
    here: str,
    links: Links,
) -> str:
    """The entries this one links to, and those that link to it (`linked_from`), with how."""
    rows = [
        [
            f'<a href="{text(links.href(here, entry_page(r.id)))}">{text(r.id)}</a>',
            text(r.relation.replace("_", " ")),
        ]
        for r in entry.related
        if r.id in entries_by_id
    ]
    rows += [
        [
            f'<a href="{text(links.href(here, entry_page(other.id)))}">{text(other.id)}</a>',
            f"{text(how.replace('_', ' '))} this entry",
        ]
        for other, how in linked_from
        if not any(mine.id == other.id for mine in entry.related)
    ]
    return table("Related entries", ["entry", "relation"], rows, "kb-related") if rows else ""


def _references(references: Iterable[Any]) -> str:
    items = "".join(
        f'<li><a href="{text(r.link)}" rel="nofollow noopener">'
        f"{inline(r.title, keep_links=False)}</a>"
        + (f" (arXiv:{text(r.arxiv)})" if r.arxiv else "")
        + "</li>"
        for r in references
    )
    return f'<ul class="kb-references">{items}</ul>'


def entry_link(href: str, entry: Entry) -> str:
    """A link to an entry's page, by its title (whose own links are kept as text)."""
    return f'<a href="{href}">{inline(entry.title, keep_links=False)}</a>'


def render_redirect(alias: str, entry_id: str, links: Links) -> tuple[str, str]:
    """A page at a former id that sends the reader to the entry's page."""
    old = entry_page(alias)
    path = links.url(old) + "index.html" if links.directory_urls else links.url(old)
    # A file served as it is, not a page a builder renders: from its own URL.
    href = links.at_run_time(old, links.url(entry_page(entry_id)))
    target = text(href)
    # The fragment holds an explorer's state (a shared link): the script carries it over,
    # which a refresh cannot; the refresh is for readers without scripts.
    return path, (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<script>location.replace({js_literal(href)} + location.hash)</script>"
        f'<meta http-equiv="refresh" content="0; url={target}">'
        f'<link rel="canonical" href="{target}"><title>Moved</title></head>'
        f'<body><p>This entry is now <a href="{target}">{text(entry_id)}</a>.</p></body></html>\n'
    )
