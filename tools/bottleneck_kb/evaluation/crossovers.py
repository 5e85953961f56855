"""Where the verdict flips as one symbol sweeps its range, the others held: sampled, then bisected
within a budget of formula steps."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..records.device import Device
from .evaluator import Evaluator
from .formulas import EvaluationError, Formulas
from .result import DATASHEET, Basis

if TYPE_CHECKING:
    pass


#: Sample points per range when looking for a crossover, and bisection steps after one is
#: found; both bound the work a hostile range can ask for.
CROSSOVER_SAMPLES = 64


BISECTION_STEPS = 60


#: The most formula steps the bisection of crossovers may take in one evaluation: the number
#: of flips is known only once the ranges are sampled (a sawtooth flips at every sample).
#: Past it, a flip is placed at the first sample past it rather than bisected.
BISECTION_BUDGET = 1_000_000


@dataclass(frozen=True, slots=True)
class Crossover:
    """Where the verdict flips as one symbol moves through its range (None: not in range)."""

    symbol: str
    at: float | None
    below: str
    above: str
    range: tuple[float, float]


@dataclass(slots=True)
class Allowance:
    """Formula steps left for the bisection of crossovers in one evaluation."""

    left: int


def crossovers(
    evaluator: Evaluator,
    devices: Sequence[Device],
    symbol: str,
    overrides: Mapping[str, float] | None = None,
    basis: Basis = DATASHEET,
    allowance: Allowance | None = None,
) -> list[list[Crossover]] | None:
    """Where the verdict on each of `devices` flips as `symbol` sweeps its declared range,
    holding the rest at their typical (or overridden) values: each sample whose verdict
    differs from the one before, bisected down to where it flips (an entry with more than two
    roofs may flip more than once: memory, then compute, then interconnect). One Crossover
    with no place where it never flips. None when the symbol has no range. Bisection takes
    formula steps from `allowance` (by default BISECTION_BUDGET of its own); once it runs
    out, a flip is placed at the first sample past it."""
    formulas = evaluator.formulas
    declared = evaluator.entry.symbols[symbol]
    if declared.range is None:
        return None
    lo, hi = declared.range
    base = dict(overrides or {})
    # A symbol bounded by a device figure is swept on each device only up to that figure.
    tops: dict[float, list[int]] = {}
    for i, device in enumerate(devices):
        tops.setdefault(_top(formulas, device, symbol, hi), []).append(i)
    found: dict[int, list[Crossover]] = {}
    for top, indices in tops.items():
        chosen = [devices[i] for i in indices]
        flips = _flips(
            evaluator,
            chosen,
            symbol,
            (lo, max(lo, top)),
            base,
            basis,
            allowance or Allowance(BISECTION_BUDGET),
        )
        found.update(zip(indices, flips, strict=True))
    return [found[i] for i in range(len(devices))]


def _top(formulas: Formulas, device: Device, symbol: str, hi: float) -> float:
    """The highest value of `symbol` swept on `device`: its range's, or the device figure it
    is bounded by where that is lower."""
    for bounded, figure in formulas.bounds:
        limit = device.parameter(figure)
        if bounded == symbol and limit is not None:
            hi = min(hi, limit.value)
    return hi


def _flips(
    evaluator: Evaluator,
    devices: Sequence[Device],
    symbol: str,
    swept: tuple[float, float],
    base: Mapping[str, float],
    basis: Basis,
    allowance: Allowance,
) -> list[list[Crossover]]:
    """Each device's crossovers as `symbol` sweeps `swept`, the rest held at `base`."""
    lo, hi = swept
    formulas = evaluator.formulas
    # What one bisection step evaluates: the roof formulas at a new point, on one device.
    step = formulas.flops.size + formulas.bytes.size + sum(f.size for f in formulas.others.values())

    def verdicts_at(chosen: Sequence[Device], x: float) -> list[str]:
        # FLOPs and bytes at a point do not depend on the device: one work judged on each.
        done = evaluator.work({**base, symbol: x})
        if basis == DATASHEET:
            return evaluator.verdicts(chosen, done)
        return [evaluator.on(device, done, basis, derived=False).verdict for device in chosen]

    points = sweep(lo, hi)
    first = verdicts_at(devices, points[0])
    # By device index: the samples on either side of each flip, with the verdict before it.
    flips: dict[int, list[tuple[float, float, str]]] = {i: [] for i in range(len(devices))}
    previous, before = points[0], first
    for x in points[1:]:
        try:
            now = verdicts_at(devices, x)
        except EvaluationError:
            # Past where the formulas are defined, which kb check refuses in a range (the
            # entry is evaluated all the same, with its errors): the flips found up to here.
            break
        for i, verdict in enumerate(now):
            if verdict != before[i]:
                flips[i].append((previous, x, before[i]))
        previous, before = x, now
    found: list[list[Crossover]] = []
    for i, device in enumerate(devices):
        if not flips[i]:
            found.append([Crossover(symbol, None, first[i], first[i], (lo, hi))])
            continue
        crossings = []
        for left, right, below in flips[i]:
            for _ in range(BISECTION_STEPS):
                middle = _midpoint(left, right)
                if middle in (left, right) or allowance.left < step:
                    break
                allowance.left -= step
                if verdicts_at([device], middle)[0] == below:
                    left = middle
                else:
                    right = middle
            above = verdicts_at([device], right)[0]
            crossings.append(Crossover(symbol, right, below, above, (lo, hi)))
        found.append(crossings)
    return found


def sweep(
    lo: float, hi: float, count: int = CROSSOVER_SAMPLES, geometric: bool | None = None
) -> list[float]:
    """`count` points spread over [lo, hi], both ends included and none past them, whatever
    their size: geometric when `geometric` (by default, when the range spans more than a
    decade of positive values), else even."""
    if lo == hi:
        return [lo]
    last = count - 1
    if geometric is None:
        geometric = lo > 0 and hi / lo > 10
    if geometric:
        # From the logarithms: hi / lo overflows across more than 308 decades.
        start, end = math.log(lo), math.log(hi)
        inner = [_exp_at_most(start + (end - start) / last * i, hi) for i in range(1, last)]
    else:
        step = (hi - lo) / last
        if math.isfinite(step):
            inner = [lo + step * i for i in range(1, last)]
        else:  # hi - lo is past the largest float: weigh the ends instead
            inner = [lo / last * (last - i) + hi / last * i for i in range(1, last)]
    return [lo, *(min(max(x, lo), hi) for x in inner), hi]


def _exp_at_most(exponent: float, limit: float) -> float:
    """e ** exponent, or `limit` where the rounded logarithms put it past the largest float."""
    try:
        return math.exp(exponent)
    except OverflowError:
        return limit


def _midpoint(left: float, right: float) -> float:
    if left > 0 and right / left > 4:
        # The geometric mean, as a product of roots: left * right overflows past 1e154 and
        # underflows to 0 below 1e-162, and a midpoint outside the range is evaluated there.
        return math.sqrt(left) * math.sqrt(right)
    middle = left + (right - left) / 2
    # right - left overflows when the two are past the largest float apart.
    return middle if math.isfinite(middle) else left / 2 + right / 2
