"""Whether an entry's formulas are defined at every value a command may give its symbols.

A symbol's range is its domain: `kb eval --set` may pick any value in it, for several symbols
at once, and a crossover search then sweeps another, so every point of the box the ranges
span can be evaluated. Sampling cannot cover a box; interval arithmetic can. The formulas are
bounded over the whole box (FLOPs >= 0, bytes > 0, a finite intensity, the other roofs' demands
>= 0, derived values finite), device figures spanning the catalog's values. Where the bounds
are too loose to show it (a symbol that appears twice, as in `2 * N - N`), the box is split,
within a fixed budget of boxes that does not depend on the machine. A box that still fails is
searched for a concrete point where evaluation fails, so the error names values; if none is
found the entry is still refused, saying which formula could not be shown defined where.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from .formula import Bounds, Formula
from .intervals import Box, bounds
from .model import Device, Entry, WrittenFormula
from .numbers import number
from .roofline import EvaluationError, Formulas, device_figures, on_device, work

#: Boxes one setting (the entry, or one workaround) may be split into before giving up.
MAX_BOXES = 64
#: Corners of a failing box tried for a concrete counterexample (its centre too).
MAX_CORNERS = 64


@dataclass(frozen=True, slots=True)
class Obligation:
    """A formula and what it must be over the box: `positive`, `nonnegative` or `finite`."""

    name: str
    parsed: Formula
    written: WrittenFormula
    must_be: str


@dataclass(frozen=True, slots=True)
class Unproven:
    """Where the formulas could not be shown defined: the formula, what it had to be, the
    box that was left, and a concrete failure found there, if any."""

    obligation: Obligation
    box: Box
    failure: EvaluationError | None


def symbol_box(entry: Entry, pinned: Mapping[str, float] | None = None) -> dict[str, Bounds]:
    """Every value a command may give each symbol: its range, or its typical value alone;
    `pinned` symbols (a workaround's settings) at their one value."""
    box: dict[str, Bounds] = {}
    for symbol in entry.scales_with:
        if symbol.range is not None:
            box[symbol.symbol] = symbol.range
        elif symbol.typical is not None:
            box[symbol.symbol] = (symbol.typical, symbol.typical)
    box.update({name: (value, value) for name, value in (pinned or {}).items()})
    return box


def figure_point(entry: Entry, device: Device) -> dict[str, Bounds]:
    """The device's figures, each a one-point interval: figures vary between devices, not
    within one, and boxing them together would pair one device's peak with another's
    bandwidth."""
    box: dict[str, Bounds] = {}
    dtype = entry.intensity.dtype
    for name in device_figures():
        key = f"peak_flops.{dtype}" if name == "peak_flops" else name
        measure = device.parameter(key)
        if measure is not None:
            box[name] = (measure.value, measure.value)
    return box


def _obligations(entry: Entry, formulas: Formulas, index: int | None) -> list[Obligation]:
    flops, bytes_ = formulas.flops, formulas.bytes
    flops_written, bytes_written = entry.intensity.flops, entry.intensity.bytes
    others = {n: (f, getattr(entry.intensity, n)) for n, f in formulas.others.items()}
    if index is not None:
        model = entry.workarounds[index].model
        assert model is not None
        new_flops, new_bytes = formulas.workaround[index]
        if new_flops is not None and model.flops is not None:
            flops, flops_written = new_flops, model.flops
        if new_bytes is not None and model.bytes is not None:
            bytes_, bytes_written = new_bytes, model.bytes
        for name, parsed in formulas.workaround_others[index].items():
            others[name] = (parsed, getattr(model, name))
    found = [
        Obligation("flops", flops, flops_written, "nonnegative"),
        Obligation("bytes", bytes_, bytes_written, "positive"),
    ]
    found += [Obligation(n, f, w, "nonnegative") for n, (f, w) in others.items()]
    found += [
        Obligation(name, parsed, item.formula, "finite")
        for (name, parsed), item in zip(formulas.derived, entry.derived, strict=True)
    ]
    return found


def _failing(obligations: Sequence[Obligation], box: Box) -> Obligation | None:
    """The first obligation the bounds over `box` cannot show, or None."""
    known = dict(box)
    flops: Bounds | None = None
    for obligation in obligations:
        if not obligation.parsed.symbols <= known.keys():
            return obligation
        found = bounds(obligation.parsed, known)
        if found is None:
            return obligation
        low = found[0]
        if (obligation.must_be == "positive" and low <= 0) or (
            obligation.must_be == "nonnegative" and low < 0
        ):
            return obligation
        if obligation.name == "flops":
            flops = found
        if obligation.name == "bytes" and flops is not None and not math.isfinite(flops[1] / low):
            return obligation
        if obligation.must_be == "finite":
            known[obligation.name] = found
    return None


def _split(box: Box, names: Sequence[str]) -> tuple[Box, Box] | None:
    """`box` halved along its widest symbol (geometrically where it spans decades)."""
    widest, width, cut = None, 0.0, 0.0
    for name in names:
        lo, hi = box[name]
        if lo == hi:
            continue
        if lo > 0 and hi / lo > 4:
            relative, middle = math.log(hi / lo), math.sqrt(lo * hi)
        else:
            relative = (hi - lo) / max(abs(lo), abs(hi), 1e-300)
            middle = lo + (hi - lo) / 2
        if relative > width and lo < middle < hi:
            widest, width, cut = name, relative, middle
    if widest is None:
        return None
    lo, hi = box[widest]
    return {**box, widest: (lo, cut)}, {**box, widest: (cut, hi)}


def _prove(obligations: Sequence[Obligation], box: Box, names: Sequence[str]) -> Unproven | None:
    pending = [box]
    tried = 0
    while pending:
        current = pending.pop()
        tried += 1
        failing = _failing(obligations, current)
        if failing is None:
            continue
        # Split along what the failing formula reads, so the budget is not spent on
        # symbols it ignores (a derived one may read any symbol through earlier ones).
        reads = [n for n in names if n in failing.parsed.symbols]
        if failing.must_be == "finite" or not reads:
            reads = list(names)
        halves = _split(current, reads) if tried < MAX_BOXES else None
        if halves is None:
            return Unproven(failing, current, None)
        pending.extend(halves)
    return None


def _corners(box: Box, names: Sequence[str]) -> Iterator[dict[str, float]]:
    """The box's corners (the ends of ranges, values a reader recognises), then its centre."""
    varying = [n for n in names if box[n][0] != box[n][1]]
    for ends in itertools.islice(itertools.product((0, 1), repeat=len(varying)), MAX_CORNERS):
        point = {n: box[n][0] for n in names}
        point.update({n: box[n][end] for n, end in zip(varying, ends, strict=True)})
        yield point
    yield {n: (box[n][0] + box[n][1]) / 2 for n in names}


def _counterexample(
    entry: Entry,
    formulas: Formulas,
    index: int | None,
    boxes: Sequence[Box],
    devices: Sequence[Device],
) -> EvaluationError | None:
    """The first point of `boxes` (corners first) where evaluating the entry fails."""
    names = [s.symbol for s in entry.scales_with if s.symbol in boxes[0]]
    for point in itertools.chain.from_iterable(_corners(box, names) for box in boxes):
        try:
            done = work(entry, formulas, point, index)
            for device in devices:
                on_device(entry, formulas, device, done)
        except EvaluationError as exc:
            shown = ", ".join(f"{n}={number(v)}" for n, v in sorted(point.items()))
            if " at " not in exc.message:
                exc.message = f"{exc.message} at {shown}"
            return exc
    return None


def unproven(entry: Entry, formulas: Formulas, devices: Sequence[Device]) -> Unproven | None:
    """None when every formula of the entry and of each workaround is shown defined over the
    ranges, on each of `devices` where formulas read device figures; else where it could not
    be, with a concrete failure when one was found."""
    settings: list[int | None] = [None]
    settings += [i for i, w in enumerate(entry.workarounds) if w.model is not None]
    shown: list[tuple[dict[str, Bounds], list[tuple[Formula, str]]]] = []
    for index in settings:
        model = entry.workarounds[index].model if index is not None else None
        symbols = symbol_box(entry, model.overrides if model is not None else None)
        names = [s.symbol for s in entry.scales_with if s.symbol in symbols]
        obligations = _obligations(entry, formulas, index)
        claims = [(o.parsed, o.must_be) for o in obligations]
        # A workaround that only sets values within the ranges asks what the entry's own
        # proof already showed for the whole box: what holds on a box holds on a part of it.
        if any(claims == done and _inside(symbols, box) for box, done in shown):
            continue
        shown.append((symbols, claims))
        # What reads no device figure is proven once for every device; what does, on each
        # device's own figures (derived values that feed those come along).
        per_device = _reading_figures(obligations)
        places: list[tuple[Device | None, dict[str, Bounds], list[Obligation]]] = [
            (None, {}, [o for o in obligations if o not in per_device])
        ]
        if per_device:
            dependent = [o for o in obligations if o in per_device or o.must_be == "finite"]
            places += [(d, figure_point(entry, d), dependent) for d in devices]
        for device, figures, obligations in places:
            whole = {**figures, **symbols}
            found = _prove(obligations, whole, names)
            if found is not None:
                # The ranges' own ends first: a failure there reads best.
                tried = devices if device is None else [device]
                failure = _counterexample(entry, formulas, index, [whole, found.box], tried)
                return Unproven(found.obligation, found.box, failure)
    return None


def _inside(inner: Mapping[str, Bounds], outer: Mapping[str, Bounds]) -> bool:
    """Whether the box `inner` lies within `outer`, symbol by symbol."""
    return inner.keys() == outer.keys() and all(
        outer[name][0] <= low and high <= outer[name][1] for name, (low, high) in inner.items()
    )


def _reading_figures(obligations: Sequence[Obligation]) -> list[Obligation]:
    """The obligations whose formulas read a device figure, directly or through a derived
    value that does."""
    reading: list[Obligation] = []
    names = set(device_figures())
    for obligation in obligations:
        if obligation.parsed.symbols & names:
            reading.append(obligation)
            if obligation.must_be == "finite":  # a derived value others may read
                names.add(obligation.name)
    return reading


def describe_box(box: Box, names: Sequence[str]) -> str:
    """`a in [0, 0.5], b=1`: the symbols' part of a box."""
    parts = []
    for name in names:
        lo, hi = box[name]
        shown = number(lo) if lo == hi else f"in [{number(lo)}, {number(hi)}]"
        parts.append(f"{name}={shown}" if lo == hi else f"{name} {shown}")
    return ", ".join(parts)
