"""Tests for the formula language: what it accepts, what it computes, and what it refuses.

Formulas come from pull requests by strangers, so most of these tests pin down rejections:
the construct, the exact offset reported, and that refusing costs (next to) nothing.
"""

from __future__ import annotations

import math
import pickle
import re
import warnings
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bottleneck_kb.maths.formula import (
    FUNCTIONS,
    MAX_DEPTH,
    MAX_LENGTH,
    Formula,
    FormulaError,
    evaluate,
    parse,
)

DECLARED = frozenset({"k", "d", "V", "q", "s", "N_d", "B"})


def run(text: str, **values: float) -> float:
    return evaluate(parse(text, DECLARED), values)


def error_of(text: str, declared: frozenset[str] = DECLARED) -> FormulaError:
    with pytest.raises(FormulaError) as info:
        parse(text, declared)
    return info.value


def evaluation_error_of(text: str, **values: float) -> FormulaError:
    formula = parse(text, DECLARED)
    with pytest.raises(FormulaError) as info:
        evaluate(formula, values)
    return info.value


# --- what is accepted and what it evaluates to ------------------------------------------------


def test_draft_pass_flops() -> None:
    assert run("2 * k * d * V", k=4, d=4096, V=128256) == 4202692608.0


def test_quantized_weight_bytes() -> None:
    # 4096 * 128256 = 525336576; * 4.25 = 2232680448; / 8 = 279085056
    assert run("d * V * (q + s) / 8", d=4096, V=128256, q=4, s=0.25) == 279085056.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2 + 3 * 4 ** 2", 50.0),
        ("(2 + 3) * 4", 20.0),
        ("2 ** 3 ** 2", 512.0),  # right-associative, as in Python
        ("-2 ** 2", -4.0),  # unary minus binds looser than **, as in Python
        ("2 ** -1", 0.5),
        ("+3 - -2", 5.0),
        ("10 / 4", 2.5),
        ("7 - 2 - 1", 4.0),
        ("1e9 / 1e3", 1000000.0),
        ("128256", 128256.0),
        (".5 + 1.", 1.5),
        ("1_000 * 2", 2000.0),
        ("min(3, 1, 2)", 1.0),
        ("max(3, 1, 2)", 3.0),
        ("ceil(2.5)", 3.0),
        ("floor(-2.5)", -3.0),
        ("log2(1024)", 10.0),
        ("sqrt(16)", 4.0),
        ("ceil(1e300)", 1e300),
        ("  1 + 2", 3.0),
        ("(((((((1)))))))", 1.0),
    ],
)
def test_evaluates_to(text: str, expected: float) -> None:
    result = run(text)
    assert result == expected
    assert type(result) is float


def test_symbols_are_the_declared_ones_used() -> None:
    formula = parse("2 * k * N_d + min(k, d)", DECLARED)
    assert formula.symbols == frozenset({"k", "N_d", "d"})
    assert formula.text == "2 * k * N_d + min(k, d)"


def test_formula_equality_follows_text() -> None:
    first, second = parse("k * d", DECLARED), parse("k * d", DECLARED)
    assert first == second
    assert hash(first) == hash(second)
    assert first != parse("d * k", DECLARED)
    assert isinstance(first, Formula)


def test_values_may_be_ints_and_fractions() -> None:
    # Not in evaluate's signature, which names what entries give (floats); taken all the same.
    assert run("k / d", k=3, d=Fraction(3, 2)) == 2.0  # type: ignore[arg-type]


def test_functions_table() -> None:
    assert set(FUNCTIONS) == {"min", "max", "ceil", "floor", "log2", "sqrt"}
    assert FUNCTIONS["min"].min_args == 2
    assert FUNCTIONS["min"].max_args is None
    assert (FUNCTIONS["sqrt"].min_args, FUNCTIONS["sqrt"].max_args) == (1, 1)
    assert FUNCTIONS["log2"].impl(8.0) == 3.0


def test_length_limit_is_inclusive() -> None:
    # Arguments of one call keep the tree shallow; a 500-term sum would hit MAX_DEPTH instead.
    text = ("max(" + "1, " * 300 + "2)").ljust(MAX_LENGTH)
    assert run(text) == 2.0
    error = error_of(text + "0")
    assert error.offset == MAX_LENGTH
    assert "limit" in error.message


