"""Each roof decides a verdict in a hand-computed case, and every entry's bound_by is the only
claim `kb check` lets through at its typical values (issue: every claim checkable)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bottleneck_kb.checking.run import check
from bottleneck_kb.evaluation.entry import evaluate_entry
from bottleneck_kb.knowledge.base import KnowledgeBase
from bottleneck_kb.schemas import bound_by_values

from ..conftest import EARLY_CARDS, REPOSITORY, copy_repository

H100 = "nvidia-h100-sxm"
ALL_REDUCE = "collective/tensor-parallel-all-reduce"


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    """The early cards, frozen (tests/fixtures/early-cards/README.md): the cases here are
    worked out by hand from them, and a card corrected in entries/ must not change them."""
    return KnowledgeBase.load(EARLY_CARDS)


def _on_h100(kb: KnowledgeBase, entry_id: str, **values: float):  # type: ignore[no-untyped-def]
    entry = kb.entry(entry_id)
    assert entry is not None
    evaluation = evaluate_entry(entry, kb.catalog.devices, [H100], values, symbolic=False)
    return evaluation.results[0]


def test_interconnect_binds_a_prefill_all_reduce(kb: KnowledgeBase) -> None:
    # T = 4096 tokens of h = 8192 bf16 values over P = 8 devices: each sends
    # 2 * 7/8 * 2 * 4096 * 8192 = 117,440,512 B at 450 GB/s a direction = 0.26098 ms;
    # latency 3.6 us + 14 * 0.47 us = 10.18 us; memory 2 * 2 * 4096 * 8192 B / 3.35 TB/s.
    result = _on_h100(kb, ALL_REDUCE, T=4096, h=8192, P=8, e=2)
    assert result.quantities["interconnect_bytes"] == 117_440_512
    assert result.times["interconnect"] == pytest.approx(117_440_512 / 450e9, rel=1e-12)
    assert result.times["latency"] == pytest.approx(3.6e-6 + 14 * 0.47e-6, rel=1e-12)
    assert result.times["memory"] == pytest.approx(4 * 4096 * 8192 / 3.35e12, rel=1e-12)
    assert result.verdict == "interconnect"
    assert result.time == result.times["interconnect"]


def test_latency_binds_a_decode_all_reduce(kb: KnowledgeBase) -> None:
    # T = 8: 2 * 7/8 * 2 * 8 * 8192 = 229,376 B, 0.51 us on the link, under 10.18 us.
    result = _on_h100(kb, ALL_REDUCE, T=8, h=8192, P=8, e=2)
    assert result.times["interconnect"] == pytest.approx(229_376 / 450e9, rel=1e-12)
    assert result.verdict == "latency"
    assert result.time == pytest.approx(10.18e-6, rel=1e-12)


def test_memory_and_compute_bind_the_draft_pass_and_the_prefill_gemm(kb: KnowledgeBase) -> None:
    draft = _on_h100(kb, "flops/speculative-draft", k=4)
    assert (draft.intensity, draft.verdict) == (4.0, "memory")
    # 2,048 rows of a 4,096 x 14,336 GEMM: 2.40518e11 FLOP over 192,937,984 B.
    prefill = _on_h100(kb, "gemm/prefill-gemm", B=1, S=2048, K=4096, M=14336)
    assert prefill.flops == 2 * 2048 * 4096 * 14336
    assert prefill.verdict == "compute"


def test_capacity_binds_two_long_sequences_of_multi_head_cache(kb: KnowledgeBase) -> None:
    # 2 sequences x 131,072 tokens x 32 layers x 2 x 32 heads x 128 x 16 bits / 8 = 137.4 GB
    # of cache, beside the entry's typical N = 6.74e9 bf16 weights (Llama 2 7B, counted from
    # its configuration in the entry's symbol description): 13.48 GB, 150.9 GB in all.
    result = _on_h100(kb, "attention/decode-kv-cache", B=2, L=131072)
    assert result.quantities["footprint"] == 2 * 131072 * 32 * 2 * 32 * 128 * 2 + 2 * 6.74e9
    assert result.capacity == 80e9
    assert (result.fits, result.verdict) == (False, "capacity")


def test_capacity_binds_a_verification_step_whose_weights_and_caches_outgrow_the_device(
    kb: KnowledgeBase,
) -> None:
    # 8e9 bf16 target weights (16 GB) + 120 sequences x 4,096 tokens x 131,072 B of cache
    # (64.4 GB) = 80.4 GB over the H100 SXM's 80 GB, though the roofline says memory there.
    result = _on_h100(kb, "speculative/verification", B=120)
    assert result.quantities["footprint"] == 2 * 8e9 + 120 * 4096 * 131072
    assert result.times["memory"] > result.times["compute"]
    assert (result.fits, result.verdict) == (False, "capacity")


def _entry_ids() -> list[str]:
    return sorted(
        p.relative_to(REPOSITORY / "entries").with_suffix("").as_posix()
        for p in (REPOSITORY / "entries").rglob("*.yaml")
    )


@pytest.mark.slow  # a copy of the repository for each of its cards
@pytest.mark.parametrize("entry_id", _entry_ids())
def test_every_other_bound_by_fails_unless_that_roof_binds(entry_id: str, tmp_path: Path) -> None:
    """Mutate bound_by to each other value: kb check refuses it (KB406, giving both sides)
    unless that roof truly binds at the typical values on every device."""
    root = copy_repository(tmp_path / "kb")
    path = root / "entries" / f"{entry_id}.yaml"
    original = path.read_text(encoding="utf-8")
    claimed = next(line for line in original.splitlines() if line.startswith("bound_by: "))
    for other in bound_by_values():
        if claimed == f"bound_by: {other}":
            continue
        path.write_text(original.replace(claimed, f"bound_by: {other}", 1), encoding="utf-8")
        found = check(root, [path], select=frozenset({"KB406"})).diagnostics
        assert [d.code for d in found] == ["KB406"], (other, found)
        assert f"bound_by is {other}, but" in found[0].message
