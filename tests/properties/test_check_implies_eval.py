"""Whatever `kb check` passes evaluates everywhere: random entries, one value mutated, and
whenever the check passes, `kb eval` in every format succeeds with finite numbers."""

from __future__ import annotations

import copy
import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bottleneck_kb.checking.run import check
from bottleneck_kb.core.codes import INTERNAL
from bottleneck_kb.core.diagnostics import Severity
from bottleneck_kb.evaluation.entry import evaluate_entry
from bottleneck_kb.evaluation.result import BASES
from bottleneck_kb.knowledge.base import KnowledgeBase
from bottleneck_kb.report import EVALUATION, formats, render
from bottleneck_kb.rules.examples import MINIMAL_DEVICE, MINIMAL_ENTRY, patched

from ..conftest import FIXTURES, REPOSITORY

#: A device with measured and derated figures besides the datasheet's, so that every basis a
#: reader may ask kb eval for differs from the others.
MEASURED_DEVICE = patched(
    MINIMAL_DEVICE,
    """
memory_bandwidth: {measured: {value: 2.5 TB/s, how: a copy kernel, source: sheet}}
achieved_fraction: {memory_bandwidth: {value: 0.5, source: sheet}}
""",
)


def _knowledge_base(root: Path) -> None:
    shutil.copytree(FIXTURES / "kb" / "hardware", root / "hardware")
    (root / "hardware" / "fixture-device.yaml").write_text(MEASURED_DEVICE, encoding="utf-8")
    (root / "entries" / "fixtures").mkdir(parents=True)


SYMBOLS = ("a", "b", "c")

numbers = st.sampled_from([0, 0.5, 1, 2, 2, 3, 8, 1.0e3, 1.0e-300, 1.0e300])
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
    return patched(
        MINIMAL_ENTRY,
        "\n".join(
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
        ),
    )


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


#: A property that checks and evaluates a knowledge base on disk per example.
SLOW_PROPERTY = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def test_what_check_passes_evaluates(tmp_path_factory: Any) -> None:
    """Random entries: whenever kb check passes one, kb eval succeeds. Some must pass, or
    the property says nothing."""
    passed: list[str] = []

    @settings(SLOW_PROPERTY, max_examples=50)
    @given(text=entries())
    def random_entry(text: str) -> None:
        root = tmp_path_factory.mktemp("kb")
        _knowledge_base(root)
        (root / "entries" / "fixtures" / "random.yaml").write_text(text, encoding="utf-8")
        found = check(root)
        assert [d for d in found.diagnostics if d.code == INTERNAL] == []  # a bug, not a refusal
        event("kb check passes" if not found.errors else "kb check refuses")
        if not found.errors:
            passed.append(text)
            _evaluates_everywhere(root, "fixtures/random")

    random_entry()
    assert passed, "no random entry passed kb check"


SEEDS = sorted((REPOSITORY / "entries").rglob("*.yaml"))
#: Values a mutation may put in place of a number: ends of the float range, zero and signs.
ODD_NUMBERS = st.sampled_from([0, -1, 0.5, 1, 3, 1.0e-300, 1.0e-30, 1.0e30, 1.0e300, -1.0e300])


