"""One entry on one device at one assignment of its symbols: work, roofs, verdict, times.

The roofline here is the simplest honest one: a kernel takes at least the longest of the times
its roofs give (FLOPs / dense peak, bytes / memory bandwidth), overlap assumed; the verdict is
the roof that sets that bound. Whole-entry evaluation (every device, sweeps, checks) is the
business of `evaluation`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from ..core.diagnostics import Diagnostic
from ..core.errors import KBError
from ..core.numbers import exact_number, format_quantity, format_seconds, number
from ..maths import formula
from ..records.device import Device
from ..records.entry import Check, Entry, Intensity, WorkaroundModel, WrittenFormula
from ..schemas import ENTRY, roofs, vocabulary

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
class Roof:
    """A resource that can set a kernel's time: the `bound_by` value that names it, the
    formula of the entry that gives its demand, and the device figure that demand is divided
    by (None: the formula gives seconds)."""

    name: str
    quantity: str
    figure: str | None


def _table() -> tuple[tuple[Roof, ...], Roof, dict[str, str]]:
    """The roofs of the entry schema's table (`schemas.roofs`): the times, the capacity
    row, and each roof formula's unit."""
    times, capacity, units = [], None, {}
    for row in roofs():
        roof = Roof(row["name"], row["formula"], row["figure"])
        units[roof.quantity] = row["unit"]
        if row.get("capacity"):
            capacity = roof
        else:
            times.append(roof)
    assert capacity is not None, "the roof table has no capacity row"
    return tuple(times), capacity, units


#: The roofs whose times are compared, in the order that breaks ties (the entry schema's
#: roof table, so that a roof is added in one row there).
#: Not a time (CAPACITY): a footprint past the device's memory is what binds, however fast
#: it moves.
ROOFS, CAPACITY, _UNITS = _table()
#: The two roofs every entry has.
COMPUTE, MEMORY = ROOFS[0].name, ROOFS[1].name
#: The formulas an entry may give besides FLOPs and bytes.
OPTIONAL = tuple(r.quantity for r in (*ROOFS, CAPACITY) if r.quantity not in ("flops", "bytes"))
#: The unit of each quantity a check can bound.
UNITS = {"flops": "FLOP", "bytes": "B", "intensity": "FLOP/B", "time": "s", **_UNITS}


@dataclass(frozen=True, slots=True)
class Work:
    """FLOPs and bytes at one assignment: everything that does not depend on the device."""

    values: Mapping[str, float]
    flops: float
    bytes: float
    workaround: int | None = None
    #: The other roofs' values that read no device figure, by formula name, computed on the
    #: first device asked and the same on every other (a sweep asks every device).
    shared: dict[str, float] = field(default_factory=dict, compare=False, repr=False)


#: The basis of every figure of an evaluation on datasheet figures, shared by all of them.
_DATASHEET: Mapping[str, str] = MappingProxyType(
    {"peak_flops": "datasheet", "memory_bandwidth": "datasheet"}
)

#: Memo key: the whole assignment (typical values, overrides and a workaround's settings,
#: resolved) and the workaround, so an entry edited in place never gets stale numbers.
_WorkKey = tuple[tuple[tuple[str, float], ...], int | None]


