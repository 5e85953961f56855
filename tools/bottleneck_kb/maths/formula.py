"""The formula language of knowledge-base entries.

Entries state FLOPs and bytes moved as formulas over symbols they declare (``2 * k * d * V``,
``d * V * (q + s) / 8``). Entries arrive as pull requests from strangers and CI parses them, so
every formula is treated as hostile input:

* the text is never handed to ``eval``/``exec``/``compile``-to-code or to sympy's string parser;
  it goes through ``ast.parse`` and the resulting tree is checked node by node against an
  allowlist, so anything not explicitly permitted (attribute access, subscripts, calls to
  arbitrary names, ...) is an error rather than a capability;
* length, character set and bracket nesting are checked *before* ``ast.parse``, because
  CPython's parser is itself recursive and can be driven into deep recursion by nesting;
* the depth of the accepted tree is bounded, so both validation and evaluation (which recurse)
  stay far from Python's recursion limit;
* evaluation is done exclusively in ``float``: ``9**9**9`` overflows immediately instead of
  building a multi-million-digit integer, and every intermediate result is checked for being
  finite so that a bad formula fails loudly instead of propagating ``inf``/``nan`` into charts.

Every problem is reported as a :class:`FormulaError` carrying the character offset inside the
formula, so review tooling can point at the offending spot.
"""

from __future__ import annotations

import ast
import math
import operator
import re
import sys
import warnings
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from math import isfinite
from numbers import Real
from types import MappingProxyType
from typing import Any, NamedTuple

from ..core.errors import KBError
from ..core.text import closest

__all__ = [
    "FUNCTIONS",
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "MAX_LENGTH",
    "Formula",
    "FormulaError",
    "Function",
    "evaluate",
    "offset_of",
    "parse",
    "power",
]

MAX_LENGTH = 1000
"""Longest accepted formula text; real formulas are a few dozen characters."""

MAX_DEPTH = 64
"""Deepest accepted bracket nesting and expression-tree depth."""

MAX_INT_DIGITS = 30
"""Longest accepted integer literal; longer ones cannot be meant and would lose precision."""

_MAX_LISTED_SYMBOLS = 20
"""How many declared symbols an "unknown symbol" message lists before eliding the rest."""


class FormulaError(KBError):
    """A formula that cannot be parsed or evaluated.

    ``offset`` is the 0-based character offset inside the formula text where the problem is
    (0 when unknown); ``hint`` is an optional suggestion for fixing it.
    """

    def __init__(self, message: str, offset: int = 0, hint: str | None = None) -> None:
        super().__init__(message, hint)
        self.args = (message, offset, hint)
        self.offset = offset

    def __str__(self) -> str:
        text = f"{self.message} (at offset {self.offset})"
        return f"{text}; {self.hint}" if self.hint else text


@dataclass(frozen=True, slots=True)
class Formula:
    """A parsed, validated formula.

    ``tree`` only contains the node types the language allows, which is what lets
    :func:`evaluate` and the sympy conversion walk it without further checks. Equality and
    hashing use the text (and the symbols, which follow from it), not the tree, because AST
    nodes compare by identity.
    """

    text: str
    tree: ast.expr = field(compare=False, repr=False)
    symbols: frozenset[str]
    #: The tree compiled to nested closures once, because entries are evaluated many times
    #: (every device, every check, every step of a crossover search).
    program: Callable[[Mapping[str, float]], float] = field(compare=False, repr=False)
    #: Nodes of the tree: what one evaluation of the formula costs, in the unit the
    #: evaluation budget counts (`roofline.EVALUATION_BUDGET`).
    size: int = field(default=1, compare=False, repr=False)


Bounds = tuple[float, float]


class Function(NamedTuple):
    """A function callable from formulas: its arity, its float implementation, its bounds
    over intervals of its arguments (raising ValueError outside its domain), its symbolic
    form, given sympy's names (so that this module never imports sympy; min, max, ceil and
    floor come bounded, see `symbolic`), and its JavaScript implementation for the site's
    explorer (a JS expression naming a function; a non-finite result from finite arguments is
    refused there as outside the domain)."""

    min_args: int
    max_args: int | None  # None: no upper bound
    impl: Callable[..., float]
    bounds: Callable[..., Bounds]
    symbolic: Callable[[Any], Callable[..., Any]]
    javascript: str


