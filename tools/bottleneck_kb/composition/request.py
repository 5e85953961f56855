"""What `kb estimate` asks, as a library call: a model of a knowledge base, a deployment given
by name, the devices to run it on, a basis and, for speculative decoding, a draft model."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..core.errors import BadRequest
from ..core.text import suggest
from ..evaluation.evaluator import Evaluator
from ..evaluation.formulas import EvaluationError
from ..evaluation.result import DATASHEET, Basis
from ..records.device import Device
from ..records.model import Model
from .cards import DRAFT_CARD, VERIFICATION_CARD
from .deployment import NUMERIC, Deployment, resolve
from .estimate import (
    DeviceEstimate,
    ModelEstimate,
    estimate,
    kind_of,
    memory,
    model_environment,
)


@dataclass(frozen=True, slots=True)
class Speculation:
    """Speculative decoding on one device: a step drafts draft_k tokens and verifies them."""

    device: str
    tokens_per_step: float
    step_s: float
    speedup: float
    #: The largest offered batch at which drafting still pays (speedup >= 1); 0 when it
    #: does not pay even at the smallest.
    break_even_batch: float

    def as_json(self) -> dict[str, Any]:
        return {
            "tokens_per_step": self.tokens_per_step,
            "step_s": self.step_s,
            "speedup": self.speedup,
            "break_even_batch": self.break_even_batch,
        }


def unread_parameters(model: Model, given: Mapping[str, Any]) -> list[str]:
    """The parameters given that no row, memory formula or draft card of the model reads
    (said under the header, as kb eval says a symbol no formula reads)."""
    kind = kind_of(model)
    read: set[str] = {"dtype", "output", "draft_k", "acceptance_rate"}
    for row in kind.rows:
        read |= row.count.symbols
        for bound in row.bindings.values():
            read |= bound.symbols
    for parsed in (
        kind.parameters_per_device,
        kind.kv_values_per_token_per_device,
        kind.activation_values_per_device,
    ):
        read |= parsed.symbols
    return [name for name in given if name in NUMERIC and name not in read]


def find_model(models: Sequence[Model], model_id: str) -> Model:
    found = next((m for m in models if m.id == model_id), None)
    if found is None:
        raise BadRequest(
            f"no model '{model_id}'", suggest(model_id, sorted(m.id for m in models), "models")
        )
    return found


def devices_named(catalog: Mapping[str, Device], on: Sequence[str]) -> list[Device]:
    for name in on:
        if name not in catalog:
            raise BadRequest(f"no device '{name}'", suggest(name, sorted(catalog), "devices"))
    return [catalog[name] for name in dict.fromkeys(on)] or list(catalog.values())


def estimate_model(
    model: Model,
    given: Mapping[str, Any],
    devices: Sequence[Device],
    cards: Mapping[str, Evaluator],
    basis: Basis = DATASHEET,
    draft: Model | None = None,
) -> ModelEstimate:
    """`model` at the deployment `given` names (the rest from its typical deployment and the
    defaults) on `devices`, with speculative decoding by `draft` where one is given."""
    deployment = resolve(model.typical, model.offered, given)
    found = estimate(model, deployment, devices, cards, basis)
    if draft is None:
        return found
    if draft.config.get("vocab_size") != model.config.get("vocab_size"):
        raise BadRequest(
            f"draft '{draft.id}' has another vocabulary than '{model.id}' "
            f"({draft.config.get('vocab_size')} tokens, not {model.config.get('vocab_size')})"
        )
    by_id = {d.id: d for d in devices}
    speculation = {
        r.device: speculate(model, draft, deployment, r, cards, by_id[r.device], basis)
        for r in found.results
    }
    rate = float(deployment["acceptance_rate"])
    k = float(deployment["draft_k"])
    return replace(
        found,
        speculative={
            "draft": draft.id,
            "draft_k": k,
            "acceptance_rate": rate,
            "tokens_per_step": tokens_per_step(k, rate),
            "devices": {device: s.as_json() for device, s in speculation.items()},
        },
    )


def tokens_per_step(k: float, rate: float) -> float:
    """Tokens a verified step yields on average: the accepted prefix of k drafts, each
    accepted with probability `rate`, and the target's own next token (Leviathan et al.)."""
    return float(sum(rate**i for i in range(int(k) + 1)))


