"""A model and a deployment on devices: each recipe row's card evaluated at its bindings and
counted, summed into prefill, decode and request times (kernels one after another) and floors
(the largest roof total, which holds under any overlap), beside the model's own memory
account. The rows are kept, so the breakdown, the site, the export and the explorer read the
same numbers."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import KBError
from ..evaluation.evaluator import Evaluator
from ..evaluation.formulas import EvaluationError
from ..evaluation.measured import MeasuredOutcome
from ..evaluation.result import DATASHEET, Basis, basis_figure
from ..evaluation.roofs import ROOFS
from ..maths import formula
from ..records.device import Device
from ..records.model import Model
from .deployment import NUMERIC, Deployment
from .kinds import PHASES, Kind, Row, kinds


class ModelError(KBError):
    """A model whose kind, fields or recipe cannot be evaluated (kb check says where)."""


def kind_of(model: Model) -> Kind:
    found = kinds().get(model.architecture)
    if found is None:
        raise ModelError(f"no architecture kind '{model.architecture}'")
    return found


def field_values(model: Model, kind: Kind) -> dict[str, float]:
    """The kind's fields from the model's config (a boolean as 1 or 0), or from their
    formulas where the config gives none of their names; a ModelError for a field with
    neither, or a config value that is not a number."""
    values: dict[str, float] = {}
    for item in kind.fields:
        name = next((n for n in item.names if model.config.get(n) is not None), None)
        if name is not None:
            raw = model.config[name]
            if isinstance(raw, bool | int | float):
                values[item.name] = float(raw)
            else:
                raise ModelError(f"config {name} is not a number, which {item.name} needs")
        elif item.fallback is not None:
            values[item.name] = formula.evaluate(item.fallback, values)
        else:
            raise ModelError(
                f"the config gives none of {', '.join(item.names)}, which {item.name} needs"
            )
    return values


def environment(fields: Mapping[str, float], deployment: Deployment) -> dict[str, float]:
    """What a recipe's formulas read: the model's fields and the deployment's numbers, each a
    finite float (checked here once, so that each formula need not check its symbols again);
    a ModelError names one that is not."""
    env = {**fields, **{n: float(deployment[n]) for n in NUMERIC}}
    for name, value in env.items():
        if not math.isfinite(value):
            raise ModelError(f"{name} is {value}: not a finite number")
    return env


@dataclass(frozen=True, slots=True)
class Term:
    """One row of a step on one device: the card's bound, counted."""

    phase: str
    card: str
    label: str
    count: float
    #: One instance's time on each roof, by roof name.
    roofs: Mapping[str, float]
    bound: str

    @property
    def seconds(self) -> float:
        return self.count * max(self.roofs.values())


@dataclass(frozen=True, slots=True)
class Memory:
    weights_bytes: float
    kv_bytes_per_token: float
    weights_bytes_per_device: float
    kv_bytes_per_token_per_device: float
    activation_bytes_per_device: float


