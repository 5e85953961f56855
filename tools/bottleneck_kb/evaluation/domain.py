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
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from ..core.numbers import number
from ..maths.formula import Bounds, Formula
from ..maths.intervals import Box, bounds
from ..records.device import Device
from ..records.entry import Entry, WrittenFormula
from .evaluator import Evaluator
from .formulas import EvaluationError, Formulas
from .result import BASES, Basis, basis_figure
from .roofs import ROOFS, device_figures

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


#: A device's figures on each basis, as figure_points gives them.
FigurePoints = list[tuple[Basis, dict[str, Bounds]]]


def figure_points(entry: Entry, device: Device) -> FigurePoints:
    """The device's figures on each basis a command may evaluate on (datasheet, measured,
    derated), each figure a one-point interval, bases that give the same figures once.
    Figures vary between devices, not within one, and boxing them together would pair one
    device's peak with another's bandwidth."""
    points: FigurePoints = []
    dtype = entry.intensity.dtype
    for basis in BASES:
        box: dict[str, Bounds] = {}
        for name in device_figures():
            key = f"peak_flops.{dtype}" if name == "peak_flops" else name
            measure = device.parameter(key)
            if measure is not None:
                value, _ = basis_figure(device, key, measure.value, basis)
                box[name] = (value, value)
        if all(box != seen for _, seen in points):
            points.append((basis, box))
    return points


def _obligations(entry: Entry, formulas: Formulas, index: int | None) -> list[Obligation]:
    flops, bytes_ = formulas.flops, formulas.bytes
    flops_written, bytes_written = entry.intensity.flops, entry.intensity.bytes
    others = {n: (f, entry.intensity.others[n]) for n, f in formulas.others.items()}
    if index is not None:
        model = entry.workarounds[index].model
        assert model is not None
        new_flops, new_bytes = formulas.workaround[index]
        if new_flops is not None and model.flops is not None:
            flops, flops_written = new_flops, model.flops
        if new_bytes is not None and model.bytes is not None:
            bytes_, bytes_written = new_bytes, model.bytes
        for name, parsed in formulas.workaround_others[index].items():
            others[name] = (parsed, model.others[name])
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


def _failing(
    obligations: Sequence[Obligation], box: Box
) -> tuple[Obligation | None, dict[str, Bounds]]:
    """The first obligation the bounds over `box` cannot show, or None and the bounds of
    every obligation."""
    known = dict(box)
    found_bounds: dict[str, Bounds] = {}
    flops: Bounds | None = None
    for obligation in obligations:
        if not obligation.parsed.symbols <= known.keys():
            return obligation, found_bounds
        found = bounds(obligation.parsed, known)
        if found is None:
            return obligation, found_bounds
        low = found[0]
        if (obligation.must_be == "positive" and low <= 0) or (
            obligation.must_be == "nonnegative" and low < 0
        ):
            return obligation, found_bounds
        if obligation.name == "flops":
            flops = found
        if obligation.name == "bytes" and flops is not None and not math.isfinite(flops[1] / low):
            return obligation, found_bounds
        if obligation.must_be == "finite":
            known[obligation.name] = found
        found_bounds[obligation.name] = found
    return None, found_bounds


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


def _prove(
    obligations: Sequence[Obligation], box: Box, names: Sequence[str]
) -> tuple[Unproven | None, dict[str, Bounds]]:
    """Where the obligations could not be shown over `box`, or None and each obligation's
    bounds over the whole box (the hull of its bounds over the parts it was split into)."""
    pending = [box]
    tried = 0
    hull: dict[str, Bounds] = {}
    while pending:
        current = pending.pop()
        tried += 1
        failing, found = _failing(obligations, current)
        if failing is None:
            if not hull:  # the whole box at once, most often
                hull = found
                continue
            for name, (low, high) in found.items():
                known = hull[name]
                hull[name] = (min(known[0], low), max(known[1], high))
            continue
        # Split along what the failing formula reads, so the budget is not spent on
        # symbols it ignores (a derived one may read any symbol through earlier ones).
        reads = [n for n in names if n in failing.parsed.symbols]
        if failing.must_be == "finite" or not reads:
            reads = list(names)
        halves = _split(current, reads) if tried < MAX_BOXES else None
        if halves is None:
            return Unproven(failing, current, None), hull
        pending.extend(halves)
    return None, hull