def _increasing(impl: Callable[[float], float]) -> Callable[[Bounds], Bounds]:
    """The bounds of a non-decreasing function: its values at the ends."""
    return lambda x: (impl(x[0]), impl(x[1]))


def _elementwise(impl: Callable[..., float]) -> Callable[..., Bounds]:
    """The bounds of min or max: the function of the lower ends and of the upper ends."""
    return lambda *xs: (impl(x[0] for x in xs), impl(x[1] for x in xs))


def _ceil(x: float) -> float:
    # math.ceil/floor return int; converting back keeps all arithmetic in float.
    return float(math.ceil(x))


def _floor(x: float) -> float:
    return float(math.floor(x))


#: The one table of the language's functions: parsing, evaluation, the symbolic view and the
#: documentation all read it, so a new function is one row here.
FUNCTIONS: Mapping[str, Function] = MappingProxyType(
    {
        "min": Function(2, None, min, _elementwise(min), lambda sympy: sympy.Min, "R.min"),
        "max": Function(2, None, max, _elementwise(max), lambda sympy: sympy.Max, "R.max"),
        "ceil": Function(1, 1, _ceil, _increasing(_ceil), lambda sympy: sympy.ceiling, "Math.ceil"),
        "floor": Function(
            1, 1, _floor, _increasing(_floor), lambda sympy: sympy.floor, "Math.floor"
        ),
        "log2": Function(
            1,
            1,
            math.log2,
            _increasing(math.log2),
            lambda sympy: lambda x: sympy.log(x, 2),
            "Math.log2",
        ),
        "sqrt": Function(
            1, 1, math.sqrt, _increasing(math.sqrt), lambda sympy: sympy.sqrt, "Math.sqrt"
        ),
    }
)

_FUNCTION_NAMES = ", ".join(FUNCTIONS)


#: Integer exponents up to this size are worked out by `_integer_power`, in Python and in the
#: explorer alike (`BINARY_POWERING_LIMIT` in kb-formula.js); larger ones by pow, whose error
#: does not grow with the exponent as repeated squaring's does.
BINARY_POWERING_LIMIT = 64
#: A bound on `_integer_power`'s relative error up to that limit: each squaring doubles the
#: error it is given and adds a rounding, so x ** n is within about n roundings of the truth.
POWERING_ERROR = 2 * BINARY_POWERING_LIMIT * sys.float_info.epsilon


def power(base: float, exponent: float) -> float:
    """`base ** exponent` as the site's explorer computes it (`R.pow` in
    site/assets/kb-formula.js), bit for bit wherever IEEE 754 allows: a page's static table
    and its explorer must not flip a `floor` or a verdict over the last bit of a power, and
    libm's pow (glibc's here, V8's or another engine's there) is not correctly rounded.

    An integer exponent up to BINARY_POWERING_LIMIT goes through `_integer_power`, the same
    multiplications in the same order in both languages; an exponent of 0.5 through sqrt,
    correctly rounded in both. Any other exponent goes to libm's pow, whose last bit may
    differ between engines.

    Raises as math.pow does: ValueError for zero to a negative power and for a negative base
    to a fractional power, OverflowError for a result too large for a float.
    """
    if base == 0 and exponent < 0:
        raise ValueError("zero to a negative power")
    integral = float(exponent).is_integer()  # an int is a float to mypy, not to Python 3.11
    if integral and abs(exponent) <= BINARY_POWERING_LIMIT:
        return _integer_power(base, exponent)
    if base < 0 and not integral:
        raise ValueError("negative base to a fractional power")
    if exponent == 0.5:
        # abs: pow(-0.0, 0.5) is +0.0, sqrt(-0.0) is -0.0.
        return math.sqrt(abs(base))
    return math.pow(base, exponent)


def _integer_power(base: float, exponent: float) -> float:
    """`base ** exponent` for an integral `exponent` by binary powering, one correctly rounded
    multiplication per step (and one division for a negative exponent), so JavaScript gets the
    same bits. Every product that is used lies between the base and the result in size, so
    it overflows or underflows only where the result does; but for a negative exponent the
    power taken the reciprocal of overflows where the result is below about 5.6e-309, a
    subnormal float, so such a result is 0 (where pow would give the subnormal)."""
    left = int(abs(exponent))
    result, square = 1.0, base
    while left:
        if left & 1:
            result *= square
        left >>= 1
        square *= square
    if exponent < 0:
        if result == 0:
            # base ** -exponent underflowed, so its reciprocal is past the largest float.
            raise OverflowError("integer power too large")
        result = 1.0 / result
    if math.isinf(result):
        raise OverflowError("integer power too large")
    return result


