"""The evaluator against hand-computed numbers (issue: 'Numbers to test against')."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bottleneck_kb.evaluation.crossovers import crossovers
from bottleneck_kb.evaluation.entry import evaluate_entry
from bottleneck_kb.evaluation.evaluator import Evaluator
from bottleneck_kb.evaluation.formulas import EvaluationError, parse_formulas
from bottleneck_kb.evaluation.result import Basis
from bottleneck_kb.knowledge.base import KnowledgeBase
from bottleneck_kb.rules.examples import MINIMAL_ENTRY, patched

from ..conftest import EARLY_CARDS, REPOSITORY

H100 = "nvidia-h100-sxm"
MI300X = "amd-instinct-mi300x"
DRAFT = "flops/speculative-draft"
LM_HEAD = "flops/speculative-quantized-drafter-lm-head"


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    """The early cards, frozen (tests/fixtures/early-cards/README.md): the numbers here are
    worked out by hand from them, and a card corrected in entries/ must not change them."""
    return KnowledgeBase.load(EARLY_CARDS)


def _setup(kb: KnowledgeBase, entry_id: str):  # type: ignore[no-untyped-def]
    entry = kb.entry(entry_id)
    assert entry is not None
    formulas, problems = parse_formulas(entry)
    assert problems == [] and formulas is not None
    return entry, formulas


def test_ridge_points(kb: KnowledgeBase) -> None:
    entry, formulas = _setup(kb, DRAFT)
    h100 = Evaluator(entry, formulas).result(kb.catalog.devices[H100])
    mi300x = Evaluator(entry, formulas).result(kb.catalog.devices[MI300X])
    assert h100.ridge == pytest.approx(989.4e12 / 3.35e12)  # 295.34
    assert round(h100.ridge) == 295
    assert mi300x.ridge == pytest.approx(1307.4e12 / 5.3e12)  # 246.68
    assert round(mi300x.ridge) == 247


def test_draft_pass_at_k4_is_intensity_4_and_memory_bound(kb: KnowledgeBase) -> None:
    entry, formulas = _setup(kb, DRAFT)
    for device in (H100, MI300X):
        result = Evaluator(entry, formulas).result(kb.catalog.devices[device], {"k": 4})
        assert result.flops == 2 * 4 * 1.0e9
        assert result.bytes == 2 * 1.0e9
        assert result.intensity == 4.0
        assert result.verdict == "memory"
        assert result.time == result.memory_time == 2.0e9 / result.bandwidth


def test_lm_head_of_a_llama3_8b_sized_target(kb: KnowledgeBase) -> None:
    entry, formulas = _setup(kb, LM_HEAD)
    h100 = Evaluator(entry, formulas).result(kb.catalog.devices[H100])
    mi300x = Evaluator(entry, formulas).result(kb.catalog.devices[MI300X])
    weights = 4096 * 128256 * 2
    activations = 2 * 1 * 4 * (4096 + 128256)
    assert h100.bytes == weights + activations == 1_051_731_968
    assert h100.flops == 2 * 1 * 4 * 4096 * 128256
    assert h100.time == pytest.approx(1_051_731_968 / 3.35e12)
    assert f"{h100.time * 1e3:.3f}" == "0.314"
    assert f"{mi300x.time * 1e3:.3f}" == "0.198"


def test_workaround_models(kb: KnowledgeBase) -> None:
    entry, formulas = _setup(kb, LM_HEAD)
    device = kb.catalog.devices[H100]
    base = Evaluator(entry, formulas).result(device)
    titles = [w.title for w in entry.workarounds]
    low_rank = Evaluator(entry, formulas).result(
        device, workaround=titles.index("Low-rank drafter LM-head (SlimSpec)")
    )
    mxfp4 = Evaluator(entry, formulas).result(
        device, workaround=titles.index("Quantized drafts (ML-SpecQD)")
    )
    # MXFP4: 4 bits plus one 8-bit scale per 32 weights = 4.25 bits a weight.
    assert mxfp4.bytes == 4096 * 128256 * 4.25 / 8 + 2 * 4 * (4096 + 128256)
    assert base.bytes / mxfp4.bytes == pytest.approx(3.755, abs=1e-3)
    # rank d/8 = 512: (d*r + r*V) weights in bf16.
    assert low_rank.bytes == (4096 * 512 + 512 * 128256) * 2 + 2 * 4 * (4096 + 512 + 128256)
    assert base.bytes / low_rank.bytes == pytest.approx(7.70, abs=5e-3)
    assert base.time / low_rank.time == pytest.approx(base.bytes / low_rank.bytes)


def test_overrides_beat_typical_and_workaround_settings_beat_overrides(kb: KnowledgeBase) -> None:
    entry, formulas = _setup(kb, LM_HEAD)
    device = kb.catalog.devices[H100]
    quantized = [w.title for w in entry.workarounds].index("Quantized drafts (ML-SpecQD)")
    result = Evaluator(entry, formulas).result(device, {"q": 8, "B": 2}, workaround=quantized)
    assert result.values["q"] == 4
    assert result.values["B"] == 2


def test_lm_head_batch_crossover(kb: KnowledgeBase) -> None:
    entry, formulas = _setup(kb, LM_HEAD)
    found = {}
    for k in (1, 4, 8):
        for device in (H100, MI300X):
            found_on = crossovers(
                Evaluator(entry, formulas), [kb.catalog.devices[device]], "B", {"k": k}
            )
            assert found_on is not None
            ((c,),) = found_on
            assert c.at is not None
            assert (c.below, c.above) == ("memory", "compute")
            found[k, device] = c.at
    # intensity = 2Bk dV / (dV*2 + 2Bk(d+V)) = ridge  =>  Bk = ridge*dV / (dV - ridge*(d+V))
    d, v = 4096, 128256
    for (k, device), at in found.items():
        ridge = Evaluator(entry, formulas).result(kb.catalog.devices[device]).ridge
        assert at == pytest.approx(ridge * d * v / (d * v - ridge * (d + v)) / k, rel=1e-9)
    assert round(found[4, H100], 1) == 79.8
    assert round(found[8, MI300X]) == 33


def test_a_set_symbol_is_swept_too_with_the_others_held_where_they_were_set(
    kb: KnowledgeBase,
) -> None:
    """`kb eval --set B=64` describes a deployment; where its verdict flips as B moves is the
    question a reader brings next, so B is swept as every symbol is, the rest held as set."""
    entry, _ = _setup(kb, LM_HEAD)
    h100 = kb.catalog.devices[H100]
    evaluation = evaluate_entry(entry, {H100: h100}, [H100], {"B": 64, "k": 4})
    swept = {c.symbol: c for c in evaluation.crossovers[H100]}
    assert "B" in swept
    assert round(swept["B"].at or 0, 1) == 79.8  # as at k = 4 with B typical (above)


def test_a_device_whose_figure_bounds_a_symbol_runs_the_entry_only_up_to_it(
    kb: KnowledgeBase,
) -> None:
    """The all-reduce's ring of P devices is bounded by the scale-up domain (`at_most`): a ring
    of 64 does not run on an HGX board of 8, and a card with no domain runs no ring."""
    entry = kb.entry("collective/tensor-parallel-all-reduce")
    assert entry is not None
    catalog = kb.catalog.devices
    wide = evaluate_entry(entry, catalog, overrides={"P": 64, "T": 8}, symbolic=False)
    reasons = {s.device: s.reason for s in wide.skipped}
    assert reasons[H100] == "P = 64 is more than its scale_up_domain (8)"
    assert reasons["nvidia-h100-pcie"] == "no scale_up_domain in the catalog"
    domains = {d.id: d.parameter("scale_up_domain") for d in catalog.values()}
    assert {r.device for r in wide.results} == {
        device
        for device, domain in domains.items()
        if domain is not None
        and domain.value >= 64
        and catalog[device].parameter("interconnect_bandwidth") is not None
    }
    # The value as compared, every digit: 8.0001 must not read as the 8 it exceeds.
    (just,) = evaluate_entry(entry, catalog, [H100], {"P": 8.0001}, symbolic=False).skipped
    assert just.reason == "P = 8.0001 is more than its scale_up_domain (8)"
    assert evaluate_entry(entry, catalog, [H100], {"P": 8}, symbolic=False).skipped == []
    typical = evaluate_entry(entry, catalog, [H100, "nvidia-gb200"], symbolic=False)
    ring = {d: next(c for c in found if c.symbol == "P") for d, found in typical.crossovers.items()}
    assert (ring[H100].range, ring["nvidia-gb200"].range) == ((2.0, 8.0), (2.0, 72.0))


def test_checks_and_workarounds_run_at_their_own_values_where_the_readers_cannot(
    kb: KnowledgeBase,
) -> None:
    """A ring of 16 does not run on an H100 SXM, but the entry's checks (at P = 8) and the
    workaround that shrinks the ring (to P = 4) do: they are judged and modeled there."""
    entry = kb.entry("collective/tensor-parallel-all-reduce")
    assert entry is not None
    on = [H100, "nvidia-gb200"]
    wide = evaluate_entry(entry, kb.catalog.devices, on, {"P": 16}, symbolic=False)
    assert [r.device for r in wide.results] == ["nvidia-gb200"]
    typical = evaluate_entry(entry, kb.catalog.devices, on, symbolic=False)
    assert wide.checks == typical.checks
    (smaller,) = wide.workarounds
    assert sorted(smaller.modeled) == sorted(on)
    assert list(smaller.speedup) == ["nvidia-gb200"]  # no ratio to a step that cannot run
    assert smaller.modeled[H100] == typical.workarounds[0].modeled[H100]


def test_every_flip_of_the_verdict_along_a_range_is_found(kb_root: Path) -> None:
    """With a third roof the verdict may flip twice as one symbol grows (memory, then
    compute, then interconnect): both are said, or the first alone contradicts the verdict
    at the far end."""
    entry_file = kb_root / "entries" / "fixtures" / "minimal.yaml"
    text = entry_file.read_text("utf-8").replace(
        "  bytes: 2 * N\n", "  bytes: 2 * N\n  interconnect_bytes: B ** 2 * N / 500000\n"
    )
    entry_file.write_text(text.replace("bound_by: memory", "bound_by: interconnect"), "utf-8")
    kb = KnowledgeBase.load(kb_root)
    (entry,) = kb.entries
    formulas, _ = parse_formulas(entry)
    assert formulas is not None
    h100 = kb.catalog.devices[H100]

    found = crossovers(Evaluator(entry, formulas), [h100], "B")

    assert found is not None
    ((memory_to_compute, compute_to_link),) = found
    assert (memory_to_compute.below, memory_to_compute.above) == ("memory", "compute")
    assert (compute_to_link.below, compute_to_link.above) == ("compute", "interconnect")
    # FLOPs 2BN at the dense peak against 2N bytes, then against B**2 N / 500000 on the link.
    peak = h100.peak_flops["bf16"].value
    link = h100.quantities["interconnect_bandwidth"].value
    ridge = peak / h100.memory_bandwidth
    assert memory_to_compute.at == pytest.approx(ridge, rel=1e-9)
    assert compute_to_link.at == pytest.approx(1e6 * link / peak, rel=1e-9)


def test_no_crossover_in_range(kb: KnowledgeBase) -> None:
    entry, formulas = _setup(kb, DRAFT)
    h100 = [kb.catalog.devices[H100]]
    found = crossovers(Evaluator(entry, formulas), h100, "k")
    assert found is not None
    ((c,),) = found
    assert (c.at, c.below, c.range) == (None, "memory", (1.0, 16.0))
    assert crossovers(Evaluator(entry, formulas), h100, "D") is not None


@pytest.mark.slow  # every card of the repository, on every device
@pytest.mark.parametrize("basis", [Basis(), Basis(measured=True, derated=True)])
def test_crossovers_on_many_devices_are_each_device_alone(basis: Basis) -> None:
    """A search over the catalog shares each sample's FLOPs and bytes between the devices:
    every device's crossover is exactly the one found on that device alone."""
    kb = KnowledgeBase.load(REPOSITORY)
    flipped = 0
    for entry in kb.entries:
        formulas, _ = parse_formulas(entry)
        assert formulas is not None
        devices = Evaluator(entry, formulas).runnable(kb.catalog.devices.values())
        for symbol in sorted(formulas.symbols):
            together = crossovers(Evaluator(entry, formulas), devices, symbol, basis=basis)
            alone = [
                crossovers(Evaluator(entry, formulas), [d], symbol, basis=basis) for d in devices
            ]
            if together is None:
                assert alone == [None] * len(devices)
                continue
            assert together == [a[0] for a in alone if a is not None]
            flipped += sum(c.at is not None for found in together for c in found)
    assert flipped > 0


