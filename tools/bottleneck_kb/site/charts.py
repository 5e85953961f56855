"""Static SVG charts, drawn at build time and inlined in the page.

Colours come from CSS (`currentColor` and classes styled in the site's stylesheet), so a chart
follows the light or dark palette the reader chose; every axis is labelled with its unit.
Every text in a chart is escaped: device names and entry titles are contributors' text.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from .prose import text
from .view import format_quantity, number

WIDTH, HEIGHT = 640, 360
LEFT, RIGHT, TOP, BOTTOM = 100, 24, 16, 48
#: Ridge lines labelled on an entry's chart when there are more devices than this: two.
MAX_LABELLED = 4
#: The least distance between two ridge labels' baselines, in the chart's units.
LABEL_GAP = 13


#: Most ticks on a logarithmic axis: past it, every k-th decade is marked (1e-300 to 1e300
#: would be 601 labels on 516 pixels).
MAX_LOG_TICKS = 8
#: Decades a float reaches: 10 ** 309 is past the largest, 10 ** -324 below the smallest.
_DECADES = range(-323, 309)


@dataclass(frozen=True)
class Axis:
    label: str
    low: float
    high: float
    log: bool

    def position(self, value: float, start: float, end: float) -> float:
        if self.log:
            low, high, value = math.log10(self.low), math.log10(self.high), math.log10(value)
            span = (high - low) or 1.0
            return start + (value - low) / span * (end - start)
        # Halved first: the span of [-1e308, 1e308] is past the largest float.
        span = (self.high / 2 - self.low / 2) or 1.0
        return start + (value / 2 - self.low / 2) / span * (end - start)

    def ticks(self) -> list[float]:
        if self.log:
            first, last = math.floor(math.log10(self.low)), math.ceil(math.log10(self.high))
            every = max(1, math.ceil((last - first) / MAX_LOG_TICKS))
            powers = (10.0**p for p in range(first, last + 1, every) if p in _DECADES)
            return [t for t in powers if self.low <= t <= self.high]
        step = _nice_step(self.high / 5 - self.low / 5)
        # Multiples of the step, each a product: a sum of steps may pass the largest float.
        return [
            k * step for k in range(math.ceil(self.low / step), math.floor(self.high / step) + 1)
        ]


def _nice_step(raw: float) -> float:
    if raw <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def axis(label: str, values: Sequence[float], log_if_decades: bool = True) -> Axis:
    """An axis spanning `values`, logarithmic when they span two decades or more; whatever
    they are, its ends and ticks are floats (an intensity of 1e308 padded by 4 is not)."""
    largest = sys.float_info.max
    low, high = max(min(values), -largest), min(max(values), largest)
    if low > 0 and high / low >= 100 and log_if_decades:
        first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
        return Axis(
            label,
            10.0**first if first in _DECADES else low,
            10.0**last if last in _DECADES else high,
            True,
        )
    if low == high:
        low, high = low * 0.5 if low > 0 else low - 1, high * 1.5 if high > 0 else high + 1
        low, high = max(low, -largest), min(high, largest)
    margin = high / 20 - low / 20
    lower = max(0.0, low - margin) if low >= 0 else max(low - margin, -largest)
    return Axis(label, lower, min(high + margin, largest), False)


def _tick_label(value: float, unit: str) -> str:
    """A tick's number: in its unit with an SI prefix, or a count past 10,000 with one
    (`100k`, `1M`): a seven-digit label runs past the chart's edge."""
    if unit:
        return format_quantity(value, unit).strip()
    if abs(value) >= 1e4:
        for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
            if abs(value) >= scale and abs(value) / scale < 1000:
                return f"{number(value / scale)}{prefix}"
    return number(value)


def canvas_y(y: Axis, value: float) -> float:
    """Where `value` lies on a chart's vertical axis `y`, as `_Canvas.py` places it."""
    return y.position(value, HEIGHT - BOTTOM, TOP)