_BINARY_OPERATORS: Mapping[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: power,
}

_UNARY_OPERATORS: Mapping[type[ast.unaryop], Callable[[float], float]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}

_REJECTED_OPERATORS: Mapping[type[ast.AST], tuple[str, str | None]] = {
    ast.FloorDiv: ("floor division `//`", "write floor(a / b)"),
    ast.Mod: ("modulo `%`", None),
    ast.MatMult: ("matrix multiplication `@`", None),
    ast.BitAnd: ("bitwise `&`", None),
    ast.BitOr: ("bitwise `|`", None),
    ast.BitXor: ("bitwise `^`", "write `**` for powers"),
    ast.LShift: ("shift `<<`", "write `* 2**n`"),
    ast.RShift: ("shift `>>`", "write `/ 2**n`"),
    ast.Not: ("boolean `not`", None),
    ast.Invert: ("bitwise `~`", None),
}

_REJECTED_NODES: Mapping[type[ast.AST], tuple[str, str | None]] = {
    ast.Attribute: ("attribute access", None),
    ast.Subscript: ("subscript", None),
    ast.Lambda: ("lambda", None),
    ast.ListComp: ("list comprehension", None),
    ast.SetComp: ("set comprehension", None),
    ast.DictComp: ("dict comprehension", None),
    ast.GeneratorExp: ("generator expression", None),
    ast.Compare: ("comparison", None),
    ast.BoolOp: ("boolean operator (`and`/`or`)", None),
    ast.IfExp: ("conditional expression (`if`/`else`)", "use min(...) or max(...)"),
    ast.NamedExpr: ("assignment expression `:=`", None),
    ast.JoinedStr: ("f-string", None),
    ast.List: ("list", None),
    ast.Tuple: ("tuple", "commas only separate the arguments of min(...) and max(...)"),
    ast.Set: ("set", None),
    ast.Dict: ("dict", None),
    ast.Starred: ("starred expression", None),
    ast.Await: ("await", None),
    ast.Yield: ("yield", None),
    ast.YieldFrom: ("yield", None),
}


def parse(text: str, declared: Collection[str], usable: Collection[str] | None = None) -> Formula:
    """Parse and validate ``text`` as a formula over the ``declared`` symbols.

    Raises :class:`FormulaError` for anything outside the language, with the offset of the
    offending construct. An unknown name is told the ``usable`` names (default: the declared
    ones), listed and as the nearest: a declared name outside them is accepted here for
    another rule to judge (a derived name defined below the formula that uses it).
    """
    if not isinstance(text, str):
        raise FormulaError(f"a formula must be a string, not {type(text).__name__}")
    declared_set = frozenset(declared)
    clashes = sorted(declared_set & FUNCTIONS.keys())
    if clashes:
        # `min` would otherwise mean a symbol in one place and a function in another.
        raise FormulaError(
            f"declared symbol `{clashes[0]}` has the same name as a function",
            hint="rename the symbol",
        )
    _check_text(text)
    tree = _parse_ast(text)
    validator = _Validator(
        text, declared_set, declared_set if usable is None else frozenset(usable)
    )
    program = validator.check(tree, 1)
    size = sum(1 for _ in ast.walk(tree))
    return Formula(text, tree, frozenset(validator.used), program, size)


#: The first character a formula may not hold: outside printable ASCII (so line breaks too),
#: or `#`.
_REFUSED_CHARACTER = re.compile(r"[^\x20-\x22\x24-\x7e]")


def _check_text(text: str) -> None:
    """Reject text that must not reach ``ast.parse``: too long, odd characters, deep nesting."""
    if len(text) > MAX_LENGTH:
        raise FormulaError(
            f"formula is {len(text)} characters long; the limit is {MAX_LENGTH}", MAX_LENGTH
        )
    refused = _REFUSED_CHARACTER.search(text)
    if refused is not None:
        index, char = refused.start(), refused.group()
        if char in "\r\n":
            raise FormulaError("a formula must be a single line", index)
        if char == "#":
            # A comment could hide arbitrary text from a reviewer reading the rendered formula.
            raise FormulaError("comments (`#`) are not allowed", index)
        raise FormulaError(
            f"character {char!r} (U+{ord(char):04X}) is not allowed; formulas are printable ASCII",
            index,
        )
    if not text.strip():
        raise FormulaError("formula is empty")
    if sum(map(text.count, "([{")) <= MAX_DEPTH:
        return  # too few openers to nest past the limit
    depth = 0
    for index, char in enumerate(text):
        if char in "([{":
            depth += 1
            if depth > MAX_DEPTH:
                raise FormulaError(f"brackets are nested more than {MAX_DEPTH} deep", index)
        elif char in ")]}":
            # Never below zero, so stray closers cannot "pay for" deeper nesting later on.
            depth = max(depth - 1, 0)


