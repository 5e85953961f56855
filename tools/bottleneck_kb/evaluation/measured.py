"""A card's published measurements against its lower bound: each measurement's workload is
evaluated on its device's datasheet figures, and its measured time set beside the bound.

A measured time below the bound means the bound is above reality: the card, a device figure
or the measurement is wrong, and `kb check` refuses it. Bound over measured is the
measurement's *achieved fraction of the bound* (1.0: the kernel runs at its roofline), not to
be confused with a device's *achieved fraction* of one figure (the catalog's).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from ..core.numbers import exact_number, format_quantity, number
from ..records.device import Device
from ..records.measurement import CARD_SCOPES, Measurement
from ..records.quantity import Dimension, Measure, QuantityError, parse_quantity
from ..source import Pointer
from .evaluator import Evaluator
from .formulas import EvaluationError
from .roofs import ROOFS


class Unjudged(Exception):
    """Why a measurement cannot be judged, and where in it to point (below the measurement)."""

    def __init__(self, message: str, at: Pointer = (), hint: str | None = None, key: bool = False):
        super().__init__(message)
        self.message, self.at, self.hint, self.key = message, at, hint, key


@dataclass(frozen=True, slots=True)
class Judged:
    """A measurement beside the bound at its workload on its device's datasheet figures."""

    key: str
    device: str
    #: The measured time in seconds (a throughput turned into the time it stands for), and
    #: the longest time its printed digits allow (41.2 µs may be 41.249...).
    measured_s: float
    measured_most_s: float
    #: The lower bound (a card's; a model's floor) and the roof that sets it.
    bound_s: float
    roof: str
    #: The figures the bound was worked out from, as they read (`memory_bandwidth 3.35 TB/s`).
    figures: tuple[str, ...]
    #: A model's: the serial sum of its rows' bounds, which overlapped work can beat.
    serial_s: float | None = None
    #: The card's class and, for a collective, its message size (achieved fractions by class).
    cls: str | None = None
    message_bytes: float | None = None

    @property
    def fraction(self) -> float:
        """The achieved fraction of the bound: bound over measured."""
        return self.bound_s / self.measured_s

    @property
    def below(self) -> bool:
        """Faster than the bound allows, even at the last printed digit."""
        return self.measured_most_s < self.bound_s * (1 - 1e-9)

    @property
    def overlapped(self) -> bool:
        """A model's step between its floor and its serial sum: work overlapped."""
        return self.serial_s is not None and not self.below and self.measured_s < self.serial_s


#: The times a measurement may stand for, in seconds: a nanosecond to a hundred days. Past
#: them a rate or a time is no measurement of this work (and would divide to nothing).
PLAUSIBLE_SECONDS = (1e-9, 1e7)


def plausible(seconds: float, longest: float, at: Pointer, written: str) -> tuple[float, float]:
    """`seconds` (and the `longest` its digits allow) where both are a plausible time;
    Unjudged at `at` where they are not."""
    low, high = PLAUSIBLE_SECONDS
    if not (low <= seconds <= high and low <= longest <= high):
        raise Unjudged(
            f"'{written}' stands for {format_quantity(seconds, 's')}, outside the times a "
            f"measurement may stand for ({format_quantity(low, 's')} to "
            f"{format_quantity(high, 's')})",
            at,
        )
    return seconds, longest


def measured_time(text: str, dimension: Dimension, at: Pointer) -> Measure:
    """A result as written, in its base unit; Unjudged where it is not a quantity of
    `dimension`."""
    try:
        return parse_quantity(text, dimension)
    except QuantityError as exc:
        raise Unjudged(exc.message, at, exc.hint) from None


