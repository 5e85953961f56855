"""The indexes of entries, by class and by what bounds them, with each entry's verdict on every
device."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...knowledge.addresses import (
    ENTRIES_BY_BOUND,
    ENTRIES_BY_CLASS,
    entry_page,
)
from ...records.device import Device
from ...records.entry import Entry
from ...schemas import BUILT_IN, ENTRY, Words
from ..prose import text
from ..view import (
    EntryView,
    format_seconds,
    verdict_summary,
)
from .entry_pages import entry_link
from .html import SORT_SCRIPT, Links, markdown_page, number_cell, schema_titles, table


def render_entry_index(
    entries: Sequence[Entry],
    views: dict[str, EntryView],
    devices: Sequence[Device],
    links: Links,
    key: str,
    featured: Sequence[str] = (),
    words: Words = BUILT_IN,
) -> str:
    """Each entry with its verdicts summed over the catalog and its lower bound on the
    featured devices (every device's is on the entry's page): a table that fits the column.
    Classes are titled as the schema, with the knowledge base's own `words`, titles them."""
    page = ENTRIES_BY_CLASS if key == "class" else ENTRIES_BY_BOUND
    titles = schema_titles(ENTRY, key, words)
    group: Callable[[Entry], str] = (lambda e: e.cls) if key == "class" else (lambda e: e.bound_by)
    other = "by bound" if key == "class" else "by class"
    by_id = {d.id: d for d in devices}
    shown = [by_id[d] for d in featured if d in by_id]
    body = [
        "# Entries " + ("by class" if key == "class" else "by what bounds them"),
        f"{len(entries)} entries. See them also "
        f'<a href="{links.href(page, ENTRIES_BY_BOUND if key == "class" else ENTRIES_BY_CLASS)}">'
        f"{other}</a>. "
        "Verdicts are the roofline's at each entry's typical values, on every device of the "
        "catalog; the lower bound is on the featured devices (each entry's page has every "
        "device's). A column's heading sorts by it.",
    ]
    for value, title in titles.items():
        members = [e for e in entries if group(e) == value]
        if not members:
            continue
        heading = f"{title} ({len(members)})"
        body.append(f'<h2 id="{text(value)}">{text(heading)}</h2>')
        body.append(
            table(
                heading,
                [
                    "entry",
                    "class" if key != "class" else "bound by",
                    "verdicts",
                    *(f'<span title="{text(d.name)}">{text(d.short_name)}</span>' for d in shown),
                ],
                (
                    [
                        entry_link(links.href(page, entry_page(e.id)), e),
                        text(e.cls if key != "class" else e.bound_by),
                        _verdicts(views[e.id]),
                        *(_lower_bound(views[e.id], d.id) for d in shown),
                    ]
                    for e in members
                ),
                "kb-index kb-sortable",
            )
        )
    body.append(f'<script src="{links.asset(page, SORT_SCRIPT)}"></script>')
    return markdown_page(body[0].removeprefix("# "), body)


def _verdicts(view: EntryView) -> str:
    """The verdicts on every device it was evaluated on, counted: `memory-bound on all 23
    devices`."""
    if view.evaluation is None or not view.evaluation.results:
        return text(view.error or "not evaluated")
    return text(verdict_summary(view.evaluation.results))


def _lower_bound(view: EntryView, device_id: str) -> str:
    result = view.result(device_id)
    if result is None:
        return text(view.skipped.get(device_id, "not evaluated"))
    # The time alone (the verdicts column says what bounds it), its verdict on hover.
    return number_cell(result.time, format_seconds(result.time), title=f"{result.verdict}-bound")
