"""An entry on a device at an assignment of its symbols: FLOPs, bytes, roofline verdict, times.

The roofline here is the simplest honest one: a kernel takes at least
max(FLOPs / dense peak, bytes / memory bandwidth), and it is memory-bound when its intensity
(FLOPs per byte) is below the device's ridge point (peak / bandwidth).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from . import formula
from .diagnostics import Diagnostic
from .model import Check, Device, Entry, WrittenFormula
from .quantity import format_ratio, format_seconds, format_si

FORMULA = "KB401"

#: Sample points per range when looking for a crossover, and bisection steps after one is
#: found; both bound the work a hostile range can ask for.
CROSSOVER_SAMPLES = 64
BISECTION_STEPS = 60


class EvaluationError(ValueError):
    """An evaluation that cannot give a number; `where` is the formula that failed, if any."""

    def __init__(self, message: str, where: WrittenFormula | None = None, offset: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.where = where
        self.offset = offset


@dataclass(frozen=True, slots=True)
class Formulas:
    """An entry's formulas, parsed once: the base pair and each workaround's replacements.

    `worked` remembers the FLOPs and bytes at each assignment asked for, because several
    rules and every device ask for the same ones.
    """

    flops: formula.Formula
    bytes: formula.Formula
    workaround: tuple[tuple[formula.Formula | None, formula.Formula | None], ...]
    worked: dict[tuple[tuple[tuple[str, float], ...], int | None], Work] = field(
        default_factory=dict, compare=False, repr=False
    )


@dataclass(frozen=True, slots=True)
class Result:
    device: str
    values: Mapping[str, float]
    flops: float
    bytes: float
    peak: float
    bandwidth: float

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes

    @property
    def ridge(self) -> float:
        return self.peak / self.bandwidth

    @property
    def verdict(self) -> str:
        return "memory" if self.intensity < self.ridge else "compute"

    @property
    def compute_time(self) -> float:
        return self.flops / self.peak

    @property
    def memory_time(self) -> float:
        return self.bytes / self.bandwidth

    @property
    def time(self) -> float:
        """The roofline's lower bound on the kernel's time."""
        return max(self.compute_time, self.memory_time)

    def quantity(self, name: str) -> float:
        """A computed value by the name checks use for it."""
        return {
            "flops": self.flops,
            "bytes": self.bytes,
            "intensity": self.intensity,
            "time": self.time,
        }[name]


@dataclass(frozen=True, slots=True)
class Crossover:
    """Where the verdict flips as one symbol moves through its range (None: not in range)."""

    symbol: str
    at: float | None
    below: str
    above: str
    range: tuple[float, float]


def located(
    where: WrittenFormula, exc: formula.FormulaError | EvaluationError, code: str = FORMULA
) -> Diagnostic:
    """A formula problem at the line and column inside the formula where it is."""
    return where.where.error(code, exc.message, getattr(exc, "hint", None), offset=exc.offset)


def parse_formulas(entry: Entry) -> tuple[Formulas | None, list[Diagnostic]]:
    """Parse every formula of `entry` against its declared symbols; located errors if any fail."""
    declared = frozenset(entry.symbols)
    problems: list[Diagnostic] = []

    def parse(where: WrittenFormula | None) -> formula.Formula | None:
        if where is None:
            return None
        try:
            return _parse(where.text, declared)
        except formula.FormulaError as exc:
            problems.append(located(where, exc))
            return None

    flops = parse(entry.intensity.flops)
    bytes_ = parse(entry.intensity.bytes)
    workaround = tuple(
        (parse(w.model.flops), parse(w.model.bytes)) if w.model else (None, None)
        for w in entry.workarounds
    )
    if problems or flops is None or bytes_ is None:
        return None, problems
    return Formulas(flops, bytes_, workaround), []


@lru_cache(maxsize=4096)
def _parse(text: str, declared: frozenset[str]) -> formula.Formula:
    """Formulas recur across entries (`2 * N_d`); a parsed Formula is immutable, so share it."""
    return formula.parse(text, declared)


def assignment(entry: Entry, overrides: Mapping[str, float] | None = None) -> dict[str, float]:
    """Each declared symbol's typical value, with `overrides` on top; symbols with neither are
    left out (a formula that needs one fails with a message naming it)."""
    values = {s.symbol: s.typical for s in entry.scales_with if s.typical is not None}
    values.update(overrides or {})
    return values


def _value(source: WrittenFormula, parsed: formula.Formula, values: Mapping[str, float]) -> float:
    missing = sorted(parsed.symbols - values.keys())
    if missing:
        raise EvaluationError(
            f"symbol `{missing[0]}` has no typical value; give it one in scales_with or set it",
            source,
        )
    try:
        return formula.evaluate(parsed, values)
    except formula.FormulaError as exc:
        raise EvaluationError(exc.message, source, exc.offset) from None


@dataclass(frozen=True, slots=True)
class Work:
    """FLOPs and bytes at one assignment: everything that does not depend on the device."""

    values: Mapping[str, float]
    flops: float
    bytes: float


def work(
    entry: Entry,
    formulas: Formulas,
    overrides: Mapping[str, float] | None = None,
    workaround: int | None = None,
) -> Work:
    """The entry's (or one of its workarounds', by index) FLOPs and bytes at an assignment."""
    key = (tuple(sorted((overrides or {}).items())), workaround)
    done = formulas.worked.get(key)
    if done is None:
        done = formulas.worked[key] = _work(entry, formulas, overrides, workaround)
    return done


def _work(
    entry: Entry,
    formulas: Formulas,
    overrides: Mapping[str, float] | None,
    workaround: int | None,
) -> Work:
    values = assignment(entry, overrides)
    flops_source, bytes_source = entry.intensity.flops, entry.intensity.bytes
    flops_parsed, bytes_parsed = formulas.flops, formulas.bytes
    if workaround is not None:
        model = entry.workarounds[workaround].model
        if model is not None:
            # The workaround's own settings win: they are what the workaround is.
            values.update(model.overrides)
            replace_flops, replace_bytes = formulas.workaround[workaround]
            if replace_flops is not None and model.flops is not None:
                flops_source, flops_parsed = model.flops, replace_flops
            if replace_bytes is not None and model.bytes is not None:
                bytes_source, bytes_parsed = model.bytes, replace_bytes
    flops = _value(flops_source, flops_parsed, values)
    bytes_ = _value(bytes_source, bytes_parsed, values)
    if flops < 0 or bytes_ <= 0:
        raise EvaluationError(
            f"FLOPs must be >= 0 and bytes > 0; got {flops:.4g} FLOPs, {bytes_:.4g} bytes "
            f"at {describe(values, formulas)}",
            bytes_source if bytes_ <= 0 else flops_source,
        )
    return Work(values, flops, bytes_)


def on_device(entry: Entry, device: Device, done: Work) -> Result:
    """`done` on `device`'s roofline, at the dense peak of the entry's dtype."""
    dtype = entry.intensity.dtype
    peak = device.peak_flops.get(dtype)
    if peak is None:
        raise EvaluationError(f"{device.id} has no dense {dtype} peak in the catalog")
    return Result(
        device.id, done.values, done.flops, done.bytes, peak.value, device.memory_bandwidth
    )


def evaluate(
    entry: Entry,
    formulas: Formulas,
    device: Device,
    overrides: Mapping[str, float] | None = None,
    workaround: int | None = None,
) -> Result:
    """The entry (or one of its workarounds, by index) on `device`."""
    return on_device(entry, device, work(entry, formulas, overrides, workaround))


def describe(values: Mapping[str, float], formulas: Formulas) -> str:
    """`B=1, k=4, q=16`: the values of the symbols the formulas use."""
    used = formulas.flops.symbols | formulas.bytes.symbols
    return ", ".join(f"{name}={number(values[name])}" for name in sorted(used) if name in values)


def number(value: float) -> str:
    """A symbol's value as a person writes it: 4, 0.25, 128256, 1e+09."""
    if value == int(value) and abs(value) < 1e7:
        return str(int(value))
    return f"{value:.4g}"


