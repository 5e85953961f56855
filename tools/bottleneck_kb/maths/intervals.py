"""Bounds of a formula over a box of symbol ranges, to show it is defined on all of them.

`kb check` must pass only entries that every command can evaluate, and commands evaluate at
points `kb check` never sees (a crossover search bisects between samples; `kb eval --set`
picks any value in a range). Interval arithmetic bounds a formula over every point of the
ranges at once: when the bounds are finite, and the denominators and roots keep away from
their poles, the formula is defined everywhere in the box. When it cannot show that (a
denominator whose bounds straddle zero, say), the answer is None, and the caller falls back
to evaluating the points the commands evaluate.

Bounds are widened outwards by one unit in the last place after every operation, so that
rounding can never make them claim more than is true.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping

from .formula import BINARY_POWERING_LIMIT, FUNCTIONS, POWERING_ERROR, Bounds, Formula, power

Box = Mapping[str, Bounds]


class _Unproven(Exception):
    """The bounds cannot show the formula defined on the whole box."""


def bounds(formula: Formula, box: Box) -> Bounds | None:
    """Finite bounds of `formula` over every point of `box`, or None when interval arithmetic
    cannot show it is defined (finite, no division by zero, no root or log of a negative)
    there."""
    try:
        return _bounds(formula.tree, box)
    except (_Unproven, ValueError, OverflowError, ZeroDivisionError):
        return None


def _widen(lo: float, hi: float) -> Bounds:
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise _Unproven
    return math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)


def _widen_nonnegative(lo: float, hi: float) -> Bounds:
    """`_widen` for a result that cannot be negative (a sum or product of non-negative
    numbers, a power of one): outwards, but not past zero. A value too small for a float is 0,
    as evaluating it gives; widened below zero, it would fail FLOPs >= 0 for nothing."""
    low, high = _widen(lo, hi)
    return max(low, 0.0), high


def _add(a: Bounds, b: Bounds) -> Bounds:
    if a[0] >= 0 and b[0] >= 0:
        return _widen_nonnegative(a[0] + b[0], a[1] + b[1])
    return _widen(a[0] + b[0], a[1] + b[1])


def _sub(a: Bounds, b: Bounds) -> Bounds:
    return _widen(a[0] - b[1], a[1] - b[0])


def _mul(a: Bounds, b: Bounds) -> Bounds:
    if a[0] >= 0 and b[0] >= 0:  # most quantities: the ends multiply
        return _widen_nonnegative(a[0] * b[0], a[1] * b[1])
    products = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
    return _widen(min(products), max(products))


def _div(a: Bounds, b: Bounds) -> Bounds:
    if b[0] <= 0 <= b[1]:
        raise _Unproven  # the denominator may be zero somewhere in the box
    return _mul(a, (1 / b[1], 1 / b[0]))


def _negate(a: Bounds) -> Bounds:
    return -a[1], -a[0]


def _pow(a: Bounds, b: Bounds) -> Bounds:
    # The evaluator's own power, not libm's pow: for a fixed exponent it is monotone in the
    # base (each of its steps is), so the ends give exactly the extremes the evaluator reaches.
    if a[0] > 0 or (a[0] == 0 and b[0] > 0):
        # Monotone in each argument on a non-negative base: the extremes are at the corners.
        corners = [power(x, y) for x in a for y in b]
        low, high = min(corners), max(corners)
        if b[0] < b[1] and _multiplies_somewhere(b):
            # Between the corners the evaluator may multiply where they call pow, or the other
            # way: each within POWERING_ERROR of the true power, which is monotone.
            low, high = low * (1 - 2 * POWERING_ERROR), high * (1 + 2 * POWERING_ERROR)
        return _widen_nonnegative(low, high)
    if b[0] == b[1] and b[0] == int(b[0]) and b[0] >= 0:
        n = int(b[0])
        ends = (power(a[0], b[0]), power(a[1], b[0]))
        if n % 2 == 0:  # an even power is never negative
            low = 0.0 if a[0] <= 0 <= a[1] else min(ends)
            return _widen_nonnegative(low, max(ends))
        return _widen(min(ends), max(ends))
    raise _Unproven  # a negative base to a fractional or negative power


def _multiplies_somewhere(exponents: Bounds) -> bool:
    """Whether an integer the evaluator raises to by multiplying lies in `exponents`."""
    low = max(exponents[0], -BINARY_POWERING_LIMIT)
    high = min(exponents[1], BINARY_POWERING_LIMIT)
    return low <= high and math.ceil(low) <= math.floor(high)


_BINARY: Mapping[type[ast.operator], Callable[[Bounds, Bounds], Bounds]] = {
    ast.Add: _add,
    ast.Sub: _sub,
    ast.Mult: _mul,
    ast.Div: _div,
    ast.Pow: _pow,
}


def _bounds(node: ast.AST, box: Box) -> Bounds:
    """The bounds of a validated tree's `node`, walked afresh each time: a formula's bounds
    are asked for once or twice (closures compiled for it would cost more than they save).
    Depth is bounded by validation."""
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)](_bounds(node.left, box), _bounds(node.right, box))
    if isinstance(node, ast.Name):
        return box[node.id]
    if isinstance(node, ast.Constant):
        assert isinstance(node.value, int | float)
        value = float(node.value)
        return value, value
    if isinstance(node, ast.UnaryOp):
        operand = _bounds(node.operand, box)
        return _negate(operand) if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        function = FUNCTIONS[node.func.id].bounds
        low, high = function(*(_bounds(argument, box) for argument in node.args))
        # Every function of the language is non-decreasing, so a result whose lowest value is
        # not negative is never negative (floor(c / d) over c and d in [1, 4] is 0 or more).
        return _widen_nonnegative(low, high) if low >= 0 else _widen(low, high)
    raise _Unproven  # unreachable for trees that passed validation
