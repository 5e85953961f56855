"""A knowledge base as the site's pages: Markdown with raw HTML blocks, and assets.

Pages are built from the typed model and from `view` (the evaluation), never from the
YAML. Everything a contributor wrote reaches a page through `prose` (Markdown made safe) or
`prose.text` (escaped), inside raw HTML blocks that MkDocs passes through as they are; the
Markdown around them (headings, fixed words) is this module's own. Links between generated
pages are computed here, relative, for MkDocs's directory URLs or plain `.html` URLs alike.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..checking.run import check_read, checked_catalog
from ..core.codes import INTERNAL
from ..core.diagnostics import Diagnostic, Severity, error
from ..core.numbers import times
from ..knowledge.addresses import (
    COMPARE,
    DEVICES,
    ENTRIES_BY_BOUND,
    ENTRIES_BY_CLASS,
    RULES,
    SCHEMA_REFERENCE,
    device_page,
    entry_page,
    rule_page,
)
from ..knowledge.base import KnowledgeBase
from ..records.device import PER_DIRECTION, Device, Figure
from ..records.entry import Entry, Symbol
from ..records.fields import PEAK_FLOPS, dtype_traits, field_shapes, parameter_dimension
from ..schemas import ENTRY, HARDWARE, documented, published, published_text, schema
from . import charts, export, mathml
from .cache import ViewCache
from .explorer import compare_body, explorer_assets, explorer_block
from .formula_js import js_literal
from .prose import block, inline, plain, text
from .view import (
    COMPUTE,
    MEMORY,
    EntryView,
    Evaluated,
    Result,
    format_quantity,
    format_seconds,
    number,
    parse_all,
    ridge_points,
)

STYLESHEET = "assets/bottleneck-kb.css"
EXPORT = "export/knowledge-base.json"
MATHML = "http://www.w3.org/1998/Math/MathML"
PUBLISHED_SCHEMAS = ((ENTRY, "Entry"), (HARDWARE, "Device"), (export.KIND, "JSON export"))


@dataclass(frozen=True)
class Options:
    """How the site is published: its address (for the schemas' `$id`), where an entry's
    source can be edited (its path is appended), whether URLs are directories, and where
    evaluated entries are cached between builds."""

    site_url: str = ""
    edit_url: str = ""
    directory_urls: bool = True
    cache: Path | None = None


@dataclass
class Site:
    """Generated files by path below the docs folder: Markdown pages and other assets."""

    pages: dict[str, str] = field(default_factory=dict)
    assets: dict[str, str] = field(default_factory=dict)
    #: What `kb check` finds in the knowledge base the pages were made from.
    diagnostics: list[Diagnostic] = field(default_factory=list)


class Links:
    """Relative URLs between pages, as MkDocs will serve them."""

    def __init__(self, directory_urls: bool) -> None:
        self.directory_urls = directory_urls

    def url(self, page: str) -> str:
        stem = page.removesuffix(".md")
        if not self.directory_urls:
            return f"{stem}.html"
        if stem == "index" or stem.endswith("/index"):
            return stem.removesuffix("index")
        return f"{stem}/"

    def href(self, source: str, target: str, anchor: str = "") -> str:
        """From page `source` to page `target` (and an anchor in it)."""
        return self.asset(source, self.url(target)) + (f"#{anchor}" if anchor else "")

    def asset(self, source: str, path: str) -> str:
        """From page `source` to the file or URL `path` below the site's root."""
        url = self.url(source)
        base = url.rstrip("/") if self.directory_urls else posixpath.dirname(url)
        relative = posixpath.relpath(path or ".", base or ".")
        return relative + "/" if path.endswith("/") or not path else relative


def build_site(root: Path, options: Options) -> Site:
    """Every generated page and asset of the knowledge base at `root`."""
    kb = KnowledgeBase.load(root)
    # The devices kb check judges entries on: not one whose file fails its own rules.
    checked = checked_catalog(kb.catalog, published(root))
    catalog = checked[0]
    devices = sorted(catalog.devices.values(), key=lambda d: d.id)
    entries = sorted(kb.entries, key=lambda e: e.id)
    # Each entry's formulas parsed once, for its checks, its view and its explorer.
    parsed = parse_all(entries)
    views = ViewCache(options.cache).views(entries, devices, parsed)
    links = Links(options.directory_urls)
    # A page made from an entry kb check fails would show a wrong claim, or be missing.
    site = Site(diagnostics=check_read(kb, checked, parsed).diagnostics)
    failing = {d.path for d in site.diagnostics if d.severity is Severity.ERROR}
    site.diagnostics += [
        error(
            INTERNAL,
            entry.path,
            1,
            1,
            f"kb check passes this entry, but its page could not evaluate it: {view.error}",
            "this is a bug in kb; please report it with the file",
        )
        for entry in entries
        if (view := views[entry.id]).error is not None and entry.path not in failing
    ]
    entries_by_id = {e.id: e for e in entries}
    linking = export.related_from(entries)
    for entry in entries:
        explorable = parsed[entry.path][0] is not None
        site.pages[entry_page(entry.id)] = _entry_page(
            entry, views[entry.id], devices, links, options, entries_by_id, linking, explorable
        )
        for alias in entry.aliases:
            if alias not in views:
                path, html = _redirect(alias, entry.id, links)
                site.assets[path] = html
    site.assets.update(explorer_assets(entries, devices, parsed))
    site.pages[COMPARE] = _page(
        "Compare entries",
        [compare_body(entries, lambda path: links.asset(COMPARE, path), parsed)],
    )
    for device in devices:
        site.pages[device_page(device.id)] = _device_page(device, entries, views, links)
    site.pages[ENTRIES_BY_CLASS] = _entry_index(entries, views, devices, links, "class")
    site.pages[ENTRIES_BY_BOUND] = _entry_index(entries, views, devices, links, "bound_by")
    site.pages[DEVICES] = _device_index(devices, links)
    site.pages[SCHEMA_REFERENCE] = _schema_reference(links)
    site.pages.update(_rule_pages(links))
    for kind, _ in PUBLISHED_SCHEMAS:
        site.assets[f"schema/{kind}.schema.json"] = _published_schema(kind, options.site_url)
    site.assets[EXPORT] = json.dumps(
        export.knowledge_base(entries, devices, views), separators=(",", ":")
    )
    site.assets[STYLESHEET] = (Path(__file__).parent / "bottleneck-kb.css").read_text("utf-8")
    return site


# --- pieces -------------------------------------------------------------------------------


def _page(title: str, body: Iterable[str]) -> str:
    """A page: front matter with its title, then its blocks separated by blank lines.

    MkDocs themes print the title as HTML, and Material's `<title>` strips tags then
    unescapes; so the title is escaped, and `</` (the only thing that can close `<title>`
    early) is broken up first.
    """
    safe = text(" ".join(title.replace("</", "< /").split()))
    return f"---\ntitle: {_yaml_string(safe)}\n---\n\n" + "\n\n".join(body) + "\n"


def _yaml_string(value: str) -> str:
    """`value` as a YAML double-quoted scalar in printable ASCII. JSON's escapes are not YAML's
    past U+FFFF: a surrogate pair (`\\ud83d\\ude80`) is no character to YAML, and MkDocs,
    failing to read the front matter, would show it as the page's first lines."""
    escaped = []
    for character in value:
        code = ord(character)
        if character in '"\\':
            escaped.append(f"\\{character}")
        elif 0x20 <= code < 0x7F:
            escaped.append(character)
        else:
            escaped.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
    return f'"{"".join(escaped)}"'


def _table(name: str, header: Sequence[str], rows: Iterable[Sequence[str]], css: str = "") -> str:
    """An HTML table named `name` (plain text: the heading above it), for a reader moving from
    table to table; cells are HTML already (escaped by the caller). Each row's first cell
    names the row, and is its header: a screen reader says it as the reader moves along."""
    head = "".join(f'<th scope="col">{h}</th>' for h in header)
    body = "".join(
        "<tr>" + _row_header(row[0]) + "".join(_cell(c) for c in row[1:]) + "</tr>" for row in rows
    )
    # Named by its own label: named by the heading's id, it would be read with the heading's
    # permalink, "Checks ¶".
    table = (
        f'<table aria-label="{text(name)}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )
    # The theme styles tables without a class; the class goes on a wrapper.
    return f'<div class="{css}">{table}</div>' if css else table


def _cell(content: str) -> str:
    return content if content.startswith("<td") else f"<td>{content}</td>"


def _row_header(content: str, attributes: str = "") -> str:
    """A row's first cell, its name; `attributes` (HTML, escaped) go on the cell."""
    return content if content.startswith("<th") else f'<th scope="row"{attributes}>{content}</th>'


def _number_cell(value: float, shown: str) -> str:
    """A number as shown, with its exact value for tools (and tests) in `data-value`."""
    return f'<td class="kb-number" data-value="{text(repr(value))}">{text(shown)}</td>'


def _math(nodes: list[Any], label: str) -> str:
    """A formula's MathML, written from its tree (never inserted as stored markup)."""
    # Focusable and named: a formula wider than a phone scrolls in its row, by keyboard too.
    return (
        f'<div class="kb-formula" tabindex="0" role="group" aria-label="{label} formula">'
        f'<span class="kb-formula-name">{label}</span>'
        f'<math xmlns="{MATHML}" display="block">{mathml.markup(nodes)}</math></div>'
    )


def _dtypes(dtypes: Iterable[str]) -> list[str]:
    """`dtypes` in the catalog's display order (the schema's)."""
    present = set(dtypes)
    return [t for t in dtype_traits() if t in present]


def _schema_titles(kind: str, key: str) -> dict[str, str]:
    """The titles the schema gives each allowed value of `key`."""
    return {
        value: title for value, (title, _) in documented(schema(kind)["properties"][key]).items()
    }


# --- entry pages --------------------------------------------------------------------------


def _entry_page(
    entry: Entry,
    view: EntryView,
    devices: Sequence[Device],
    links: Links,
    options: Options,
    entries_by_id: Mapping[str, Entry],
    linking: Mapping[str, Sequence[tuple[Entry, str]]],
    explorable: bool,
) -> str:
    here = entry_page(entry.id)
    names = {d.id: d.name for d in devices}
    classes, bounds = _schema_titles(ENTRY, "class"), _schema_titles(ENTRY, "bound_by")
    body = [
        f'<h1 id="kb-title">{inline(entry.title)}</h1>',
        '<p class="kb-tags">'
        f'<a class="kb-tag" href="{links.href(here, ENTRIES_BY_CLASS, entry.cls)}">'
        f"class: {text(classes.get(entry.cls, entry.cls))}</a> "
        f'<a class="kb-tag kb-bound" href="{links.href(here, ENTRIES_BY_BOUND, entry.bound_by)}">'
        f"bound by: {text(bounds.get(entry.bound_by, entry.bound_by))}</a></p>",
        f'<div class="kb-prose kb-summary">{block(entry.intensity.summary)}</div>',
        "## Formulas",
    ]
    evaluation = view.evaluation
    if view.error is not None or evaluation is None:
        body.append(f'<p class="kb-error">Not evaluated: {text(view.error or "")}</p>')
    else:
        body.append(
            '<div class="kb-formulas">'
            + _math(view.flops_mathml, "FLOPs")
            + _math(view.bytes_mathml, "bytes")
            + _math(view.intensity_mathml, "intensity (FLOP/B)")
            + "</div>"
        )
        body += _evaluation_sections(entry, view, evaluation, names, here, links)
        body.append(explorer_block(entry, lambda path: links.asset(here, path), explorable))
    body += [
        "## Scales with",
        _table(
            "Scales with",
            ["symbol", "name", "description", "unit", "typical", "range"],
            (
                [
                    f"<code>{text(s.symbol)}</code>",
                    text(s.name),
                    inline(s.description),
                    text(s.unit or ""),
                    text(number(s.typical)) if s.typical is not None else "",
                    _range_cell(s),
                ]
                for s in entry.scales_with
            ),
        ),
    ]
    if entry.hardware_parameters:
        body += ["## Hardware parameters", _hardware_parameters(entry, devices, here, links)]
    if entry.workarounds:
        body += ["## Workarounds", _workarounds(entry, evaluation, names)]
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
    return _page(plain(entry.title), body)  # the browser's tab shows text, not Markdown


def _evaluation_sections(
    entry: Entry,
    view: EntryView,
    evaluation: Evaluated,
    names: dict[str, str],
    here: str,
    links: Links,
) -> list[str]:
    values = ", ".join(f"{k} = {number(v)}" for k, v in sorted(evaluation.values.items()))
    results = evaluation.results
    # Every roof an entry has gets its column (an all-reduce is bound by the link, a launch
    # by latency): the lower bound is the largest of the times shown beside it.
    roofs = list(dict.fromkeys(name for r in results for name in r.times))
    fits = any(r.capacity is not None for r in results)
    sections = [
        "## Evaluation on every device",
        f'<p class="kb-assignment">At the typical values ({text(values)}), dense '
        f"{text(view.dtype)} peak:</p>",
        _table(
            "Evaluation on every device",
            [
                "device",
                "FLOPs",
                "bytes",
                "intensity",
                "ridge",
                "bound by",
                *(f"{text(name)} time" for name in roofs),
                *(["fits in memory"] if fits else []),
                "lower bound",
            ],
            (
                [
                    _row_header(
                        f'<a href="{links.href(here, device_page(r.device))}">'
                        f"{text(names[r.device])}</a>",
                        f' data-device="{text(r.device)}"',
                    ),
                    _number_cell(r.flops, format_quantity(r.flops, "FLOP")),
                    _number_cell(r.bytes, format_quantity(r.bytes, "B")),
                    _number_cell(r.intensity, format_quantity(r.intensity, "FLOP/B")),
                    _number_cell(r.ridge, format_quantity(r.ridge, "FLOP/B")),
                    f'<td class="kb-verdict kb-{text(r.verdict)}">{text(r.verdict)}</td>',
                    *(
                        _number_cell(r.times[name], format_seconds(r.times[name]))
                        if name in r.times
                        else "-"
                        for name in roofs
                    ),
                    *([_fits_cell(r)] if fits else []),
                    _number_cell(r.time, format_seconds(r.time)),
                ]
                for r in results
            ),
            "kb-evaluation",
        ),
    ]
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
                names[r.device],
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
            )
            for r in evaluation.results
        ]
        sections += [
            "## Intensity against the ridge points",
            '<figure class="kb-figure">'
            + charts.intensity_chart(
                symbol.symbol, symbol.unit, view.sweep.log, view.sweep.points, ridges
            )
            + f"<figcaption>Arithmetic intensity as {text(symbol.symbol)} sweeps its range, the "
            "other symbols at their typical values; a horizontal line per device at its ridge "
            f"point (past {charts.MAX_LABELLED} devices, the lowest and highest are labelled "
            "and every line names its device on hover; the table above gives each ridge "
            "point); a mark where the verdict flips.</figcaption></figure>",
        ]
    rows = [
        [
            text(names[device]),
            f"<code>{text(c.symbol)}</code>",
            f"{text(number(c.range[0]))} to {text(number(c.range[1]))}",
            (
                f"{text(c.below)} below, {text(c.above)} from "
                f"{text(c.symbol)} = {text(number(c.at))}"
                if c.at is not None
                else f"none in range ({text(c.below)} throughout)"
            ),
        ]
        for device, found in evaluation.crossovers.items()
        for c in found
    ]
    if rows:
        sections += [
            "## Crossovers",
            "<p>Where the verdict flips as one symbol sweeps its range, the others at their "
            "typical values.</p>",
            _table("Crossovers", ["device", "symbol", "range", "verdict"], rows, "kb-crossovers"),
        ]
    return sections


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
            _table(
                "Derived values",
                ["name", "value", "what it is"],
                (
                    [
                        f"<code>{text(d.name)}</code>",
                        _number_cell(
                            results[0].derived[d.name],
                            format_quantity(results[0].derived[d.name], d.unit),
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
            _table(
                "Derived values by device",
                ["device", *(f"<code>{text(d.name)}</code>" for d in varying)],
                (
                    [
                        _row_header(text(names[r.device]), f' data-device="{text(r.device)}"'),
                        *(
                            _number_cell(
                                r.derived[d.name],
                                format_quantity(r.derived[d.name], d.unit),
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
            unit = _unit(parameter.parameter)
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
    return _table(
        "Hardware parameters",
        ["parameter", "effect", "catalog values", "magnitude (entry)", "basis"],
        rows,
    )


def _range_cell(symbol: Symbol) -> str:
    """A symbol's range, and the device figure it cannot exceed (`at_most`), if any."""
    said = []
    if symbol.range:
        lo, hi = symbol.range
        said.append(f"{text(number(lo))} to {text(number(hi))}")
    if symbol.at_most:
        said.append(f"at most the device's <code>{text(symbol.at_most)}</code>")
    return "; ".join(said)


def _workarounds(entry: Entry, evaluation: Evaluated | None, names: dict[str, str]) -> str:
    # The evaluation lists the modeled workarounds, in the entry's order.
    modeled = iter(evaluation.workarounds if evaluation is not None else [])
    parts = []
    for workaround in entry.workarounds:
        effect = next(modeled, None) if workaround.model else None
        lines = [
            f'<div class="kb-workaround"><h3>{inline(workaround.title)}</h3>',
            f'<div class="kb-prose">{block(workaround.description)}</div>',
        ]
        if effect is not None:
            lines.append(
                _table(
                    plain(workaround.title),
                    ["device", "modeled speedup", "bytes cut", "modeled lower bound", "bound by"],
                    (
                        [
                            text(names[device]),
                            # A time the step cannot run at (it does not fit) is no speedup.
                            _number_cell(
                                gain,
                                "does not fit" if not effect.modeled[device].fits else times(gain),
                            ),
                            _number_cell(effect.bytes_cut[device], times(effect.bytes_cut[device])),
                            _number_cell(
                                effect.modeled[device].time,
                                format_seconds(effect.modeled[device].time),
                            ),
                            text(effect.modeled[device].verdict),
                        ]
                        for device, gain in effect.speedup.items()
                    ),
                )
            )
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
                _row_header(str(number), anchor),
                inline(c.claim),
                text(names.get(c.device, c.device)),
                f'<td class="kb-check-{"pass" if c.passed else "fail"}">'
                f"{'holds' if c.passed else 'fails'}</td>",
                text(c.detail),
            ]
        )
    return _table("Checks", ["check", "claim", "device", "verdict", "detail"], rows, "kb-checks")


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
    return _table(
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
    return _table("Related entries", ["entry", "relation"], rows, "kb-related") if rows else ""


def _references(references: Iterable[Any]) -> str:
    items = "".join(
        f'<li><a href="{text(r.link)}" rel="nofollow noopener">'
        f"{inline(r.title, keep_links=False)}</a>"
        + (f" (arXiv:{text(r.arxiv)})" if r.arxiv else "")
        + "</li>"
        for r in references
    )
    return f'<ul class="kb-references">{items}</ul>'


def _entry_link(href: str, entry: Entry) -> str:
    """A link to an entry's page, by its title (whose own links are kept as text)."""
    return f'<a href="{href}">{inline(entry.title, keep_links=False)}</a>'


def _redirect(alias: str, entry_id: str, links: Links) -> tuple[str, str]:
    """A page at a former id that sends the reader to the entry's page."""
    old = entry_page(alias)
    path = links.url(old) + "index.html" if links.directory_urls else links.url(old)
    href = links.href(old, entry_page(entry_id))
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


# --- devices ------------------------------------------------------------------------------


def _unit(parameter: str) -> str:
    """The base unit of a device figure (`B/s`, `FLOP/s`), or "" for a count."""
    dimension = parameter_dimension(parameter)
    return dimension.base_unit if dimension is not None else ""


def _source(device: Device, source_id: str) -> str:
    """A link to the source a figure names, by its title."""
    found = next((s for s in device.sources if s.id == source_id), None)
    if found is None:
        return text(source_id)
    return f'<a href="{text(found.url)}" rel="nofollow noopener">{text(found.title)}</a>'


def _figure_cell(value: float, name: str) -> str:
    """A device figure's value in its unit; a count (the scale-up domain's devices) as a
    whole number, not as a ratio's `8.0`."""
    unit = _unit(name)
    return _number_cell(value, format_quantity(value, unit) if unit else number(value))


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
    return [
        [
            f"{text(label)}, typical achieved fraction",
            _number_cell(fraction.value, number(fraction.value)),
            "fraction of the datasheet value reached in practice",
            _source(device, fraction.source),
            inline(fraction.note) if fraction.note else "",
        ]
    ]


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
        f'<li><a href="{text(s.url)}" rel="nofollow noopener">{text(s.title)}</a> '
        f"({text(s.publisher)}, {text(s.kind)}, read {text(s.read)})</li>"
        for s in device.sources
    )
    return f'<ul class="kb-sources">{items}</ul>'


def _device_page(
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
    for dtype in _dtypes(device.peak_flops):
        name = f"{PEAK_FLOPS}.{dtype}"
        ridge = _number_cell(ridges[dtype], format_quantity(ridges[dtype], "FLOP/B"))
        row = _figure_row(device, name, dtype)
        peaks.append([*row[:2], ridge, *row[2:]])
        peaks += [[*row[:2], "", *row[2:]] for row in _measured(device, name, dtype)]
    achieved = _achieved(device, PEAK_FLOPS, "every data type")
    peaks += [[*row[:2], "", *row[2:]] for row in achieved]
    body = [
        f'<h1 id="kb-title">{text(device.name)}</h1>',
        f'<p class="kb-vendor">{text(device.vendor)}</p>',
        "## Figures",
        _table("Figures", ["figure", "value", "basis", "source", "note"], figures, "kb-figures"),
        "## Ridge point per data type",
        _table(
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
        used = _dtypes(views[e.id].dtype for e, _ in placed)
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
        _table(
            "Roofline with every entry",
            ["entry", "data type", "intensity", "bound by", "lower bound"],
            (
                [
                    _entry_link(links.href(here, entry_page(e.id)), e),
                    text(views[e.id].dtype),
                    _number_cell(r.intensity, format_quantity(r.intensity, "FLOP/B")),
                    text(r.verdict),
                    _number_cell(r.time, format_seconds(r.time)),
                ]
                for e, r in placed
            ),
            "kb-device-entries",
        )
    )
    return _page(device.name, body)


def _device_index(devices: Sequence[Device], links: Links) -> str:
    dtypes = _dtypes(t for d in devices for t in d.peak_flops)
    quantities = [n for n in field_shapes() if any(n in d.quantities for d in devices)]
    rows = []
    for device in devices:
        ridges = ridge_points(device)
        row = [
            f'<a href="{links.href(DEVICES, device_page(device.id))}">{text(device.name)}</a>',
            text(device.vendor),
        ]
        for name in quantities:
            measure = device.quantities.get(name)
            row.append(_figure_cell(measure.value, name) if measure else "-")
        for dtype in dtypes:
            peak = device.peak_flops.get(dtype)
            row.append(
                _number_cell(
                    ridges[dtype],
                    f"{format_quantity(peak.value, 'FLOP/s')} / "
                    f"{format_quantity(ridges[dtype], 'FLOP/B')}",
                )
                if peak
                else "-"
            )
        rows.append(row)
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
        *(f"{t} peak / ridge (FLOP/B)" for t in dtypes),
    ]
    return _page(
        "Devices",
        [
            "# Devices",
            "Every device of the hardware catalog, side by side: dense peak FLOP/s per data "
            "type and the ridge point it gives (peak over memory bandwidth, in FLOP/B). A kernel "
            "whose intensity is below a device's ridge point is memory-bound on it.",
            _table("Devices", header, rows, "kb-device-comparison"),
        ],
    )


# --- indexes ------------------------------------------------------------------------------


def _entry_index(
    entries: Sequence[Entry],
    views: dict[str, EntryView],
    devices: Sequence[Device],
    links: Links,
    key: str,
) -> str:
    page = ENTRIES_BY_CLASS if key == "class" else ENTRIES_BY_BOUND
    titles = _schema_titles(ENTRY, key)
    group: Callable[[Entry], str] = (lambda e: e.cls) if key == "class" else (lambda e: e.bound_by)
    other = "by bound" if key == "class" else "by class"
    body = [
        "# Entries " + ("by class" if key == "class" else "by what bounds them"),
        f"{len(entries)} entries. See them also [{other}]"
        f"({posixpath.basename(ENTRIES_BY_BOUND if key == 'class' else ENTRIES_BY_CLASS)}). "
        "Verdicts are the roofline's at each entry's typical values.",
    ]
    for value, title in titles.items():
        members = [e for e in entries if group(e) == value]
        if not members:
            continue
        heading = f"{title} ({len(members)})"
        body.append(f'<h2 id="{text(value)}">{text(heading)}</h2>')
        body.append(
            _table(
                heading,
                [
                    "entry",
                    "class" if key != "class" else "bound by",
                    *(text(d.name) for d in devices),
                ],
                (
                    [
                        _entry_link(links.href(page, entry_page(e.id)), e),
                        text(e.cls if key != "class" else e.bound_by),
                        *(_verdict(views[e.id], d.id) for d in devices),
                    ]
                    for e in members
                ),
                "kb-index",
            )
        )
    return _page(body[0].removeprefix("# "), body)


def _verdict(view: EntryView, device_id: str) -> str:
    result = view.result(device_id)
    if result is None:
        return text(view.skipped.get(device_id, "not evaluated"))
    return f"{text(result.verdict)}, {text(format_seconds(result.time))}"


# --- schemas ------------------------------------------------------------------------------


def _schema_of(kind: str) -> dict[str, Any]:
    return export.export_schema() if kind == export.KIND else schema(kind)


def _published_schema(kind: str, site_url: str) -> str:
    """A schema as published on the site: its `$id` is the address it is served from."""
    published = dict(_schema_of(kind))
    if site_url:
        published["$id"] = f"{site_url.rstrip('/')}/schema/{kind}.schema.json"
    return published_text(published)


def _schema_rows(node: dict[str, Any], path: str) -> Iterable[list[str]]:
    """One row per property, depth first; the schemas are ours, so depth is small."""
    if not isinstance(node, dict):
        return
    for name, prop in node.get("properties", {}).items():
        here = f"{path}.{name}" if path else name
        required = name in node.get("required", [])
        yield [
            f'<code id="{text(here)}">{text(here)}</code>' + (" (required)" if required else ""),
            text(prop.get("title", "")),
            text(prop.get("description", "")),
            text(_allowed(prop)),
        ]
        items = prop.get("items", {})
        yield from _schema_rows(prop, here)
        yield from _schema_rows(items, f"{here}[]")
        additional = prop.get("additionalProperties")
        if isinstance(additional, dict):
            yield from _schema_rows(additional, f"{here}.*")


def _allowed(prop: dict[str, Any]) -> str:
    if "enum" in prop or ("oneOf" in prop and all("const" in o for o in prop["oneOf"])):
        return ", ".join(str(v) for v in documented(prop))
    kind = prop.get("type", "")
    return " or ".join(kind) if isinstance(kind, list) else str(kind)


def _rule_pages(links: Links) -> dict[str, str]:
    """A page per diagnostic code and their index, from each rule's own documentation (what
    `kb check --explain CODE` prints); the documentation is the project's text, not an
    entry's, so its Markdown (YAML examples in fences) is rendered as written."""
    from ..rules import REGISTRY

    rows = []
    pages = {}
    for code in sorted(REGISTRY):
        rule = REGISTRY[code]
        page = rule_page(code)
        rows.append(
            [
                f'<a href="{text(links.href(RULES, page))}">{text(code)}</a>',
                text(rule.name),
                text(rule.severity.value),
                text(rule.summary),
            ]
        )
        pages[page] = _page(
            f"{code} {rule.name}",
            [f"# {code} {rule.name}", f"*{rule.severity.value}*", rule.doc.text],
        )
    pages[RULES] = _page(
        "Diagnostic codes",
        [
            "# Diagnostic codes",
            "Every code `kb check` can report. `kb check --explain CODE` prints the same page.",
            _table("Diagnostic codes", ["code", "name", "severity", "summary"], rows, "kb-rules"),
        ],
    )
    return pages


def _schema_reference(links: Links) -> str:
    body = [
        "# Schema reference",
        "Generated from the JSON Schemas' own titles and descriptions, so it cannot drift "
        "from what `kb check` enforces. The schema files are published with the site: point "
        "an editor's YAML language server at them, or validate the JSON export.",
    ]
    for kind, heading in PUBLISHED_SCHEMAS:
        document = _schema_of(kind)
        href = links.asset(SCHEMA_REFERENCE, f"schema/{kind}.schema.json")
        body += [
            f"## {heading}",
            f"<p>{text(document.get('description', ''))} Published at "
            f'<a href="{text(href)}">schema/{kind}.schema.json</a>.</p>',
            _table(
                heading,
                ["property", "title", "description", "type or values"],
                _schema_rows(document, ""),
            ),
        ]
    body.append(
        f"<p>The whole knowledge base, with every entry evaluated on every device, is at "
        f'<a href="{text(links.asset(SCHEMA_REFERENCE, EXPORT))}">'
        f"{EXPORT}</a>.</p>"
    )
    return _page("Schema reference", body)