def speculate(
    target: Model,
    draft: Model,
    deployment: Deployment,
    result: DeviceEstimate,
    cards: Mapping[str, Evaluator],
    device: Device,
    basis: Basis,
) -> Speculation:
    """Speculative decoding of `target` on `device` (`result`'s): the draft card's time for k
    drafted tokens plus the verification card's for k + 1 positions, against the target's
    decode step."""

    def step(batch: float) -> float:
        at = {**deployment, "batch": batch}
        kind = kind_of(target)
        held = memory(kind, model_environment(target, kind, at))
        alone = {**at, "tp": 1, "ep": 1, "pp": 1}
        draft_kind = kind_of(draft)
        draft_held = memory(draft_kind, model_environment(draft, draft_kind, alone))
        k = float(deployment["draft_k"])
        drafting = _card_time(
            cards,
            DRAFT_CARD,
            device,
            basis,
            {
                "B": batch,
                "k": k,
                "w": 1,
                "N_d": draft_held.weights_bytes * 8 / float(deployment["weight_bits"]),
                "q_d": float(deployment["weight_bits"]),
                "L": float(deployment["context"]),
                "c_d": draft_held.kv_bytes_per_token,
            },
        )
        verifying = _card_time(
            cards,
            VERIFICATION_CARD,
            device,
            basis,
            {
                "B": batch,
                "k": k,
                "N_t": held.weights_bytes_per_device * 8 / float(deployment["weight_bits"]),
                "q": float(deployment["weight_bits"]),
                "L": float(deployment["context"]),
                "c_kv": held.kv_bytes_per_token_per_device,
            },
        )
        return drafting + verifying

    made = tokens_per_step(float(deployment["draft_k"]), float(deployment["acceptance_rate"]))
    step_s = step(result.batch)
    speedup = made * result.phase_seconds("decode") / step_s
    even = _break_even(target, step, made, deployment, cards, device, basis, result.max_batch)
    return Speculation(result.device, made, step_s, speedup, even)


def _break_even(
    target: Model,
    step: Callable[[float], float],
    made: float,
    deployment: Deployment,
    cards: Mapping[str, Evaluator],
    device: Device,
    basis: Basis,
    most: int,
) -> float:
    """The largest offered batch that fits (`most`, the target's max_batch) at which
    speculation still pays, by bisection (at most 40 steps)."""
    low, high = (float(v) for v in target.offered.get("batch", [deployment["batch"]] * 2))
    high = max(low, min(high, float(most)))

    def pays(batch: float) -> bool:
        at = {**deployment, "batch": batch}
        plain = estimate(target, at, [device], cards, basis).results
        if not plain:
            return False
        return made * plain[0].phase_seconds("decode") >= step(batch)

    if not pays(low):
        return 0.0
    if pays(high):
        return high
    for _ in range(40):
        if high - low <= 1:
            break
        middle = (low + high) // 2
        low, high = (middle, high) if pays(middle) else (low, middle)
    return low


def _card_time(
    cards: Mapping[str, Evaluator],
    card: str,
    device: Device,
    basis: Basis,
    values: Mapping[str, float],
) -> float:
    evaluator = cards.get(card)
    if evaluator is None:
        raise BadRequest(
            f"speculative decoding needs the card {card}, which is not in the knowledge base"
        )
    for symbol, value in values.items():
        symbol_of = evaluator.entry.symbols.get(symbol)
        if symbol_of is not None and symbol_of.range is not None:
            low, high = symbol_of.range
            if not low <= value <= high:
                raise BadRequest(
                    f"{card}: {symbol} = {value:.6g} is outside its range [{low:.6g}, {high:.6g}]"
                )
    try:
        work = evaluator.work(values)
        return evaluator.on(device, work, basis, derived=False).time
    except EvaluationError as exc:
        raise BadRequest(f"{card} on {device.id}: {exc.message}") from None
