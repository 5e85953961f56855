"""Tests for the sympy side: exact conversion, intensity, rendering, and its own safety bounds."""

from __future__ import annotations

import math
from html import unescape

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.physics.quantum.constants import hbar
from sympy.printing.latex import greek_letters_set, other_symbols

from bottleneck_kb.maths.budget import power_problem, ratio_cost
from bottleneck_kb.maths.formula import FormulaError, evaluate, parse
from bottleneck_kb.maths.symbolic import (
    Max,
    Min,
    ceiling,
    floor,
    intensity,
    render_intensity,
    to_latex,
    to_mathml,
    to_sympy,
)

DECLARED = frozenset({"k", "d", "V", "q", "s", "N_d", "B"})
k, d, V, q, s, N_d, B = (
    sympy.Symbol(name, positive=True) for name in ("k", "d", "V", "q", "s", "N_d", "B")
)


def sym(text: str) -> sympy.Expr:
    return to_sympy(parse(text, DECLARED))


def test_draft_pass_intensity_is_exactly_k() -> None:
    result = intensity(parse("2*k*N_d", DECLARED), parse("2*N_d", DECLARED))
    assert result == sympy.Symbol("k", positive=True)
    assert result != sympy.Symbol("k")  # the positive assumption is part of the symbol


def test_batched_quantized_intensity() -> None:
    result = intensity(parse("2*B*k*d*V", DECLARED), parse("d*V*q/8", DECLARED))
    assert result == 16 * B * k / q


def test_intensity_cancels_sums() -> None:
    result = intensity(
        parse("2 * d * V * (q + s)", DECLARED), parse("d * V * (q + s) / 8", DECLARED)
    )
    assert result == 16


@pytest.mark.parametrize(
    ("flops", "bytes_", "expected"),
    [
        # Common factors out of each side, as sympy's simplify gives them...
        ("2 * B * (k + 1) * N_d", "2 * N_d + B * d * V", "2*B*N_d*(k + 1)/(B*V*d + 2*N_d)"),
        ("2 * k * d * (q + s)", "4 * d * (q + s) + 8 * d", "k*(q + s)/(2*(q + s + 2))"),
        ("sqrt(k) * d", "d * sqrt(k) + d", "sqrt(k)/(sqrt(k) + 1)"),
        (
            "k * ceil(d / 128) * 128",
            "ceil(d / 128) * 256 + 2 * k",
            "64*k*ceiling(d/128)/(k + 128*ceiling(d/128))",
        ),
        # ...and a number times a lone sum multiplied out, as simplify does too;
        ("2 * k + 2 * d", "1", "2*d + 2*k"),
        # but logarithms stay apart (simplify: log(2**(64*d + 64*k))/log(2**128*2**(32*B)*B)).
        (
            "8 * (k + d)",
            "16 + 4 * B + log2(B) / 8",
            "64*(d + k)*log(2)/(32*B*log(2) + log(B) + 128*log(2))",
        ),
    ],
)
def test_intensity_takes_common_factors_out(flops: str, bytes_: str, expected: str) -> None:
    assert str(intensity(parse(flops, DECLARED), parse(bytes_, DECLARED))) == expected


def test_intensity_with_logarithms_renders() -> None:
    """simplify combined these logarithms into one holding 15**8192, an integer too long for
    str(): kb eval failed on an entry that kb check accepts."""
    flops = parse("B", DECLARED)
    bytes_ = parse("1e9 + 0.125 + 1024 * log2(7 + 0.5) * log2(d) + 244 + d * d", DECLARED)
    rendered = render_intensity(flops, bytes_)
    assert rendered.text == (
        "8*B*log(2)**2/(8*d**2*log(2)**2 - 8192*log(2)*log(d) + 8192*log(15)*log(d) "
        "+ 8000001953*log(2)**2)"
    )


