"""The indexes of entries, by class and by what bounds them, with each entry's verdict on every
device."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence

from ...knowledge.addresses import (
    ENTRIES_BY_BOUND,
    ENTRIES_BY_CLASS,
    entry_page,
)
from ...records.device import Device
from ...records.entry import Entry
from ...schemas import ENTRY
from ..prose import text
from ..view import (
    EntryView,
    format_seconds,
)
from .entry_pages import entry_link
from .html import Links, markdown_page, schema_titles, table


def render_entry_index(
    entries: Sequence[Entry],
    views: dict[str, EntryView],
    devices: Sequence[Device],
    links: Links,
    key: str,
) -> str:
    page = ENTRIES_BY_CLASS if key == "class" else ENTRIES_BY_BOUND
    titles = schema_titles(ENTRY, key)
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
            table(
                heading,
                [
                    "entry",
                    "class" if key != "class" else "bound by",
                    *(text(d.name) for d in devices),
                ],
                (
                    [
                        entry_link(links.href(page, entry_page(e.id)), e),
                        text(e.cls if key != "class" else e.bound_by),
                        *(_verdict(views[e.id], d.id) for d in devices),
                    ]
                    for e in members
                ),
                "kb-index",
            )
        )
    return markdown_page(body[0].removeprefix("# "), body)


def _verdict(view: EntryView, device_id: str) -> str:
    result = view.result(device_id)
    if result is None:
        return text(view.skipped.get(device_id, "not evaluated"))
    return f"{text(result.verdict)}, {text(format_seconds(result.time))}"
