"""Symbolic view of formulas: exact arithmetic intensity and its rendering.

This is the only module that needs sympy, which is slow to import, so callers import it lazily.
Expressions are built by walking the already-validated tree of a
:class:`~bottleneck_kb.maths.formula.Formula`, never from its text, so sympy's string parser (which
evaluates Python) is never exposed to untrusted input.

sympy computes exact powers eagerly, so a hostile ``9**9**9`` would make it build a number with
hundreds of millions of digits, and ``(a + b)**100000`` would make ``cancel`` expand a huge
polynomial. Numeric exponents are therefore bounded while converting (see ``MAX_EXACT_BITS`` and
``MAX_SYMBOLIC_EXPONENT``). That removes the one-token blow-ups; it does not bound sympy's
running time in general, which stays the job of the caller's timeout.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sympy
from sympy.printing.latex import LatexPrinter
from sympy.printing.mathml import MathMLPresentationPrinter

from .budget import MAX_EXACT_BITS, MAX_SYMBOLIC_EXPONENT, ratio_cost
from .formula import FUNCTIONS, Formula, FormulaError, offset_of

__all__ = [
    "MAX_EXACT_BITS",
    "MAX_SYMBOLIC_EXPONENT",
    "Rendered",
    "intensity",
    "render_intensity",
    "to_latex",
    "to_mathml",
    "to_sympy",
]


_UNARY_OPERATORS: Mapping[type[ast.unaryop], Callable[[sympy.Expr], sympy.Expr]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}

_BINARY_OPERATORS: Mapping[type[ast.operator], Callable[[sympy.Expr, sympy.Expr], sympy.Expr]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}

_NON_FINITE = frozenset({sympy.zoo, sympy.nan, sympy.oo, -sympy.oo})


class _Choice(sympy.Function):  # type: ignore[misc]  # sympy is untyped
    """min or max as written, with numbers alone compared. sympy's own Min and Max compare
    every pair of their arguments under the symbols' assumptions each time they are rebuilt
    (``cancel`` rebuilds them), and a comparison may isolate the real roots of a polynomial
    with no bound on its time: ``max((B + 1e-300) / B ** 8, 1)`` ran for minutes. Joining a
    max inside a max, comparing numbers with numbers, dropping repeats and ordering the
    arguments (so that ``max(a, b)`` cancels ``max(b, a)``) is all this does, each bounded by
    the expression's size."""

    pick: Callable[..., sympy.Expr]  # the builtin min or max

    @classmethod
    def eval(cls, *args: sympy.Expr) -> sympy.Expr | None:
        joined = [inner for arg in args for inner in (arg.args if arg.func is cls else (arg,))]
        numbers = [arg for arg in joined if arg.is_Number]
        kept = [arg for arg in joined if not arg.is_Number]
        if numbers:
            kept.append(cls.pick(numbers))
        kept = sorted(set(kept), key=sympy.default_sort_key)
        if len(kept) == 1:
            return kept[0]
        if kept != list(args):
            return cls(*kept)
        return None

    def _eval_evalf(self, precision: int) -> sympy.Expr:
        return self.func(*(arg._eval_evalf(precision) or arg for arg in self.args))


# Named as sympy's, whose printers and ordering go by the class name (\max in LaTeX).
class Max(_Choice):
    pick = max


class Min(_Choice):
    pick = min


class _Rounding(sympy.Function):  # type: ignore[misc]  # sympy is untyped
    """ceil or floor of a number worked out as sympy does, and of anything else kept as
    written. sympy's own ceiling and floor evaluate a constant such as
    ``(1e16 * 3 ** (1/3)) ** 8`` to ever more digits and give up past its precision, and
    rewrite a sum inside them under the symbols' assumptions."""

    is_integer = True
    exact: Callable[[sympy.Expr], sympy.Expr]

    @classmethod
    def eval(cls, arg: sympy.Expr) -> sympy.Expr | None:
        return cls.exact(arg) if arg.is_Number else None

    def _eval_evalf(self, precision: int) -> sympy.Expr:
        # Asked for digits (sympy.N): rounded at those digits, as sympy's own does.
        return self.func(self.args[0]._eval_evalf(precision) or self.args[0])


# Named as sympy's, whose printers and ordering go by the class name.
class ceiling(_Rounding):
    exact = sympy.ceiling


class floor(_Rounding):
    exact = sympy.floor


class _Names:
    """What the function table's symbolic forms are given: sympy's names, with the forms
    above in place of those that evaluate without bound. A new row that builds on sympy's
    Max gets the bounded one too."""

    Max, Min, ceiling, floor = Max, Min, ceiling, floor

    def __getattr__(self, name: str) -> Any:
        return getattr(sympy, name)


_NAMES = _Names()