def test_intensity_of_zero_bytes_is_an_error() -> None:
    with pytest.raises(FormulaError, match="identically zero"):
        intensity(parse("k", DECLARED), parse("0 * k", DECLARED))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("128256", sympy.Integer(128256)),
        ("1e9", sympy.Integer(10**9)),
        ("0.25 * k", k / 4),
        ("0.5", sympy.Rational(1, 2)),
        ("d * V * (q + s) / 8", d * V * (q + s) / 8),
        ("-k + +d", d - k),
        ("k ** 2", k**2),
        ("2 ** 30", sympy.Integer(2**30)),
        ("min(k, d)", Min(k, d)),
        ("max(k, d, 3)", Max(k, d, 3)),
        ("ceil(k / 2)", ceiling(k / 2)),
        ("floor(k / 2)", floor(k / 2)),
        ("log2(k)", sympy.log(k, 2)),
        ("sqrt(N_d)", sympy.sqrt(N_d)),
    ],
)
def test_to_sympy(text: str, expected: sympy.Expr) -> None:
    assert sym(text) == expected


def test_inexact_decimal_becomes_float() -> None:
    result = sym("0.1")
    assert isinstance(result, sympy.Float)
    assert float(result) == 0.1


def test_symbols_are_positive() -> None:
    assert sym("k").is_positive is True


@pytest.mark.parametrize(
    ("text", "offset", "fragment"),
    [
        ("9**9**9", 1, "too large to compute exactly"),
        ("2**2**2**2**2", 1, "too large to compute exactly"),
        ("(k + 1)**100", 7, "too large for symbolic manipulation"),
        ("k / 0", 2, "not a finite number"),
        ("k + log2(0)", 4, "not a finite number"),
    ],
)
@pytest.mark.timeout(5)
def test_to_sympy_refuses(text: str, offset: int, fragment: str) -> None:
    with pytest.raises(FormulaError) as info:
        sym(text)
    assert fragment in info.value.message
    assert info.value.offset == offset


def test_latex() -> None:
    assert to_latex(sym("d * V * (q + s) / 8")) == r"\frac{V d \left(q + s\right)}{8}"
    assert to_latex(sym("sqrt(N_d) / 2")) == r"\frac{\sqrt{N_{d}}}{2}"
    assert to_latex(intensity(parse("2*k*N_d", DECLARED), parse("2*N_d", DECLARED))) == "k"


def test_mathml_is_presentation_markup() -> None:
    markup = to_mathml(sym("k * d / 4"))
    assert "<mi>k</mi>" in markup
    assert "<mfrac>" in markup
    assert "<apply>" not in markup  # content MathML would use <apply>


# Positive leaves and only monotone operations: no cancellation, so float evaluation and exact
# sympy evaluation must agree to a few ulps if the two function tables mean the same thing.
SYMBOLS = ("k", "d", "V", "N_d")
_leaves = st.one_of(st.integers(min_value=1, max_value=100).map(str), st.sampled_from(SYMBOLS))


def _extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(children, st.sampled_from(["+", "*", "/"]), children).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
        children.map(lambda c: f"sqrt({c})"),
        st.tuples(st.sampled_from(["min", "max"]), st.lists(children, min_size=2, max_size=3)).map(
            lambda t: f"{t[0]}({', '.join(t[1])})"
        ),
    )


@settings(max_examples=300, deadline=None)
@given(
    text=st.recursive(_leaves, _extend, max_leaves=12),
    values=st.tuples(*[st.integers(min_value=1, max_value=1000)] * len(SYMBOLS)),
)
def test_sympy_agrees_with_float_evaluation(text: str, values: tuple[int, ...]) -> None:
    formula = parse(text, SYMBOLS)
    bindings = dict(zip(SYMBOLS, values, strict=True))
    expected = evaluate(formula, bindings)
    exact = to_sympy(formula).subs(
        {sympy.Symbol(name, positive=True): value for name, value in bindings.items()}
    )
    assert math.isclose(float(sympy.N(exact, 30)), expected, rel_tol=1e-9)