def test_bracket_depth_limit_is_inclusive() -> None:
    assert run("(" * MAX_DEPTH + "k" + ")" * MAX_DEPTH, k=2) == 2.0
    error = error_of("(" * (MAX_DEPTH + 1) + "k" + ")" * (MAX_DEPTH + 1))
    assert error.offset == MAX_DEPTH
    assert "nested" in error.message


def test_tree_depth_limit_is_inclusive() -> None:
    # 63 unary minus and the name make a tree exactly MAX_DEPTH deep.
    assert run("-" * (MAX_DEPTH - 1) + "k", k=2) == -2.0
    error = error_of("-" * MAX_DEPTH + "k")
    assert error.offset == MAX_DEPTH
    assert "nested" in error.message


# --- what is rejected at parse time, and where --------------------------------------------------


@pytest.mark.parametrize(
    ("text", "offset", "fragment"),
    [
        ("k.real", 1, "attribute access"),
        ("(k).real", 3, "attribute access"),
        ("__import__('os')", 0, "`__import__`"),
        ("(lambda: 1)()", 1, "lambda"),
        ("[x for x in k]", 0, "list comprehension"),
        ("(x for x in k)", 0, "generator expression"),
        ("k[0]", 1, "subscript"),
        ("'abc'", 0, "string literal"),
        ("b'abc'", 0, "bytes literal"),
        ("f'{k}'", 0, "f-string"),
        ("1e400", 0, "not a finite number"),
        ("1j", 0, "complex"),
        ("0x10", 0, "non-decimal"),
        ("1" * 31, 0, "30 digits"),
        ("k if k else 1", 2, "conditional expression"),
        ("k < 1", 2, "comparison"),
        ("1 <= k", 2, "comparison"),
        ("k and d", 2, "boolean operator"),
        ("k or d", 2, "boolean operator"),
        ("not k", 0, "`not`"),
        ("k // 2", 2, "`//`"),
        ("k % 2", 2, "`%`"),
        ("k @ d", 2, "`@`"),
        ("k ^ 2", 2, "`^`"),
        ("k & d", 2, "`&`"),
        ("k | d", 2, "`|`"),
        ("k << 1", 2, "`<<`"),
        ("k >> 1", 2, "`>>`"),
        ("~k", 0, "`~`"),
        ("(k := 1)", 3, ":="),
        ("k, d", 0, "tuple"),
        ("{k: 1}", 0, "dict"),
        ("{k}", 0, "set"),
        ("[k]", 0, "list"),
        ("...", 0, "Ellipsis"),
        ("True", 0, "True"),
        ("None", 0, "None"),
        ("print(k)", 0, "`print`"),
        ("k(2)", 0, "`k` is a symbol"),
        ("min + 1", 0, "function `min` used as a value"),
        ("min(k)", 0, "at least 2 arguments, got 1"),
        ("sqrt(k, 2)", 0, "exactly 1 argument, got 2"),
        ("ceil()", 0, "exactly 1 argument, got 0"),
        ("max(k, d, key=k)", 10, "keyword argument `key=`"),
        ("min(**k)", 4, "`**` unpacking"),
        ("min(*k, d)", 4, "starred argument"),
        ("k + 1 * N_D", 8, "unknown symbol `N_D`"),
        ("k\n+ 1", 1, "single line"),
        ("k\r", 1, "single line"),
        ("k + \u00e9", 4, "U+00E9"),
        ("k\t+ 1", 1, "U+0009"),
        ("k\x00", 1, "U+0000"),
        ("k # comment", 2, "comments"),
        ("", 0, "empty"),
        ("   ", 0, "empty"),
        ("k +", 3, "ends unexpectedly"),
        ("min(k,", 3, "'(' was never closed"),
        ("k k", 2, "syntax error"),
        ("k) + (k", 1, "unmatched ')'"),
        ("k $ 2", 2, "syntax error"),
        ("   k k", 5, "syntax error"),
    ],
)
def test_rejected_at(text: str, offset: int, fragment: str) -> None:
    error = error_of(text)
    assert fragment in error.message
    assert error.offset == offset