@dataclass(frozen=True, slots=True)
class Formulas:
    """An entry's formulas, parsed once: FLOPs and bytes (over its symbols), the other roofs'
    and the derived values (which may read device figures too), and each workaround's
    replacements.

    `worked` remembers the work at each assignment asked for, because several rules, every
    device and every step of a sweep ask for the same ones.
    """

    flops: formula.Formula
    bytes: formula.Formula
    workaround: tuple[tuple[formula.Formula | None, formula.Formula | None], ...]
    others: Mapping[str, formula.Formula] = field(default_factory=dict)
    workaround_others: tuple[Mapping[str, formula.Formula], ...] = ()
    derived: tuple[tuple[str, formula.Formula], ...] = ()
    #: The device figures symbols are bounded by (`at_most`), as (symbol, figure).
    bounds: tuple[tuple[str, str], ...] = ()
    worked: dict[_WorkKey, Work] = field(default_factory=dict, compare=False, repr=False)
    #: What every device of every sweep step asks again, found once: figures_needed's
    #: answer, each device's figures on each basis, the other formulas of each workaround.
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def symbols(self) -> frozenset[str]:
        """The entry's symbols that its formulas use (not device figures or derived names)."""
        used = self.flops.symbols | self.bytes.symbols
        for parsed in (*self.others.values(), *(f for _, f in self.derived)):
            used |= parsed.symbols
        return used - frozenset(device_figures()) - {name for name, _ in self.derived}

    def replacements(self, index: int) -> dict[str, formula.Formula]:
        """The formulas workaround `index`'s model gives in place of the entry's, by name."""
        flops, bytes_ = self.workaround[index]
        pairs = (("flops", flops), ("bytes", bytes_))
        return {**{n: f for n, f in pairs if f is not None}, **self.workaround_others[index]}

    @property
    def read_anywhere(self) -> frozenset[str]:
        """The entry's symbols that any of its formulas reads, a workaround's included."""
        used = set(self.symbols)
        for index in range(len(self.workaround)):
            used.update(*(parsed.symbols for parsed in self.replacements(index).values()))
        return frozenset(used) - frozenset(device_figures()) - {name for name, _ in self.derived}

    @property
    def device_dependent(self) -> bool:
        """Whether anything beyond FLOPs and bytes is evaluated on each device."""
        return bool(self.others or self.derived or any(self.workaround_others))


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
    #: The time each roof gives, by the `bound_by` value that names the roof.
    times: dict[str, float]
    #: The other formulas' values (interconnect_bytes, latency, footprint) where given.
    quantities: Mapping[str, float] = field(default_factory=dict)
    #: The derived values, by name.
    derived: Mapping[str, float] = field(default_factory=dict)
    #: The device's memory capacity, where the entry gives a footprint to compare with it.
    capacity: float | None = None
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
    def fits(self) -> bool:
        """The footprint fits in the device's memory (True when the entry gives none)."""
        footprint = self.quantities.get("footprint")
        return footprint is None or self.capacity is None or footprint <= self.capacity

    @property
    def verdict(self) -> str:
        """What binds: capacity where the footprint does not fit, else the roof that sets the
        lower bound (the first listed wins a tie)."""
        if not self.fits:
            return CAPACITY.name
        times = self.times
        return max(times, key=times.__getitem__)

    @property
    def compute_time(self) -> float:
        return self.times[COMPUTE]

    @property
    def memory_time(self) -> float:
        return self.times[MEMORY]

    @property
    def time(self) -> float:
        """The roofline's lower bound on the kernel's time: the slowest roof, overlap assumed."""
        return max(self.times.values())

    def quantity(self, name: str) -> float | None:
        """A computed value by the name checks' `expect` uses for it; None when the entry
        gives no formula for it."""
        if name == "flops":
            return self.flops
        if name == "bytes":
            return self.bytes
        if name == "intensity":
            return self.intensity
        if name == "time":
            return self.time
        return self.quantities.get(name)


def device_figures() -> tuple[str, ...]:
    """The names under which formulas read the device's figures (from the entry schema)."""
    return vocabulary(ENTRY, "device_figure")


