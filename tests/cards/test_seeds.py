"""The two seed entries carry the source cards' facts (../shared/seeds), nothing dropped."""

from __future__ import annotations

from bottleneck_kb.knowledge.base import KnowledgeBase
from bottleneck_kb.records.entry import Entry

from ..knowledge import entry_of


def _seed_words(entry: Entry) -> str:
    """What the entry's claims quote of their source card."""
    return "\n".join(c.card or "" for c in entry.claims)


def test_draft_pass_card(kb: KnowledgeBase) -> None:
    """The seed's one batched pass (intensity k) is kept as the seed's words beside the
    sources that contradict it; the card's own formulas are k sequential passes."""
    entry = entry_of(kb, "flops/speculative-draft")
    assert entry.title == "Speculative decoding: draft-model proposal pass"
    assert (entry.cls, entry.bound_by) == ("speculative_draft", "memory")
    names = [s.name for s in entry.scales_with]
    assert {"draft_tokens", "draft_model_size", "context_length"} <= set(names)
    assert (entry.intensity.flops.text, entry.intensity.bytes.text) == (
        "2 * B * k * w * N_d",
        "k * (N_d * q_d / 8 + B * L * c_d)",
    )
    seed = next(c for c in entry.claims if "flops = 2*k*N_d" in (c.card or ""))
    assert (seed.verdict, seed.reference) == ("differs", "2211.17192")
    assert "(1 + draft_cost/target_cost)" in _seed_words(entry)
    assert {w.title for w in entry.workarounds} >= {
        "N-gram / prompt-lookup drafter",
        "Early-exit (self-speculative) draft",
        "Colocated or overlapped draft",
        "Tree / multi-candidate drafting",
    }
    assert [r.arxiv for r in entry.references][:2] == ["2302.01318", "2211.17192"]
    assert entry.notes is not None
    assert entry.notes.count("Design consequence") == 1
    assert "K serial runs of the model" in entry.intensity.summary


def test_lm_head_card(kb: KnowledgeBase) -> None:
    """The seed's one d x V GEMM is kept as its words, marked as differing from the drafters'
    code; the card counts the head's reads and rows per draft step."""
    entry = entry_of(kb, "flops/speculative-quantized-drafter-lm-head")
    assert entry.title == (
        "Speculative decoding drafter bottlenecks: draft LM-head projection and quantized "
        "drafter scaling"
    )
    assert (entry.cls, entry.bound_by) == ("speculative_draft", "memory")
    names = {s.name for s in entry.scales_with}
    assert {"vocab_size", "hidden_size", "drafter_rank_r", "drafter_quantization_bits"} <= names
    assert {"batch_size", "head_reads_per_step", "rows_per_read"} <= names
    assert entry.intensity.flops.text == "2 * B * n_p * m * d * V"
    assert "n_p * d * V * (q + s) / 8" in entry.intensity.bytes.text
    seed = next(c for c in entry.claims if "2 * k * d * V FLOPs" in (c.card or ""))
    assert seed.verdict == "differs"
    assert "45%-60% of total draft latency" in _seed_words(entry)
    (parameter,) = entry.hardware_parameters
    assert parameter.parameter == "memory_bandwidth"
    assert parameter.values_for == ("nvidia-h100-sxm", "amd-instinct-mi300x")
    assert parameter.magnitude == "3.35 TB/s vs 5.3 TB/s"
    assert {"2605.10453", "2503.13565"} <= {r.arxiv for r in entry.references}
    assert entry.notes is not None
    assert entry.notes.startswith("Where the roofline and the seed card differ.")


def test_every_device_carries_sources(kb: KnowledgeBase) -> None:
    """An entry's sources are kb check's to ask for (KB223), as a contributor would see."""
    assert set(kb.catalog.devices) >= {"nvidia-h100-sxm", "amd-instinct-mi300x"}
    for device in kb.catalog.devices.values():
        assert device.sources
        assert all(s.url.startswith(("https://", "http://")) and s.title for s in device.sources)
