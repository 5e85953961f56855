"""One entry on one device at one assignment of its symbols: work, roofs, verdict, times.

The roofline here is the simplest honest one: a kernel takes at least the longest of the times
its roofs give (FLOPs / dense peak, bytes / memory bandwidth), overlap assumed; the verdict is
the roof that sets that bound. Whole-entry evaluation (every device, sweeps, checks) is the
business of `evaluation`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType

from . import formula
from .diagnostics import Diagnostic
from .errors import KBError
from .model import Check, Device, Entry, WrittenFormula
from .numbers import format_quantity, format_seconds, number

FORMULA = "KB401"


class EvaluationError(KBError):
    """An evaluation that cannot give a number; `where` is the formula that failed, if any,
    and `offset` the character inside it."""

    def __init__(self, message: str, where: WrittenFormula | None = None, offset: int = 0) -> None:
        super().__init__(message)
        self.args = (message, where, offset)
        self.where = where
        self.offset = offset

    def location(self) -> tuple[str, int, int] | None:
        """The line and column inside the formula where the error arose, if known."""
        if self.where is None:
            return super().location()
        located = self.where.where.error("", self.message, offset=self.offset)
        return located.path, located.line, located.col


def located(
    where: WrittenFormula, exc: formula.FormulaError | EvaluationError, code: str = FORMULA
) -> Diagnostic:
    """A formula problem at the line and column inside the formula where it is."""
    return where.where.error(code, exc.message, exc.hint, offset=exc.offset)


@dataclass(frozen=True, slots=True)
class Work:
    """FLOPs and bytes at one assignment: everything that does not depend on the device."""

    values: Mapping[str, float]
    flops: float
    bytes: float


#: The basis of every figure of an evaluation on datasheet figures, shared by all of them.
_DATASHEET: Mapping[str, str] = MappingProxyType(
    {"peak_flops": "datasheet", "memory_bandwidth": "datasheet"}
)

#: Memo key: the whole assignment (typical values, overrides and a workaround's settings,
#: resolved) and the workaround, so an entry edited in place never gets stale numbers.
_WorkKey = tuple[tuple[tuple[str, float], ...], int | None]


@dataclass(frozen=True, slots=True)
class Formulas:
    """An entry's formulas, parsed once: the base pair and each workaround's replacements.

    `worked` remembers the work at each assignment asked for, because several rules, every
    device and every step of a sweep ask for the same ones.
    """

    flops: formula.Formula
    bytes: formula.Formula
    workaround: tuple[tuple[formula.Formula | None, formula.Formula | None], ...]
    worked: dict[_WorkKey, Work] = field(default_factory=dict, compare=False, repr=False)

    @property
    def symbols(self) -> frozenset[str]:
        """The symbols the base formulas use."""
        return self.flops.symbols | self.bytes.symbols


@dataclass(slots=True)
class Result:
    """An entry's work on one device's roofs. Read-only by convention, not frozen: `kb check`
    builds one per device for every entry, and frozen dataclasses build at half the speed."""

    device: str
    values: Mapping[str, float]
    flops: float
    bytes: float
    peak: float
    bandwidth: float
    #: Where each device figure came from, by figure: `datasheet`, `measured`, or
    #: `datasheet, derated` when a typical achieved fraction of peak was applied.
    basis: Mapping[str, str] = field(default_factory=lambda: _DATASHEET)

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes

    @property
    def ridge(self) -> float:
        return self.peak / self.bandwidth

    @property
    def times(self) -> dict[str, float]:
        """The time each roof gives, by the `bound_by` value that names the roof."""
        return {"compute": self.flops / self.peak, "memory": self.bytes / self.bandwidth}

    @property
    def verdict(self) -> str:
        """The roof that sets the lower bound (the first listed wins a tie)."""
        times = self.times
        return max(times, key=times.__getitem__)

    @property
    def compute_time(self) -> float:
        return self.times["compute"]

    @property
    def memory_time(self) -> float:
        return self.times["memory"]

    @property
    def time(self) -> float:
        """The roofline's lower bound on the kernel's time: the slowest roof, overlap assumed."""
        return max(self.times.values())

    def quantity(self, name: str) -> float:
        """A computed value by the name checks' `expect` uses for it."""
        return {
            "flops": self.flops,
            "bytes": self.bytes,
            "intensity": self.intensity,
            "time": self.time,
        }[name]


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


