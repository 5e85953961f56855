"""References carry their author and year, and the LM-head entry keeps the card's claims beside
what the cited sources say, with the checks that compute the computable ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from bottleneck_kb.checking.run import check
from bottleneck_kb.evaluation.claims import check_failures
from bottleneck_kb.evaluation.evaluator import Evaluator
from bottleneck_kb.evaluation.formulas import parse_formulas
from bottleneck_kb.knowledge.base import KnowledgeBase
from bottleneck_kb.rules import REGISTRY
from bottleneck_kb.rules.examples import MINIMAL_ENTRY, patched
from bottleneck_kb.rules.references import arxiv_year
from bottleneck_kb.source import load

from ..conftest import FIXTURES, copy_repository, write_example
from ..knowledge import entry_of

LM_HEAD = "flops/speculative-quantized-drafter-lm-head"
SLIMSPEC = "2605.10453"
ML_SPECQD = "2503.13565"
EAGLE = "https://github.com/SafeAILab/EAGLE/blob/cb7e0841fe0c206c6ed74a197ad5e2a1f13f5a2b/"
EAGLE_CONFIG = EAGLE + "eagle/traineagle3/config.json"


@pytest.mark.parametrize(
    ("arxiv", "year"), [("0704.0001", 2007), ("2302.01318", 2023), ("2605.10453v2", 2026)]
)
def test_arxiv_year_is_the_ids_yymm(arxiv: str, year: int) -> None:
    assert arxiv_year(arxiv) == year


def test_year_fixture_gives_the_full_diagnostic(kb_root: Path) -> None:
    fixture = FIXTURES / "rules" / "KB220" / "reference-year.yaml"
    [path] = write_example(kb_root, REGISTRY["KB220"], fixture.read_text(encoding="utf-8"))
    document, _ = load((kb_root / path).read_bytes(), path)
    assert document is not None

    result = check(kb_root)

    found = [(d.path, d.line, d.col, d.code, d.message, d.hint) for d in result.diagnostics]
    assert found == [
        (
            path,
            *document.value_at(("references", 0, "year")),
            "KB220",
            "year 2024 disagrees with arXiv 2302.01318, submitted in 2023",
            "write year: 2023; to cite a later journal version, give its url instead of the "
            "arXiv id",
        )
    ]


def _copy_of_repository(tmp_path: Path) -> Path:
    return copy_repository(tmp_path / "repository")


def test_year_rule_finds_a_wrong_year_in_a_workaround_reference(tmp_path: Path) -> None:
    root = _copy_of_repository(tmp_path)
    path = root / "entries" / f"{LM_HEAD}.yaml"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    # The first SlimSpec reference is the low-rank workaround's; its year is two lines below.
    at = next(i for i, line in enumerate(lines) if f'arxiv: "{SLIMSPEC}"' in line) - 1
    assert lines[at] == "        year: 2026\n"
    lines[at] = "        year: 2025\n"
    path.write_text("".join(lines), encoding="utf-8")

    result = check(root)

    found = [(d.path, d.line, d.col, d.code, d.message) for d in result.diagnostics]
    assert found == [
        (
            f"entries/{LM_HEAD}.yaml",
            at + 1,
            15,
            "KB220",
            f"year 2025 disagrees with arXiv {SLIMSPEC}, submitted in 2026",
        )
    ]


def test_every_reference_names_its_first_author_and_year(kb: KnowledgeBase) -> None:
    references = [r for entry in kb.entries for r in entry.all_references()]
    assert references
    for reference in references:
        assert reference.title and reference.first_author and reference.year
        if reference.arxiv is not None:
            assert reference.year == arxiv_year(reference.arxiv)


def test_seed_references_as_the_papers_print_them(kb: KnowledgeBase) -> None:
    cited = {
        r.key: (r.first_author, r.year, r.title)
        for entry in kb.entries
        for r in entry.all_references()
        if entry.id.startswith("flops/speculative")
    }
    assert cited[SLIMSPEC] == (
        "Plaksin",
        2026,
        "SlimSpec: Low-Rank Draft LM-Head for Accelerated Speculative Decoding",
    )
    assert cited[ML_SPECQD] == (
        "Georganas",
        2025,
        "ML-SpecQD: Multi-Level Speculative Decoding with Quantized Drafts",
    )
    assert cited["2302.01318"] == (
        "Chen",
        2023,
        "Accelerating Large Language Model Decoding with Speculative Sampling",
    )
    assert cited["2602.13836"] == (
        "Williams",
        2026,
        "Speculative Decoding with a Speculative Vocabulary",
    )
    assert {key: cited[key][:2] for key in ("2503.01840", "2401.10774", "2506.22694")} == {
        "2503.01840": ("Li", 2025),
        "2401.10774": ("Cai", 2024),
        "2506.22694": ("Goel", 2025),
    }
    assert {key: cited[key][:2] for key in ("2502.14856", "2510.13847")} == {
        "2502.14856": ("Zhao", 2025),
        "2510.13847": ("Zhang", 2025),
    }


def test_lm_head_claims_beside_their_sources(kb: KnowledgeBase) -> None:
    """Each of the seed card's sentences is kept in its words beside what its source says."""
    entry = entry_of(kb, LM_HEAD)
    assert [(c.reference, c.verdict, c.check) for c in entry.claims] == [
        (EAGLE + "eagle/model/cnets.py", "differs", None),
        (EAGLE_CONFIG, "differs", None),
        (SLIMSPEC, "not_in_source", None),
        (SLIMSPEC, "differs", None),
        (ML_SPECQD, "differs", 10),
        ("2502.14856", "not_in_source", None),
        ("2506.22694", "agrees", None),
        ("2412.19437", "agrees", None),
        ("2510.13847", "agrees", None),
        ("2602.13836", "agrees", None),
        (None, "computed", 3),
    ]
    one_gemm, vocabulary, latency_share, low_rank, quantized, *_ = entry.claims
    assert one_gemm.card.startswith(
        "Consequently, computing logits over V requires 2 * k * d * V FLOPs"
    )
    assert one_gemm.source is not None and "k matrices, k reads" in one_gemm.source
    assert vocabulary.source is not None
    assert '"vocab_size": 128256' in vocabulary.source
    assert '"draft_vocab_size": 32000' in vocabulary.source
    assert latency_share.card == (
        "As shown by Plaksin et al. (SlimSpec, arXiv:2605.10453), LM-head latency accounts for "
        "45%-60% of total draft latency T_draft (the seed card's words)"
    )
    assert latency_share.source is not None
    assert "45" not in latency_share.source
    assert "one of the major computational bottlenecks" in latency_share.source
    assert low_rank.card == (
        "reducing LM-head latency by 2-3x while preserving full vocabulary support "
        "(the seed card's words, for the low-rank head)"
    )
    assert low_rank.source is not None
    assert "SlimSpec achieves 4-5x acceleration over the standard LM-head" in low_rank.source
    assert quantized.card == (
        "quantizing drafter weights to 4-bit (MXFP4 / ML-SpecQD, arXiv:2503.13565) halves draft "
        "memory traffic and accelerates drafting in memory-bound regimes (the seed card's words)"
    )
    assert quantized.source is not None
    assert "direct-casts the BF16 target model weights to MXFP4" in quantized.source
    assert "gives speedups up to 2x over the BF16 baseline" in quantized.source