def _parse_ast(text: str) -> ast.expr:
    """Run CPython's parser on pre-checked text, turning its failures into FormulaError."""
    stripped = text.lstrip(" ")
    # ast.parse rejects leading whitespace as an indentation error; parse without it and shift
    # the recorded offsets back so that they index into the original text.
    shift = len(text) - len(stripped)
    try:
        with warnings.catch_warnings():
            # The tokenizer warns about things like `1if` or `'\d'`; those formulas are rejected
            # or accepted on their merits, and stranger-controlled text must not spam CI logs
            # (or, under `-W error`, change what is accepted).
            warnings.simplefilter("ignore")
            tree = ast.parse(stripped, mode="eval").body
    except SyntaxError as error:
        if not error.offset or error.offset < 1 or (error.lineno or 1) > 1:
            raise FormulaError("formula ends unexpectedly", len(text)) from None
        offset = min(error.offset - 1 + shift, len(text))
        raise FormulaError(f"syntax error: {error.msg}", offset) from None
    except (RecursionError, MemoryError):
        # Not reachable within MAX_LENGTH/MAX_DEPTH on current CPython; kept because the
        # parser's limits are an implementation detail we do not want to depend on.
        raise FormulaError("formula is too complex to parse") from None
    if shift:
        for node in ast.walk(tree):
            if isinstance(node, ast.expr | ast.keyword):
                node.col_offset += shift
                if node.end_col_offset is not None:
                    node.end_col_offset += shift
    return tree


def _after(text: str, end: int | None) -> int:
    """Offset of the first token after position ``end``: operators sit between operands."""
    index = end or 0
    while index < len(text) and text[index] in " )":
        index += 1
    return index


def offset_of(text: str, node: ast.AST) -> int:
    """The offset to report for a problem with ``node``.

    For infix constructs that is the operator (the ``//`` in ``k // 2``, the ``.`` in
    ``k.real``), which is where a reader looks; otherwise the node's own start.
    """
    if isinstance(node, ast.BinOp | ast.Compare):
        return _after(text, node.left.end_col_offset)
    if isinstance(node, ast.Attribute | ast.Subscript):
        return _after(text, node.value.end_col_offset)
    if isinstance(node, ast.BoolOp):
        return _after(text, node.values[0].end_col_offset)
    if isinstance(node, ast.IfExp):
        return _after(text, node.body.end_col_offset)
    if isinstance(node, ast.NamedExpr):
        return _after(text, node.target.end_col_offset)
    return getattr(node, "col_offset", 0)


def _suggestion(name: str, candidates: Collection[str]) -> str | None:
    """A "did you mean" hint, in the formula language's quotes."""
    match = closest(name, sorted(candidates))
    return f"did you mean `{match}`?" if match else None