def parse_formulas(entry: Entry) -> tuple[Formulas | None, list[Diagnostic]]:
    """Parse every formula of `entry`: FLOPs and bytes over its declared symbols (they do not
    depend on the device), the other roofs' over its symbols and the device's figures, the
    derived ones over those and the derived names above them. Located errors if any fail;
    derived formulas' own errors are the derived-formula rule's to report."""
    symbols = frozenset(entry.symbols)
    with_figures = symbols | frozenset(device_figures())
    problems: list[Diagnostic] = []

    def parse(where: WrittenFormula | None, names: frozenset[str]) -> formula.Formula | None:
        if where is None:
            return None
        try:
            return _parse(where.text, names)
        except formula.FormulaError as exc:
            if names is symbols and any(f"`{f}`" in exc.message for f in device_figures()):
                exc.hint = (
                    "FLOPs and bytes do not depend on the device: device figures are read by "
                    "interconnect_bytes, latency, footprint and derived formulas"
                )
            problems.append(located(where, exc))
            return None

    def others(source: Intensity | WorkaroundModel) -> dict[str, formula.Formula]:
        if not source.others:
            return {}  # most entries give only FLOPs and bytes
        parsed = {name: parse(source.others.get(name), with_figures) for name in OPTIONAL}
        return {name: f for name, f in parsed.items() if f is not None}

    flops = parse(entry.intensity.flops, symbols)
    bytes_ = parse(entry.intensity.bytes, symbols)
    workaround = tuple(
        (parse(w.model.flops, symbols), parse(w.model.bytes, symbols)) if w.model else (None, None)
        for w in entry.workarounds
    )
    base_others = others(entry.intensity)
    workaround_others = tuple(others(w.model) if w.model else {} for w in entry.workarounds)
    derived: list[tuple[str, formula.Formula]] = []
    names = with_figures
    for item in entry.derived:
        try:
            derived.append((item.name, _parse(item.formula.text, names)))
        except formula.FormulaError:
            return None, problems  # the derived-formula rule says where and why
        names = names | {item.name}
    if problems or flops is None or bytes_ is None:
        return None, problems
    bounds = tuple((s.symbol, s.at_most) for s in entry.scales_with if s.at_most is not None)
    parsed = Formulas(
        flops, bytes_, workaround, base_others, workaround_others, tuple(derived), bounds
    )
    return parsed, []


@lru_cache(maxsize=256)
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
    return Work(values, flops, bytes_, workaround)


@dataclass(frozen=True, slots=True)
class Basis:
    """Which device figures an evaluation uses: the datasheet's (the default, and what claims
    are judged on), measured ones where the catalog has them, and whether typical achieved
    fractions of peak are applied."""

    measured: bool = False
    derated: bool = False

    @property
    def words(self) -> str:
        """`measured and derated`: how messages name figures other than the datasheet's."""
        return " and ".join(
            w for w, on in (("measured", self.measured), ("derated", self.derated)) if on
        )


DATASHEET = Basis()
#: Every basis a command may evaluate on (`kb eval --basis measured --derated`).
BASES = (DATASHEET, Basis(measured=True), Basis(derated=True), Basis(measured=True, derated=True))


def basis_figure(device: Device, name: str, datasheet: float, basis: Basis) -> tuple[float, str]:
    """A figure on `basis`: a measured value is what was achieved, so it is never derated."""
    if basis.measured and name in device.measured:
        return device.measured[name].value, "measured"
    fraction = device.achieved_fraction.get(name.partition(".")[0])
    if basis.derated and fraction is not None:
        return datasheet * fraction, "datasheet, derated"
    return datasheet, "datasheet"


#: What every evaluation reads: the compute and memory roofs' figures.
_ALWAYS = ("peak_flops", "memory_bandwidth")


def figures_needed(formulas: Formulas) -> list[str]:
    """The device figures evaluating the entry reads: the compute and memory roofs', those of
    the other roofs it gives, and those its formulas name."""
    needed = formulas.memo.get("needed")
    if needed is None:
        needed = formulas.memo["needed"] = tuple(_figures_needed(formulas))
    return list(needed)


def _figures_needed(formulas: Formulas) -> list[str]:
    bounded = [figure for _, figure in formulas.bounds]
    if not formulas.device_dependent:
        return list(dict.fromkeys([*_ALWAYS, *bounded]))
    needed = list(_ALWAYS)
    given = set(formulas.others).union(*formulas.workaround_others)
    for roof in (*ROOFS, CAPACITY):
        if roof.quantity in given and roof.figure is not None:
            needed.append(roof.figure)
    named = [*formulas.others.values(), *(f for _, f in formulas.derived)]
    named += [f for others in formulas.workaround_others for f in others.values()]
    figures = device_figures()
    for parsed in named:
        needed += sorted(parsed.symbols.intersection(figures))
    return list(dict.fromkeys([*needed, *bounded]))


def missing_figures(
    entry: Entry, formulas: Formulas, device: Device, needed: Sequence[str] | None = None
) -> list[str]:
    """What `device` lacks of what the entry needs (`needed`, if already known), said as a
    reader would look for it."""
    missing = []
    for name in figures_needed(formulas) if needed is None else needed:
        if name == "peak_flops":
            if entry.intensity.dtype not in device.peak_flops:
                missing.append(f"dense {entry.intensity.dtype} peak")
        elif device.parameter(name) is None:
            missing.append(name)
    return missing


