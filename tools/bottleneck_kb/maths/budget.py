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
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from .formula import FUNCTIONS, Formula, FormulaError, evaluate, offset_of, parse

#: Highest polynomial degree, and most terms an expansion may have, of an intensity
#: (FLOPs over bytes, so the two formulas' costs combine).
MAX_DEGREE = 16
MAX_TERMS = 256

#: Largest exact constant power, in bits of its result, that sympy is let compute: it computes
#: them eagerly, so `9**9**9` would be a number of hundreds of millions of digits.
MAX_EXACT_BITS = 4096

#: Largest numeric exponent on a base that is not a number, such as `(k + 1)**n`.
MAX_SYMBOLIC_EXPONENT = 64

#: Costs saturate here so that counting stays cheap whatever the input.
_CAP = 10**9


class Expansion(NamedTuple):
    """Upper bounds on an expansion: polynomial degree and number of terms. A tuple: one is
    made for every node of every formula `kb check` reads."""

    degree: int
    terms: int

    def within(self) -> bool:
        return self.degree <= MAX_DEGREE and self.terms <= MAX_TERMS

    def excess(self) -> str:
        """What is past the budget, in words."""
        return (
            f"its expansion may reach degree {self.degree:,} and {self.terms:,} terms "
            f"(at most {MAX_DEGREE} and {MAX_TERMS})"
        )


#: The costs of a symbol and of a number, made once.
_SYMBOL = Expansion(1, 1)
_NUMBER = Expansion(0, 1)
_PAST = Expansion(_CAP, _CAP)


def _cap(value: int) -> int:
    return min(value, _CAP)


def _exponent(node: ast.AST) -> float | None:
    """The value of an exponent made of numbers (`3`, `-2`, `0.5`, `8 * 8`, `sqrt(4096)`:
    sympy works each out before it expands), else None; past every limit, the cap."""
    try:
        # Symbols that cancel (`a - a + 64`) leave sympy the number: probed, as it would be.
        found = _constant(node, "") or _probed(node)
        value = None if found is None else float(found.value)
    except (_Refused, _Undecided, OverflowError):
        return _CAP
    if value is None or not math.isfinite(value):
        return None if value is None else _CAP
    return max(-_CAP, min(value, _CAP))


def _cost(node: ast.AST) -> Expansion:
    """Bounds for the expansion of `node`; an opaque part (a function other than a root, a
    power with a symbolic exponent) counts as one new symbol, its inside counted on its own."""
    if isinstance(node, ast.Name):
        return _SYMBOL
    if isinstance(node, ast.Constant):
        return _NUMBER
    if isinstance(node, ast.UnaryOp):
        return _cost(node.operand)
    if isinstance(node, ast.BinOp):
        left = _cost(node.left)
        if isinstance(node.op, ast.Pow):
            exponent = _exponent(node.right)
            if exponent is None:
                return _opaque(node.left, node.right)
            # A fractional power merges with others of its base (`(P ** 0.5) ** 16` is
            # `P ** 8`, which sympy expands): bounded by the next whole power.
            n = math.ceil(abs(exponent))
            terms = 1 if n == 0 else math.comb(min(left.terms, _CAP) + min(n, 64) - 1, min(n, 64))
            return Expansion(_cap(left.degree * n), _cap(terms))
        right = _cost(node.right)
        if isinstance(node.op, ast.Add | ast.Sub):
            return Expansion(max(left.degree, right.degree), _cap(left.terms + right.terms))
        # Products and quotients: over a common denominator, terms multiply.
        return Expansion(_cap(left.degree + right.degree), _cap(left.terms * right.terms))
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id == "sqrt":
            # sympy merges the square roots of one base (`sqrt(P) ** 16`, or sixteen of them
            # multiplied, is `P ** 8`, expanded): a root costs at most what its inside does.
            return _cost(node.args[0])
        return _opaque(*node.args)
    return _PAST  # unreachable for trees that passed validation


def _opaque(*inside: ast.AST) -> Expansion:
    worst = max((_cost(part) for part in inside), key=lambda c: (c.degree, c.terms))
    if not worst.within():
        return worst  # what is inside is already past the budget
    return _SYMBOL


@lru_cache(maxsize=256)
def cost(formula: Formula) -> Expansion:
    """Cached: formulas recur across entries, and a Formula compares by its text."""
    return _cost(formula.tree)


def ratio_cost(numerator: Formula, denominator: Formula) -> Expansion:
    """The cost of numerator / denominator, as the intensity is built."""
    top, bottom = cost(numerator), cost(denominator)
    return Expansion(_cap(top.degree + bottom.degree), _cap(top.terms * bottom.terms))


class _Constant(NamedTuple):
    """The value sympy gives a part made of numbers only: exact (a Fraction, as sympy holds a
    Rational), or a float (a sympy Float).
    `maybe_symbolic`: a function's result or an exponent whose symbols cancel, known only as
    a float, which sympy may keep as an expression (`sqrt(2)`) rather than as a number: the
    limits of both apply to a power of it."""

    value: Fraction | float
    maybe_symbolic: bool = False


