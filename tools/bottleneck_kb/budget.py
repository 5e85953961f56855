"""How much symbolic work a formula can ask for, measured on its tree, without sympy.

The symbolic side (simplified intensity, LaTeX, MathML for `kb eval` and the site) expands
and cancels polynomials: `(x + y + z + 1)**16` expands to 969 terms and takes sympy close to a
minute. A formula's cost is bounded here by its degree and by an upper bound on the number of
terms its expansion can have, both counted on the tree, so the budget does not depend on the
machine's speed; `kb check` refuses a formula past it before any command renders it.
"""

from __future__ import annotations

import ast
import math
from functools import lru_cache
from typing import NamedTuple

from .formula import Formula

#: Highest polynomial degree, and most terms an expansion may have, of an intensity
#: (FLOPs over bytes, so the two formulas' costs combine).
MAX_DEGREE = 16
MAX_TERMS = 256

#: Most arguments of one min or max: sympy compares them pairwise when it builds one.
MAX_CHOICES = 4

#: Costs saturate here so that counting stays cheap whatever the input.
_CAP = 10**9


class Cost(NamedTuple):
    """Upper bounds on an expansion: polynomial degree and number of terms. A tuple: one is
    made for every node of every formula `kb check` reads."""

    degree: int
    terms: int

    def within(self) -> bool:
        return self.degree <= MAX_DEGREE and self.terms <= MAX_TERMS

    def excess(self) -> str:
        """What is past the budget, in words."""
        if self.degree == self.terms == _CAP:
            return f"a min or max has more than {MAX_CHOICES} arguments"
        return (
            f"its expansion may reach degree {self.degree:,} and {self.terms:,} terms "
            f"(at most {MAX_DEGREE} and {MAX_TERMS})"
        )


#: The costs of a symbol and of a number, made once.
_SYMBOL = Cost(1, 1)
_NUMBER = Cost(0, 1)
_PAST = Cost(_CAP, _CAP)


def _cap(value: int) -> int:
    return min(value, _CAP)


def _integer_exponent(node: ast.AST) -> int | None:
    """The value of a literal whole-number exponent (`3`, `-2`, `2.0`), else None."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        value = float(node.value)
        if value.is_integer() and abs(value) < _CAP:
            return sign * int(value)
    return None


def _cost(node: ast.AST) -> Cost:
    """Bounds for the expansion of `node`; an opaque part (a function, a power with a symbolic
    or fractional exponent) counts as one new symbol, its inside counted on its own."""
    if isinstance(node, ast.Name):
        return _SYMBOL
    if isinstance(node, ast.Constant):
        return _NUMBER
    if isinstance(node, ast.UnaryOp):
        return _cost(node.operand)
    if isinstance(node, ast.BinOp):
        left = _cost(node.left)
        if isinstance(node.op, ast.Pow):
            exponent = _integer_exponent(node.right)
            if exponent is None:
                return _opaque(node.left, node.right)
            n = abs(exponent)
            terms = 1 if n == 0 else math.comb(min(left.terms, _CAP) + min(n, 64) - 1, min(n, 64))
            return Cost(_cap(left.degree * n), _cap(terms))
        right = _cost(node.right)
        if isinstance(node.op, ast.Add | ast.Sub):
            return Cost(max(left.degree, right.degree), _cap(left.terms + right.terms))
        # Products and quotients: over a common denominator, terms multiply.
        return Cost(_cap(left.degree + right.degree), _cap(left.terms * right.terms))
    if isinstance(node, ast.Call):
        if len(node.args) > MAX_CHOICES:
            return _PAST
        if len(node.args) > 1:  # min and max: as many pieces as arguments, like a sum
            parts = [_cost(argument) for argument in node.args]
            return Cost(max(p.degree for p in parts), _cap(sum(p.terms for p in parts)))
        return _opaque(*node.args)
    return _PAST  # unreachable for trees that passed validation


def _opaque(*inside: ast.AST) -> Cost:
    worst = max((_cost(part) for part in inside), key=lambda c: (c.degree, c.terms))
    if not worst.within():
        return worst  # what is inside is already past the budget
    return _SYMBOL


@lru_cache(maxsize=256)
def cost(formula: Formula) -> Cost:
    """Cached: formulas recur across entries, and a Formula compares by its text."""
    return _cost(formula.tree)


def ratio_cost(numerator: Formula, denominator: Formula) -> Cost:
    """The cost of numerator / denominator, as the intensity is built."""
    top, bottom = cost(numerator), cost(denominator)
    return Cost(_cap(top.degree + bottom.degree), _cap(top.terms * bottom.terms))
