"""What evaluating an entry costs, counted on its formulas before it runs, and the budget every
command holds it to (KB416)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..maths.formula import Formula
from ..records.entry import Entry
from .crossovers import CROSSOVER_SAMPLES
from .evaluator import Evaluator
from .roofs import device_figures

if TYPE_CHECKING:
    pass


#: The most formula steps (nodes of formulas evaluated, `Formula.size`) one evaluation of an
#: entry on the catalog may take, counted before it runs (`evaluation_cost`): an entry past
#: it is refused by `kb check` (KB416) and by every command, so that nothing `kb check`
#: accepts takes a command or the site build much longer than a real card (the cards of
#: this repository take 5,000 to 50,000; a step costs about a microsecond).
EVALUATION_BUDGET = 3_000_000


@dataclass(frozen=True, slots=True)
class EvaluationCost:
    """What evaluating an entry on `devices` devices costs in formula steps, by part: the
    results, the workarounds, the checks and the sweeps for crossovers (their bisection is
    bounded apart, by BISECTION_BUDGET)."""

    devices: int
    parts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.parts.values())

    @property
    def largest(self) -> str:
        return max(self.parts, key=self.parts.__getitem__)


def evaluation_cost(evaluator: Evaluator, devices: int) -> EvaluationCost:
    """The formula steps `evaluate_entry` takes for the entry on `devices` devices, as the
    sizes of its formulas and the number of times each is evaluated give them."""
    entry, formulas = evaluator.entry, evaluator.formulas
    figures = frozenset(device_figures())
    derived = sum(parsed.size for _, parsed in formulas.derived)

    def roofs(replacements: Mapping[str, Formula]) -> tuple[int, int]:
        """Steps at one point: those every device shares, and those of each device."""
        chosen = {"flops": formulas.flops, "bytes": formulas.bytes, **formulas.others}
        chosen.update(replacements)
        each = sum(f.size for f in chosen.values() if not f.symbols.isdisjoint(figures))
        return sum(f.size for f in chosen.values()) - each, each

    shared, each = roofs({})
    one = shared + devices * (each + derived)
    modeled = [i for i, w in enumerate(entry.workarounds) if w.model is not None]
    workarounds = 0
    for index in modeled:
        shared_w, each_w = roofs(formulas.replacements(index))
        workarounds += shared_w + devices * (each_w + derived)
    checks = sum(len(check.devices) * (shared + each + derived) for check in entry.checks)
    swept = sum(
        1 for s in entry.scales_with if s.symbol in formulas.symbols and s.range is not None
    )
    sweeps = swept * CROSSOVER_SAMPLES * (shared + devices * each)
    parts = {"results": one, "workarounds": workarounds, "checks": checks, "sweeps": sweeps}
    return EvaluationCost(devices, parts)


def budget_pointer(entry: Entry, cost: EvaluationCost) -> tuple[str, ...]:
    """Where the entry spends most of its evaluation: the key an error past the budget
    points at."""
    return {
        "results": ("derived",) if entry.derived else ("arithmetic_intensity",),
        "workarounds": ("workarounds",),
        "checks": ("checks",),
        "sweeps": ("scales_with",),
    }[cost.largest]


def over_budget(cost: EvaluationCost) -> str:
    """What KB416 and the commands say of an entry past the evaluation budget."""
    return (
        f"evaluating this entry on the {cost.devices} devices that can run it takes about "
        f"{cost.total:,} formula steps, past the budget of {EVALUATION_BUDGET:,}; its "
        f"{cost.largest} take {cost.parts[cost.largest]:,}"
    )