def crossover(
    entry: Entry,
    formulas: Formulas,
    device: Device,
    symbol: str,
    overrides: Mapping[str, float] | None = None,
) -> Crossover | None:
    """Where the verdict on `device` flips as `symbol` sweeps its declared range, holding the
    rest at their typical (or overridden) values. None when the symbol has no range."""
    declared = entry.symbols[symbol]
    if declared.range is None:
        return None
    lo, hi = declared.range
    base = dict(overrides or {})

    def verdict_at(x: float) -> str:
        return evaluate(entry, formulas, device, {**base, symbol: x}).verdict

    points = _samples(lo, hi)
    first = verdict_at(points[0])
    previous = points[0]
    for x in points[1:]:
        if verdict_at(x) != first:
            left, right = previous, x
            for _ in range(BISECTION_STEPS):
                middle = _midpoint(left, right)
                if verdict_at(middle) == first:
                    left = middle
                else:
                    right = middle
            other = verdict_at(right)
            return Crossover(symbol, right, first, other, (lo, hi))
        previous = x
    return Crossover(symbol, None, first, first, (lo, hi))


def _samples(lo: float, hi: float) -> list[float]:
    if lo > 0 and hi / lo > 10:
        step = math.log(hi / lo) / (CROSSOVER_SAMPLES - 1)
        return [lo * math.exp(step * i) for i in range(CROSSOVER_SAMPLES - 1)] + [hi]
    step = (hi - lo) / (CROSSOVER_SAMPLES - 1)
    return [lo + step * i for i in range(CROSSOVER_SAMPLES - 1)] + [hi]