@lru_cache(maxsize=256)
def to_sympy(formula: Formula) -> sympy.Expr:
    """Convert a parsed formula to a sympy expression; cached, because the intensity and the
    site's display of FLOPs and bytes convert the same formulas (sympy's are immutable).

    Symbols are positive, which is true of every quantity in the knowledge base (sizes,
    counts, bit widths) and lets sympy cancel and simplify more. Integer literals stay exact;
    float literals stay exact when their value is exactly the short decimal they print as
    (``0.25`` becomes ``1/4``), and become sympy Floats otherwise.
    """
    symbols = {name: sympy.Symbol(name, positive=True) for name in formula.symbols}
    return _convert(formula.tree, symbols, formula.text)


def _number(value: float) -> sympy.Expr:
    """Keep literals such as ``0.25`` or ``1e9`` exact so that intensities cancel cleanly."""
    exact = Fraction(value)
    if Fraction(repr(value)) == exact:
        return sympy.Rational(exact.numerator, exact.denominator)
    return sympy.Float(value)


def _convert(node: ast.AST, symbols: Mapping[str, sympy.Symbol], text: str) -> sympy.Expr:
    """Recursive conversion; depth is bounded by the parser's validation."""
    if isinstance(node, ast.Name) and node.id in symbols:
        return symbols[node.id]
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return sympy.Integer(node.value)
    if isinstance(node, ast.Constant) and type(node.value) is float:
        return _number(node.value)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY_OPERATORS:
        return _UNARY_OPERATORS[type(node.op)](_convert(node.operand, symbols, text))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY_OPERATORS:
        left = _convert(node.left, symbols, text)
        right = _convert(node.right, symbols, text)
        if isinstance(node.op, ast.Pow):
            _check_power(left, right, text, node)
        return _finite(_BINARY_OPERATORS[type(node.op)](left, right), text, node)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        function = FUNCTIONS.get(node.func.id)
        if function is not None:
            args = [_convert(arg, symbols, text) for arg in node.args]
            return _finite(function.symbolic(_NAMES)(*args), text, node)
    # Unreachable for trees produced by parse(), which only admits the cases above.
    raise FormulaError(
        f"`{type(node).__name__}` cannot be converted to sympy", offset_of(text, node)
    )


def _finite(result: sympy.Expr, text: str, node: ast.AST) -> sympy.Expr:
    """Reject ``1/0``-style results here, where the offset is known, as evaluate() does.

    sympy propagates infinities through later operations (``zoo * k`` is ``zoo``), so checking
    each operation's own result is enough to catch them where they first appear.
    """
    if result in _NON_FINITE:
        raise FormulaError("result is not a finite number", offset_of(text, node))
    return result


def _check_power(base: sympy.Expr, exponent: sympy.Expr, text: str, node: ast.BinOp) -> None:
    """Refuse powers that would make sympy compute enormous exact numbers or polynomials."""
    if not exponent.is_Number:
        return
    offset = offset_of(text, node)  # the `**` token
    if base.is_Number:
        # Floating-point powers are cheap whatever their size; only exact ones are a risk.
        if base.is_Float or exponent.is_Float:
            return
        bits = abs(exponent) * max(base.p.bit_length(), base.q.bit_length())
        if bits > MAX_EXACT_BITS:
            raise FormulaError(
                f"constant power is too large to compute exactly (about {int(bits)} bits)",
                offset,
            )
    elif abs(exponent) > MAX_SYMBOLIC_EXPONENT:
        raise FormulaError(
            f"exponent {exponent} is too large for symbolic manipulation "
            f"(limit {MAX_SYMBOLIC_EXPONENT})",
            offset,
        )


FACTOR_MAX_OPS = 40
"""Largest cancelled intensity (in sympy operations) whose common factors are also taken out."""


def intensity(flops: Formula, bytes_: Formula) -> sympy.Expr:
    """Arithmetic intensity (FLOPs per byte) as an exact expression in lowest terms.

    ``together``/``cancel`` put the ratio over a common denominator and remove common
    factors; then each side has its own common factors taken out, as a reader would write
    it: ``16*B*k*r*(V + d)/(...)`` rather than ``(16*B*V*k*r + 16*B*d*k*r)/(...)``.
    """
    if not ratio_cost(flops, bytes_).within():
        raise FormulaError("intensity is past the symbolic budget (kb check refuses it)")
    denominator = to_sympy(bytes_)
    try:
        if denominator.is_zero:
            raise FormulaError("byte count is identically zero, so intensity is undefined")
        ratio = sympy.cancel(sympy.together(to_sympy(flops) / denominator))
    except ArithmeticError:  # sympy's PrecisionExhausted, should a constant need more digits
        raise FormulaError(
            "the intensity cannot be worked out exactly: a part of it is past the precision "
            "sympy can reach"
        ) from None
    # Taking the common factors out of a long sum costs several times cancelling it: past a
    # few dozen operations the cancelled form is what a reader gets, and so with a choice
    # inside, whose arguments factoring would rewrite away from the formula as written.
    if sympy.count_ops(ratio) > FACTOR_MAX_OPS or ratio.has(Min, Max):
        return ratio
    return _factored(ratio)