def assignment(
    entry: Entry, overrides: Mapping[str, float] | None = None, workaround: int | None = None
) -> dict[str, float]:
    """Each declared symbol's typical value, with `overrides` on top and a workaround's own
    settings on top of those (they are what the workaround is); symbols with none of these
    are left out (a formula that needs one fails with a message naming it)."""
    values = {s.symbol: s.typical for s in entry.scales_with if s.typical is not None}
    values.update(overrides or {})
    if workaround is not None:
        model = entry.workarounds[workaround].model
        if model is not None:
            values.update(model.overrides)
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


def work(
    entry: Entry,
    formulas: Formulas,
    overrides: Mapping[str, float] | None = None,
    workaround: int | None = None,
) -> Work:
    """The entry's (or one of its workarounds', by index) FLOPs and bytes at an assignment."""
    values = assignment(entry, overrides, workaround)
    key = (tuple(sorted(values.items())), workaround)
    done = formulas.worked.get(key)
    if done is None:
        done = formulas.worked[key] = _work(entry, formulas, values, workaround)
    return done


def _work(
    entry: Entry, formulas: Formulas, values: dict[str, float], workaround: int | None
) -> Work:
    flops_source, bytes_source = entry.intensity.flops, entry.intensity.bytes
    flops_parsed, bytes_parsed = formulas.flops, formulas.bytes
    if workaround is not None:
        model = entry.workarounds[workaround].model
        if model is not None:
            replace_flops, replace_bytes = formulas.workaround[workaround]
            if replace_flops is not None and model.flops is not None:
                flops_source, flops_parsed = model.flops, replace_flops
            if replace_bytes is not None and model.bytes is not None:
                bytes_source, bytes_parsed = model.bytes, replace_bytes
    flops = _value(flops_source, flops_parsed, values)
    bytes_ = _value(bytes_source, bytes_parsed, values)
    if flops < 0 or bytes_ <= 0:
        raise EvaluationError(
            f"FLOPs must be >= 0 and bytes > 0; got {format_quantity(flops, 'FLOP')}, "
            f"{format_quantity(bytes_, 'B')} at {describe(values, formulas)}",
            bytes_source if bytes_ <= 0 else flops_source,
        )
    if flops / bytes_ == float("inf"):
        raise EvaluationError(
            f"intensity is too large to compute at {describe(values, formulas)}", bytes_source
        )
    return Work(values, flops, bytes_)


@dataclass(frozen=True, slots=True)
class Basis:
    """Which device figures an evaluation uses: the datasheet's (the default, and what claims
    are judged on), measured ones where the catalog has them, and whether typical achieved
    fractions of peak are applied."""

    measured: bool = False
    derated: bool = False


DATASHEET = Basis()


def _figure(device: Device, name: str, datasheet: float, basis: Basis) -> tuple[float, str]:
    """A figure on `basis`: a measured value is what was achieved, so it is never derated."""
    if basis.measured and name in device.measured:
        return device.measured[name].value, "measured"
    fraction = device.achieved_fraction.get(name.partition(".")[0])
    if basis.derated and fraction is not None:
        return datasheet * fraction, "datasheet, derated"
    return datasheet, "datasheet"