@pytest.mark.parametrize(
    ("text", "value"),
    [("ceil(k / 2)", 7), ("floor(k / 2)", 7), ("log2(k)", 8), ("sqrt(k)", 9)],
)
def test_rounding_and_logarithm_agree_with_float_evaluation(text: str, value: int) -> None:
    formula = parse(text, DECLARED)
    exact = to_sympy(formula).subs(k, value)
    assert float(exact) == evaluate(formula, {"k": value})


powers = st.recursive(
    st.sampled_from(["k", "2", "3", "1.25", "0.1", "0.5", "7", "1e300", "2.0"]),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/"]), inner).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
        st.tuples(
            inner,
            st.sampled_from(
                [
                    "2",
                    "5",
                    "16",
                    "30",
                    "70",
                    "-70",
                    "900",
                    "2000",
                    "0.5",
                    "(10 * 10)",
                    "(k - k + 70)",
                ]
            ),
        ).map(lambda t: f"({t[0]}) ** ({t[1]})"),
        st.tuples(st.sampled_from(["sqrt", "ceil", "floor", "log2"]), inner).map(
            lambda t: f"{t[0]}({t[1]})"
        ),
        st.tuples(st.sampled_from(["min", "max"]), inner, inner).map(
            lambda t: f"{t[0]}({t[1]}, {t[2]})"
        ),
    ),
    max_leaves=4,
)


@settings(max_examples=500, deadline=None)
@given(powers)
def test_kb_check_refuses_every_power_the_symbolic_side_refuses(text: str) -> None:
    """KB408 reads power_problem; to_sympy is what kb eval and the site convert with."""
    formula = parse(text, frozenset({"k"}))
    try:
        evaluate(formula, {"k": 2.0})
    except FormulaError:
        return  # not a finite real number: kb check refuses it already (KB405)
    try:
        to_sympy(formula)
    except FormulaError as exc:
        refused = exc.message.startswith(("constant power", "exponent"))
    else:
        refused = False

    if refused:
        assert power_problem(formula) is not None


@pytest.mark.parametrize(
    "text",
    [
        "1.25 ** 2000 / 1.25 ** 2000",  # finite as floats, 6,000 bits exactly
        "k ** (10 * 10)",  # an exponent that is not a literal
        "max(1.25 ** 1000, 2) ** 3",  # min and max give an exact argument as it is
        "floor(2.0 ** 900) ** 5",  # floor of an exact power is an exact integer
        "sqrt(2) ** 70",  # a root kept as an expression, past the symbolic exponent
        "k * (1/2) ** ceil(5000.5)",  # an exponent a function works out exactly
        "k ** sqrt(10000)",
        "k ** (k - k + 100)",  # symbols sympy cancels before it checks the power
        "(1/2) ** (k / k * 5000)",
        "min(2, sqrt(7)) ** 70",  # a choice past a number that is not exact stays a choice
    ],
)
def test_kb_check_refuses_these_powers_as_the_symbolic_side_does(text: str) -> None:
    formula = parse(text, frozenset({"k"}))
    with pytest.raises(FormulaError) as refused:
        to_sympy(formula)

    found = power_problem(formula)

    assert found is not None
    assert (found.message, found.offset) == (refused.value.message, refused.value.offset)


def test_a_product_of_exact_constants_past_the_limit_is_refused() -> None:
    """Each power is within the limit; sympy multiplies them into a number too long to print."""
    formula = parse("2 * k + " + " * ".join(["(1/10) ** 1000"] * 5), frozenset({"k"}))

    found = power_problem(formula)

    assert found is not None
    assert found.message == "constant is too large to compute exactly (about 6644 bits)"