class _Canvas:
    def __init__(
        self, x: Axis, y: Axis, x_unit: str, y_unit: str, title: str, description: str = ""
    ) -> None:
        self.x, self.y, self.title = x, y, title
        # The description is the chart in words, for a screen reader (and for a reader whose
        # colours do not tell the lines apart).
        desc = f"<desc>{text(description)}</desc>" if description else ""
        self.parts = [
            f'<svg class="kb-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
            f'xmlns="http://www.w3.org/2000/svg"><title>{text(title)}</title>{desc}'
        ]
        self._axes(x_unit, y_unit)

    def px(self, value: float) -> float:
        return self.x.position(value, LEFT, WIDTH - RIGHT)

    def py(self, value: float) -> float:
        return canvas_y(self.y, value)

    def _axes(self, x_unit: str, y_unit: str) -> None:
        bottom, right = HEIGHT - BOTTOM, WIDTH - RIGHT
        add = self.parts.append
        add(f'<g class="kb-axis"><line x1="{LEFT}" y1="{bottom}" x2="{right}" y2="{bottom}"/>')
        add(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}"/>')
        for tick in self.x.ticks():
            at = self.px(tick)
            add(f'<line class="kb-grid" x1="{at:.1f}" y1="{TOP}" x2="{at:.1f}" y2="{bottom}"/>')
            add(
                f'<text x="{at:.1f}" y="{bottom + 16}" text-anchor="middle">'
                f"{text(_tick_label(tick, x_unit))}</text>"
            )
        for tick in self.y.ticks():
            at = self.py(tick)
            add(f'<line class="kb-grid" x1="{LEFT}" y1="{at:.1f}" x2="{right}" y2="{at:.1f}"/>')
            add(
                f'<text x="{LEFT - 6}" y="{at + 4:.1f}" text-anchor="end">'
                f"{text(_tick_label(tick, y_unit))}</text>"
            )
        add(
            f'<text class="kb-axis-label" x="{(LEFT + right) / 2:.1f}" y="{HEIGHT - 8}" '
            f'text-anchor="middle">{text(self.x.label)}</text>'
        )
        add(
            f'<text class="kb-axis-label" transform="translate(14 {(TOP + bottom) / 2:.1f}) '
            f'rotate(-90)" text-anchor="middle">{text(self.y.label)}</text></g>'
        )

    def svg(self) -> str:
        """The chart in its box, which it scrolls in where the column is narrower than the
        chart's least width (the stylesheet's): focusable, so that a keyboard scrolls it too,
        and named."""
        parts = "".join([*self.parts, "</svg>"])
        if "<a " in parts:
            # A chart whose marks are links is no image: an image's children are presentation,
            # and its links would be unreachable to a screen reader.
            parts = parts.replace('role="img"', 'role="group"', 1)
        return (
            f'<div class="kb-chart-box" tabindex="0" role="group" '
            f'aria-label="{text(self.title)} chart">' + parts + "</div>"
        )


@dataclass(frozen=True)
class Ridge:
    device: str
    ridge: float
    crossover: float | None
    #: A featured device's (kb.yaml): drawn in colour and labelled; the others are grey
    #: lines that name their device on hover.
    featured: bool = False


