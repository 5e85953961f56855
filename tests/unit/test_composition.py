"""Whole models from cards: the kinds load, a model's memory account and its rows come out as
computed by hand, the deployment is resolved as the table says, and what is refused is said."""

from __future__ import annotations

import pytest

from bottleneck_kb.composition.cards import recipe_cards
from bottleneck_kb.composition.deployment import PARAMETERS, resolve
from bottleneck_kb.composition.estimate import (
    estimate,
    field_values,
    kind_of,
    memory,
    model_environment,
)
from bottleneck_kb.composition.kinds import kinds
from bottleneck_kb.composition.request import estimate_model, tokens_per_step
from bottleneck_kb.core.errors import BadRequest
from bottleneck_kb.evaluation.evaluator import Evaluator
from bottleneck_kb.knowledge.base import Catalog
from bottleneck_kb.knowledge.read import read_model
from bottleneck_kb.records.model import Model
from bottleneck_kb.schemas import schema

from ..conftest import FIXTURES, REPOSITORY

#: Llama 3.1 70B as its file stood when these numbers were worked out by hand.
LLAMA_70B = FIXTURES / "models" / "llama-3.1-70b.yaml"


@pytest.fixture(scope="module")
def llama() -> Model:
    model, problems = read_model(LLAMA_70B, FIXTURES)
    assert model is not None, problems
    return model


@pytest.fixture(scope="module")
def cards() -> dict[str, Evaluator]:
    return recipe_cards(REPOSITORY)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load(REPOSITORY)


def test_the_kinds_are_the_schema_s_list_of_architectures() -> None:
    assert sorted(kinds()) == sorted(schema("model")["properties"]["architecture"]["enum"])


def test_every_card_a_kind_binds_is_a_card_of_the_repository(cards: dict[str, Evaluator]) -> None:
    bound = {row.card for kind in kinds().values() for row in kind.rows}
    assert sorted(bound - cards.keys()) == []


def test_llama_70b_weights_and_kv_cache_as_computed_by_hand(llama: Model) -> None:
    # Embedding and LM head 2 x 128,256 x 8,192; a layer: q and o 8,192 x 8,192 each, k and v
    # 8,192 x 1,024 each, the MLP 3 x 8,192 x 28,672, two norms of 8,192; the final norm.
    layer = 2 * 8192 * 8192 + 2 * 8192 * 1024 + 3 * 8192 * 28672 + 2 * 8192
    parameters = 2 * 128256 * 8192 + 80 * layer + 8192
    assert parameters == 70_553_706_496
    deployment = resolve(llama.typical, llama.offered, {})
    kind = kind_of(llama)
    held = memory(kind, model_environment(llama, kind, deployment))
    assert held.weights_bytes == 2 * parameters == 141_107_412_992
    # A key and a value of 128 for each of 8 KV heads of 80 layers, 2 bytes each.
    assert held.kv_bytes_per_token == 2 * 80 * 8 * 128 * 2 == 327_680
    # At tp 8 each device holds one KV head of every layer.
    assert held.kv_bytes_per_token_per_device == 2 * 80 * 1 * 128 * 2 == 40_960


def test_a_decode_row_is_its_card_counted(
    llama: Model, cards: dict[str, Evaluator], catalog: Catalog
) -> None:
    deployment = resolve(llama.typical, llama.offered, {"batch": 1, "context": 4096, "tp": 8})
    found = estimate(llama, deployment, [catalog.devices["nvidia-h100-sxm"]], cards)
    (result,) = found.results
    gate_up = next(
        t for t in result.terms if t.phase == "decode" and t.label == "gate_up_projection"
    )
    # 80 layers x (8,192 x 2 x 28,672 / 8 weights of 2 bytes + 2 x (8,192 + 7,168) activation
    # bytes) at 3.35 TB/s.
    assert gate_up.count == 80
    assert gate_up.seconds == pytest.approx(80 * (8192 * 7168 * 2 + 2 * (8192 + 7168)) / 3.35e12)
    assert gate_up.bound == "memory"
    # The two all-reduces of every layer at tp 8; none at tp 1.
    assert [t.count for t in result.terms if t.label == "all_reduce"] == [160, 160]
    alone = estimate(llama, {**deployment, "tp": 1}, [catalog.devices["nvidia-h100-sxm"]], cards)
    assert [t for t in alone.results[0].terms if t.label == "all_reduce"] == []


def test_the_estimate_json_has_the_documented_keys(
    llama: Model, cards: dict[str, Evaluator], catalog: Catalog
) -> None:
    found = estimate_model(llama, {}, list(catalog.devices.values()), cards).as_json()
    assert list(found) == [
        *("model", "deployment", "basis", "derated", "results", "skipped", "measurements")
    ]
    assert list(found["deployment"]) == [p.name for p in PARAMETERS]
    assert list(found["results"][0]) == [
        "device",
        "devices_used",
        "fits",
        "prefill_s",
        "decode_token_s",
        "request_s",
        "prefill_floor_s",
        "decode_floor_s",
        "request_floor_s",
        "decode_tokens_per_s",
        "decode_tokens_per_s_per_device",
        "weights_bytes",
        "kv_bytes_per_token",
        "weights_bytes_per_device",
        "kv_bytes_per_token_per_device",
        "footprint_bytes_per_device",
        "max_batch",
        "roofs",
        "breakdown",
    ]
    result = found["results"][0]
    assert list(result["breakdown"][0]) == [
        "phase",
        "card",
        "as",
        "count",
        "seconds",
        "bound",
        "share",
    ]
    assert result["decode_floor_s"] <= result["decode_token_s"]
    assert result["request_s"] == pytest.approx(result["prefill_s"] + result["decode_token_s"])
    # A device whose scale-up domain is below tp 8 is skipped, and says why.
    skipped = {s["device"]: s["reason"] for s in found["skipped"]}
    assert skipped["amd-instinct-mi250x"] == (
        "all_reduce (collective/tensor-parallel-all-reduce): P = 8 is more than its "
        "scale_up_domain (4)"
    )