def test_symbolic_intensity_of_the_draft_pass_is_k(kb: KnowledgeBase) -> None:
    entry, _formulas = _setup(kb, DRAFT)
    evaluation = evaluate_entry(entry, kb.catalog.devices)
    assert evaluation.intensity is not None and evaluation.intensity.text == "k"
    assert all(c.passed for c in evaluation.checks)
    assert len(evaluation.checks) == sum(len(c.devices) for c in entry.checks)


def test_every_check_of_the_seed_entries_passes(kb: KnowledgeBase) -> None:
    entry, _formulas = _setup(kb, LM_HEAD)
    evaluation = evaluate_entry(entry, kb.catalog.devices)
    assert [c.passed for c in evaluation.checks] == [True] * sum(
        len(c.devices) for c in entry.checks
    )


def test_a_missing_typical_value_is_named(kb: KnowledgeBase) -> None:
    entry, formulas = _setup(kb, DRAFT)
    stripped = replace(
        entry,
        scales_with=tuple(
            replace(s, typical=None) if s.symbol == "k" else s for s in entry.scales_with
        ),
    )
    assert stripped.symbols["k"].typical is None
    with pytest.raises(EvaluationError, match="symbol `k` has no typical value"):
        Evaluator(stripped, formulas).result(kb.catalog.devices[H100])