@pytest.mark.parametrize(
    "exponent", ["8 * 8", "sqrt(4096)", "(2 ** 6)", "a - a + 64", "b / b * 64"]
)
def test_an_exponent_made_of_numbers_counts_in_the_degree_budget(exponent: str) -> None:
    """(a + b + c + 1) ** 64 took kb eval past a minute; written `** (8 * 8)` it passed."""
    declared = frozenset({"a", "b", "c"})
    cost = ratio_cost(parse(f"(a + b + c + 1) ** ({exponent})", declared), parse("a", declared))

    assert (cost.degree, cost.within()) == (65, False)


ROOTED = "a + b + c + d + e + f + g + h + j + k"


@pytest.mark.parametrize(
    ("flops", "degree", "terms"),
    [
        # A root of P costs what P does: (P's 10 terms) ** 16, 25 choose 16 terms at most.
        (f"sqrt({ROOTED}) ** 16", 16, math.comb(25, 16)),
        (f"(({ROOTED}) ** 0.5) ** 16", 16, math.comb(25, 16)),
        (f"sqrt(sqrt({ROOTED})) ** 16", 16, math.comb(25, 16)),
        (" * ".join([f"sqrt({ROOTED})"] * 16), 16, 10**9),  # 10 ** 16 terms, capped
        (f"({ROOTED}) ** 1.5", 2, math.comb(11, 2)),  # the next whole power
    ],
)
def test_a_power_of_a_root_costs_what_the_merged_power_costs(
    flops: str, degree: int, terms: int
) -> None:
    """sympy merges roots of one base: `sqrt(P) ** 16` is `P ** 8`, expanded to 24,310 terms
    (kb eval took 46 s on an entry kb check had passed, counting the root as one symbol). The
    bound is that of the next whole power of P, or of P itself for each root."""
    names = frozenset(ROOTED.split(" + "))
    cost = ratio_cost(parse(flops, names), parse("a", names))

    assert (cost.degree, cost.terms) == (degree + 1, terms)


def test_roots_merged_within_the_budget_are_expanded() -> None:
    """What the bound is for: sympy does merge and expand them."""
    names = frozenset({"a", "b", "c"})
    result = intensity(parse("sqrt(a + b + c) ** 4", names), parse("a", names))

    assert str(result) == "(a**2 + 2*a*b + 2*a*c + b**2 + 2*b*c + c**2)/a"


def test_a_ceil_of_a_constant_past_sympys_precision_stays_as_written() -> None:
    """sympy's ceiling worked the constant out to ever more digits and gave up: kb check
    accepted the entry and kb eval refused it."""
    names = frozenset({"B"})
    bytes_ = parse("2 + B + ceil((1e16 * 3 ** (1/3)) ** 8)", names)

    result = intensity(parse("2 * B", names), bytes_)

    constant = 9 * sympy.Integer(10) ** 128 * sympy.Integer(3) ** sympy.Rational(2, 3)
    assert result == 2 * B / (B + 2 + ceiling(constant))
    assert r"\left\lceil{" in to_latex(result)


def test_a_max_is_simplified_without_comparing_what_is_not_a_number() -> None:
    """sympy's Max compared `(B + 1e-300) / B**8` with 1 under B's assumptions, isolating the
    real roots of a polynomial whose coefficients have a thousand bits: minutes of kb eval on
    an entry kb check accepted."""
    names = frozenset({"B"})
    result = intensity(parse("1", names), parse("max((B + 1e-300) / B ** 8, 1)", names))

    assert str(result) == "1/Max(1, B**(-7) + 1.0e-300/B**8)"