def beyond_bound(formulas: Formulas, device: Device, values: Mapping[str, float]) -> str | None:
    """Why `device` cannot run the entry at `values`: a symbol more than the device figure it
    is bounded by (a tensor-parallel ring of 16 on a scale-up domain of 8); None when none
    is. A device without the figure is not runnable at all (`missing_figures`)."""
    for symbol, figure in formulas.bounds:
        value, limit = values.get(symbol), device.parameter(figure)
        if value is not None and limit is not None and value > limit.value:
            # Every digit it takes: 8.0001 is more than 8, and must not read as 8.
            return (
                f"{symbol} = {exact_number(value)} is more than its {figure} "
                f"({exact_number(limit.value)})"
            )
    return None


def beyond_bounds(
    formulas: Formulas, devices: Iterable[Device], values: Mapping[str, float]
) -> dict[str, str]:
    """Device id -> why it cannot run the entry at `values` (`beyond_bound`), for those of
    `devices` that cannot."""
    if not formulas.bounds:  # most entries bound nothing: no call for each device
        return {}
    return {d.id: why for d in devices if (why := beyond_bound(formulas, d, values))}


def runnable(entry: Entry, formulas: Formulas, devices: Iterable[Device]) -> list[Device]:
    """The devices with every figure the entry's formulas read."""
    needed = figures_needed(formulas)
    return [d for d in devices if not missing_figures(entry, formulas, d, needed)]


def _figures(
    entry: Entry, formulas: Formulas, device: Device, basis: Basis
) -> tuple[dict[str, float], dict[str, str]]:
    """The device figures the entry reads, on `basis`, and where each came from (found once
    for each device and basis: read-only to callers)."""
    key = ("figures", device.id, basis)
    known = formulas.memo.get(key)
    if known is not None and known[0] is device:
        return known[1], known[2]
    values, said = _read_figures(entry, formulas, device, basis)
    formulas.memo[key] = (device, values, said)
    return values, said


def _read_figures(
    entry: Entry, formulas: Formulas, device: Device, basis: Basis
) -> tuple[dict[str, float], dict[str, str]]:
    values: dict[str, float] = {}
    said: dict[str, str] = {}
    dtype = entry.intensity.dtype
    for name in figures_needed(formulas):
        key = f"peak_flops.{dtype}" if name == "peak_flops" else name
        measure = device.parameter(key)
        if measure is None:
            what = f"dense {dtype} peak" if name == "peak_flops" else name
            raise EvaluationError(f"{device.id} has no {what} in the catalog")
        values[name], said[name] = basis_figure(device, key, measure.value, basis)
    return values, said


def on_device(
    entry: Entry,
    formulas: Formulas,
    device: Device,
    done: Work,
    basis: Basis = DATASHEET,
    derived: bool = True,
) -> Result:
    """`done` on `device`'s roofs: FLOPs at the dense peak of the entry's dtype, bytes at the
    memory bandwidth, and the other roofs and (unless not `derived`: no verdict reads them)
    the derived values the entry gives."""
    if basis is DATASHEET and not formulas.device_dependent:
        # The common case, kept cheap: `kb check` asks it of every device for every entry.
        rate, bandwidth = dense_peak(device, entry.intensity.dtype), device.memory_bandwidth
        times = {COMPUTE: done.flops / rate, MEMORY: done.bytes / bandwidth}
        return Result(device.id, done.values, done.flops, done.bytes, rate, bandwidth, times)
    figures, said = _figures(entry, formulas, device, basis)
    rate, bandwidth = figures["peak_flops"], figures["memory_bandwidth"]
    times = {COMPUTE: done.flops / rate, MEMORY: done.bytes / bandwidth}
    # The symbols and figures together, made only where a formula reads a figure.
    env: dict[str, float] | None = None
    quantities: dict[str, float] = {}
    figure_names = device_figures()
    for name, (parsed, written) in _other_formulas(entry, formulas, done.workaround).items():
        if parsed.symbols.isdisjoint(figure_names):
            value = done.shared.get(name)
            if value is None:
                value = done.shared[name] = _value(written, parsed, done.values)
        else:
            if env is None:
                env = {**done.values, **figures}
            value = _value(written, parsed, env)
        if value < 0:
            raise EvaluationError(
                f"{name} must be >= 0; got {value:.3g} at {describe(done.values, formulas)}",
                written,
            )
        quantities[name] = value
    for roof in ROOFS:
        if roof.quantity in quantities:
            demand = quantities[roof.quantity]
            times[roof.name] = demand / figures[roof.figure] if roof.figure else demand
    values: dict[str, float] = {}
    if derived and formulas.derived:
        env = {**done.values, **figures}
        for (name, parsed), item in zip(formulas.derived, entry.derived, strict=True):
            values[name] = env[name] = _value(item.formula, parsed, env)
    capacity = figures.get("memory_capacity") if "footprint" in quantities else None
    return Result(
        device.id,
        done.values,
        done.flops,
        done.bytes,
        rate,
        bandwidth,
        times,
        quantities,
        values,
        capacity,
        said,
    )