@st.composite
def mutations(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """One value of a seed entry changed: a formula, a range end, a typical value, or a
    workaround's or a check's setting; what was changed, and the entry."""
    seed = draw(st.sampled_from(SEEDS))
    entry = copy.deepcopy(yaml.safe_load(seed.read_text("utf-8")))
    symbols = [s["symbol"] for s in entry["scales_with"]]
    places: list[tuple[str, Any, Any]] = [
        ("formula", entry["arithmetic_intensity"], key) for key in ("flops", "bytes")
    ]
    for symbol in entry["scales_with"]:
        places.append(("typical", symbol, "typical"))
        if "range" in symbol:
            places += [("range", symbol["range"], 0), ("range", symbol["range"], 1)]
    for item in [*entry.get("workarounds", []), *entry.get("checks", [])]:
        settings_ = item.get("model", item).get("set", {})
        places += [("set", settings_, name) for name in settings_]
    kind, container, key = draw(st.sampled_from(places))
    was = container[key]
    # Half the time a change a contributor might make (which mostly passes), else anything.
    near = draw(st.booleans())
    if kind == "formula" and near:
        container[key] = draw(st.sampled_from([f"({was}) * 2", f"{was} + 1", f"max({was}, 1)"]))
    elif kind == "formula":
        leaves = st.one_of(st.sampled_from(symbols), ODD_NUMBERS.map(str))
        container[key] = draw(st.recursive(leaves, _combine, max_leaves=5))
    elif near:
        container[key] = was * draw(st.sampled_from([0.5, 1.01, 2]))
    else:
        container[key] = draw(ODD_NUMBERS)
    return f"{kind} ({'near' if near else 'any'})", entry


@pytest.mark.slow
def test_what_check_passes_of_a_mutated_seed_evaluates(tmp_path_factory: Any) -> None:
    """Seed entries with one value mutated: whenever kb check passes, kb eval succeeds. Some
    mutations must pass, or the property says nothing (about half do)."""
    passed: list[str] = []

    @settings(SLOW_PROPERTY, max_examples=48)
    @given(mutated=mutations())
    def mutated_seed(mutated: tuple[str, dict[str, Any]]) -> None:
        kind, entry = mutated
        root = tmp_path_factory.mktemp("kb")
        shutil.copytree(REPOSITORY / "hardware", root / "hardware")
        shutil.copytree(REPOSITORY / "entries", root / "entries")  # what the seed links to
        path = root / "entries" / f"{entry['id']}.yaml"
        path.write_text(yaml.safe_dump(entry, sort_keys=False), encoding="utf-8")
        found = check(root)
        assert [d for d in found.diagnostics if d.code == INTERNAL] == []
        event(f"{kind}: kb check {'refuses' if found.errors else 'passes'}")
        if not found.errors:
            passed.append(kind)
            _evaluates_everywhere(root, entry["id"])

    mutated_seed()
    assert passed, "no mutation of a seed entry passed kb check"


#: Entries kb check passed and kb eval could not evaluate, found by trying: (flops, bytes,
#: the workaround's model, a derived formula) and whether kb check now refuses them.
FOUND = {
    # sympy's Max compared its arguments by isolating real roots: minutes.
    "max-compared": ("1", "max((B + 1e-300) / B ** 8, 1)", "{set: {B: 2}}", None, False),
    # sympy's ceiling worked the constant out past its precision, and gave up.
    "ceil-past-precision": ("2 * B", "2 + B + ceil((1e16 * 3 ** (1/3)) ** 8)", None, None, False),
    # On the device's measured figures, the derived value divides by zero.
    "derived-on-measured": ("2 * B * 1e9", "2e9", None, "1 / (memory_bandwidth - 2.5e12)", True),
    # ...and on its derated ones (half of 3.35 TB/s).
    "derived-derated": ("2 * B * 1e9", "2e9", None, "1 / (memory_bandwidth - 1.675e12)", True),
    # The workaround's time, 3e-313 s, is too small for the entry's time over it to be a number.
    "workaround-time-past-a-ratio": ("2 * B", "2e9", '{flops: "0", bytes: "1.0e-300"}', None, True),
    # A constant past the smallest float is 0, as evaluated: FLOPs of 0 are allowed.
    "underflowing-constant": ("B * (10 ** -300) ** 2", "2e9", None, None, False),
}


@pytest.mark.parametrize("case", sorted(FOUND))
def test_what_check_passes_evaluates_on_cases_found(case: str, tmp_path: Path) -> None:
    flops, bytes_, model, derived, refused = FOUND[case]
    root = tmp_path / "kb"
    _knowledge_base(root)
    lines = [
        "id: fixtures/found",
        "title: Found",
        "class: decode_gemm",
        "bound_by: memory",
        "arithmetic_intensity:",
        "  summary: Found.",
        f'  flops: "{flops}"',
        f'  bytes: "{bytes_}"',
        "scales_with:",
        "  - {name: s_b, symbol: B, description: d, typical: 1.5, range: [1, 2]}",
        "workarounds:" + ("" if model else " []"),
    ]
    if model:
        lines += ["  - title: W", "    description: d.", f"    model: {model}"]
    if derived:
        lines += ["derived:", f'  - {{name: q, formula: "{derived}", unit: x, description: d}}']
    # A patch of the minimal entry, which carries whatever else an entry must.
    text = patched(MINIMAL_ENTRY, "\n".join(lines) + "\n")
    (root / "entries" / "fixtures" / "found.yaml").write_text(text, encoding="utf-8")

    found = check(root)

    errors = [d.code for d in found.diagnostics if d.severity is Severity.ERROR]
    assert errors == (["KB405"] if refused else [])
    if not refused:
        _evaluates_everywhere(root, "fixtures/found")


def _evaluates_everywhere(root: Path, entry_id: str) -> None:
    """kb eval of the entry succeeds in every format with finite numbers, on every basis of
    figures, and at either end of every range."""
    kb = KnowledgeBase.load(root)
    entry = kb.entry(entry_id)
    assert entry is not None
    evaluation = evaluate_entry(entry, kb.catalog.devices)
    for name in formats(EVALUATION):
        shown = render(EVALUATION, name, evaluation)
        assert shown
    document = json.loads(render(EVALUATION, "json", evaluation))
    assert _finite(document)
    for basis in BASES:
        evaluated = evaluate_entry(entry, kb.catalog.devices, basis=basis, symbolic=False)
        assert _finite(json.loads(render(EVALUATION, "json", evaluated)))
    for symbol in entry.scales_with:  # and at either end of every range, as a reader may set
        for end in symbol.range or ():
            evaluate_entry(
                entry, kb.catalog.devices, overrides={symbol.symbol: end}, symbolic=False
            )