@pytest.mark.parametrize(
    ("built", "expected"),
    [
        (Max(B, B + 1), "Max(B, B + 1)"),  # sympy's Max gives B + 1, comparing them
        (Max(k, B), "Max(B, k)"),  # one order, so that max(a, b) cancels max(b, a)
        (Max(B, Max(k, 1), 2), "Max(2, B, k)"),  # joined, and the numbers compared
        (Min(B, 3, sympy.Rational(5, 2), B), "Min(5/2, B)"),
        (Max(sympy.Rational(1, 3), sympy.Float(0.25)), "1/3"),
        (Max(k, k), "k"),
        (ceiling(sympy.Rational(7, 2)), "4"),
        (floor(sympy.Float(2.5)), "2"),
        (ceiling(k + 1), "ceiling(k + 1)"),  # sympy's gives ceiling(k) + 1, asking if k is whole
        (floor(sympy.sqrt(2) * 10**20), "floor(100000000000000000000*sqrt(2))"),
    ],
)
def test_choices_and_roundings_work_out_numbers_alone(built: sympy.Expr, expected: str) -> None:
    assert str(built) == expected


def test_choices_and_roundings_print_as_sympys_do() -> None:
    assert to_latex(Max(k, d) / ceiling(k / 2)) == sympy.latex(
        sympy.Max(k, d) / sympy.ceiling(k / 2)
    )
    assert to_mathml(Min(k, d) / floor(d)) == to_mathml(sympy.Min(k, d) / sympy.floor(d))
    assert str(Min(k, d) / floor(d)) == str(sympy.Min(k, d) / sympy.floor(d))


def test_a_tower_of_symbolic_powers_is_costed_from_its_tree() -> None:
    """The degree budget probes an exponent with symbols from the tree alone: reading it from
    the formula's text, which the budget does not have there, was an internal error of
    kb check on `a ** (b ** (c ** d))`."""
    names = frozenset({"a", "b", "c", "d"})

    assert ratio_cost(parse("a ** (b ** (c ** d))", names), parse("a", names)).within()
    assert not ratio_cost(parse("a ** (c ** (d - d + 100))", names), parse("a", names)).within()


def test_a_base_whose_symbols_cancel_is_bounded_by_the_numbers_written_in_it() -> None:
    """sympy cancels `k - k` and holds 1 + 10 ** -300 exactly: its 12th power has 11,964 bits,
    which kb eval refused after kb check had passed the entry. The budget bounds the base by
    the bits of the numbers written in it."""
    formula = parse("2 * k * (k - k + 1 + 10 ** -300) ** (k - k + 12)", frozenset({"k"}))
    with pytest.raises(FormulaError, match="constant power is too large") as refused:
        to_sympy(formula)

    found = power_problem(formula)

    assert found is not None
    assert found.message == "constant power is too large to compute exactly (about 12108 bits)"
    assert found.offset == refused.value.offset


def test_symbol_names_are_shown_as_written_where_sympy_would_dress_them_ambiguously() -> None:
    """sympy reads `__` as a superscript and a final digit as a subscript: `N__2` would show as
    N squared, and `a1` as `a_1`, which is another symbol of the same entry."""
    formula = parse("2 * N__2 + a1 - a_1 + N_d", frozenset({"N__2", "a1", "a_1", "N_d"}))
    expr = to_sympy(formula)

    assert to_latex(expr) == r"2 N\_\_2 + N_{d} + a1 - a_{1}"
    mathml = to_mathml(expr)
    assert "<mi>N__2</mi>" in mathml and "<mi>a1</mi>" in mathml
    assert "<msub><mi>a</mi><mi>1</mi></msub>" in mathml
    assert "<msub><mi>N</mi><mi>d</mi></msub>" in mathml
    assert "<msup>" not in mathml


def test_a_symbol_sympy_would_typeset_as_a_constant_is_shown_as_written() -> None:
    """A symbol `pi` of 64 typeset as π reads as 3.14159; `alpha` is no constant and is still
    typeset as its letter."""
    names = ("pi", "gamma", "phi", "Phi", "hbar", "alpha")
    formula = parse("2 * pi * N", frozenset({"pi", "N"}))
    rendered = render_intensity(formula, parse("2 * N", frozenset({"N"})))
    assert (rendered.text, rendered.latex, rendered.mathml) == ("pi", "pi", "<mi>pi</mi>")
    expr = to_sympy(parse(" + ".join(names), frozenset(names)))
    assert to_latex(expr) == r"Phi + \alpha + gamma + hbar + phi + pi"
    assert to_mathml(expr) == (
        "<mrow><mi>Phi</mi><mo>+</mo><mi>&#945;</mi><mo>+</mo><mi>gamma</mi><mo>+</mo>"
        "<mi>hbar</mi><mo>+</mo><mi>phi</mi><mo>+</mo><mi>pi</mi></mrow>"
    )