@dataclass(frozen=True, slots=True)
class DeviceEstimate:
    device: str
    devices_used: int
    capacity: float
    memory: Memory
    terms: tuple[Term, ...]
    batch: float
    context: float
    output: float

    def phase_seconds(self, phase: str) -> float:
        return sum(t.seconds for t in self.terms if t.phase == phase)

    def roofs(self, phase: str) -> dict[str, float]:
        """Each roof's total over the phase's rows."""
        totals = {roof.name: 0.0 for roof in ROOFS}
        for term in self.terms:
            if term.phase == phase:
                for name, seconds in term.roofs.items():
                    totals[name] += term.count * seconds
        return totals

    def floor(self, phase: str) -> float:
        return max(self.roofs(phase).values())

    def bound(self, phase: str) -> str:
        """The roof whose total is largest over the phase's rows: what bounds the step (the
        first of the roof table wins a tie)."""
        roofs = self.roofs(phase)
        return max(roofs, key=roofs.__getitem__)

    @property
    def footprint_bytes_per_device(self) -> float:
        m = self.memory
        resident = m.weights_bytes_per_device + m.activation_bytes_per_device
        return resident + self.batch * m.kv_bytes_per_token_per_device * self.context

    @property
    def fits(self) -> bool:
        return self.footprint_bytes_per_device <= self.capacity

    @property
    def max_batch(self) -> int:
        """The largest batch at this context that fits beside the weights and one sequence's
        prefill activations; 0 when those alone do not."""
        m = self.memory
        room = self.capacity - m.weights_bytes_per_device - m.activation_bytes_per_device
        per_sequence = m.kv_bytes_per_token_per_device * self.context
        if room <= 0 or per_sequence <= 0:
            return 0
        return min(int(room // per_sequence), 10**12)

    def as_json(self) -> dict[str, Any]:
        prefill, decode = self.phase_seconds("prefill"), self.phase_seconds("decode")
        prefill_floor, decode_floor = self.floor("prefill"), self.floor("decode")
        rate = self.batch / decode
        m = self.memory
        return {
            "device": self.device,
            "devices_used": self.devices_used,
            "fits": self.fits,
            "prefill_s": prefill,
            "decode_token_s": decode,
            "request_s": prefill + self.output * decode,
            "prefill_floor_s": prefill_floor,
            "decode_floor_s": decode_floor,
            "request_floor_s": prefill_floor + self.output * decode_floor,
            "decode_tokens_per_s": rate,
            "decode_tokens_per_s_per_device": rate / self.devices_used,
            "weights_bytes": m.weights_bytes,
            "kv_bytes_per_token": m.kv_bytes_per_token,
            "weights_bytes_per_device": m.weights_bytes_per_device,
            "kv_bytes_per_token_per_device": m.kv_bytes_per_token_per_device,
            "footprint_bytes_per_device": self.footprint_bytes_per_device,
            "max_batch": self.max_batch,
            "roofs": {phase: self.roofs(phase) for phase in PHASES},
            "breakdown": [
                {
                    "phase": t.phase,
                    "card": t.card,
                    "as": t.label,
                    "count": t.count,
                    "seconds": t.seconds,
                    "bound": t.bound,
                    "share": t.seconds / (prefill if t.phase == "prefill" else decode),
                }
                for t in self.terms
            ],
        }


@dataclass(frozen=True, slots=True)
class Skipped:
    device: str
    reason: str


@dataclass(frozen=True, slots=True)
class ModelEstimate:
    model: str
    deployment: Deployment
    basis: Basis
    results: tuple[DeviceEstimate, ...]
    skipped: tuple[Skipped, ...]
    speculative: Mapping[str, Any] | None = field(default=None)
    #: The model's published measurements beside the floor, each at its own deployment.
    measured: tuple[MeasuredOutcome, ...] = ()

    def as_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "model": self.model,
            "deployment": dict(self.deployment),
            "basis": "measured" if self.basis.measured else "datasheet",
            "derated": self.basis.derated,
            "results": [r.as_json() for r in self.results],
            "skipped": [{"device": s.device, "reason": s.reason} for s in self.skipped],
        }
        if self.speculative is not None:
            found["speculative"] = dict(self.speculative)
        found["measurements"] = [m.as_json() for m in self.measured]
        return found


@dataclass(frozen=True, slots=True)
class _Bound:
    """A row at a deployment, before any device: its count, its card's values and work."""

    row: Row
    count: float
    evaluator: Evaluator
    values: dict[str, float]
    dtype: str | None


def model_environment(model: Model, kind: Kind, deployment: Deployment) -> dict[str, float]:
    """What `model`'s recipe reads at `deployment` (`environment` of its fields)."""
    return environment(field_values(model, kind), deployment)


def bound_rows(
    kind: Kind, env: Mapping[str, float], dtype: str, cards: Mapping[str, Evaluator]
) -> list[_Bound]:
    """The recipe's rows at `env` (model_environment) that it includes (count above 0), each
    with the values its card is evaluated at (its bindings over the card's typical values);
    `dtype` is the deployment's compute dtype, for the rows that take it."""
    found = []
    for row in kind.rows:
        try:
            # The compiled programs check every step; `environment` checked their symbols.
            count = row.count.program(env)
            if count <= 0:
                continue
            overrides = {symbol: f.program(env) for symbol, f in row.bindings.items()}
        except formula.FormulaError:
            _failing(row, env)
            raise
        evaluator = cards.get(row.card)
        if evaluator is None:
            raise ModelError(f"no card {row.card} (row {row.label}); run kb check")
        chosen = dtype if row.deployment_dtype else None
        found.append(_Bound(row, count, evaluator, evaluator.values(overrides), chosen))
    return found


def _failing(row: Row, env: Mapping[str, float]) -> None:
    """A ModelError naming the part of `row` (its count or a binding) that fails at `env`."""
    for what, parsed in (("count", row.count), *row.bindings.items()):
        try:
            parsed.program(env)
        except formula.FormulaError as exc:
            raise ModelError(f"{row.phase} row {row.label}, {what}: {exc.message}") from None


def memory(kind: Kind, env: Mapping[str, float]) -> Memory:
    """The model's own memory account at `env` (model_environment), not a sum of the cards'
    footprints."""
    bits = {k: env[k] / 8 for k in ("weight_bits", "kv_bits", "activation_bits")}
    return Memory(
        kind.parameters.program(env) * bits["weight_bits"],
        kind.kv_values_per_token.program(env) * bits["kv_bits"],
        kind.parameters_per_device.program(env) * bits["weight_bits"],
        kind.kv_values_per_token_per_device.program(env) * bits["kv_bits"],
        kind.activation_values_per_device.program(env) * bits["activation_bits"],
    )


def estimate(
    model: Model,
    deployment: Deployment,
    devices: Iterable[Device],
    cards: Mapping[str, Evaluator],
    basis: Basis = DATASHEET,
) -> ModelEstimate:
    """`model` at `deployment` (resolved: every parameter given) on each of `devices`: a
    result for every device that can run it, a reason for every other."""
    kind = kind_of(model)
    env = model_environment(model, kind, deployment)
    try:
        rows = bound_rows(kind, env, str(deployment["dtype"]), cards)
        held = memory(kind, env)
    except formula.FormulaError as exc:
        raise ModelError(f"the memory account: {exc.message}") from None
    used = int(max(deployment["tp"], deployment["ep"]) * deployment["pp"])
    results: list[DeviceEstimate] = []
    skipped: list[Skipped] = []
    for device in devices:
        outcome = on_device(device, rows, held, used, deployment, basis)
        if isinstance(outcome, Skipped):
            skipped.append(outcome)
        else:
            results.append(outcome)
    return ModelEstimate(model.id, dict(deployment), basis, tuple(results), tuple(skipped))


def on_device(
    device: Device,
    rows: list[_Bound],
    held: Memory,
    used: int,
    deployment: Deployment,
    basis: Basis = DATASHEET,
) -> DeviceEstimate | Skipped:
    """The bound rows on one device, or why it cannot run them."""
    terms = []
    lacking: dict[tuple[int, str | None], list[str]] = {}
    for bound in rows:
        evaluator = bound.evaluator
        key = (id(evaluator), bound.dtype)
        missing = lacking.get(key)
        if missing is None:
            missing = lacking[key] = evaluator.missing(device, dtype=bound.dtype)
        if missing:
            return Skipped(device.id, f"no {missing[0]} in the catalog ({bound.row.card})")
        beyond = evaluator.beyond(device, bound.values)
        if beyond is not None:
            return Skipped(device.id, f"{bound.row.label} ({bound.row.card}): {beyond}")
        try:
            done = evaluator.work_at(bound.values)
            result = evaluator.on(device, done, basis, derived=False, dtype=bound.dtype)
        except EvaluationError as exc:
            return Skipped(device.id, f"{bound.row.label} ({bound.row.card}): {exc.message}")
        terms.append(
            Term(
                bound.row.phase,
                bound.row.card,
                bound.row.label,
                bound.count,
                dict(result.times),
                result.verdict,
            )
        )
    capacity_figure = device.parameter("memory_capacity")
    if capacity_figure is None:
        return Skipped(device.id, "no memory_capacity in the catalog")
    capacity, _ = basis_figure(device, "memory_capacity", capacity_figure.value, basis)
    return DeviceEstimate(
        device.id,
        used,
        capacity,
        held,
        tuple(terms),
        float(deployment["batch"]),
        float(deployment["context"]),
        float(deployment["output"]),
    )
