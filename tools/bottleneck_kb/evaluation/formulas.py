"""An entry's formulas, parsed once: FLOPs and bytes over its symbols, the other roofs' and the
derived values over its symbols and the device's figures, each workaround's replacements; and the
device figures evaluating them reads."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..core.codes import FORMULA
from ..core.diagnostics import Diagnostic
from ..core.errors import KBError
from ..maths import formula
from ..records.entry import Entry, Intensity, WorkaroundModel, WrittenFormula
from .result import Work
from .roofs import CAPACITY, OPTIONAL, ROOFS, device_figures


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