def test_unknown_symbol_message_and_hint() -> None:
    error = error_of("2 * k * N_D", frozenset({"k", "N_d"}))
    assert error.offset == 8
    assert error.message == "unknown symbol `N_D`; declared: N_d, k"
    assert error.hint == "did you mean `N_d`?"


def test_unknown_symbol_offset_accounts_for_leading_spaces() -> None:
    assert error_of("  2 * N_D").offset == 6


def test_unknown_symbol_without_close_match_has_no_hint() -> None:
    error = error_of("zzzz", frozenset({"k"}))
    assert error.message == "unknown symbol `zzzz`; declared: k"
    assert error.hint is None


def test_unknown_function_hint() -> None:
    error = error_of("log(k)")
    assert error.hint == "did you mean `log2`?"


def test_rejected_operator_hint() -> None:
    assert error_of("k // 2").hint == "write floor(a / b)"


def test_declared_symbol_may_not_shadow_function() -> None:
    error = error_of("k", frozenset({"k", "min"}))
    assert "`min`" in error.message


def test_tokenizer_warnings_neither_leak_nor_change_the_outcome() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a leaked SyntaxWarning would fail the test
        error = error_of("1if k else 2")
    assert "conditional expression" in error.message
    assert error.offset == 1


def test_non_string_formula() -> None:
    with pytest.raises(FormulaError, match="must be a string"):
        parse(12, DECLARED)  # type: ignore[arg-type]


def test_error_str_and_pickle() -> None:
    error = error_of("2 * k * N_D", frozenset({"k", "N_d"}))
    assert str(error) == (
        "unknown symbol `N_D`; declared: N_d, k (at offset 8); did you mean `N_d`?"
    )
    clone = pickle.loads(pickle.dumps(error))
    assert (clone.message, clone.offset, clone.hint) == (error.message, 8, error.hint)


# --- what is rejected at evaluation time, and where ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "offset", "message"),
    [
        ("k / (d - d)", 2, "division by zero"),
        ("0 ** -1", 2, "division by zero (zero to a negative power)"),
        ("(0 - 8) ** (1 / 3)", 8, "negative number to a fractional power is not a real number"),
        ("10 ** 400", 3, "result is too large"),
        ("1e308 * 10", 6, "result is not a finite number"),
        ("1e308 + 1e308", 6, "result is not a finite number"),
        ("-1e308 - 1e308", 7, "result is not a finite number"),
        ("1 + log2(k - k)", 4, "`log2(0)` is undefined"),
        ("sqrt(0 - k)", 0, "`sqrt(-2)` is undefined"),
        ("max(1e308 * 2, 1)", 10, "result is not a finite number"),
    ],
)
def test_evaluation_fails_at(text: str, offset: int, message: str) -> None:
    error = evaluation_error_of(text, k=2, d=3)
    assert error.message == message
    assert error.offset == offset


@pytest.mark.timeout(5)  # an integer 9**387420489 would take far longer to compute
def test_power_tower_overflows_in_float_quickly() -> None:
    formula = parse("9**9**9", DECLARED)
    with pytest.raises(FormulaError) as info:
        evaluate(formula, {})
    assert info.value.message == "result is too large"
    assert info.value.offset == 1


# --- powers: computed as the site's explorer computes them --------------------------------------

# math.pow(261120.99999999997, 0.5) is 511.0, one ulp above the correctly rounded square root.
TILE = 261120.99999999997