def test_the_eagle_vocabulary_is_cited_by_the_truncation_workaround(kb: KnowledgeBase) -> None:
    entry = entry_of(kb, LM_HEAD)
    (truncation,) = [w for w in entry.workarounds if w.title.startswith("Static vocabulary")]
    assert EAGLE_CONFIG in [r.key for r in truncation.references]


def test_computed_claims_name_passing_checks_that_bear_out_their_numbers(
    kb: KnowledgeBase,
) -> None:
    entry = entry_of(kb, LM_HEAD)
    formulas, problems = parse_formulas(entry)
    assert problems == [] and formulas is not None
    for claim in entry.claims:
        if claim.check is None:
            continue
        named = entry.checks[claim.check]
        for device in named.devices:
            result = Evaluator(entry, formulas).result(kb.catalog.devices[device], named.overrides)
            assert check_failures(named, result, formulas) == []

    h100 = kb.catalog.devices["nvidia-h100-sxm"]
    quantized = next(c for c in entry.claims if c.reference == ML_SPECQD)
    assert quantized.check is not None
    mxfp4 = entry.checks[quantized.check]

    four_bit = Evaluator(entry, formulas).result(h100, mxfp4.overrides)
    bf16 = Evaluator(entry, formulas).result(h100)
    eight_bit = Evaluator(entry, formulas).result(h100, {"q": 8})

    # The claim's source column says 3.75x against bf16 and 1.9x against 8-bit: not "halves".
    assert round(bf16.bytes / four_bit.bytes, 2) == 3.75
    assert round(eight_bit.bytes / four_bit.bytes, 1) == 1.9
    low, high = mxfp4.bounds["bytes"]
    assert low is not None and high is not None and low <= four_bit.bytes <= high


def _minimal_with(kb_root: Path, patch: str) -> None:
    """The fixture knowledge base's minimal entry with the merge patch `patch` applied."""
    minimal = kb_root / "entries" / "fixtures" / "minimal.yaml"
    minimal.write_text(patched(MINIMAL_ENTRY, patch), encoding="utf-8")


def test_many_references_get_no_did_you_mean(kb_root: Path) -> None:
    references = "".join(
        f"  - title: Page {i}\n    first_author: Example\n    year: 2025\n"
        f"    url: https://example.org/{i}\n"
        for i in range(21)
    )
    claim = (
        "  - card: C.\n    source: S.\n    reference: https://example.org/1x\n    verdict: agrees\n"
    )
    _minimal_with(kb_root, f"references:\n{references}claims:\n{claim}")

    (diagnostic,) = check(kb_root).diagnostics

    assert diagnostic.code == "KB221"
    assert diagnostic.hint == (
        "write the arXiv id or URL exactly as one of the entry's references gives it"
    )


def test_a_claim_in_an_entry_without_references_or_checks(kb_root: Path) -> None:
    _minimal_with(
        kb_root,
        "references: null\n"
        "claims:\n"
        '  - card: C.\n    source: S.\n    reference: "2302.01318"\n    verdict: agrees\n'
        "  - card: D.\n    verdict: computed\n    check: 0\n",
    )

    found = [(d.code, d.message, d.hint) for d in check(kb_root).diagnostics]

    assert found == [
        (
            "KB223",
            "the entry cites no source",
            "list under references: the paper, datasheet or measurement its formulas and "
            "typical values come from",
        ),
        (
            "KB221",
            "'2302.01318' is not the arXiv id or URL of any reference of the entry",
            "add the source to references first",
        ),
        (
            "KB222",
            "check 0 does not exist: the entry has 0 check(s)",
            "add the check that computes the claim to checks",
        ),
    ]