def test_the_memo_is_keyed_by_the_whole_assignment(kb: KnowledgeBase) -> None:
    """An entry edited in place (a new typical value) with the same parsed formulas gets
    new numbers, not the memo's old ones."""
    entry, formulas = _setup(kb, DRAFT)
    device = kb.catalog.devices[H100]
    before = Evaluator(entry, formulas).result(device)
    edited = replace(
        entry,
        scales_with=tuple(
            replace(s, typical=8.0) if s.symbol == "k" else s for s in entry.scales_with
        ),
    )
    after = Evaluator(edited, formulas).result(device)
    assert (before.intensity, after.intensity) == (4.0, 8.0)


def test_devices_without_the_dtype_are_skipped_and_named(kb: KnowledgeBase) -> None:
    entry, _ = _setup(kb, DRAFT)
    fp4 = replace(entry, intensity=replace(entry.intensity, dtype="fp4"))
    evaluation = evaluate_entry(fp4, kb.catalog.devices, symbolic=False)
    lacking = sorted(d.id for d in kb.catalog.devices.values() if "fp4" not in d.peak_flops)
    assert [s.device for s in evaluation.skipped] == lacking
    assert {s.reason for s in evaluation.skipped} <= {"no dense fp4 peak in the catalog"}
    assert sorted(r.device for r in evaluation.results) == sorted(
        set(kb.catalog.devices) - set(lacking)
    )
    times = [r.time for r in evaluation.results]
    assert times == sorted(times)  # the whole catalog: fastest first