def test_a_model_that_does_not_fit_stays_with_max_batch_zero(
    llama: Model, cards: dict[str, Evaluator], catalog: Catalog
) -> None:
    # 141 GB of weights at tp 1 fit no 80 GB device.
    found = estimate_model(llama, {"tp": 1}, [catalog.devices["nvidia-h100-sxm"]], cards)
    (result,) = found.results
    assert (result.fits, result.max_batch) == (False, 0)


def test_the_deployment_defaults_as_the_table_says(llama: Model) -> None:
    assert resolve(llama.typical, llama.offered, {})["prompt"] == 4096
    given = resolve(llama.typical, llama.offered, {"context": 1024})
    assert (given["prompt"], given["context"]) == (1024, 1024)
    given = resolve(llama.typical, llama.offered, {"prompt": 512})
    assert (given["prompt"], given["context"], given["output"]) == (512, 512, 1)


def test_a_deployment_outside_the_offer_is_a_bad_request(llama: Model) -> None:
    with pytest.raises(BadRequest) as refused:
        resolve(llama.typical, llama.offered, {"batch": 5000})
    assert refused.value.message == "batch = 5000 is outside the model's offered range, [1, 1024]"
    with pytest.raises(BadRequest) as refused:
        resolve(llama.typical, llama.offered, {"tp": 3})
    assert refused.value.message == "tp = 3 is not offered: the model is offered at 1, 2, 4, 8"
    with pytest.raises(BadRequest) as refused:
        resolve(llama.typical, llama.offered, {"bacth": 2})
    assert refused.value.message == "'bacth' is not a deployment parameter"


def test_fields_come_from_the_config_or_their_formula(llama: Model) -> None:
    fields = field_values(llama, kind_of(llama))
    assert fields["head_dim"] == 8192 / 64
    assert fields["tied"] == 0.0


def test_tokens_a_verified_step_yields() -> None:
    # 1 + a + a^2 + ... + a^k: the accepted prefix and the target's own token.
    assert tokens_per_step(4, 0.7) == pytest.approx(1 + 0.7 + 0.49 + 0.343 + 0.2401)
    assert tokens_per_step(4, 0.0) == 1.0


def test_speculative_decoding_adds_its_figures_for_each_device(
    cards: dict[str, Evaluator], catalog: Catalog
) -> None:
    from bottleneck_kb.knowledge.base import KnowledgeBase

    kb = KnowledgeBase.load(REPOSITORY)
    target, draft = kb.model("llama-3.1-8b"), kb.model("llama-3.2-1b")
    assert target is not None and draft is not None
    h100 = catalog.devices["nvidia-h100-sxm"]
    found = estimate_model(
        target, {"draft_k": 4, "acceptance_rate": 0.7}, [h100], cards, draft=draft
    )
    spec = found.as_json()["speculative"]
    assert (spec["draft"], spec["draft_k"], spec["acceptance_rate"]) == ("llama-3.2-1b", 4, 0.7)
    assert spec["tokens_per_step"] == pytest.approx(2.7731)
    on_h100 = spec["devices"]["nvidia-h100-sxm"]
    assert list(on_h100) == ["tokens_per_step", "step_s", "speedup", "break_even_batch"]
    plain = found.results[0].phase_seconds("decode")
    assert on_h100["speedup"] == pytest.approx(2.7731 * plain / on_h100["step_s"])
    # At batch 1 a memory-bound target gains; the break-even batch is one that fits.
    assert on_h100["speedup"] > 1
    assert 1 <= on_h100["break_even_batch"] <= found.results[0].max_batch


def test_the_shared_vocabulary_names_deployment_parameters_only() -> None:
    """A quantity cards share records the deployment's name for it (x-deployment): every such
    name is a parameter of the deployment, and each of the table's quantities has its name."""
    from bottleneck_kb.composition.deployment import BY_NAME
    from bottleneck_kb.schemas import shared_quantities

    named = {deployment for _, deployment in shared_quantities().values() if deployment}
    assert named <= BY_NAME.keys()
    assert {"batch", "prompt", "context", "tp", "ep", "weight_bits", "kv_bits"} <= named


def test_the_model_schema_lists_the_deployment_s_parameters() -> None:
    """The model schema's deployment and offer are the table of deployment.py, in its order
    (the schema is what editors complete from; the table what kb estimate reads)."""
    from bottleneck_kb.composition.deployment import PARAMETERS, SPECULATIVE

    defs = schema("model")["$defs"]
    assert list(defs["deployment"]["properties"]) == [p.name for p in PARAMETERS]
    offered = [p.name for p in PARAMETERS if p.name not in SPECULATIVE]
    assert list(defs["offered"]["properties"]) == offered