def intensity_chart(
    symbol: str,
    unit: str | None,
    log: bool,
    points: Sequence[tuple[float, float]],
    ridges: Sequence[Ridge],
) -> str:
    """An entry's intensity across its main symbol's range against each device's ridge
    point: the featured devices' in colour, labelled, with a labelled mark where the curve
    crosses them; the others grey, named on hover. Without featured devices, the lowest and
    highest ridges are the labelled ones."""
    xs = [x for x, _ in points]
    ys = [y for _, y in points] + [r.ridge for r in ridges]
    x = axis(f"{symbol}" + (f" ({unit})" if unit else ""), xs, log_if_decades=log)
    y = axis("arithmetic intensity (FLOP/B)", ys)
    order = sorted(range(len(ridges)), key=lambda i: ridges[i].ridge)
    featured = [i for i in range(len(ridges)) if ridges[i].featured]
    if featured:
        labelled = featured
    elif len(ridges) <= MAX_LABELLED:
        labelled = list(range(len(ridges)))
    else:
        labelled = [order[0], order[-1]]
    low, high = min(ys[: len(points)]), max(ys[: len(points)])
    said = [
        f"Intensity from {format_quantity(low, 'FLOP/B')} to {format_quantity(high, 'FLOP/B')} "
        f"as {symbol} goes from {number(xs[0])} to {number(xs[-1])}."
    ]
    for index in labelled:
        ridge = ridges[index]
        flips = (
            f", crossed at {symbol} = {number(ridge.crossover)}"
            if ridge.crossover is not None
            else ", not crossed in range"
        )
        said.append(f"{ridge.device}: ridge {format_quantity(ridge.ridge, 'FLOP/B')}{flips}.")
    canvas = _Canvas(x, y, "", "", f"Arithmetic intensity against {symbol}", " ".join(said))
    add = canvas.parts.append
    # Labels alternate below and above their lines from the highest, which is above: close
    # ridges would overlap.
    colour = {index: k for k, index in enumerate(labelled)}
    # Each label just above its line, pushed down where it would overlap the one above it:
    # close ridges (292 and 295 FLOP/B) would write over each other. Colour is not the only
    # cue: each label names its device.
    label_y: dict[int, float] = {}
    for index in sorted(labelled, key=lambda i: -ridges[i].ridge):
        wanted = canvas_y(y, ridges[index].ridge) - 4
        floor = max(label_y.values(), default=-math.inf) + LABEL_GAP
        label_y[index] = max(wanted, floor, TOP + 10)
    # The grey lines first, so that the coloured ones are drawn over them.
    for index in sorted(range(len(ridges)), key=lambda i: i in colour):
        ridge = ridges[index]
        at = canvas.py(ridge.ridge)
        name = f"{text(ridge.device)} ridge {ridge.ridge:.0f} FLOP/B"
        if index not in colour:
            add(
                f'<g class="kb-ridge kb-ridge-other"><line x1="{LEFT}" y1="{at:.1f}" '
                f'x2="{WIDTH - RIGHT}" y2="{at:.1f}"><title>{name}</title></line></g>'
            )
            continue
        series = f"kb-series-{colour[index] % 6}"
        label = (
            f'<text x="{WIDTH - RIGHT - 4}" text-anchor="end" y="{label_y[index]:.1f}">'
            f"{name}</text>"
        )
        add(
            f'<g class="kb-ridge {series}"><line x1="{LEFT}" y1="{at:.1f}" '
            f'x2="{WIDTH - RIGHT}" y2="{at:.1f}"><title>{name}</title></line>{label}</g>'
        )
    for index in labelled:
        ridge = ridges[index]
        if ridge.crossover is None or not x.low <= ridge.crossover <= x.high:
            continue
        at = canvas.py(ridge.ridge)
        cx = canvas.px(ridge.crossover)
        flips = f"{ridge.device}: {symbol} = {number(ridge.crossover)}"
        add(
            f'<g class="kb-crossover kb-series-{colour[index] % 6}">'
            f'<line x1="{cx:.1f}" y1="{TOP}" x2="{cx:.1f}" y2="{HEIGHT - BOTTOM}"/>'
            f'<circle cx="{cx:.1f}" cy="{at:.1f}" r="4"><title>{text(flips)}: the verdict '
            "flips</title></circle>"
            f'<text x="{cx + 4:.1f}" y="{HEIGHT - BOTTOM - 6 - 12 * colour[index]:.1f}">'
            f"{text(flips)}</text></g>"
        )
    path = " ".join(f"{canvas.px(px):.1f},{canvas.py(py):.1f}" for px, py in points)
    add(f'<polyline class="kb-curve" points="{path}"/>')
    return canvas.svg()


@dataclass(frozen=True)
class Dot:
    label: str
    href: str
    intensity: float
    attained: float


@dataclass(frozen=True)
class RoofLine:
    label: str
    peak: float