def test_measured_and_derated_figures_say_so(kb: KnowledgeBase) -> None:
    """Measured figures where the catalog has them (never derated: they are achieved
    values); datasheet figures times the typical achieved fraction when derated."""
    entry, _ = _setup(kb, DRAFT)
    devices = kb.catalog.devices
    with_measured = sorted(d.id for d in devices.values() if "memory_bandwidth" in d.measured)
    assert with_measured, "the catalog has a measured memory bandwidth somewhere"
    device = devices[with_measured[0]]
    measured = evaluate_entry(entry, devices, [device.id], basis=Basis(measured=True))
    result = measured.results[0]
    assert result.bandwidth == device.measured["memory_bandwidth"].value
    assert result.basis == {"peak_flops": "datasheet", "memory_bandwidth": "measured"}
    derated = [d for d in devices.values() if "memory_bandwidth" in d.achieved_fraction]
    assert derated
    target = derated[0]
    found = evaluate_entry(entry, devices, [target.id], basis=Basis(derated=True)).results[0]
    fraction = target.achieved_fraction["memory_bandwidth"]
    assert found.bandwidth == target.memory_bandwidth * fraction
    assert found.basis["memory_bandwidth"] == "datasheet, derated"
    plain = evaluate_entry(entry, devices, [target.id]).results[0]
    assert plain.basis == {"peak_flops": "datasheet", "memory_bandwidth": "datasheet"}


