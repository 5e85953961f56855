"""The cards' new fields: roof formulas, derived values, related links. Their numbers are held
here against the catalog until the evaluation computes every roof; everything is computed
from the repository, so adding a valid entry or device keeps these tests green."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from bottleneck_kb.knowledge.base import KnowledgeBase
from bottleneck_kb.knowledge.read import read_entry
from bottleneck_kb.maths import formula
from bottleneck_kb.records.device import Device
from bottleneck_kb.records.entry import Entry
from bottleneck_kb.records.fields import parameter_names
from bottleneck_kb.schemas import ENTRY, schema, vocabulary

from ..conftest import FIXTURES


@pytest.fixture(scope="module")
def kb(repository: Path) -> KnowledgeBase:
    """The repository, and a copy with a contributor's valid entry and device added."""
    loaded = KnowledgeBase.load(repository)
    assert loaded.diagnostics == []
    return loaded


def _figures(device: Device, entry: Entry) -> dict[str, float]:
    """The device's figures by the names formulas read them by (link bandwidths per
    direction, as the model holds them)."""
    figures = {name: measure.value for name, measure in device.quantities.items()}
    peak = device.peak_flops.get(entry.intensity.dtype)
    if peak is not None:
        figures["peak_flops"] = peak.value
    return figures


def _derived(
    entry: Entry, values: Mapping[str, float], figures: Mapping[str, float]
) -> dict[str, float]:
    """The derived values at `values`, in order; those that need a figure the device does not
    publish (or a value that does) are left out."""
    known = {**figures, **values}
    names = {*entry.symbols, *vocabulary(ENTRY, "device_figure"), *(d.name for d in entry.derived)}
    derived = {}
    for item in entry.derived:
        parsed = formula.parse(item.formula.text, names)
        if parsed.symbols <= known.keys():
            derived[item.name] = known[item.name] = formula.evaluate(parsed, known)
    return derived


def _corners(entry: Entry) -> Iterator[dict[str, float]]:
    """The typical point, and each symbol at each end of its range with the others typical."""
    typical = {s.symbol: s.typical for s in entry.scales_with if s.typical is not None}
    yield typical
    for symbol in entry.scales_with:
        if symbol.range is not None:
            for end in symbol.range:
                yield {**typical, symbol.symbol: end}


def test_every_derived_value_is_finite_across_the_ranges(kb: KnowledgeBase) -> None:
    evaluated = 0
    for entry, device in itertools.product(kb.entries, kb.catalog.devices.values()):
        for values in _corners(entry):
            evaluated += len(_derived(entry, values, _figures(device, entry)))
    assert evaluated > 0


def test_every_derived_expectation_holds_where_the_catalog_has_the_figures(
    kb: KnowledgeBase,
) -> None:
    judged = []
    for entry in kb.entries:
        typical = {s.symbol: s.typical for s in entry.scales_with if s.typical is not None}
        for check in entry.checks:
            for device_id in check.devices:
                device = kb.catalog.devices[device_id]
                values = {**typical, **check.overrides}
                derived = _derived(entry, values, _figures(device, entry))
                for name, (low, high) in check.derived.items():
                    if name not in derived:
                        continue
                    value = derived[name]
                    assert low is None or value >= low, (entry.id, check.claim, name, value)
                    assert high is None or value <= high, (entry.id, check.claim, name, value)
                    judged.append((entry.id, name))
    assert ("flops/speculative-draft", "speedup") in judged
    assert ("collective/tensor-parallel-all-reduce", "message_bytes") in judged
    assert ("collective/tensor-parallel-all-reduce", "crossover_tokens") in judged
    assert ("collective/tensor-parallel-all-reduce", "ll_crossover_tokens") in judged
    assert ("collective/tensor-parallel-all-reduce", "simple_crossover_tokens") in judged