def verdicts(entry: Entry, formulas: Formulas, devices: Sequence[Device], done: Work) -> list[str]:
    """`done`'s verdict on each of `devices` on datasheet figures, as
    `on_device(...).verdict` gives it, without building a Result where only FLOPs and bytes
    are modelled: `kb check` asks it of every device of the catalog for every entry."""
    if formulas.device_dependent:
        return [
            on_device(entry, formulas, device, done, derived=False).verdict for device in devices
        ]
    dtype, flops, bytes_ = entry.intensity.dtype, done.flops, done.bytes
    found = []
    for device in devices:
        rate = dense_peak(device, dtype)
        # The first roof wins a tie, as in Result.verdict.
        found.append(COMPUTE if flops / rate >= bytes_ / device.memory_bandwidth else MEMORY)
    return found


def dense_peak(device: Device, dtype: str) -> float:
    """The device's dense peak for `dtype` (FLOP/s); an EvaluationError when the catalog gives
    none."""
    dense = device.peak_flops.get(dtype)
    if dense is None:
        raise EvaluationError(no_dense_peak(device, dtype))
    return dense.value


def no_dense_peak(device: Device, dtype: str) -> str:
    return f"{device.id} has no dense {dtype} peak in the catalog"


def _other_formulas(
    entry: Entry, formulas: Formulas, workaround: int | None
) -> dict[str, tuple[formula.Formula, WrittenFormula]]:
    """The other roofs' formulas (parsed, as written), a workaround's replacing the entry's
    (found once for each workaround: read-only to callers)."""
    key = ("others", workaround)
    known: dict[str, tuple[formula.Formula, WrittenFormula]] | None = formulas.memo.get(key)
    if known is None:
        known = formulas.memo[key] = _choose_other_formulas(entry, formulas, workaround)
    return known


def _choose_other_formulas(
    entry: Entry, formulas: Formulas, workaround: int | None
) -> dict[str, tuple[formula.Formula, WrittenFormula]]:
    chosen: dict[str, tuple[formula.Formula, WrittenFormula]] = {}
    for name, parsed in formulas.others.items():
        written = entry.intensity.others[name]
        chosen[name] = (parsed, written)
    model = None if workaround is None else entry.workarounds[workaround].model
    if workaround is not None and model is not None:
        for name, parsed in formulas.workaround_others[workaround].items():
            chosen[name] = (parsed, model.others[name])
    return chosen


def evaluate(
    entry: Entry,
    formulas: Formulas,
    device: Device,
    overrides: Mapping[str, float] | None = None,
    workaround: int | None = None,
    basis: Basis = DATASHEET,
    derived: bool = True,
) -> Result:
    """The entry (or one of its workarounds, by index) on `device`, its derived values
    included unless not `derived`."""
    done = work(entry, formulas, overrides, workaround)
    return on_device(entry, formulas, device, done, basis, derived)