def test_the_whole_catalog_is_sorted_by_lower_bound_and_verdicts_grouped(
    kb: KnowledgeBase,
) -> None:
    entry, _ = _setup(kb, LM_HEAD)
    evaluation = evaluate_entry(entry, kb.catalog.devices, overrides={"B": 64}, symbolic=False)
    times = [r.time for r in evaluation.results]
    assert times == sorted(times)
    grouped = evaluation.verdicts
    assert sorted(d for found in grouped.values() for d in found) == sorted(
        r.device for r in evaluation.results
    )
    assert all(r.device in grouped[r.verdict] for r in evaluation.results)


@pytest.mark.parametrize(
    ("flops", "bounds"),
    [
        ("2 * N * B * 1e-200", (1.0, 1.0e300)),  # flips near 1e200: left * right overflowed
        ("2 * N * B * 1e200", (1.0e-300, 1.0)),  # flips near 1e-200: it underflowed to 0
        # The ends are past the largest float apart: the step and the midpoint overflowed.
        ("2 * N * max(min(B, 1000), 1)", (-1.0e308, 1.0e308)),
    ],
)
def test_a_crossover_across_hundreds_of_decades_is_found(
    kb_root: Path, flops: str, bounds: tuple[float, float]
) -> None:
    entry_file = kb_root / "entries" / "fixtures" / "minimal.yaml"
    text = entry_file.read_text("utf-8").replace("flops: 2 * B * N", f"flops: {flops}")
    entry_file.write_text(text.replace("range: [1, 1024]", f"range: [{bounds[0]}, {bounds[1]}]"))
    kb = KnowledgeBase.load(kb_root)
    (entry,) = kb.entries
    formulas, _ = parse_formulas(entry)
    assert formulas is not None

    found = crossovers(Evaluator(entry, formulas), list(kb.catalog.devices.values()), "B")

    assert found is not None
    assert all(
        c.at is not None and bounds[0] < c.at < bounds[1] for on_device in found for c in on_device
    )


def test_a_workaround_time_that_rounds_to_zero_is_a_located_error(kb_root: Path) -> None:
    """It was a ZeroDivisionError (an internal error of kb eval and the site), and a bytes
    count of 1e-300 gave an infinite speedup."""
    entry_file = kb_root / "entries" / "fixtures" / "minimal.yaml"
    model = '  - title: W\n    description: D.\n    model: {flops: "0", bytes: "5e-324"}\n'
    text = entry_file.read_text("utf-8").replace("workarounds: []\n", f"workarounds:\n{model}")
    entry_file.write_text(text, encoding="utf-8")
    kb = KnowledgeBase.load(kb_root)
    (entry,) = kb.entries

    with pytest.raises(EvaluationError) as refused:
        evaluate_entry(entry, kb.catalog.devices)

    model_of = entry.workarounds[0].model
    assert model_of is not None
    assert refused.value.message.startswith("the workaround's modeled time (")
    assert refused.value.where is model_of.bytes


def test_a_check_that_holds_shows_each_value_it_bounds(kb_root: Path) -> None:
    entry_file = kb_root / "entries" / "fixtures" / "bounded.yaml"
    entry_file.parent.mkdir(parents=True, exist_ok=True)
    entry_file.write_text(
        patched(
            MINIMAL_ENTRY,
            """
id: fixtures/bounded
derived:
  - {name: rows, formula: 2 * B, unit: rows, description: Rows.}
checks:
  - claim: Sixteen rows at intensity 8.
    devices: [nvidia-h100-sxm]
    expect: {intensity: {min: 8, max: 8}, derived: {rows: {min: 16, max: 16}}}
""",
        ),
        "utf-8",
    )
    kb = KnowledgeBase.load(kb_root)
    assert kb.diagnostics == []
    entry = kb.entry("fixtures/bounded")
    assert entry is not None
    [outcome] = evaluate_entry(entry, kb.catalog.devices).checks
    assert outcome.passed
    assert outcome.detail.startswith("intensity 8 FLOP/B; rows 16 rows; on nvidia-h100-sxm at ")