def roofline_chart(
    device: str, bandwidth: float, roofs: Sequence[RoofLine], dots: Sequence[Dot]
) -> str:
    """A device's roofline (one roof per dtype) with entries placed at their typical values;
    each dot links to its entry."""
    ridges = [r.peak / bandwidth for r in roofs]
    intensities = [d.intensity for d in dots] + ridges
    largest = sys.float_info.max
    x = axis(
        "arithmetic intensity (FLOP/B)",
        [min(intensities) / 4, min(max(intensities), largest / 4) * 4],
    )
    y = axis(
        "attainable performance (FLOP/s)",
        [min([d.attained for d in dots] + [bandwidth * x.low]), max(r.peak for r in roofs)],
    )
    canvas = _Canvas(x, y, "", "FLOP/s", f"Roofline of {device}")
    add = canvas.parts.append
    for index, roof in enumerate(roofs):
        ridge = roof.peak / bandwidth
        points = [(x.low, bandwidth * x.low), (ridge, roof.peak), (x.high, roof.peak)]
        path = " ".join(f"{canvas.px(a):.1f},{canvas.py(b):.1f}" for a, b in points)
        add(
            f'<g class="kb-roof kb-series-{index % 6}"><polyline points="{path}"/>'
            f'<text x="{WIDTH - RIGHT - 4}" y="{canvas.py(roof.peak) - 4:.1f}" '
            f'text-anchor="end">{text(roof.label)}</text></g>'
        )
    for dot in dots:
        add(
            f'<a class="kb-dot" href="{text(dot.href)}"><circle '
            f'cx="{canvas.px(dot.intensity):.1f}" cy="{canvas.py(dot.attained):.1f}" r="5">'
            f"<title>{text(dot.label)}</title></circle></a>"
        )
    return canvas.svg()


@dataclass(frozen=True)
class Series:
    """One device's decode time a token at each batch it holds, and the largest it holds."""

    label: str
    points: Sequence[tuple[float, float]]
    max_batch: int


def batch_chart(title: str, series: Sequence[Series]) -> str:
    """Decode time a token against batch, one line a device (labelled at its end), each
    ending where its memory runs out (the capacity limit, marked with a bar)."""
    drawn = [s for s in series if s.points]
    xs = [x for s in drawn for x, _ in s.points]
    ys = [y for s in drawn for _, y in s.points]
    x = axis("batch (sequences)", xs or [1.0, 2.0])
    y = axis("decode time a token (s)", ys or [1.0, 2.0])
    canvas = _Canvas(x, y, "", "s", title)
    add = canvas.parts.append
    for index, item in enumerate(drawn):
        klass = f"kb-series-{index % 6}"
        path = " ".join(f"{canvas.px(a):.1f},{canvas.py(b):.1f}" for a, b in item.points)
        last_x, last_y = item.points[-1]
        limit = ""
        if item.max_batch and last_x >= item.max_batch:
            cx, cy = canvas.px(last_x), canvas.py(last_y)
            limit = (
                f'<line class="kb-capacity" x1="{cx:.1f}" y1="{cy - 8:.1f}" x2="{cx:.1f}" '
                f'y2="{cy + 8:.1f}"><title>{text(item.label)}: memory full past batch '
                f"{item.max_batch:,}</title></line>"
            )
        end_x, end_y = canvas.px(last_x), canvas.py(last_y)
        add(
            f'<g class="kb-batch-line {klass}"><polyline points="{path}">'
            f"<title>{text(item.label)}</title></polyline>{limit}"
            f'<text x="{end_x + 6:.1f}" y="{end_y + 4:.1f}">{text(item.label)}</text></g>'
        )
    return canvas.svg()


@dataclass(frozen=True)
class Segment:
    label: str
    href: str
    seconds: float