def test_the_all_reduce_crossover_under_each_nccl_protocol(kb: KnowledgeBase) -> None:
    entry = kb.entry("collective/tensor-parallel-all-reduce")
    assert entry is not None
    device = kb.catalog.devices["nvidia-h100-sxm"]
    typical = {s.symbol: s.typical for s in entry.scales_with if s.typical is not None}

    derived = _derived(entry, typical, _figures(device, entry))

    # The bound's latency is SGLang's one-shot all-reduce at TP 8, 5.7 us; NCCL 2.30.7's
    # tuning.cc: ring LL 6.6 + 14 x 0.6 us at min(141 GB/s, half the bus bandwidth), Simple
    # 8.4 + 14 x 3.4 us at all of it; each device sends 2 x 7/8 x 2 x 8,192 = 28,672 B a
    # token, here at the H100 SXM's 450 GB/s a direction.
    per_token = 2 * 7 / 8 * 2 * 8192
    assert derived["crossover_tokens"] == pytest.approx(5.7e-6 * 450e9 / per_token)  # 89.5
    assert derived["ll_crossover_tokens"] == pytest.approx(15.0e-6 * 141e9 / per_token)
    assert derived["simple_crossover_tokens"] == pytest.approx(56.0e-6 * 450e9 / per_token)


def test_the_draft_speedup_follows_leviathan_et_al(kb: KnowledgeBase) -> None:
    entry = kb.entry("flops/speculative-draft")
    assert entry is not None
    device = kb.catalog.devices["nvidia-h100-sxm"]
    typical = {s.symbol: s.typical for s in entry.scales_with if s.typical is not None}
    at = {**typical, "a": 0.75, "k": 7.0, "N_d": 7.7e7, "N_t": 1.1e10}

    derived = _derived(entry, at, _figures(device, entry))

    # (1 - 0.75**8) / 0.25 = 3.5995...; c is a draft step's bytes over a target step's: the
    # weights (77M and 11B at 16 bits, Leviathan et al.'s T5-small and T5-XXL) and, at the
    # typical batch 1 and 4,096 tokens, each one's KV cache (32,768 and 327,680 B a token);
    # Leviathan et al.'s c = 77M / 11B = 0.007 leaves the cache out.
    cost = (7.7e7 * 2 + 4096 * 32768) / (1.1e10 * 2 + 4096 * 327680)  # 0.01235
    assert derived["accepted_tokens"] == pytest.approx(3.59954833984375)
    assert derived["cost_ratio"] == pytest.approx(cost)
    assert derived["speedup"] == pytest.approx(3.59954833984375 / (7 * cost + 1))  # 3.30


def test_every_related_relation_is_in_the_vocabulary(kb: KnowledgeBase) -> None:
    item = schema(ENTRY)["properties"]["related"]["items"]
    relations = set(item["properties"]["relation"]["enum"])
    assert {r.relation for e in kb.entries for r in e.related} <= relations


def test_device_figures_are_fields_of_the_hardware_schema() -> None:
    figures = set(vocabulary(ENTRY, "device_figure")) - {"peak_flops"}
    assert figures <= set(parameter_names())
    assert "peak_flops.bf16" in parameter_names()


def test_the_model_reads_every_new_field_with_its_location(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    (root / "entries" / "fixtures").mkdir(parents=True)
    path = root / "entries" / "fixtures" / "full.yaml"
    path.write_bytes((FIXTURES / "valid" / "full.yaml").read_bytes())

    entry, problems = read_entry(path, root)

    assert problems == []
    assert entry is not None
    others = entry.intensity.others
    assert sorted(others) == ["footprint", "interconnect_bytes", "latency"]
    assert others["latency"].text == "k * t_l"
    assert others["latency"].where.pointer == ("arithmetic_intensity", "latency")
    assert others["footprint"].text == "2 * N_d"
    assert [(d.name, d.unit) for d in entry.derived] == [("ridge_k", "tokens"), ("headroom", "x")]
    assert entry.derived[1].formula.where.pointer == ("derived", 1, "formula")
    assert [(r.id, r.relation) for r in entry.related] == [("fixtures/minimal", "compares_to")]
    (check,) = entry.checks
    assert check.derived == {"headroom": (1, None)}
    assert check.bounds == {
        "intensity": (8, 8),
        "time": (None, 1.0e-3),
        "interconnect_bytes": (1, None),
        "latency": (None, 1),
        "footprint": (None, 1.0e12),
    }