class SymbolicProblem(NamedTuple):
    """A part of a formula the symbolic side refuses, or cannot do in bounded time: what is
    wrong, and where in the formula's text."""

    message: str
    offset: int
    hint: str = "write the power out as a number, or leave it out where it cancels"


def power_problem(formula: Formula) -> SymbolicProblem | None:
    """The first power in `formula` that converting it for sympy refuses (symbolic.to_sympy
    checks the same while converting): an exact constant power of more than MAX_EXACT_BITS
    bits (`1.25 ** 2000`), or an exponent past MAX_SYMBOLIC_EXPONENT on a base that is not a
    number (`k ** (10 * 10)`), with constants followed through arithmetic, functions and
    exponents whose symbols cancel. The degree budget alone lets these through: a constant
    has no degree."""
    if "**" not in formula.text:
        return None
    try:
        _constant(formula.tree, formula.text)
    except _Refused as refused:
        return refused.problem
    return None


class _Refused(Exception):
    def __init__(self, problem: SymbolicProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def _constant(node: ast.AST, text: str) -> _Constant | None:
    """The value of a part made of numbers only, as sympy builds it (None for a part with a
    symbol, a function, or a value sympy would not keep as a number); every power inside is
    checked on the way, as sympy meets it."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        value = node.value
        # As symbolic._number: a float stays exact when it is exactly the decimal it prints as.
        exact = isinstance(value, int) or Fraction(repr(value)) == Fraction(value)
        return _Constant(Fraction(value) if exact else float(value))
    if isinstance(node, ast.Name):
        return None
    if isinstance(node, ast.Call):
        arguments = [_constant(argument, text) for argument in node.args]  # powers inside too
        if not isinstance(node.func, ast.Name) or None in arguments:
            return None
        return _called(node.func.id, [a for a in arguments if a is not None])
    if isinstance(node, ast.UnaryOp):
        inner = _constant(node.operand, text)
        if inner is None or not isinstance(node.op, ast.USub | ast.UAdd):
            return inner
        return inner._replace(value=-inner.value) if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp):
        left, right = _constant(node.left, text), _constant(node.right, text)
        if isinstance(node.op, ast.Pow):
            exponent = right if right is not None else _probed_at(node.right, text, node)
            if (
                left is None
                and exponent is not None
                and _probed_at(node.left, text, node) is not None
            ):
                # Symbols that cancel (`B - B + 1 + 10 ** -300`) leave sympy an exact number,
                # of at most the bits of the numbers written in it.
                _refuse_past(abs(float(exponent.value)) * _written_bits(node.left), text, node)
            return _power(left, exponent, text, node)
        if left is None or right is None:
            return None
        found = _arithmetic(node.op, left, right)
        if found is not None and isinstance(found.value, Fraction):
            _refuse_past(_width(found.value), text, node, "constant")
        return found
    return None


def _written_bits(node: ast.AST) -> int:
    """At most how many bits an exact number made of `node`'s numbers by its operations may
    have: those of each, and one for each operation (a sum or product of exact numbers has at
    most the bits of both, and one more)."""
    found = _constant(node, "")
    if found is not None:
        return _width(found.value) if isinstance(found.value, Fraction) else 64  # a float: 53
    return sum(_written_bits(child) + 1 for child in ast.iter_child_nodes(node))


#: Values the symbols of an exponent take in turn: the same result at each means sympy
#: may cancel the symbols (`B - B + 100` is 100), as it does before it checks the power.
#: Small to large, so that a part defined only past some value (`sqrt(B - 6) * 0 + 40`,
#: which sympy makes 40) is met where it is defined.
_PROBES = (0.37, 1.37, 2.91, 5.23, 11.3, 97.1, 1013.7, 1.7e5, 3.1e8, 7.3e12)


class _Undecided(Exception):
    """A part with symbols is defined at too few probes to tell whether they cancel."""


def _probed(node: ast.AST) -> _Constant | None:
    """A part with symbols that gives one value wherever they are (positive, as sympy takes
    them), as a number sympy may hold; None if it varies. Raises _Undecided when it can be
    evaluated at fewer than two probes: it might be a number to sympy, of any size."""
    names = sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name)} - set(FUNCTIONS))
    if not names:
        return None
    # Rewritten from the tree: the degree budget walks exponents without the formula's text.
    part = ast.unparse(node)
    try:
        program = parse(part, frozenset(names))
    except FormulaError:
        return None
    found: set[float] = set()
    evaluated = 0
    for probe in _PROBES:
        try:
            value = evaluate(program, {n: probe + i / 7 for i, n in enumerate(names)})
        except FormulaError:
            continue  # outside its domain there
        evaluated += 1
        found.add(float(f"{value:.9g}"))  # to nine digits: floats may miss by a rounding
        if len(found) > 1:
            return None
    if evaluated < 2:
        raise _Undecided
    return _Constant(found.pop(), maybe_symbolic=True)


def _probed_at(node: ast.AST, text: str, power: ast.BinOp) -> _Constant | None:
    """`_probed`, refusing the power where it cannot tell."""
    try:
        return _probed(node)
    except _Undecided:
        raise _Refused(
            SymbolicProblem(
                "a part of this power is defined at too few positive values to tell whether "
                "its symbols cancel, which would leave sympy a number of any size",
                offset_of(text, power),
                "write it so that it is defined for every positive value of its symbols",
            )
        ) from None


def _called(name: str, arguments: list[_Constant]) -> _Constant | None:
    """A function of numbers. min and max give one of their arguments, as it is (an exact
    `1.25 ** 1000`). sympy keeps the results of others as exact numbers where it can
    (`ceil(1e300)` is an integer of 997 bits) and as expressions elsewhere (`sqrt(2)`), so
    both limits apply to a power of one, the bits counted from its value."""
    try:
        if len(arguments) > 1:  # min and max
            chosen = {float(a.value): a for a in arguments}
            found = chosen[(min if name == "min" else max)(chosen)]
            # The symbolic side compares numbers alone: past one that is not (`sqrt(7)`), the
            # choice stays an expression.
            return found._replace(maybe_symbolic=any(a.maybe_symbolic for a in arguments))
        value = FUNCTIONS[name].impl(*(float(a.value) for a in arguments))
    except (ArithmeticError, ValueError, KeyError):
        return None  # outside the function's domain: the checks of values say where
    if not math.isfinite(value):
        return None
    return _Constant(value, maybe_symbolic=True)


def _arithmetic(op: ast.operator, left: _Constant, right: _Constant) -> _Constant | None:
    a, b = left.value, right.value
    try:
        if not (isinstance(a, Fraction) and isinstance(b, Fraction)):
            a, b = float(a), float(b)  # a Float makes the result a Float, as in sympy
        if isinstance(op, ast.Add):
            value = a + b
        elif isinstance(op, ast.Sub):
            value = a - b
        elif isinstance(op, ast.Mult):
            value = a * b
        elif isinstance(op, ast.Div):
            value = a / b
        else:
            return None
    except (ZeroDivisionError, OverflowError):
        return None  # not a number sympy keeps; the checks of values say why
    return _Constant(value, left.maybe_symbolic or right.maybe_symbolic)


def _power(
    base: _Constant | None, exponent: _Constant | None, text: str, node: ast.BinOp
) -> _Constant | None:
    """`base ** exponent` as sympy's conversion sees it: refused where it refuses."""
    if exponent is None:
        return None
    symbolic_base = base is None or base.maybe_symbolic
    if symbolic_base and not -MAX_SYMBOLIC_EXPONENT <= exponent.value <= MAX_SYMBOLIC_EXPONENT:
        raise _Refused(
            SymbolicProblem(
                f"exponent {_shown(exponent)} is too large for symbolic manipulation "
                f"(limit {MAX_SYMBOLIC_EXPONENT})",
                offset_of(text, node),
            )
        )
    if base is None:
        return None
    number, power = base.value, exponent.value
    if base.maybe_symbolic or exponent.maybe_symbolic:
        # Known only as a float, which sympy may hold as an exact number (`ceil(1e300)`,
        # `ceil(5000.5)`): as many bits as its value has.
        _refuse_past(abs(float(power)) * _width(number), text, node)
        if isinstance(number, Fraction) and number and float(power).is_integer():
            return _Constant(number ** int(power))  # within the limit: cheap, and exact
        try:
            return _Constant(math.pow(float(number), float(power)), maybe_symbolic=True)
        except (ArithmeticError, ValueError):
            return None
    if not (isinstance(number, Fraction) and isinstance(power, Fraction)):
        return None  # floating-point powers are cheap whatever their size
    _refuse_past(abs(power) * _width(number), text, node)
    if power.denominator != 1 or (number == 0 and power < 0):
        return None  # a root, which sympy may keep as one; or a division by zero
    return _Constant(number**power.numerator)


def _width(value: Fraction | float) -> int:
    """Bits of an exact number: of its numerator or denominator; for a float that sympy may
    hold exactly, of its whole part."""
    if isinstance(value, Fraction):
        return max(value.numerator.bit_length(), value.denominator.bit_length())
    return math.ceil(abs(value)).bit_length()


def _refuse_past(
    bits: float | Fraction, text: str, node: ast.BinOp, what: str = "constant power"
) -> None:
    if bits > MAX_EXACT_BITS:
        # An exponent of 1e308 makes the estimate itself past every float.
        size = f"about {int(bits)}" if math.isfinite(bits) else f"far more than {MAX_EXACT_BITS}"
        raise _Refused(
            SymbolicProblem(
                f"{what} is too large to compute exactly ({size} bits)", offset_of(text, node)
            )
        )


def _shown(constant: _Constant) -> str:
    value = constant.value
    if isinstance(value, Fraction) and value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):g}"
