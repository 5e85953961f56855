"""The two seed entries carry the source cards' facts (../shared/seeds), nothing dropped."""

from __future__ import annotations

from bottleneck_kb.knowledge.base import KnowledgeBase

from .knowledge import entry_of


def test_draft_pass_card(kb: KnowledgeBase) -> None:
    entry = entry_of(kb, "flops/speculative-draft")
    assert entry.title == "Speculative decoding: draft-model proposal pass"
    assert (entry.cls, entry.bound_by) == ("speculative_draft", "memory")
    assert [s.name for s in entry.scales_with][:4] == [
        "draft_k",
        "draft_model_size",
        "draft_depth",
        "context_length",
    ]
    assert (entry.intensity.flops.text, entry.intensity.bytes.text) == ("2 * k * N_d", "2 * N_d")
    assert [w.title for w in entry.workarounds] == [
        "N-gram / prompt-lookup drafter",
        "Early-exit draft",
        "Colocated or overlapped draft",
        "Tree / multi-candidate drafting",
    ]
    assert "prompt-lookup drafter needs no weights" in entry.workarounds[0].description
    assert [r.arxiv for r in entry.references][:1] == ["2302.01318"]
    assert entry.notes is not None
    assert "(1 + draft_cost/target_cost)" in entry.notes
    assert entry.notes.count("Design consequence") == 1
    assert "DeepMind's speculative sampling" in entry.intensity.summary


def test_lm_head_card(kb: KnowledgeBase) -> None:
    entry = entry_of(kb, "flops/speculative-quantized-drafter-lm-head")
    assert entry.title == (
        "Speculative decoding drafter bottlenecks: draft LM-head projection and quantized "
        "drafter scaling"
    )
    assert (entry.cls, entry.bound_by) == ("speculative_draft", "memory")
    names = [s.name for s in entry.scales_with]
    for card_name in (
        "vocabulary_size_V",
        "hidden_dimension_d",
        "drafter_rank_r",
        "drafter_quantization_bits",
        "batch_size",
    ):
        assert card_name in names
    assert [w.title for w in entry.workarounds] == [
        "Low-rank drafter LM-head (SlimSpec)",
        "Quantized drafts (ML-SpecQD)",
        "Static vocabulary truncation (VocabTrim, FR-Spec)",
        "Clustered / dynamic vocabulary routing (SpecVocab, DynaSpec)",
    ]
    (parameter,) = entry.hardware_parameters
    assert parameter.parameter == "memory_bandwidth"
    assert parameter.values_for == ("nvidia-h100-sxm", "amd-instinct-mi300x")
    assert parameter.magnitude == "3.35 TB/s vs 5.3 TB/s"
    assert parameter.basis == "recorded"
    assert parameter.effect == (
        "Governs drafter LM-head weight streaming latency at low batch sizes (batch 1-16)."
    )
    arxiv = {r.arxiv for r in entry.references}
    assert {"2605.10453", "2503.13565"} <= arxiv
    assert "45%-60% of total draft latency" in entry.intensity.summary
    assert entry.intensity.flops.text == "2 * B * k * d * V"
    assert "d * V * (q + s) / 8" in entry.intensity.bytes.text
    assert entry.notes is not None
    assert entry.notes.count("Quantized drafters and draft-head optimization") == 1


def test_every_device_carries_sources(kb: KnowledgeBase) -> None:
    """An entry's sources are kb check's to ask for (KB223), as a contributor would see."""
    assert set(kb.catalog.devices) >= {"nvidia-h100-sxm", "amd-instinct-mi300x"}
    for device in kb.catalog.devices.values():
        assert device.sources
        assert all(s.url.startswith(("https://", "http://")) and s.title for s in device.sources)