def _factored(ratio: sympy.Expr) -> sympy.Expr:
    """`ratio` with each side's common factors taken out. sympy's simplify gives the same for
    every intensity of the repository, at ten times the cost; elsewhere it tries rewrites
    that save an operation at a reader's expense (a sum of fractions, `log(2**(8*a + 8*e))`
    for `8*(a + e)*log(2)`) and can build integers too long to print. Mul(*args) multiplies
    a number into a lone sum (2*a + 2*b), as simplify does: factor_terms leaves 2*(a + b)
    unevaluated."""
    numerator, denominator = sympy.fraction(ratio)
    factored = sympy.factor_terms(numerator) / sympy.factor_terms(denominator)
    return sympy.Mul(*factored.args) if factored.is_Mul else factored


@dataclass(frozen=True, slots=True)
class Rendered:
    """An expression as plain text, LaTeX and presentation MathML."""

    text: str
    latex: str
    mathml: str


@lru_cache(maxsize=256)
def render_intensity(flops: Formula, bytes_: Formula) -> Rendered:
    """The intensity in lowest terms, rendered; cached by the formulas' text, since entries share
    formulas and the site renders every entry."""
    expr = intensity(flops, bytes_)
    return Rendered(str(expr), to_latex(expr), to_mathml(expr))


#: Symbol names sympy's printers may dress: with one subscript (`N_d`, `c_kv`), or with no
#: underscore and no final digit (`k`, `alpha`). sympy also reads `__` as a superscript and
#: final digits as a subscript, so `N__2` would read as N squared and `a1` as `a_1`, another
#: symbol: every other name is shown as written.
_DRESSED = re.compile(r"[A-Za-z]+(_[A-Za-z0-9]+|[A-Za-z]*)")

#: Names sympy's printers would dress as they typeset one of sympy's constants (the symbolic
#: tests find them from sympy's own tables): `pi` as π, `gamma` as Euler's constant, `phi`
#: (LaTeX) and `Phi` (MathML) as the golden ratio, `hbar` (LaTeX) as Planck's constant.
#: "intensity = π" on a page where pi = 64 reads as 3.14159, so these are shown as written;
#: the other Greek names are still dressed as their letters (`alpha`).
_CONSTANT_LOOKALIKES = frozenset({"Phi", "gamma", "hbar", "phi", "pi"})


#: Endings the LaTeX printer reads as an operation or a typeface on the rest of the name (any
#: case): `Nabs` as |N| and `Nbold` as a bold N read as another quantity made of the symbol N.
#: Decorations a name usually asks for (`xbar`, `khat`, `kprime`) are still drawn.
_OPERATION_ENDINGS = ("abs", "mag", "norm", "avg", "bold", "bm", "cal", "scr", "frak")


def _ambiguous(name: str) -> bool:
    return (
        _DRESSED.fullmatch(name) is None
        or (name[-1].isdigit() and "_" not in name)
        or name in _CONSTANT_LOOKALIKES
        or (name.lower().endswith(_OPERATION_ENDINGS) and name.lower() not in _OPERATION_ENDINGS)
    )


class _LatexPrinter(LatexPrinter):  # type: ignore[misc]  # sympy ships no types
    def _split_super_sub(self, name: str) -> tuple[str, list[str], list[str]]:
        if _ambiguous(name):
            return name.replace("_", "\\_"), [], []
        return super()._split_super_sub(name)  # type: ignore[no-any-return]


class _MathMLPrinter(MathMLPresentationPrinter):  # type: ignore[misc]
    def _print_Symbol(self, sym: sympy.Symbol, style: str = "plain") -> Any:
        if not _ambiguous(sym.name):
            return super()._print_Symbol(sym, style)
        # Not by splitting the name as the LaTeX printer is: this printer translates a Greek
        # name (`pi` to π) after the split.
        written = self.dom.createElement("mi")
        written.appendChild(self.dom.createTextNode(sym.name))
        return written


def to_latex(expr: sympy.Expr) -> str:
    """LaTeX for the site's formula rendering."""
    latex: str = _LatexPrinter().doprint(expr)
    return latex


def to_mathml(expr: sympy.Expr) -> str:
    """Presentation MathML, which browsers render natively without a JavaScript library."""
    mathml: str = _MathMLPrinter().doprint(expr)
    return mathml