def _corners(box: Box, names: Sequence[str]) -> Iterator[dict[str, float]]:
    """The box's corners (the ends of ranges, values a reader recognises), then its centre."""
    varying = [n for n in names if box[n][0] != box[n][1]]
    for ends in itertools.islice(itertools.product((0, 1), repeat=len(varying)), MAX_CORNERS):
        point = {n: box[n][0] for n in names}
        point.update({n: box[n][end] for n, end in zip(varying, ends, strict=True)})
        yield point
    yield {n: (box[n][0] + box[n][1]) / 2 for n in names}


def _counterexample(
    evaluator: Evaluator,
    index: int | None,
    boxes: Sequence[Box],
    devices: Sequence[Device],
    basis: Basis,
) -> EvaluationError | None:
    """The first point of `boxes` (corners first) where evaluating the entry on `basis`
    fails; on figures other than the datasheet's, the message says on which."""
    names = [s.symbol for s in evaluator.entry.scales_with if s.symbol in boxes[0]]
    for point in itertools.chain.from_iterable(_corners(box, names) for box in boxes):
        on = None
        try:
            done = evaluator.work(point, index)
            for device in devices:
                on = device.id
                evaluator.on(device, done, basis)
        except EvaluationError as exc:
            shown = ", ".join(f"{n}={number(v)}" for n, v in sorted(point.items()))
            if " at " not in exc.message:
                exc.message = f"{exc.message} at {shown}"
            if on is not None and basis != BASES[0]:
                exc.message = f"{exc.message} on {on}'s {basis.words} figures"
            return exc
    return None


#: Largest ratio taken as a number whatever rounding does to the times it divides.
_ROOM = sys.float_info.max / 4
#: Fewest bytes whose time on any finite bandwidth is a normal number (about 4).
_FEWEST_BYTES = sys.float_info.min * sys.float_info.max

#: Where a proof was made: everywhere (None), or on one device's figures on one basis.
_Place = tuple[str, int] | None


def unproven(evaluator: Evaluator, devices: Sequence[Device]) -> Unproven | None:
    """None when every formula of the entry and of each workaround is shown defined over the
    ranges, on each of `devices` and each basis of figures where formulas read device
    figures, and each workaround's time and bytes have a ratio to the entry's that is a
    number; else where it could not be, with a concrete failure when one was found."""
    entry, formulas = evaluator.entry, evaluator.formulas
    settings: list[int | None] = [None]
    settings += [i for i, w in enumerate(entry.workarounds) if w.model is not None]
    shown: list[tuple[dict[str, Bounds], list[tuple[Formula, str]], dict[_Place, Box]]] = []
    hulls: dict[int | None, dict[_Place, Box]] = {}
    known: dict[str, FigurePoints] = {}

    def points(device: Device) -> FigurePoints:
        """The device's figure points, worked out once for the entry (they read its dtype)."""
        if device.id not in known:
            known[device.id] = figure_points(entry, device)
        return known[device.id]

    for index in settings:
        model = entry.workarounds[index].model if index is not None else None
        symbols = symbol_box(entry, model.overrides if model is not None else None)
        names = [s.symbol for s in entry.scales_with if s.symbol in symbols]
        obligations = _obligations(entry, formulas, index)
        claims = [(o.parsed, o.must_be) for o in obligations]
        # A workaround that only sets values within the ranges asks what the entry's own
        # proof already showed for the whole box: what holds on a box holds on a part of it.
        covering = [h for box, done, h in shown if claims == done and _inside(symbols, box)]
        if covering:
            hulls[index] = covering[0]
            continue
        proven: dict[_Place, Box] = {}
        hulls[index] = proven
        shown.append((symbols, claims, proven))
        # What reads no device figure is proven once for every device; what does, on each
        # device's own figures (derived values that feed those come along).
        per_device = _reading_figures(obligations)
        places: list[tuple[_Place, list[Device], Basis, dict[str, Bounds], list[Obligation]]]
        places = [
            (None, list(devices), BASES[0], {}, [o for o in obligations if o not in per_device])
        ]
        if per_device:
            dependent = [o for o in obligations if o in per_device or o.must_be == "finite"]
            places += [
                ((d.id, i), [d], basis, figures, dependent)
                for d in devices
                for i, (basis, figures) in enumerate(points(d))
            ]
        for place, tried, basis, figures, obligations in places:
            whole = {**figures, **symbols}
            found, proven[place] = _prove(obligations, whole, names)
            if found is not None:
                # The ranges' own ends first: a failure there reads best.
                failure = _counterexample(evaluator, index, [whole, found.box], tried, basis)
                return Unproven(found.obligation, found.box, failure)
    for index in settings[1:]:
        assert index is not None
        found = _unbounded_ratio(entry, formulas, index, hulls[None], hulls[index], devices, points)
        if found is not None:
            return found
    return None


