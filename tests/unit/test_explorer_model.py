"""The explorer's model in node, on a payload with every kind of roof: the other roofs'
formulas read device figures by name, the verdict is the roof that sets the lower bound (the
first listed on a tie, capacity when the footprint does not fit), derived values are computed
in order, and a device without a figure a roof needs is skipped and named. Entries use these
once the evaluation has the roofs; the payload makes them data, not code."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bottleneck_kb.maths.formula import FormulaError, evaluate, parse
from bottleneck_kb.site.explorer import ASSETS as SHIPPED
from bottleneck_kb.site.explorer import script

ASSETS = Path(__file__).parents[2] / "tools/bottleneck_kb/site/assets"
#: The scripts a page loads before an entry's, in its order (the explorer's list of what it
#: ships): the explorer's own read what those before them define.
SCRIPTS = tuple(name for name in SHIPPED.values() if name.endswith(".js"))
SYMBOLS = ("n", "k", "a")
FIGURES = ("peak_flops", "memory_bandwidth", "interconnect_bandwidth", "launch_latency")
DERIVED = (
    ("accepted", "(1 - a**(k + 1)) / (1 - a)"),
    ("speedup", "accepted / 2"),
)
FORMULAS = {
    "flops": "2e9 * k",
    "bytes": "1e9",
    "interconnect_bytes": "k * 1e5",
    "latency": "n * launch_latency",
    "footprint": "k * 1e8",
}
FAST = {
    "peak_flops": {"bf16": 1e15},
    "memory_bandwidth": 1e12,
    "interconnect_bandwidth": 1e11,
    "launch_latency": 5e-6,
    "memory_capacity": 8e10,
}

HARNESS = """
globalThis.window = globalThis;
globalThis.document = {readyState: "complete", querySelectorAll: () => [],
  querySelector: () => null, getElementById: () => null};
const scripts = process.argv.slice(1, -2);
const [entry, states] = process.argv.slice(-2);
scripts.forEach((script) => require(script));
require("vm").runInThisContext(require("fs").readFileSync(entry, "utf8"));
const answers = JSON.parse(states).map((s) => KBExplorer.evaluate("test/roofs", s));
process.stdout.write(JSON.stringify(answers));
"""


def payload() -> dict[str, Any]:
    roofs = [
        ("compute", "flops", "peak_flops"),
        ("memory", "bytes", "memory_bandwidth"),
        ("interconnect", "interconnect_bytes", "interconnect_bandwidth"),
        ("latency", "latency", None),
    ]
    slow = {k: v for k, v in FAST.items() if k != "interconnect_bandwidth"}
    return {
        "id": "test/roofs",
        "title": "every roof",
        "dtype": "bf16",
        "symbols": [
            {"symbol": s, "name": s, "unit": None, "typical": 1.0, "range": [0.0, 1e4]}
            for s in SYMBOLS
        ],
        "roofs": [{"name": n, "quantity": q, "figure": f} for n, q, f in roofs],
        "capacity": {"name": "capacity", "quantity": "footprint", "figure": "memory_capacity"},
        "needs": [*FIGURES, "memory_capacity"],
        "workarounds": [{"title": "fewer launches", "set": {"n": 1.0}}],
        "devices": [
            {"id": "fast", "name": "Fast", "figures": FAST},
            {"id": "slow", "name": "Slow", "figures": slow},
        ],
        "evaluated": ["fast", "slow"],
    }


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Any:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    names = (*SYMBOLS, *FIGURES)
    formulas = {name: parse(text, names) for name, text in FORMULAS.items()}
    derived = []
    declared: tuple[str, ...] = names
    for name, text in DERIVED:
        derived.append((name, parse(text, declared)))
        declared = (*declared, name)
    entry = tmp_path_factory.mktemp("explorer") / "entry.js"
    entry.write_text(script(payload(), formulas, derived, [{}]), "utf-8")

    def evaluate_at(*states: dict[str, Any]) -> list[dict[str, Any]]:
        done = subprocess.run(
            [
                node,
                "-e",
                HARNESS,
                *(str(ASSETS / name) for name in SCRIPTS),
                str(entry),
                json.dumps(states),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        answers: list[dict[str, Any]] = json.loads(done.stdout)
        return answers

    return evaluate_at


def state(workaround: int | None = None, **values: float) -> dict[str, Any]:
    return {
        "values": values,
        "devices": ["fast", "slow"],
        "dtype": "bf16",
        "workaround": workaround,
    }


def test_each_roof_sets_the_verdict_where_it_is_slowest(run: Any) -> None:
    memory, latency, small, capacity, fewer = run(
        state(n=100, k=4, a=0.5),
        state(n=1000, k=4, a=0.5),
        state(n=1, k=0.5, a=0.5),  # compute 1e-6 s, memory 1e-3 s: memory
        state(n=1, k=1000, a=0.5),  # 1e11 B resident, 8e10 B of memory
        state(0, n=1000, k=4, a=0.5),
    )
    fast = memory["results"][0]
    assert fast["times"] == pytest.approx(
        {"compute": 8e-6, "memory": 1e-3, "interconnect": 4e-6, "latency": 5e-4}, rel=1e-15
    )
    assert (fast["verdict"], fast["time"]) == ("memory", 1e-3)
    assert latency["results"][0]["verdict"] == "latency"
    assert latency["results"][0]["time"] == pytest.approx(5e-3, rel=1e-15)
    assert small["results"][0]["verdict"] == "memory"
    assert capacity["results"][0]["verdict"] == "capacity"
    # The workaround's `set` (one launch) is applied on top of the reader's values.
    assert fewer["values"]["n"] == 1.0
    assert fewer["results"][0]["verdict"] == "memory"
    assert memory["results"][1] == {
        "device": "slow",
        "name": "Slow",
        "skipped": "no interconnect_bandwidth in the catalog",
    }


def test_the_first_listed_roof_wins_a_tie(run: Any) -> None:
    # compute: 2e9 k / 1e15 equals memory's 1e9 / 1e12 at k = 500.
    (tie,) = run(state(n=1, k=500, a=0.5))
    fast = tie["results"][0]
    assert fast["times"]["compute"] == fast["times"]["memory"]
    assert fast["verdict"] == "compute"


def test_derived_values_in_order_and_their_refusals_as_the_evaluators(run: Any) -> None:
    defined, undefined = run(state(n=1, k=4, a=0.5), state(n=1, k=4, a=1))
    assert defined["results"][0]["derived"] == {"accepted": 1.9375, "speedup": 0.96875}
    names = (*SYMBOLS, *FIGURES)
    with pytest.raises(FormulaError) as refused:
        evaluate(
            parse(DERIVED[0][1], names), {"a": 1.0, "k": 4.0, "n": 1.0, **{f: 1.0 for f in FIGURES}}
        )
    expected = f"accepted: {refused.value.message} (at offset {refused.value.offset})"
    assert undefined["results"][0]["error"] == expected
    assert "verdict" not in undefined["results"][0]
