"""Whatever `kb check` passes evaluates everywhere: random entries, one value mutated, and
whenever the check passes, `kb eval` in every format succeeds with finite numbers."""

from __future__ import annotations

import json
import math
import shutil
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bottleneck_kb.check import check
from bottleneck_kb.evaluation import evaluate_entry
from bottleneck_kb.kb import KnowledgeBase
from bottleneck_kb.report import EVALUATION, formats, render

from .conftest import FIXTURES

SYMBOLS = ("a", "b", "c")

numbers = st.sampled_from([0, 0.5, 1, 2, 2, 3, 8, 1.0e3])
leaves = st.one_of(st.sampled_from(SYMBOLS), numbers.map(str))


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    operators = st.sampled_from(["+", "+", "*", "*", "-", "/", "**"])
    binary = st.tuples(children, operators, children).map(lambda t: f"({t[0]} {t[1]} {t[2]})")
    call = st.tuples(st.sampled_from(["sqrt", "log2", "ceil", "min", "max"]), children, children)
    return st.one_of(
        binary,
        call.map(
            lambda t: f"{t[0]}({t[1]}, {t[2]})" if t[0] in ("min", "max") else f"{t[0]}({t[1]})"
        ),
    )


formulas = st.recursive(leaves, _combine, max_leaves=6)


@st.composite
def entries(draw: st.DrawFn) -> str:
    symbols, values = [], {}
    for name in SYMBOLS:
        lo = draw(st.sampled_from([-2, 0, 0.5, 1, 1, 1, 4, 4, 4]))
        hi = lo + draw(st.sampled_from([0, 1, 3, 100, 1.0e4]))
        typical = draw(st.sampled_from([lo, hi, (lo + hi) / 2]))
        values[name] = draw(st.sampled_from([lo, hi, typical, hi + 1]))
        symbols.append(
            f"  - {{name: s_{name}, symbol: {name}, description: d, typical: {typical!r}, "
            f"range: [{lo!r}, {hi!r}]}}"
        )
    flops, bytes_ = draw(formulas), draw(formulas)
    bound = draw(st.sampled_from(["memory"] * 9 + ["compute"]))
    check_set = draw(st.sampled_from(SYMBOLS))
    value = values[check_set]
    return "\n".join(
        [
            "id: fixtures/random",
            "title: Random",
            "class: decode_gemm",
            f"bound_by: {bound}",
            "arithmetic_intensity:",
            "  summary: Random.",
            f'  flops: "{flops}"',
            f'  bytes: "{bytes_}"',
            "scales_with:",
            *symbols,
            "workarounds:",
            "  - title: Pinned",
            "    description: Pins a symbol.",
            f'    model: {{set: {{{check_set}: {value!r}}}, bytes: "{bytes_} + 1"}}',
            "checks:",
            "  - claim: Some claim.",
            f"    set: {{{check_set}: {value!r}}}",
            "    devices: [nvidia-h100-sxm]",
            f"    expect: {{bound_by: {bound}}}",
            "",
        ]
    )


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=entries())
def test_what_check_passes_evaluates(text: str, tmp_path_factory: Any) -> None:
    root = tmp_path_factory.mktemp("kb")
    shutil.copytree(FIXTURES / "kb" / "hardware", root / "hardware")
    (root / "entries" / "fixtures").mkdir(parents=True)
    (root / "entries" / "fixtures" / "random.yaml").write_text(text, encoding="utf-8")
    found = check(root)
    event("kb check passes" if not found.errors else "kb check refuses")
    if found.errors:
        return
    kb = KnowledgeBase.load(root)
    entry = kb.entry("fixtures/random")
    assert entry is not None
    evaluation = evaluate_entry(entry, kb.catalog.devices)
    for name in formats(EVALUATION):
        shown = render(EVALUATION, name, evaluation)
        assert shown
    document = json.loads(render(EVALUATION, "json", evaluation))
    assert _finite(document)
    for symbol in entry.scales_with:  # and at either end of every range, as a reader may set
        assert symbol.range is not None
        for end in symbol.range:
            evaluate_entry(
                entry, kb.catalog.devices, overrides={symbol.symbol: end}, symbolic=False
            )