class _Validator:
    """Allowlist walk over a parsed tree, collecting the declared symbols it uses and
    compiling what it admits (one walk, not two: `kb check` parses every formula it reads)."""

    def __init__(self, text: str, declared: frozenset[str], usable: frozenset[str]) -> None:
        self.text = text
        self.declared = declared
        self.usable = usable
        self.used: set[str] = set()

    def reject(self, node: ast.AST, message: str, hint: str | None = None) -> FormulaError:
        return FormulaError(message, offset_of(self.text, node), hint)

    def check(self, node: ast.AST, depth: int) -> Program:
        """The program of `node`, once it is shown to be in the language."""
        # Checked before looking at the node so recursion never goes deeper than MAX_DEPTH.
        if depth > MAX_DEPTH:
            raise self.reject(node, f"formula is nested more than {MAX_DEPTH} levels deep")
        if isinstance(node, ast.BinOp):
            # Left operand, operator, right operand: problems are reported in reading order.
            left = self.check(node.left, depth + 1)
            self.check_operator(node, node.op, _BINARY_OPERATORS)
            return _binary(node, self.text, left, self.check(node.right, depth + 1))
        if isinstance(node, ast.Name):
            self.check_name(node)
            return _symbol(node, self.text)
        if isinstance(node, ast.Constant):
            self.check_constant(node)
            return _constant(node)
        if isinstance(node, ast.UnaryOp):
            self.check_operator(node, node.op, _UNARY_OPERATORS)
            return _unary(node, self.text, self.check(node.operand, depth + 1))
        if isinstance(node, ast.Call):
            return self.check_call(node, depth)
        if type(node) in _REJECTED_NODES:
            what, hint = _REJECTED_NODES[type(node)]
            raise self.reject(node, f"{what} is not allowed", hint)
        raise self.reject(node, f"`{type(node).__name__}` expressions are not allowed")

    def check_operator(
        self, node: ast.AST, op: ast.AST, allowed: Collection[type[ast.AST]]
    ) -> None:
        if type(op) in allowed:
            return
        what, hint = _REJECTED_OPERATORS.get(type(op), (f"operator `{type(op).__name__}`", None))
        raise self.reject(node, f"{what} is not allowed", hint)

    def check_constant(self, node: ast.Constant) -> None:
        value = node.value
        # bool is a subclass of int, so it has to be singled out before the int check.
        if isinstance(value, bool) or value is None or value is Ellipsis:
            raise self.reject(node, f"`{value!r}` is not allowed; only numbers are")
        if isinstance(value, int):
            # Formulas are ASCII (checked before parsing), so the parser's offsets, which
            # count UTF-8 bytes, index the text.
            literal = self.text[node.col_offset : node.end_col_offset]
            if literal[:2].lower() in ("0x", "0o", "0b"):
                raise self.reject(node, f"non-decimal literal `{literal}` is not allowed")
            if len(str(value)) > MAX_INT_DIGITS:
                raise self.reject(node, f"integer literal has more than {MAX_INT_DIGITS} digits")
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise self.reject(node, "number literal is too large (not a finite number)")
        elif isinstance(value, complex):
            raise self.reject(node, "complex number literal is not allowed")
        elif isinstance(value, str):
            raise self.reject(node, "string literal is not allowed")
        else:
            raise self.reject(node, f"{type(value).__name__} literal is not allowed")

    def check_name(self, node: ast.Name) -> None:
        if node.id in self.declared:
            self.used.add(node.id)
            return
        if node.id in FUNCTIONS:
            example = "min(a, b)" if FUNCTIONS[node.id].min_args > 1 else f"{node.id}(x)"
            raise self.reject(
                node, f"function `{node.id}` used as a value", f"call it, as in {example}"
            )
        listed = sorted(self.usable)
        names = ", ".join(listed[:_MAX_LISTED_SYMBOLS]) or "(none)"
        if len(listed) > _MAX_LISTED_SYMBOLS:
            names += ", ..."
        raise self.reject(
            node,
            f"unknown symbol `{node.id}`; declared: {names}",
            _suggestion(node.id, self.usable),
        )

    def check_call(self, node: ast.Call, depth: int) -> Program:
        allowed = _FUNCTION_NAMES
        func = node.func
        if not isinstance(func, ast.Name):
            what = _REJECTED_NODES.get(type(func), ("expression", None))[0]
            raise self.reject(func, f"{what} is not allowed; only {allowed} can be called")
        name = func.id
        if name not in FUNCTIONS:
            if name in self.declared:
                raise self.reject(func, f"`{name}` is a symbol, not a function")
            raise self.reject(
                func,
                f"call to unknown function `{name}`; functions are {allowed}",
                _suggestion(name, FUNCTIONS.keys()),
            )
        if node.keywords:
            keyword = node.keywords[0]
            what = f"`{keyword.arg}=`" if keyword.arg else "`**` unpacking"
            raise self.reject(keyword, f"keyword argument {what} is not allowed")
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise self.reject(arg, "starred argument is not allowed")
        spec = FUNCTIONS[name]
        count = len(node.args)
        if spec.max_args == spec.min_args and count != spec.min_args:
            plural = "" if spec.min_args == 1 else "s"
            raise self.reject(
                node, f"`{name}` takes exactly {spec.min_args} argument{plural}, got {count}"
            )
        if count < spec.min_args:
            raise self.reject(
                node, f"`{name}` takes at least {spec.min_args} arguments, got {count}"
            )
        return _call(node, self.text, [self.check(arg, depth + 1) for arg in node.args])


