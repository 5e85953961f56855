"""The domain proof: a workaround that only sets values inside the ranges is covered by the
entry's own proof, and one that sets a value outside them is proven (and refused) on its own."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bottleneck_kb.evaluation import domain
from bottleneck_kb.evaluation.evaluator import Evaluator
from bottleneck_kb.evaluation.formulas import parse_formulas
from bottleneck_kb.maths import intervals
from bottleneck_kb.maths.formula import parse, power
from bottleneck_kb.records.entry import Entry, build_entry
from bottleneck_kb.rules.examples import MINIMAL_ENTRY, patched
from bottleneck_kb.source import load

# bytes < 0 below s = 0.5: the range [1, 4] keeps s clear of it.
FORMULAS = """
arithmetic_intensity: {bytes: 2 * N * (s - 0.5)}
scales_with:
  - {name: batch_size, symbol: B, description: Rows., typical: 8, range: [1, 16]}
  - {name: weights, symbol: N, description: Weights., typical: 1.0e+9}
  - {name: scale, symbol: s, description: Scale., typical: 2, range: [1, 4]}
"""


def _entry(workaround_sets: str) -> Entry:
    text = patched(
        patched(MINIMAL_ENTRY, FORMULAS),
        "workarounds:\n"
        "  - title: Pin it\n"
        "    description: Sets one value.\n"
        f"    model: {{set: {workaround_sets}}}\n",
    )
    document, problems = load(text.encode(), "entries/fixtures/minimal.yaml")
    assert document is not None, problems
    return build_entry(document)


@pytest.fixture
def proofs(monkeypatch: pytest.MonkeyPatch) -> list[intervals.Box]:
    """The boxes the proof is run on, in order."""
    boxes: list[intervals.Box] = []
    prove = domain._prove

    def recording(obligations, box, names):  # type: ignore[no-untyped-def]
        boxes.append(box)
        return prove(obligations, box, names)

    monkeypatch.setattr(domain, "_prove", recording)
    return boxes


def test_a_setting_inside_the_ranges_is_covered_by_the_entry_s_proof(
    proofs: list[intervals.Box],
) -> None:
    entry = _entry("{s: 3, B: 16}")
    formulas, problems = parse_formulas(entry)
    assert formulas is not None, problems

    assert domain.unproven(Evaluator(entry, formulas), []) is None
    assert [box["s"] for box in proofs] == [(1.0, 4.0)]  # the entry's box only


def test_a_setting_outside_the_ranges_is_proven_on_its_own(proofs: list[intervals.Box]) -> None:
    entry = _entry("{s: 0.25}")
    formulas, problems = parse_formulas(entry)
    assert formulas is not None, problems

    found = domain.unproven(Evaluator(entry, formulas), [])

    assert [box["s"] for box in proofs] == [(1.0, 4.0), (0.25, 0.25)]
    assert found is not None and found.obligation.name == "bytes"
    assert found.failure is not None
    assert found.failure.message == (
        "FLOPs must be >= 0 and bytes > 0; got 2 GFLOP, -500 MB at B=1, N=1e+09, s=0.25"
    )


@settings(max_examples=300, deadline=None)
@given(
    st.floats(1e-3, 1e3, allow_nan=False),
    st.floats(0, 1e-12),
    st.integers(-64, 64),
    st.integers(1, 4),
)
def test_power_bounds_hold_where_the_evaluator_multiplies_between_corners(
    base: float, spread: float, exponent: int, ulps: int
) -> None:
    """The corners of an exponent range around an integer call pow; at the integer itself the
    evaluator multiplies, with an error growing with the exponent: the bounds still hold it."""
    low, high = float(exponent), float(exponent)
    for _ in range(ulps):
        low, high = math.nextafter(low, -math.inf), math.nextafter(high, math.inf)
    box = {"x": (base, base * (1 + spread)), "n": (low, high)}
    found = intervals.bounds(parse("x ** n", frozenset(box)), box)
    if found is None:
        return  # refused as unproven: no claim to check
    for x in box["x"]:
        assert found[0] <= power(x, exponent) <= found[1]