def on_device(entry: Entry, device: Device, done: Work, basis: Basis = DATASHEET) -> Result:
    """`done` on `device`'s roofs, at the dense peak of the entry's dtype."""
    dtype = entry.intensity.dtype
    peak = device.peak_flops.get(dtype)
    if peak is None:
        raise EvaluationError(f"{device.id} has no dense {dtype} peak in the catalog")
    if basis is DATASHEET:
        return Result(
            device.id, done.values, done.flops, done.bytes, peak.value, device.memory_bandwidth
        )
    flops_rate, peak_basis = _figure(device, f"peak_flops.{dtype}", peak.value, basis)
    bandwidth, bandwidth_basis = _figure(device, "memory_bandwidth", device.memory_bandwidth, basis)
    said = {"peak_flops": peak_basis, "memory_bandwidth": bandwidth_basis}
    return Result(device.id, done.values, done.flops, done.bytes, flops_rate, bandwidth, said)


def evaluate(
    entry: Entry,
    formulas: Formulas,
    device: Device,
    overrides: Mapping[str, float] | None = None,
    workaround: int | None = None,
    basis: Basis = DATASHEET,
) -> Result:
    """The entry (or one of its workarounds, by index) on `device`."""
    return on_device(entry, device, work(entry, formulas, overrides, workaround), basis)


def describe(values: Mapping[str, float], formulas: Formulas) -> str:
    """`B=1, k=4, q=16`: the values of the symbols the formulas use."""
    return ", ".join(
        f"{name}={number(values[name])}" for name in sorted(formulas.symbols) if name in values
    )


def explain(result: Result, at: str) -> str:
    """`on nvidia-h100-sxm at k=4: intensity 4.0 FLOP/B, ridge 295 FLOP/B -> memory`"""
    return (
        f"on {result.device} at {at}: intensity {format_quantity(result.intensity, 'FLOP/B')}, "
        f"ridge {format_quantity(result.ridge, 'FLOP/B')} -> {result.verdict}"
    )


def check_failures(check: Check, result: Result, formulas: Formulas) -> list[str]:
    """What of the check's expectation `result` does not meet, each said with both sides in
    enough digits to tell them apart; [] when the check holds."""
    failures = []
    # cards branch, until the four-roof evaluation lands: expectations on the roofs and derived
    # values this two-roof evaluation does not compute are not judged here.
    judged = ("memory", "compute")
    if check.bound_by in judged and result.verdict != check.bound_by:
        at = describe(result.values, formulas)
        failures.append(f"expected {check.bound_by} {explain(result, at)}: FAIL")
    for name, (low, high) in check.bounds.items():
        if name not in _UNITS:
            continue
        value = result.quantity(name)
        below = low is not None and value < low
        if below or (high is not None and value > high):
            at = describe(result.values, formulas)
            got, expected = _expected(name, value, low, high, below)
            failures.append(
                f"expected {name} {expected} on {result.device} at {at}, got {got}: FAIL"
            )
    return failures


_UNITS = {"flops": "FLOP", "bytes": "B", "intensity": "FLOP/B", "time": "s"}


def _show(name: str, value: float, digits: int = 3) -> str:
    if name == "time":
        return format_seconds(value, digits)
    return format_quantity(value, _UNITS[name], digits)


def _distinct(name: str, value: float, bound: float) -> tuple[str, str]:
    """`value` and `bound` shown with the fewest digits (3 to 17) that tell them apart."""
    for digits in range(3, 18):
        got, expected = _show(name, value, digits), _show(name, bound, digits)
        if got != expected:
            return got, expected
    return _show(name, value, 17), _show(name, bound, 17)


def _expected(
    name: str, value: float, low: float | None, high: float | None, below: bool
) -> tuple[str, str]:
    """(what was got, what was expected), the violated bound in as many digits as it takes."""
    violated = low if below else high
    assert violated is not None
    got, shown = _distinct(name, value, violated)
    if low is None:
        return got, f"at most {shown}"
    if high is None:
        return got, f"at least {shown}"
    if low == high:
        return got, f"of exactly {shown}"
    if below:
        return got, f"between {shown} and {_show(name, high)}"
    return got, f"between {_show(name, low)} and {shown}"
