"""The explorer writes numbers as the static page does: `assets/kb-numbers.js`, run in node,
gives the text `bottleneck_kb.numbers` gives for the same float and unit, digit for digit
(Python's rounding, half to even on the float's exact value, and its exponents)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bottleneck_kb.core.numbers import exact_number, format_quantity, number

from ..node import Node, running

SCRIPT = Path(__file__).parents[2] / "tools/bottleneck_kb/site/assets/kb-numbers.js"

# Reads one JSON list of [function, args] jobs a line, answers the list of texts.
HARNESS = """
require(process.argv[1]);
const N = globalThis.KBNumbers;
const lines = require("readline").createInterface({input: process.stdin});
lines.on("line", (line) => {
  const decode = (x) => typeof x === "string" && x.startsWith("float:") ? Number(x.slice(6)) : x;
  const jobs = JSON.parse(line);
  const texts = jobs.map(([name, args]) => N[name](...args.map(decode)));
  process.stdout.write(JSON.stringify(texts) + "\\n");
});
"""

#: Units the entries write: prefixed ones, seconds, others and none.
UNITS = ["FLOP", "B", "B/s", "FLOP/s", "FLOP/B", "s", "rows", "tokens", "x", "bits", ""]


def texts_of(node: Node, jobs: list[tuple[str, list[object]]]) -> list[str]:
    """What kb-numbers.js writes for each (function, arguments) of `jobs`."""
    # Floats travel as their repr: JSON has no -0.0, inf or nan, and reads 1e+300 alike.
    encoded = [
        [name, [f"float:{a!r}" if isinstance(a, float) else a for a in args]] for name, args in jobs
    ]
    texts: list[str] = node.ask(
        json.dumps(encoded)
        .replace("float:inf", "float:Infinity")
        .replace("float:-inf", "float:-Infinity")
    )
    return texts


@pytest.fixture(scope="module")
def node() -> Iterator[Node]:
    with running(HARNESS, SCRIPT) as runner:
        yield runner


def _fixed_point(value: float) -> bool:
    """Whether fixed point is compared at `value`: past 1e30 it is no format the pages use."""
    return not abs(value) >= 1e30


def python_texts(value: float) -> list[str]:
    return [
        *(format_quantity(value, unit) for unit in UNITS),
        format_quantity(value, "FLOP/B", 4),
        number(value),
        exact_number(value),
        repr(value),
        f"{value:.0f}" if _fixed_point(value) else "",
        f"{value:.2f}" if _fixed_point(value) else "",
        f"{value:.2e}",
        f"{value:.3g}",
        f"{value:.4g}",
    ]


def node_texts(node: Node, values: list[float]) -> list[list[str]]:
    jobs: list[tuple[str, list[object]]] = []
    for value in values:
        jobs += [("quantity", [value, unit]) for unit in UNITS]
        jobs += [
            ("quantity", [value, "FLOP/B", 4]),
            ("number", [value]),
            ("exactNumber", [value]),
            ("repr", [value]),
        ]
        jobs += [("fixed", [value, places]) for places in (0, 2)]
        jobs += [("scientific", [value, 2]), ("general", [value, 3]), ("general", [value, 4])]
    texts = texts_of(node, jobs)
    size = len(texts) // len(values)
    rows = [texts[i * size : (i + 1) * size] for i in range(len(values))]
    for row, value in zip(rows, values, strict=True):
        if not _fixed_point(value):
            row[-5] = row[-4] = ""
    return rows


#: Values where the formats turn: prefixes and their 0.9995 edges, ties rounded half to even
#: (0.125, 2.5, 102.5), exponents of one and three digits, -0.0, subnormals, infinities.
EDGES = [
    0.0,
    -0.0,
    1.0,
    4.0,
    0.125,
    2.5,
    3.5,
    102.5,
    1.125,
    999.5,
    999.4999999999999,
    999.5000000000001,
    9999.5,
    1e3,
    117440512.0,
    267.383,
    2.8672e-7,
    3.6e-6,
    2.58e-11,
    1e-4,
    9.9995e-5,
    0.00099999,
    1e6,
    999999.5,
    4194304.0,
    1e7,
    9999999.0,
    12345678.0,
    261120.99999999997,
    1e16,
    1.5e16,
    1e21,
    1e300,
    -1e300,
    1.7976931348623157e308,
    5e-324,
    2.2250738585072014e-308,
    -2.5,
    -0.0004,
    0.1,
    1 / 3,
    2 / 3,
    0.9999999999999999,
    5.22e6,
    1e-10,
    float("inf"),
    float("-inf"),
    float("nan"),
]


def test_the_edges_are_written_as_python_writes_them(node: Node) -> None:
    for value, got in zip(EDGES, node_texts(node, EDGES), strict=True):
        assert got == python_texts(value), value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            st.floats(allow_nan=False, allow_infinity=False),
            st.floats(-1e4, 1e4),
            st.integers(-(10**9), 10**9).map(float),
            # Ties at every digit: n/8 and n/1024 are exact in binary, halfway in decimal.
            st.integers(-(10**7), 10**7).map(lambda n: n / 8),
            st.integers(-(10**9), 10**9).map(lambda n: n / 1024),
        ),
        min_size=1,
        max_size=20,
    )
)
def test_any_float_is_written_as_python_writes_it(node: Node, values: list[float]) -> None:
    for value, got in zip(values, node_texts(node, values), strict=True):
        assert got == python_texts(value), value
