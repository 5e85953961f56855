"""Formulas compiled to JavaScript agree with the Python evaluator, run in node: the same
numbers to 1e-12 relative (the same bits for powers of an integer or 0.5), the same refusals
(message and offset) where a formula is undefined."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bottleneck_kb.maths import formula
from bottleneck_kb.maths.formula import FUNCTIONS, FormulaError, evaluate, parse
from bottleneck_kb.site.formula_js import compile_formula, js_literal

from ..node import Node, running

ASSETS = Path(__file__).parents[2] / "tools/bottleneck_kb/site/assets"
RUNTIME = ASSETS / "kb-formula.js"
SYMBOLS = ("a", "b", "c")

# Reads one JSON case per line, answers one JSON line: the value or the refusal.
HARNESS = (
    f"require({json.dumps(str(ASSETS / 'kb-numbers.js'))});\n"
    + """
require(process.argv[1]);
const R = globalThis.KBFormula;
const lines = require("readline").createInterface({input: process.stdin});
lines.on("line", (line) => {
  const job = JSON.parse(line);
  let answer;
  try {
    const f = new Function("R", "return " + job.js)(R);
    answer = {value: f(job.values)};
  } catch (e) {
    if (!(e instanceof R.FormulaError)) throw e;
    answer = {error: e.message, offset: e.offset};
  }
  process.stdout.write(JSON.stringify(answer) + "\\n");
});
"""
)


def answer_of(node: Node, js: str, values: dict[str, float]) -> dict[str, object]:
    """The compiled formula `js`'s value at `values`, or its refusal."""
    answer: dict[str, object] = node.ask(json.dumps({"js": js, "values": values}))
    return answer


@pytest.fixture(scope="module")
def node() -> Iterator[Node]:
    with running(HARNESS, RUNTIME) as runner:
        yield runner


def python_answer(text: str, values: dict[str, float]) -> dict[str, object]:
    try:
        return {"value": evaluate(parse(text, SYMBOLS), values)}
    except FormulaError as error:
        return {"error": error.message, "offset": error.offset}


def assert_same(text: str, values: dict[str, float], node: Node) -> None:
    expected = python_answer(text, values)
    got = answer_of(node, compile_formula(parse(text, SYMBOLS)), values)
    if "value" in expected and "value" in got:
        assert isinstance(expected["value"], float) and isinstance(got["value"], int | float)
        assert got["value"] == pytest.approx(expected["value"], rel=1e-12, abs=0), text
    else:
        assert got == expected, (text, values)


numbers = st.one_of(
    st.integers(0, 10).map(str),
    st.sampled_from(["0.5", "1e3", "2.5e-7", "1e300", "0", "3"]),
)
atoms = st.one_of(st.sampled_from(SYMBOLS), numbers)


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.tuples(children, st.sampled_from(["+", "-", "*", "/", "**"]), children).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})"
    )
    unary = children.map(lambda x: f"-{x}")
    one = st.tuples(
        st.sampled_from([n for n, f in FUNCTIONS.items() if f.min_args == 1]), children
    ).map(lambda t: f"{t[0]}({t[1]})")
    many = st.tuples(
        st.sampled_from([n for n, f in FUNCTIONS.items() if f.max_args is None]),
        st.lists(children, min_size=2, max_size=3),
    ).map(lambda t: f"{t[0]}({', '.join(t[1])})")
    return st.one_of(binary, unary, one, many)


formulas = st.recursive(atoms, _combine, max_leaves=12)
values = st.fixed_dictionaries(
    {
        name: st.one_of(
            st.floats(-1e6, 1e6, allow_nan=False),
            st.sampled_from([0.0, 1.0, -1.0, 2.0, 0.5, 1e-300, 1e300, -2.5]),
        )
        for name in SYMBOLS
    }
)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(formulas, values)
def test_compiled_formula_agrees_with_the_python_evaluator(
    node: Node, text: str, point: dict[str, float]
) -> None:
    assert_same(text, point, node)