def _unbounded_ratio(
    entry: Entry,
    formulas: Formulas,
    index: int,
    entry_hulls: Mapping[_Place, Box],
    workaround_hulls: Mapping[_Place, Box],
    devices: Sequence[Device],
    points: Callable[[Device], FigurePoints],
) -> Unproven | None:
    """Where workaround `index`'s time or bytes could be so small against the entry's that
    their ratio, which `kb eval` shows, is past the largest float, or None. The entry's time
    is bounded above by its slowest roof's time, and the workaround's below by the same."""
    model = entry.workarounds[index].model
    assert model is not None
    if not devices:
        return None  # no device to evaluate on, so no ratio to show
    if entry_hulls.keys() == workaround_hulls.keys() == {None}:
        ours, theirs = entry_hulls[None], workaround_hulls[None]
        # Each roof's time over the same roof's time of the workaround: the device's figure
        # cancels, so where every such ratio is a number with room to spare, the ratios are
        # numbers on every device and basis. Bytes past float min times float max keep the
        # workaround's memory time a normal number on any finite bandwidth.
        quantities = [roof.quantity for roof in ROOFS if roof.quantity in ours]
        if theirs["bytes"][0] >= _FEWEST_BYTES and all(
            theirs[q][0] > 0 and ours[q][1] / theirs[q][0] <= _ROOM for q in quantities
        ):
            return None
    where = model.bytes or entry.intensity.bytes
    for device in devices:
        for place, (basis, figures) in enumerate(points(device)):
            ours = {**entry_hulls.get(None, {}), **entry_hulls.get((device.id, place), {})}
            theirs = {
                **workaround_hulls.get(None, {}),
                **workaround_hulls.get((device.id, place), {}),
            }
            slowest = max(
                ours[roof.quantity][1] / (figures[roof.figure][0] if roof.figure else 1.0)
                for roof in ROOFS
                if roof.quantity in ours
            )
            fastest = max(
                theirs[roof.quantity][0] / (figures[roof.figure][0] if roof.figure else 1.0)
                for roof in ROOFS
                if roof.quantity in theirs
            )
            for what, base, modeled in (
                ("time", slowest, fastest),
                ("bytes", ours["bytes"][1], theirs["bytes"][0]),
            ):
                if modeled > 0 and math.isfinite(base / modeled):
                    continue
                on = f"{device.id}" + ("" if basis == BASES[0] else f" ({basis.words})")
                unit = " s" if what == "time" else " B"
                failure = EvaluationError(
                    f"the workaround's modeled {what} can be as small as {number(modeled)}{unit} "
                    f"on {on}, too small against the entry's (up to {number(base)}{unit}) for "
                    "their ratio to be a number",
                    where,
                )
                obligation = next(
                    o for o in _obligations(entry, formulas, index) if o.name == "bytes"
                )
                return Unproven(obligation, symbol_box(entry, model.overrides), failure)
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
