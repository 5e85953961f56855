"""The answer a page gives first, before any table: for an entry, what bounds it at its typical
values and on how many devices, its lower-bound time on the featured devices (and on the
reader's own, remembered across pages), where the verdict flips, and the best modeled
workaround. The featured devices are the knowledge base's (kb.yaml); the reader's choice is
kept by `kb-device.js` in the browser."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from ...core.numbers import amount, format_seconds, times
from ...knowledge.addresses import device_page
from ...records.device import Device
from ...records.entry import Entry
from ..prose import inline, text
from ..view import Crossover, Evaluated, WorkaroundEffect, verdict_summary
from .html import Links

T = TypeVar("T")


def featured_first(items: Sequence[T], device_of: Any, featured: Sequence[str]) -> list[T]:
    """`items` with the featured devices' first, in the configuration's order, then the
    rest as they came (by id): the static order of every per-device table."""
    rank = {device: i for i, device in enumerate(featured)}
    return sorted(items, key=lambda item: rank.get(device_of(item), len(rank)))


def device_label(device: Device, href: str) -> str:
    """A device's short name linking to its page, its full name on hover."""
    return f'<a href="{text(href)}" title="{text(device.name)}">{text(device.short_name)}</a>'


def flip(crossovers: Sequence[Crossover], symbol: str | None, units: Mapping[str, str]) -> str:
    """Where the verdict flips on one device: for `symbol` (the one the page sweeps) where it
    flips in range, else the first symbol that does; '' where none does."""
    flipping = [c for c in crossovers if c.at is not None]
    chosen = next((c for c in flipping if c.symbol == symbol), flipping[0] if flipping else None)
    if chosen is None or chosen.at is None:
        return ""
    return (
        f"{chosen.below} below {chosen.symbol} = {amount(chosen.at, units.get(chosen.symbol))}, "
        f"{chosen.above} above"
    )


def best_workaround(
    entry: Entry, effects: Sequence[WorkaroundEffect], device: str
) -> tuple[int, WorkaroundEffect] | None:
    """The modeled workaround (its place among the entry's, from 0, and its effect) with the
    largest speedup on `device` at a size it fits; None when none speeds it up there."""
    modeled = [i for i, w in enumerate(entry.workarounds) if w.model]
    best: tuple[int, WorkaroundEffect] | None = None
    for index, effect in zip(modeled, effects, strict=False):
        gain = effect.speedup.get(device)
        if gain is None or gain <= 1 or not effect.modeled[device].fits:
            continue
        if best is None or gain > best[1].speedup[device]:
            best = (index, effect)
    return best


def entry_answer(
    entry: Entry,
    evaluation: Evaluated,
    devices: Mapping[str, Device],
    featured: Sequence[str],
    sweep_symbol: str | None,
    here: str,
    links: Links,
) -> str:
    """The box at the top of an entry's page."""
    results = {r.device: r for r in evaluation.results}
    if not results:
        return ""
    units = {s.symbol: s.unit or "" for s in entry.scales_with}
    shown = [d for d in featured if d in results] or list(results)[:3]

    def row(device_id: str) -> list[str]:
        result = results[device_id]
        return [
            device_label(devices[device_id], links.href(here, device_page(device_id))),
            format_seconds(result.time),
            f"{result.verdict}-bound",
            flip(evaluation.crossovers.get(device_id, ()), sweep_symbol, units) or "not in range",
        ]

    rows = "".join(
        f'<tr data-device="{text(d)}"><th scope="row">{cells[0]}</th>'
        f'<td class="kb-number">{text(cells[1])}</td><td>{text(cells[2])}</td>'
        f"<td>{text(cells[3])}</td></tr>"
        for d in shown
        for cells in [row(d)]
    )
    # Every device's row as data, for the reader's own device (kb-device.js writes its row
    # with textContent: nothing here becomes markup).
    every = {
        d: {
            "name": devices[d].short_name,
            "title": devices[d].name,
            "href": links.at_run_time(here, links.url(device_page(d))),  # for kb-device.js
            "cells": row(d)[1:],
        }
        for d in results
    }
    lines = [
        f'<p class="kb-answer-verdict"><strong>{text(verdict_summary(list(results.values())))}'
        "</strong> at the typical values.</p>",
        f'<div class="kb-answer-table" data-kb-rows="{text(json.dumps(every))}">'
        '<table aria-label="Lower bound on the featured devices"><thead><tr>'
        '<th scope="col">device</th><th scope="col">lower bound</th>'
        '<th scope="col">bound by</th><th scope="col">where it flips</th>'
        f"</tr></thead><tbody>{rows}</tbody></table></div>",
        _workaround_line(entry, evaluation, devices, shown[0]),
    ]
    return '<section class="kb-answer" aria-label="The answer">' + "".join(lines) + "</section>"


def _workaround_line(
    entry: Entry, evaluation: Evaluated, devices: Mapping[str, Device], device: str
) -> str:
    best = best_workaround(entry, evaluation.workarounds, device)
    if best is None:
        return ""
    index, effect = best
    modeled = effect.modeled[device]
    return (
        '<p class="kb-answer-workaround">Best modeled workaround: '
        f'<a href="#workaround-{index + 1}">{inline(entry.workarounds[index].title)}</a>, '
        f"{text(times(effect.speedup[device]))} on {text(devices[device].short_name)} "
        f"(lower bound {text(format_seconds(modeled.time))}, {text(modeled.verdict)}-bound).</p>"
    )