def describe(
    values: Mapping[str, float], formulas: Formulas, symbols: Iterable[str] | None = None
) -> str:
    """`B=1, k=4, q=16`: the values of `symbols`, by default those the entry's own formulas
    use (not a workaround's)."""
    names = formulas.symbols if symbols is None else symbols
    return ", ".join(f"{name}={number(values[name])}" for name in sorted(names) if name in values)


def explain(result: Result, at: str) -> str:
    """`on nvidia-h100-sxm at k=4: intensity 4.0 FLOP/B, ridge 295 FLOP/B -> memory`, or with
    more roofs each roof's time."""
    if not result.fits:
        assert result.capacity is not None
        footprint = format_quantity(result.quantities["footprint"], "B")
        return (
            f"on {result.device} at {at}: footprint {footprint} over memory capacity "
            f"{format_quantity(result.capacity, 'B')} -> capacity"
        )
    if set(result.times) == {COMPUTE, MEMORY}:
        return (
            f"on {result.device} at {at}: intensity "
            f"{format_quantity(result.intensity, 'FLOP/B')}, "
            f"ridge {format_quantity(result.ridge, 'FLOP/B')} -> {result.verdict}"
        )
    times = ", ".join(f"{name} {format_seconds(t)}" for name, t in result.times.items())
    return f"on {result.device} at {at}: {times} -> {result.verdict}"


def check_failures(
    check: Check, result: Result, formulas: Formulas, units: Mapping[str, str] | None = None
) -> list[str]:
    """What of the check's expectation `result` does not meet, each said with both sides in
    enough digits to tell them apart; [] when the check holds. `units` gives the derived
    values' units."""
    failures = []

    def at() -> str:  # only a failure says where: formatting the values costs a passing check
        return describe(result.values, formulas)

    if check.bound_by is not None and result.verdict != check.bound_by:
        failures.append(f"expected {check.bound_by} {explain(result, at())}: FAIL")
    bounded = [
        (name, UNITS[name], result.quantity(name), limits) for name, limits in check.bounds.items()
    ]
    bounded += [
        (name, (units or {}).get(name, ""), result.derived[name], limits)
        for name, limits in check.derived.items()
        if name in result.derived  # an unknown name is known-derived's to report
    ]
    for name, unit, value, (low, high) in bounded:
        if value is None:
            failures.append(f"expected {name}, but the entry gives no formula for it: FAIL")
            continue
        below = low is not None and value < low
        if below or (high is not None and value > high):
            got, expected = _expected(unit, value, low, high, below)
            failures.append(
                f"expected {name} {expected} on {result.device} at {at()}, got {got}: FAIL"
            )
    return failures


def checked_values(
    check: Check, result: Result, units: Mapping[str, str] | None = None
) -> list[str]:
    """Each value the check bounds, as `result` gives it (`speedup 2.886 x`): what a check
    that holds is shown to hold on, in four significant digits."""
    shown = [
        f"{name} {_show(UNITS[name], value, 4)}"
        for name in check.bounds
        if (value := result.quantity(name)) is not None
    ]
    shown += [
        f"{name} {_show((units or {}).get(name, ''), result.derived[name], 4)}"
        for name in check.derived
        if name in result.derived
    ]
    return shown


def _show(unit: str, value: float, digits: int = 3) -> str:
    return format_quantity(value, unit, digits)


def _distinct(unit: str, value: float, bound: float) -> tuple[str, str]:
    """`value` and `bound` shown with the fewest digits (3 to 17) that tell them apart."""
    for digits in range(3, 18):
        got, expected = _show(unit, value, digits), _show(unit, bound, digits)
        if got != expected:
            return got, expected
    return _show(unit, value, 17), _show(unit, bound, 17)


def _expected(
    unit: str, value: float, low: float | None, high: float | None, below: bool
) -> tuple[str, str]:
    """(what was got, what was expected), the violated bound in as many digits as it takes."""
    violated = low if below else high
    assert violated is not None
    got, shown = _distinct(unit, value, violated)
    if low is None:
        return got, f"at most {shown}"
    if high is None:
        return got, f"at least {shown}"
    if low == high:
        return got, f"of exactly {shown}"
    if below:
        return got, f"between {shown} and {_show(unit, high)}"
    return got, f"between {_show(unit, low)} and {shown}"