def evaluate(formula: Formula, values: Mapping[str, float]) -> float:
    """Evaluate ``formula`` with float arithmetic at the given symbol values.

    Every intermediate result must be a finite float; overflow, division by zero, domain
    errors (``log2(0)``, ``sqrt(-1)``, a negative base to a fractional power) and missing or
    non-numeric values raise :class:`FormulaError` at the offset of the failing node.
    """
    env: dict[str, float] = {}
    for name in formula.symbols:
        env[name] = _bind(formula, name, values)
    return formula.program(env)


def _bind(formula: Formula, name: str, values: Mapping[str, float]) -> float:
    """Fetch and check one symbol's value once, rather than at every occurrence."""

    def fail(message: str) -> FormulaError:
        first_use = next(
            (
                node
                for node in ast.walk(formula.tree)
                if isinstance(node, ast.Name) and node.id == name
            ),
            formula.tree,
        )
        return FormulaError(message, offset_of(formula.text, first_use))

    if name not in values:
        raise fail(f"no value given for symbol `{name}`")
    raw = values[name]
    # numbers.Real admits int, float, Fraction and numpy scalars; bool is excluded because a
    # True/False there is a bug in the caller, not a quantity.
    if type(raw) is not float and (isinstance(raw, bool) or not isinstance(raw, Real)):
        raise fail(f"value of `{name}` is not a real number: {raw!r}")
    try:
        value = float(raw)
    except OverflowError:
        raise fail(f"value of `{name}` is too large") from None
    if not math.isfinite(value):
        raise fail(f"value of `{name}` is not a finite number: {value!r}")
    return value


Program = Callable[[Mapping[str, float]], float]


# The closures a validated tree compiles to, node by node: float arithmetic with every result
# checked. Depth is bounded by validation, so the recursion in the closures is safe. Where a
# failure is reported is worked out only when one happens: most formulas never fail.


def _symbol(node: ast.Name, text: str) -> Program:
    name = node.id

    def symbol(env: Mapping[str, float]) -> float:
        try:
            return env[name]
        except KeyError:
            raise _failure(f"no value for symbol `{name}`", text, node) from None

    return symbol


def _constant(node: ast.Constant) -> Program:
    # Integer literals are converted so that no integer arithmetic ever happens; the
    # validator admitted only int and float constants.
    assert isinstance(node.value, int | float)
    constant = float(node.value)
    return lambda env: constant


def _binary(node: ast.BinOp, text: str, left: Program, right: Program) -> Program:
    operator_ = _BINARY_OPERATORS[type(node.op)]

    def binary(env: Mapping[str, float]) -> float:
        a, b = left(env), right(env)
        try:
            result = operator_(a, b)
        except ZeroDivisionError:
            raise _failure("division by zero", text, node) from None
        except OverflowError:
            raise _failure("result is too large", text, node) from None
        except ValueError:
            # Only power raises ValueError here: 0 to a negative power, or a negative base
            # with a fractional exponent (whose result would be complex).
            message = (
                "division by zero (zero to a negative power)"
                if a == 0
                else "negative number to a fractional power is not a real number"
            )
            raise _failure(message, text, node) from None
        if not isfinite(result):
            raise _failure(_NOT_FINITE, text, node)
        return result

    return binary


def _unary(node: ast.UnaryOp, text: str, operand: Program) -> Program:
    unary = _UNARY_OPERATORS[type(node.op)]

    def unary_operation(env: Mapping[str, float]) -> float:
        result = unary(operand(env))
        if not isfinite(result):
            raise _failure(_NOT_FINITE, text, node)
        return result

    return unary_operation


def _call(node: ast.Call, text: str, arguments: list[Program]) -> Program:
    assert isinstance(node.func, ast.Name)
    called = node.func.id
    function = FUNCTIONS[called].impl

    def call(env: Mapping[str, float]) -> float:
        args = [argument(env) for argument in arguments]
        try:
            result = function(*args)
        except ValueError:
            shown = ", ".join(f"{arg:g}" for arg in args)
            raise _failure(f"`{called}({shown})` is undefined", text, node) from None
        except OverflowError:
            raise _failure("result is too large", text, node) from None
        if not isfinite(result):
            raise _failure(_NOT_FINITE, text, node)
        return result

    return call


_NOT_FINITE = "result is not a finite number"


def _failure(message: str, text: str, node: ast.AST) -> FormulaError:
    """`message` at the place in `text` a reader looks for `node`'s problem."""
    return FormulaError(message, offset_of(text, node))