def test_the_names_shown_as_written_are_those_sympy_dresses_as_its_constants() -> None:
    """Every name sympy's printers translate (Greek letters, Hebrew letters and the like),
    dressed by sympy's own printers, against how they print sympy's constants."""
    constants = [sympy.pi, sympy.E, sympy.I, sympy.oo, sympy.nan, sympy.zoo, sympy.EulerGamma]
    constants += [sympy.GoldenRatio, sympy.Catalan, sympy.TribonacciConstant, hbar]
    latex = {sympy.latex(c) for c in constants}
    mathml = {unescape(sympy.mathml(c, printer="presentation")) for c in constants}
    names = greek_letters_set | other_symbols
    names |= {name.capitalize() for name in names}
    lookalikes = {
        name
        for name in names
        if sympy.latex(sympy.Symbol(name)) in latex
        or unescape(sympy.mathml(sympy.Symbol(name), printer="presentation")) in mathml
    }
    assert lookalikes == {"Phi", "gamma", "hbar", "phi", "pi"}
    for name in lookalikes:
        assert to_latex(sympy.Symbol(name)) == name
        assert to_mathml(sympy.Symbol(name)) == f"<mi>{name}</mi>"


def test_a_name_sympy_would_draw_as_an_operation_on_another_is_shown_as_written() -> None:
    """`Nabs` as |N| or `Nbold` as a bold N reads as a quantity made of the symbol N; a
    decoration a name asks for (`xbar`, `kprime`) is still drawn."""
    names = ("N", "Nabs", "NNorm", "Navg", "Nbold", "Ncal", "xbar", "kprime")
    expr = to_sympy(parse(" + ".join(names), frozenset(names)))

    assert to_latex(expr) == r"N + NNorm + Nabs + Navg + Nbold + Ncal + {k}' + \bar{x}"


@pytest.mark.parametrize(
    ("flops", "refusal"),
    [
        # Undefined at the old probes (B below 6); sympy makes the exponent 40, 100, 1000.
        ("2 * B * (a + b + c + d) ** (sqrt(B - 6) * 0 + 40)", None),
        ("2 * B * a ** (sqrt(B - 6) * 0 + 100)", "exponent 100 is too large"),
        ("2 * B * 1.0625 ** (sqrt(B - 6) * 0 + 1000)", "constant power is too large"),
        # Defined only where B is between 6 and 7: no telling whether it is a number.
        ("2 * B * a ** (sqrt((B - 6) * (7 - B)) * 0 + 40)", "defined at too few positive"),
    ],
)
def test_an_exponent_whose_symbols_cancel_is_found_wherever_it_is_defined(
    flops: str, refusal: str | None
) -> None:
    """kb check passed these in 0.3 s; kb eval took 33 s, or refused what kb check passed."""
    names = frozenset({"B", "a", "b", "c", "d"})
    formula = parse(flops, names)
    found = power_problem(formula)

    if refusal is None:  # past the degree budget, as the exponent written out is
        assert found is None
        assert ratio_cost(formula, parse("a", names)).degree == 42
    else:
        assert found is not None and refusal in found.message


def test_a_constant_power_past_every_float_is_refused_with_its_size_in_words() -> None:
    """The estimate of its bits was itself infinite, and int() of it an internal error of
    kb check (exit 2)."""
    found = power_problem(parse("min(S, 10 ** max(1e308, S))", frozenset({"S"})))

    assert found is not None
    assert (
        found.message == "constant power is too large to compute exactly (far more than 4096 bits)"
    )