def stacked_bar(title: str, bars: Sequence[tuple[str, Sequence[Segment]]]) -> str:
    """One horizontal bar a device, its segments the recipe's rows (each linking to its
    card), on a shared linear time axis."""
    totals = [sum(s.seconds for s in segments) for _, segments in bars]
    x = axis("time (s)", [0.0, max(totals or [1.0])], log_if_decades=False)
    height = TOP + BOTTOM + 22 * max(1, len(bars))
    # Its bars are links to their cards: a group, not an image (whose children are presentation).
    parts = [
        f'<svg class="kb-chart" viewBox="0 0 {WIDTH} {height}" role="group" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{text(title)}</title>'
    ]
    right = WIDTH - RIGHT

    def px(value: float) -> float:
        return x.position(value, LEFT + 60, right)

    for row, (label, segments) in enumerate(bars):
        top = TOP + 22 * row
        parts.append(f'<text x="{LEFT + 56}" y="{top + 14}" text-anchor="end">{text(label)}</text>')
        start = 0.0
        for index, segment in enumerate(segments):
            left, end = px(start), px(start + segment.seconds)
            start += segment.seconds
            parts.append(
                f'<a href="{text(segment.href)}"><rect class="kb-series-{index % 6}" '
                f'x="{left:.1f}" y="{top}" width="{max(end - left, 0.0):.1f}" height="16">'
                f"<title>{text(segment.label)}: {text(format_quantity(segment.seconds, 's'))}"
                "</title></rect></a>"
            )
    bottom = TOP + 22 * max(1, len(bars))
    parts.append(
        f'<g class="kb-axis"><line x1="{LEFT + 60}" y1="{bottom}" x2="{right}" y2="{bottom}"/>'
    )
    for tick in x.ticks():
        parts.append(
            f'<text x="{px(tick):.1f}" y="{bottom + 16}" text-anchor="middle">'
            f"{text(_tick_label(tick, 's'))}</text>"
        )
    parts.append("</g></svg>")
    return (
        f'<div class="kb-chart-box" tabindex="0" role="group" aria-label="{text(title)} chart">'
        + "".join(parts)
        + "</div>"
    )


@dataclass(frozen=True)
class MeasuredPoint:
    label: str
    bound: float
    measured: float


def measured_chart(title: str, points: Sequence[MeasuredPoint], bound: str = "lower bound") -> str:
    """Each measurement's time against its bound, both axes logarithmic over the same decades,
    with the line of equality: a point on it runs at the bound, a point above it is slower
    (its height above the line is how far), and none may lie below (kb check refuses it)."""
    values = [v for p in points for v in (p.bound, p.measured) if v > 0 and math.isfinite(v)]
    values = values or [1e-6, 1e-3]
    first = math.floor(math.log10(min(values)))
    last = max(math.ceil(math.log10(max(values))), first + 1)
    low, high = 10.0**first, 10.0**last
    x = Axis(f"{bound} (s)", low, high, True)
    y = Axis("measured (s)", low, high, True)
    canvas = _Canvas(x, y, "s", "s", title)
    add = canvas.parts.append
    add(
        f"<desc>{text(title)}: {len(points)} measurement{'s' * (len(points) != 1)}, each "
        f"plotted at its {bound} (across) and its measured time (up), on logarithmic axes. "
        "The diagonal is measured = bound; every point lies on or above it.</desc>"
    )
    add(
        f'<g class="kb-equality"><line x1="{canvas.px(low):.1f}" y1="{canvas.py(low):.1f}" '
        f'x2="{canvas.px(high):.1f}" y2="{canvas.py(high):.1f}"/>'
        f'<text x="{canvas.px(high) - 4:.1f}" y="{canvas.py(high) + 14:.1f}" '
        'text-anchor="end">measured = bound</text></g>'
    )
    for index, point in enumerate(points):
        if not (point.bound > 0 and point.measured > 0):
            continue
        fraction = point.bound / point.measured
        add(
            f'<g class="kb-series-{index % 6}"><circle class="kb-measured" '
            f'cx="{canvas.px(point.bound):.1f}" '
            f'cy="{canvas.py(point.measured):.1f}" r="5"><title>{text(point.label)}: measured '
            f"{text(format_quantity(point.measured, 's'))}, bound "
            f"{text(format_quantity(point.bound, 's'))}, {fraction:.2f} of the bound"
            "</title></circle></g>"
        )
    return canvas.svg()