def test_a_power_of_one_half_is_the_correctly_rounded_square_root() -> None:
    assert run("k ** 0.5", k=TILE) == 510.99999999999994
    # The floor of it, where the last ulp decides: 510, so the work is 2 * B, not 2002 * B.
    assert run("2 * B * (1 + 1000 * (floor(k ** 0.5) - 510))", k=TILE, B=1e9) == 2e9
    # The +0.0 of pow, not the -0.0 of sqrt(-0.0).
    assert math.copysign(1, run("(-(k - k)) ** 0.5", k=2)) == 1.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # 41 ** 10 is 13422659310152401, halfway between two floats: binary powering
        # (41 ** 8 * 41 ** 2) rounds down, glibc's pow up.
        ("41 ** 10", 13422659310152400.0),
        # (k * k) * k, rounded twice; pow gives the correctly rounded 1.7279999999999998.
        ("k ** 3", 1.728),
        ("10 ** -17", 1e-17),  # the reciprocal of the exact 1e17
        ("(0 - 2) ** 3", -8.0),
        ("(0 - 1) ** 1e300", 1.0),  # an exponent past 2 ** 53 is an integer too
        ("k ** 0", 1.0),
    ],
)
def test_an_integer_power_is_binary_powering(text: str, expected: float) -> None:
    assert run(text, k=1.2) == expected


@pytest.mark.parametrize("text", ["k ** 65", "k ** -400", "2 ** -1074"])
def test_an_integer_power_past_the_limit_is_pow(text: str) -> None:
    """Repeated squaring's error grows with the exponent (7e-9 at 1e12): past the limit, pow,
    whose error does not; 2 ** -1074 is the smallest subnormal, not 0."""
    base, exponent = text.split(" ** ")
    expected = math.pow(2.0 if base == "2" else 1.2, float(exponent))
    assert run(text, k=1.2) == expected


def test_an_integer_power_past_the_largest_float_is_too_large() -> None:
    # 1e-200 ** 2 underflows to 0; the reciprocal of that is refused, not divided by zero.
    error = evaluation_error_of("k ** -2", k=1e-200)
    assert (error.message, error.offset) == ("result is too large", 2)
    error = evaluation_error_of("(0 - k) ** 1e300", k=2)
    assert (error.message, error.offset) == ("result is too large", 8)


def test_missing_value() -> None:
    error = evaluation_error_of("k * d", k=1)
    assert error.message == "no value given for symbol `d`"
    assert error.offset == 4


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        (True, "not a real number"),
        ("1", "not a real number"),
        (None, "not a real number"),
        (complex(1, 0), "not a real number"),
        (float("inf"), "not a finite number"),
        (float("nan"), "not a finite number"),
        (10**400, "too large"),
    ],
)
def test_bad_value(value: object, fragment: str) -> None:
    formula = parse("1 + k", DECLARED)
    with pytest.raises(FormulaError) as info:
        evaluate(formula, {"k": value})  # type: ignore[dict-item]
    assert fragment in info.value.message
    assert info.value.offset == 4


# --- hostile input is refused cheaply -----------------------------------------------------------

HOSTILE = [
    "(" * 10_000 + "k" + ")" * 10_000,
    "(" * 10_000,
    ")" * 10_000,
    "[" * 10_000,
    "-" * 10_000 + "k",
    "k" + "+k" * 1_000,
    "\u00e9" * 10_000,
    "-" * 999 + "k",
    "not " * 249 + "k",
    "k**" * 333 + "k",
    "-k**" * 249 + "k",
    "k" + ".a" * 499,
    "lambda:" * 142 + "k",
    "(" * 64 + "k" + ")" * 64,
    "[" * 64 + "]" * 64,
    "9**9**9",
    "10**10**10**10",
    "9" * 1_000,
    "9" * 998 + ".0",
    "k" * 1_000,
    "max(" + "k, " * 330 + "k)",
    "min(" * 64 + "k" + ", k)" * 64,
    "__import__('os').system('true')",
    "().__class__.__bases__[0].__subclasses__()",
    "open('/etc/passwd').read()",
    "globals()",
    "'a' * 10**9",
]


@pytest.mark.timeout(5)
@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_input_is_handled_without_hanging(text: str) -> None:
    try:
        formula = parse(text, DECLARED)
        evaluate(formula, dict.fromkeys(formula.symbols, 3.0))
    except FormulaError:
        pass


# --- properties ---------------------------------------------------------------------------------

SYMBOLS = ("k", "d", "V", "N_d")

