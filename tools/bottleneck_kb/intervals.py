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

from .formula import FUNCTIONS, Bounds, Formula

Box = Mapping[str, Bounds]
_BoundsProgram = Callable[[Box], Bounds]


class _Unproven(Exception):
    """The bounds cannot show the formula defined on the whole box."""


def bounds(formula: Formula, box: Box) -> Bounds | None:
    """Finite bounds of `formula` over every point of `box`, or None when interval arithmetic
    cannot show it is defined (finite, no division by zero, no root or log of a negative)
    there."""
    program = _PROGRAMS.get(formula.text)
    if program is None:
        program = _PROGRAMS[formula.text] = _compile(formula.tree)
    try:
        return program(box)
    except (_Unproven, ValueError, OverflowError, ZeroDivisionError):
        return None


_PROGRAMS: dict[str, _BoundsProgram] = {}


def _widen(lo: float, hi: float) -> Bounds:
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise _Unproven
    return math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)


def _add(a: Bounds, b: Bounds) -> Bounds:
    return _widen(a[0] + b[0], a[1] + b[1])


def _sub(a: Bounds, b: Bounds) -> Bounds:
    return _widen(a[0] - b[1], a[1] - b[0])


def _mul(a: Bounds, b: Bounds) -> Bounds:
    products = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
    return _widen(min(products), max(products))


def _div(a: Bounds, b: Bounds) -> Bounds:
    if b[0] <= 0 <= b[1]:
        raise _Unproven  # the denominator may be zero somewhere in the box
    return _mul(a, (1 / b[1], 1 / b[0]))


def _negate(a: Bounds) -> Bounds:
    return -a[1], -a[0]


def _pow(a: Bounds, b: Bounds) -> Bounds:
    if a[0] > 0 or (a[0] == 0 and b[0] > 0):
        # Monotone in each argument on a non-negative base: the extremes are at the corners.
        corners = [math.pow(x, y) for x in a for y in b]
        return _widen(min(corners), max(corners))
    if b[0] == b[1] and b[0] == int(b[0]) and b[0] >= 0:
        n = int(b[0])
        ends = (math.pow(a[0], n), math.pow(a[1], n))
        low = 0.0 if n % 2 == 0 and a[0] <= 0 <= a[1] else min(ends)
        return _widen(low, max(ends))
    raise _Unproven  # a negative base to a fractional or negative power


_BINARY: Mapping[type[ast.operator], Callable[[Bounds, Bounds], Bounds]] = {
    ast.Add: _add,
    ast.Sub: _sub,
    ast.Mult: _mul,
    ast.Div: _div,
    ast.Pow: _pow,
}


def _compile(node: ast.AST) -> _BoundsProgram:
    """Closures over a validated tree, as formula.py compiles float evaluation."""
    if isinstance(node, ast.Name):
        name = node.id
        return lambda box: box[name]
    if isinstance(node, ast.Constant):
        assert isinstance(node.value, int | float)
        value = float(node.value)
        return lambda box: (value, value)
    if isinstance(node, ast.BinOp):
        left, right, operation = _compile(node.left), _compile(node.right), _BINARY[type(node.op)]
        return lambda box: operation(left(box), right(box))
    if isinstance(node, ast.UnaryOp):
        operand = _compile(node.operand)
        if isinstance(node.op, ast.USub):
            return lambda box: _negate(operand(box))
        return operand
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        function = FUNCTIONS[node.func.id].bounds
        arguments = [_compile(argument) for argument in node.args]
        return lambda box: _widen(*function(*(argument(box) for argument in arguments)))
    raise _Unproven  # unreachable for trees that passed validation
