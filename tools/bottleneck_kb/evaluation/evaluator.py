"""The one place an entry is evaluated: an `Evaluator` holds an entry and its formulas, parsed
once, and puts its work on any device's roofs, at any values, on any basis, in any dtype.

The roofline here is the simplest honest one: a kernel takes at least the longest of the times
its roofs give (FLOPs / dense peak, bytes / memory bandwidth, the other roofs' demands over their
figures), overlap assumed; the verdict is the roof that sets that bound. The whole catalog (the
devices that can run an entry, sweeps, workarounds, checks) is `entry.evaluate`'s, which asks an
Evaluator; the rules, the site and the whole-model estimates ask it too, so that nothing outside
this class re-derives an entry's numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..core.diagnostics import Diagnostic
from ..core.errors import KBError
from ..core.numbers import exact_number, format_quantity
from ..maths import formula
from ..records.device import Device
from ..records.entry import Entry, WrittenFormula
from .claims import describe
from .formulas import EvaluationError, Formulas, figures_needed, parse_formulas
from .result import DATASHEET, Basis, Result, Work, basis_figure
from .roofs import COMPUTE, MEMORY, ROOFS, device_figures

#: The derived value that gives a collective's message size, which an achieved fraction by
#: message size is keyed by (the hardware schema's by_class message).
MESSAGE_BYTES = "message_bytes"

#: A roof formula as the evaluation keeps it: parsed, and as written (for its errors' place).
_Chosen = dict[str, tuple[formula.Formula, WrittenFormula]]


@dataclass(frozen=True, slots=True)
class Evaluator:
    """An entry ready to evaluate: its formulas parsed once. Read-only; what it works out
    (the work at each assignment, each device's figures on each basis) is kept in its
    Formulas, because every device of every sweep step asks again."""

    entry: Entry
    formulas: Formulas

    @classmethod
    def parse(cls, entry: Entry) -> tuple[Evaluator | None, list[Diagnostic]]:
        """The entry's Evaluator, or None and located problems where a formula does not
        parse (a derived formula's own are the derived-formula rule's to report)."""
        formulas, problems = parse_formulas(entry)
        return (None if formulas is None else cls(entry, formulas)), problems

    @classmethod
    def of(
        cls, entry: Entry, parsed: tuple[Evaluator | None, list[Diagnostic]] | None = None
    ) -> Evaluator:
        """The entry's Evaluator (from `parse`'s answer where the caller has it); a KBError
        at the first formula that does not parse."""
        found, problems = parsed or cls.parse(entry)
        if found is not None:
            return found
        if not problems:  # a derived formula: the derived-formula rule says where
            raise KBError(f"a derived formula of {entry.id} does not parse; run kb check")
        first = problems[0]
        raise KBError(first.message, first.hint, first.path, first.line, first.col)

    # --- which devices ------------------------------------------------------------------

    @property
    def needs(self) -> list[str]:
        """The device figures evaluating the entry reads."""
        return figures_needed(self.formulas)

    def missing(
        self, device: Device, needed: Sequence[str] | None = None, dtype: str | None = None
    ) -> list[str]:
        """What `device` lacks of what the entry needs (`needed`, if already known), said as
        a reader would look for it; its dense peak is that of `dtype` (default the entry's)."""
        dtype = dtype or self.entry.intensity.dtype
        missing = []
        for name in self.needs if needed is None else needed:
            if name == "peak_flops":
                if dtype not in device.peak_flops:
                    missing.append(f"dense {dtype} peak")
            elif device.parameter(name) is None:
                missing.append(name)
        return missing

    def runnable(self, devices: Iterable[Device]) -> list[Device]:
        """The devices with every figure the entry's formulas read."""
        needed = self.needs
        return [d for d in devices if not self.missing(d, needed)]

    def beyond(self, device: Device, values: Mapping[str, float]) -> str | None:
        """Why `device` cannot run the entry at `values`: a symbol more than the device
        figure it is bounded by (a tensor-parallel ring of 16 on a scale-up domain of 8);
        None when none is. A device without the figure is not runnable at all (`missing`)."""
        for symbol, figure in self.formulas.bounds:
            value, limit = values.get(symbol), device.parameter(figure)
            if value is not None and limit is not None and value > limit.value:
                # Every digit it takes: 8.0001 is more than 8, and must not read as 8.
                return (
                    f"{symbol} = {exact_number(value)} is more than its {figure} "
                    f"({exact_number(limit.value)})"
                )
        return None

    def beyond_all(self, devices: Iterable[Device], values: Mapping[str, float]) -> dict[str, str]:
        """Device id -> why it cannot run the entry at `values` (`beyond`), for those of
        `devices` that cannot."""
        if not self.formulas.bounds:  # most entries bound nothing: no call for each device
            return {}
        return {d.id: why for d in devices if (why := self.beyond(d, values))}

    # --- the work, which does not depend on the device ----------------------------------

    def values(
        self, overrides: Mapping[str, float] | None = None, workaround: int | None = None
    ) -> dict[str, float]:
        """Each declared symbol's typical value, with `overrides` on top and a workaround's
        own settings on top of those (they are what the workaround is); symbols with none of
        these are left out (a formula that needs one fails with a message naming it)."""
        entry = self.entry
        values = {s.symbol: s.typical for s in entry.scales_with if s.typical is not None}
        values.update(overrides or {})
        if workaround is not None:
            model = entry.workarounds[workaround].model
            if model is not None:
                values.update(model.overrides)
        return values

    def work(
        self, overrides: Mapping[str, float] | None = None, workaround: int | None = None
    ) -> Work:
        """The entry's (or one of its workarounds', by index) FLOPs and bytes at the typical
        values with `overrides` on top."""
        return self.work_at(self.values(overrides, workaround), workaround)

    def work_at(self, values: dict[str, float], workaround: int | None = None) -> Work:
        """FLOPs and bytes at `values` (every symbol the formulas read), remembered."""
        key = (tuple(sorted(values.items())), workaround)
        worked = self.formulas.worked
        done = worked.get(key)
        if done is None:
            done = worked[key] = self._work(values, workaround)
        return done

    def _work(self, values: dict[str, float], workaround: int | None) -> Work:
        entry, formulas = self.entry, self.formulas
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
        flops = value(flops_source, flops_parsed, values)
        bytes_ = value(bytes_source, bytes_parsed, values)
        if flops < 0 or bytes_ <= 0:
            raise EvaluationError(
                f"FLOPs must be >= 0 and bytes > 0; got {format_quantity(flops, 'FLOP')}, "
                f"{format_quantity(bytes_, 'B')} at {describe(values, formulas)}",
                bytes_source if bytes_ <= 0 else flops_source,
            )
        if flops / bytes_ == float("inf"):
            raise EvaluationError(
                f"intensity is too large to compute at {describe(values, formulas)}",
                bytes_source,
            )
        return Work(values, flops, bytes_, workaround)

    # --- on a device ---------------------------------------------------------------------

    def on(
        self,
        device: Device,
        done: Work,
        basis: Basis = DATASHEET,
        derived: bool = True,
        dtype: str | None = None,
    ) -> Result:
        """`done` on `device`'s roofs: FLOPs at the dense peak of the entry's dtype (or of
        `dtype`), bytes at the memory bandwidth, and the other roofs and (unless not
        `derived`: no verdict reads them) the derived values the entry gives."""
        entry, formulas = self.entry, self.formulas
        dtype = dtype or entry.intensity.dtype
        if (
            basis is DATASHEET
            and not self._others(done.workaround)
            and not (derived and formulas.derived)
        ):
            # The common case, kept cheap: `kb check` asks it of every device for every entry,
            # and only FLOPs and bytes are read (no other roof; derived values not asked for).
            rate, bandwidth = dense_peak(device, dtype), device.memory_bandwidth
            times = {COMPUTE: done.flops / rate, MEMORY: done.bytes / bandwidth}
            return Result(device.id, done.values, done.flops, done.bytes, rate, bandwidth, times)
        message = self.message_size(done) if basis.derated else None
        figures, said = self._figures(device, basis, dtype, message)
        rate, bandwidth = figures["peak_flops"], figures["memory_bandwidth"]
        times = {COMPUTE: done.flops / rate, MEMORY: done.bytes / bandwidth}
        # The symbols and figures together, made only where a formula reads a figure.
        env: dict[str, float] | None = None
        quantities: dict[str, float] = {}
        figure_names = device_figures()
        for name, (parsed, written) in self._others(done.workaround).items():
            if parsed.symbols.isdisjoint(figure_names):
                demand = done.shared.get(name)
                if demand is None:
                    demand = done.shared[name] = value(written, parsed, done.values)
            else:
                if env is None:
                    env = {**done.values, **figures}
                demand = value(written, parsed, env)
            if demand < 0:
                raise EvaluationError(
                    f"{name} must be >= 0; got {demand:.3g} at {describe(done.values, formulas)}",
                    written,
                )
            quantities[name] = demand
        for roof in ROOFS:
            if roof.quantity in quantities:
                demand = quantities[roof.quantity]
                times[roof.name] = demand / figures[roof.figure] if roof.figure else demand
        values: dict[str, float] = {}
        if derived and formulas.derived:
            env = {**done.values, **figures}
            for (name, parsed), item in zip(formulas.derived, entry.derived, strict=True):
                values[name] = env[name] = value(item.formula, parsed, env)
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

    def result(
        self,
        device: Device,
        overrides: Mapping[str, float] | None = None,
        workaround: int | None = None,
        basis: Basis = DATASHEET,
        derived: bool = True,
    ) -> Result:
        """The entry (or one of its workarounds, by index) on `device`, its derived values
        included unless not `derived`."""
        return self.on(device, self.work(overrides, workaround), basis, derived)

    def verdicts(self, devices: Sequence[Device], done: Work) -> list[str]:
        """`done`'s verdict on each of `devices` on datasheet figures, as `on(...).verdict`
        gives it, without building a Result where only FLOPs and bytes are modelled: `kb
        check` asks it of every device of the catalog for every entry. Derived values never
        decide a verdict, so only the other roofs call for the whole Result."""
        if self._others(done.workaround):
            return [self.on(device, done, derived=False).verdict for device in devices]
        dtype, flops, bytes_ = self.entry.intensity.dtype, done.flops, done.bytes
        found = []
        for device in devices:
            rate = dense_peak(device, dtype)
            # The first roof wins a tie, as in Result.verdict.
            found.append(COMPUTE if flops / rate >= bytes_ / device.memory_bandwidth else MEMORY)
        return found

    def _figures(
        self, device: Device, basis: Basis, dtype: str, message: float | None = None
    ) -> tuple[dict[str, float], dict[str, str]]:
        """The device figures the entry reads, on `basis`, and where each came from (found
        once for each device, basis, dtype and message size: read-only to callers); derated,
        by the achieved fraction for the entry's class (and a collective's `message` size)."""
        key = ("figures", device.id, basis, dtype, message)
        known = self.formulas.memo.get(key)
        if known is not None and known[0] is device:
            return known[1], known[2]
        values: dict[str, float] = {}
        said: dict[str, str] = {}
        for name in self.needs:
            key_name = f"peak_flops.{dtype}" if name == "peak_flops" else name
            measure = device.parameter(key_name)
            if measure is None:
                what = f"dense {dtype} peak" if name == "peak_flops" else name
                raise EvaluationError(f"{device.id} has no {what} in the catalog")
            values[name], said[name] = basis_figure(
                device, key_name, measure.value, basis, self.entry.cls, message
            )
        self.formulas.memo[key] = (device, values, said)
        return values, said

    def message_size(self, done: Work) -> float | None:
        """The collective's message size at `done` (its derived message_bytes, where it gives
        one that reads no device figure), which picks a ranged achieved fraction."""
        for (name, parsed), item in zip(self.formulas.derived, self.entry.derived, strict=True):
            if name == MESSAGE_BYTES:
                if not parsed.symbols <= done.values.keys():
                    return None
                return value(item.formula, parsed, done.values)
        return None

    def _others(self, workaround: int | None) -> _Chosen:
        """The other roofs' formulas (parsed, as written), a workaround's replacing the
        entry's (found once for each workaround: read-only to callers)."""
        key = ("others", workaround)
        known: _Chosen | None = self.formulas.memo.get(key)
        if known is None:
            known = {
                name: (parsed, self.entry.intensity.others[name])
                for name, parsed in self.formulas.others.items()
            }
            model = None if workaround is None else self.entry.workarounds[workaround].model
            if workaround is not None and model is not None:
                for name, parsed in self.formulas.workaround_others[workaround].items():
                    known[name] = (parsed, model.others[name])
            self.formulas.memo[key] = known
        return known


def value(source: WrittenFormula, parsed: formula.Formula, values: Mapping[str, float]) -> float:
    """`parsed` at `values`; an EvaluationError at `source` (where it was written) for a
    symbol without a value or a step that is no number."""
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


def dense_peak(device: Device, dtype: str) -> float:
    """The device's dense peak for `dtype` (FLOP/s); an EvaluationError when the catalog gives
    none."""
    dense = device.peak_flops.get(dtype)
    if dense is None:
        raise EvaluationError(no_dense_peak(device, dtype))
    return dense.value


def no_dense_peak(device: Device, dtype: str) -> str:
    return f"{device.id} has no dense {dtype} peak in the catalog"