_leaves = st.one_of(
    st.integers(min_value=0, max_value=10**12).map(str),
    st.floats(min_value=0, max_value=1e12, allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(SYMBOLS),
)


def _extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(children, st.sampled_from(["+", "-", "*", "/", "**"]), children).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
        st.tuples(st.sampled_from(["-", "+"]), children).map(lambda t: f"({t[0]}{t[1]})"),
        st.tuples(st.sampled_from(["ceil", "floor", "log2", "sqrt"]), children).map(
            lambda t: f"{t[0]}({t[1]})"
        ),
        st.tuples(st.sampled_from(["min", "max"]), st.lists(children, min_size=2, max_size=4)).map(
            lambda t: f"{t[0]}({', '.join(t[1])})"
        ),
    )


expressions = st.recursive(_leaves, _extend, max_leaves=25)
finite_floats = st.floats(allow_nan=False, allow_infinity=False)


def _bracket_depth(text: str) -> int:
    depth = deepest = 0
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        deepest = max(deepest, depth)
    return deepest


@settings(max_examples=300, deadline=None)
@given(text=expressions, values=st.fixed_dictionaries(dict.fromkeys(SYMBOLS, finite_floats)))
def test_grammar_expressions_parse_and_evaluate_to_float_or_formula_error(
    text: str, values: dict[str, float]
) -> None:
    # Every tree level adds a bracket level, so this also bounds the tree depth.
    assume(len(text) <= MAX_LENGTH and _bracket_depth(text) < MAX_DEPTH)
    formula = parse(text, SYMBOLS)
    assert formula.symbols == set(re.findall(r"\b[A-Za-z_]\w*", text)) - set(FUNCTIONS)
    try:
        result = evaluate(formula, values)
    except FormulaError as error:
        assert 0 <= error.offset <= len(text)
    else:
        assert type(result) is float
        assert math.isfinite(result)


def _integer_expressions() -> st.SearchStrategy[tuple[str, int]]:
    """Expressions paired with their exact integer value, small enough to be exact in float."""
    values = {"k": 3, "d": -7, "V": 11, "N_d": 0}
    leaves = st.one_of(
        st.integers(min_value=0, max_value=50).map(lambda n: (str(n), n)),
        st.sampled_from(sorted(values.items())),
    )

    def combine(children: st.SearchStrategy[tuple[str, int]]) -> st.SearchStrategy[tuple[str, int]]:
        def apply(t: tuple[tuple[str, int], str, tuple[str, int]]) -> tuple[str, int]:
            (left, a), op, (right, b) = t
            exact = {"+": a + b, "-": a - b, "*": a * b}[op]
            # `+` stays unbracketed so that precedence and associativity are exercised too.
            return f"{left} {op} {right}" if op == "+" else f"({left}) {op} ({right})", exact

        return st.tuples(children, st.sampled_from(["+", "-", "*"]), children).map(apply)

    return st.recursive(leaves, combine, max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(pair=_integer_expressions())
def test_integer_arithmetic_is_exact(pair: tuple[str, int]) -> None:
    text, exact = pair
    assert run(text, k=3, d=-7, V=11, N_d=0) == float(exact)


_formula_characters = st.sampled_from(
    [*"kdVN_xe0123456789.+-*/()[]{},:;=<>!%&|^~@#'\" \t\n\\", "\u00e9", "\u200b", "\x00"]
)
_formula_tokens = st.sampled_from(
    [
        *("k", "d", "N_d", "min", "max", "ceil", "floor", "log2", "sqrt", "(", ")", ","),
        *("+", "-", "*", "/", "**", "//", "1", "2.5", "1e9", "1e400", " ", "lambda", ":"),
        *(".", "real", "[", "]", " if ", " else ", "not ", " and ", "__import__", "'os'"),
        *("=", "9", "j", "0x"),
    ]
)
random_text = st.one_of(
    st.text(),
    st.text(alphabet=_formula_characters, max_size=200),
    st.lists(_formula_tokens, max_size=60).map("".join),
)


@settings(max_examples=300, deadline=None)
@given(text=random_text)
def test_any_text_parses_or_raises_formula_error(text: str) -> None:
    try:
        formula = parse(text, DECLARED)
    except FormulaError as error:
        assert 0 <= error.offset <= len(text)
        return
    assert formula.symbols <= DECLARED
    try:
        result = evaluate(formula, dict.fromkeys(DECLARED, 2.0))
    except FormulaError:
        return
    assert type(result) is float