def _midpoint(left: float, right: float) -> float:
    if left > 0 and right / left > 4:
        return math.sqrt(left * right)
    return (left + right) / 2


def speedup(baseline: Result, modeled: Result) -> float:
    return baseline.time / modeled.time


def explain(result: Result, at: str) -> str:
    """`on nvidia-h100-sxm at k=4: intensity 4.0 FLOP/B, ridge 295 FLOP/B -> memory`"""
    return (
        f"on {result.device} at {at}: intensity {format_ratio(result.intensity)} FLOP/B, "
        f"ridge {format_ratio(result.ridge)} FLOP/B -> {result.verdict}"
    )


def check_failures(check: Check, result: Result, formulas: Formulas) -> list[str]:
    """What of the check's expectation `result` does not meet, each said with both sides;
    [] when the check holds."""
    failures = []
    # cards branch, until the four-roof evaluation lands: expectations on the roofs and derived
    # values this two-roof evaluation does not compute are not judged here.
    judged = ("memory", "compute")
    if check.bound_by in judged and result.verdict != check.bound_by:
        at = describe(result.values, formulas)
        failures.append(f"expected {check.bound_by} {explain(result, at)}: FAIL")
    for name, (low, high) in check.bounds.items():
        if name not in ("flops", "bytes", "intensity", "time"):
            continue
        value = result.quantity(name)
        if (low is not None and value < low) or (high is not None and value > high):
            at = describe(result.values, formulas)
            failures.append(
                f"expected {name} {_expected(name, low, high)} on {result.device} at {at}, "
                f"got {_show(name, value)}: FAIL"
            )
    return failures


def _expected(name: str, low: float | None, high: float | None) -> str:
    if low is None:
        return f"at most {_show(name, high)}"
    if high is None:
        return f"at least {_show(name, low)}"
    if low == high:
        return f"of exactly {_show(name, low)}"
    return f"between {_show(name, low)} and {_show(name, high)}"


def _show(name: str, value: float | None) -> str:
    assert value is not None  # the schema asks every bound for a min or a max
    if name == "time":
        return format_seconds(value)
    if name == "intensity":
        return f"{format_ratio(value)} FLOP/B"
    return format_si(value, "FLOP" if name == "flops" else "B", digits=4)