def judge_card(
    evaluator: Evaluator, measurement: Measurement, devices: Mapping[str, Device]
) -> Judged:
    """`measurement` of `evaluator`'s card against the card's bound; Unjudged says why it
    cannot be judged (a workload outside the card's ranges, a device without the figures)."""
    entry = evaluator.entry
    if measurement.scope not in CARD_SCOPES:
        raise Unjudged(
            f"a card's measurement has scope kernel, not {measurement.scope}",
            ("scope",),
            "a layer, a step or a request is a model's measurement: record it in models/",
        )
    device = devices.get(measurement.device)
    if device is None:
        raise Unjudged(f"'{measurement.device}' is not a device of the catalog", ("device",))
    for name, value in measurement.workload.items():
        symbol = entry.symbols.get(name)
        if symbol is None:
            raise Unjudged(
                f"'{name}' is not a symbol of {entry.id}",
                ("set", name),
                f"the symbols: {', '.join(entry.symbols)}",
                key=True,
            )
        assert isinstance(value, float)
        if symbol.range is not None and not symbol.range[0] <= value <= symbol.range[1]:
            low, high = symbol.range
            raise Unjudged(
                f"{name} = {exact_number(value)} is outside its range "
                f"[{exact_number(low)}, {exact_number(high)}]",
                ("set", name),
            )
    missing = evaluator.missing(device)
    if missing:
        raise Unjudged(f"{device.id} has no {missing[0]} in the catalog", ("device",))
    values = {k: float(v) for k, v in measurement.workload.items()}
    beyond = evaluator.beyond(device, evaluator.values(values))
    if beyond is not None:
        raise Unjudged(f"{device.id} cannot run it: {beyond}", ("set",))
    try:
        done = evaluator.work(values)
        result = evaluator.on(device, done)
    except EvaluationError as exc:
        raise Unjudged(exc.message) from None
    if measurement.time is not None:
        seen = measured_time(measurement.time, Dimension.TIME, ("time",))
        measured, most = plausible(
            seen.value, seen.value + seen.resolution, ("time",), measurement.time
        )
    else:
        assert measurement.throughput is not None
        counts_flops = measurement.counts == "flops"
        rate = measured_time(
            measurement.throughput,
            Dimension.FLOP_RATE if counts_flops else Dimension.BANDWIDTH,
            ("throughput",),
        )
        work = done.flops if counts_flops else done.bytes
        if work <= 0:
            raise Unjudged(
                f"{entry.id} counts no FLOPs here: a FLOP rate times nothing", ("counts",)
            )
        slowest = rate.value - rate.resolution
        measured, most = plausible(
            work / rate.value,
            work / slowest if slowest > 0 else float("inf"),
            ("throughput",),
            measurement.throughput,
        )
    roof = result.verdict
    figure = next((r.figure for r in ROOFS if r.name == roof), None)
    figures: tuple[str, ...] = ()
    if roof == "compute":
        figures = (f"peak_flops.{entry.intensity.dtype} {format_quantity(result.peak, 'FLOP/s')}",)
    elif roof == "memory":
        figures = (f"memory_bandwidth {format_quantity(result.bandwidth, 'B/s')}",)
    elif figure is not None:
        shown = device.parameter(figure)
        unit = "B/s" if "bandwidth" in figure else "s"
        if shown is not None:
            figures = (f"{figure} {format_quantity(shown.value, unit)}",)
    message = evaluator.message_size(done)
    return Judged(
        measurement.key,
        device.id,
        measured,
        most,
        result.time,
        roof,
        figures,
        cls=entry.cls,
        message_bytes=message,
    )


@dataclass(frozen=True, slots=True)
class MeasuredOutcome:
    """A measurement beside its bound, as reports and pages show it: plain data (the site's
    cache writes it and reads it back)."""

    key: str
    device: str
    #: The workload as set (`B=64, K=7168`), the software and what it measured, as written.
    workload: str
    software: str
    result: str
    scope: str
    measured_s: float
    bound_s: float
    roof: str
    figures: tuple[str, ...]
    reference: str
    where_in_source: str
    secondary: bool
    below: bool
    #: A model's serial sum of its rows' bounds (None for a card's).
    serial_s: float | None = None
    note: str | None = None

    @property
    def fraction(self) -> float:
        """The achieved fraction of the bound: bound over measured."""
        return self.bound_s / self.measured_s

    def as_json(self) -> dict[str, Any]:
        """Plain data, with the achieved fraction of the bound and the verdict."""
        found = {f.name: getattr(self, f.name) for f in fields(self)}
        found["figures"] = list(self.figures)
        return {**found, "fraction_of_bound": self.fraction, "verdict": self.verdict}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MeasuredOutcome:
        """What `as_json` wrote (a KeyError or a TypeError for data of another shape)."""
        known = {f.name: data[f.name] for f in fields(cls)}
        known["figures"] = tuple(known["figures"])
        return cls(**known)

    @property
    def verdict(self) -> str:
        """How the measurement stands against the bound, in a reader's words."""
        if self.below:
            return "below the bound: the bound is wrong"
        if self.serial_s is not None and self.measured_s < self.serial_s:
            return "faster than serial: work overlapped"
        return "at or above the bound"


def outcome(measurement: Measurement, judged: Judged, link: str) -> MeasuredOutcome:
    """`judged` as reports show it; `link` is where its source can be opened."""
    return MeasuredOutcome(
        key=measurement.key,
        device=judged.device,
        workload=", ".join(
            f"{name}={value if isinstance(value, str) else number(value)}"
            for name, value in measurement.workload.items()
        ),
        software=f"{measurement.software} {measurement.version}",
        result=measurement.result,
        scope=measurement.scope if measurement.phase is None else f"{measurement.phase} step",
        measured_s=judged.measured_s,
        bound_s=judged.bound_s,
        roof=judged.roof,
        figures=judged.figures,
        reference=link,
        where_in_source=measurement.where_in_source,
        secondary=measurement.secondary,
        below=judged.below,
        serial_s=judged.serial_s,
        note=measurement.note,
    )


def card_outcomes(
    evaluator: Evaluator, devices: Mapping[str, Device], on: Sequence[str] | None = None
) -> list[MeasuredOutcome]:
    """The card's measurements that can be judged (on `on` only, where given), each beside
    its bound; those that cannot are kb check's to report (KB703)."""
    entry = evaluator.entry
    links = {r.key: r.link for r in entry.all_references()}
    found = []
    for measurement in entry.measurements:
        if on is not None and measurement.device not in on:
            continue
        try:
            judged = judge_card(evaluator, measurement, devices)
        except Unjudged:
            continue
        found.append(outcome(measurement, judged, links.get(measurement.reference, "")))
    return found