@pytest.mark.parametrize(
    ("text", "point"),
    [
        ("a / (b - b)", {"a": 1.0, "b": 2.0, "c": 0.0}),
        ("0 ** -a", {"a": 1.0, "b": 0.0, "c": 0.0}),
        ("(a - 3) ** 0.5", {"a": 1.0, "b": 0.0, "c": 0.0}),
        ("10 ** a", {"a": 400.0, "b": 0.0, "c": 0.0}),
        ("a * 1e300 * 1e300", {"a": 1.0, "b": 0.0, "c": 0.0}),
        ("log2(a - 1)", {"a": 1.0, "b": 0.0, "c": 0.0}),
        ("sqrt(b)", {"a": 1.0, "b": -1234567.0, "c": 0.0}),
        ("log2(c)", {"a": 1.0, "b": 0.0, "c": -0.000012345678}),
        ("min(a, b, c) + max(a, 2) * ceil(b / 3) - floor(c)", {"a": 1.5, "b": 7.0, "c": -2.2}),
        ("2 * a * b * c", {"a": 4.0, "b": 4096.0, "c": 128256.0}),
        # Of zeros of two signs, min and max keep the first, as Python does (Math.min: -0).
        ("-log2(min(a, -a))", {"a": 0.0, "b": 0.0, "c": 0.0}),
        ("log2(max(-a, a))", {"a": 0.0, "b": 0.0, "c": 0.0}),
        # A tie at six digits, said as Python rounds it (half to even), not up.
        ("log2(a)", {"a": -1234565.0, "b": 0.0, "c": 0.0}),
        ("a * b * (c + 0.25) / 8 + 2 * a * 4 * (b + c)", {"a": 3.0, "b": 4096.0, "c": 16.0}),
    ],
)
def test_refusals_and_values_match(node: Node, text: str, point: dict[str, float]) -> None:
    assert_same(text, point, node)


#: (base, exponent) pairs whose powers JavaScript must compute to the bit as Python does:
#: exponents of 0.5 (sqrt in both) and integers (binary powering in both), where libm's pow
#: and the engine's Math.pow differ (node's on 41 ** 10 and 10 ** -17, Chromium's on the first).
POWERS = [
    (261120.99999999997, 0.5),
    (2.0, 0.5),
    (1e-300, 0.5),
    (41.0, 10.0),
    (10.0, -17.0),
    (10.0, 23.0),
    (1.2, 3.0),
    (0.1, 4.0),
    (7.1, 5.0),
    (123.456, 5.0),
    (-1.3, 5.0),
    (-2.5, -3.0),
    (0.999, 1000.0),
    (1.5, -100.0),
    (3.0, 40.0),
    (2.0, 1023.0),
    (1e-100, 3.0),
    (2.0, -1074.0),
    (-1.0, 1e300),
    (1.0000000000000002, 2.0**52),
]


def assert_same_power(base: float, exponent: float, node: Node) -> None:
    point = {"a": base, "b": exponent, "c": 0.0}
    got = answer_of(node, compile_formula(parse("a ** b", SYMBOLS)), point)
    value = got.get("value")
    if isinstance(value, int):
        # JSON.stringify writes a whole float below 1e21 as the digits of its shortest form
        # (3 ** 40 as 12157665459056929000), which Python reads as an int of another value.
        got["value"] = float(value)
    assert got == python_answer("a ** b", point), (base, exponent)


@pytest.mark.parametrize(("base", "exponent"), POWERS)
def test_powers_are_the_same_bits(node: Node, base: float, exponent: float) -> None:
    assert_same_power(base, exponent, node)


@settings(max_examples=300, deadline=None)
@given(st.floats(-1e3, 1e3, allow_nan=False), st.integers(-64, 64))
def test_integer_powers_are_the_same_bits(node: Node, base: float, exponent: int) -> None:
    assert_same_power(base, float(exponent), node)


def test_the_explorer_multiplies_up_to_the_same_exponent() -> None:
    script = RUNTIME.read_text("utf-8")
    assert f"var BINARY_POWERING_LIMIT = {formula.BINARY_POWERING_LIMIT};" in script


def test_refusals_carry_the_python_message(node: Node) -> None:
    got = answer_of(node, compile_formula(parse("a / (b - b)", SYMBOLS)), {"a": 1, "b": 2, "c": 0})
    assert got == {"error": "division by zero", "offset": 2}
    got = answer_of(node, compile_formula(parse("sqrt(b)", SYMBOLS)), {"a": 1, "b": -2.5, "c": 0})
    assert got == {"error": "`sqrt(-2.5)` is undefined", "offset": 0}


def test_the_javascript_holds_no_text_of_the_formula() -> None:
    """Symbols are keys of an environment object, escaped; nothing else of the text is kept."""
    declared = ["x_script", "y"]
    js = compile_formula(parse("x_script / y  +  2", declared))
    assert js == (
        'function(v){return R.add(R.div(R.sym(v,"x_script",0),R.sym(v,"y",11),9),(2.0),14);}'
    )
    assert js_literal("</script><b>&") == '"\\u003c/script\\u003e\\u003cb\\u003e\\u0026"'
