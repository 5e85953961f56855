"""A model's published measurements against its estimate: each measurement's deployment is
estimated on its device's datasheet figures, and the measured step or request set beside the
floor (the largest roof total over the rows, which holds under any overlap) and the serial sum
(the rows one after another, which overlapped work can beat)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from ..core.errors import BadRequest
from ..core.numbers import format_quantity, half_last_digit
from ..core.units import TOKEN_PREFIXES, TOKEN_RATE
from ..evaluation.evaluator import Evaluator
from ..evaluation.measured import (
    Judged,
    MeasuredOutcome,
    Unjudged,
    measured_time,
    outcome,
    plausible,
)
from ..evaluation.roofs import ROOFS
from ..records.device import Device
from ..records.measurement import MODEL_SCOPES, Measurement
from ..records.model import Model
from ..records.quantity import Dimension
from .deployment import resolve
from .estimate import ModelError, estimate

#: A token rate as written: `1250 tok/s`, `1.2 ktok/s`, `95 tokens/s`.
_TOKEN_RATE = re.compile(TOKEN_RATE)


def judge_model(
    model: Model,
    measurement: Measurement,
    devices: Mapping[str, Device],
    cards: Mapping[str, Evaluator],
) -> Judged:
    """`measurement` of `model` against the estimate at its deployment; Unjudged says why it
    cannot be judged (a deployment the model is not offered at, a device that cannot run it)."""
    if measurement.scope not in MODEL_SCOPES:
        raise Unjudged(
            f"a model's measurement has scope step or request, not {measurement.scope}",
            ("scope",),
            "a kernel's measurement belongs in its card",
        )
    if measurement.scope == "step" and measurement.phase is None:
        raise Unjudged("a step's measurement names its phase: decode or prefill", key=True)
    device = devices.get(measurement.device)
    if device is None:
        raise Unjudged(f"'{measurement.device}' is not a device of the catalog", ("device",))
    try:
        deployment = resolve(model.typical, model.offered, measurement.workload)
        found = estimate(model, deployment, [device], cards)
    except (BadRequest, ModelError) as exc:
        raise Unjudged(exc.message, ("deployment",)) from None
    if not found.results:
        reason = found.skipped[0].reason if found.skipped else "it cannot be estimated"
        raise Unjudged(f"{device.id} cannot run it: {reason}", ("device",))
    result = found.results[0]
    if measurement.scope == "step":
        phase = measurement.phase or "decode"
        floor, serial = result.floor(phase), result.phase_seconds(phase)
    else:
        phase = "decode"
        floor = result.floor("prefill") + result.output * result.floor("decode")
        serial = result.phase_seconds("prefill") + result.output * result.phase_seconds("decode")
    if measurement.time is not None:
        seen = measured_time(measurement.time, Dimension.TIME, ("time",))
        measured, most = plausible(
            seen.value, seen.value + seen.resolution, ("time",), measurement.time
        )
    else:
        measured, most = _from_rate(
            measurement, result.batch, float(deployment["prompt"]), result.devices_used
        )
    roof = result.bound(phase)
    figure = next(r.figure for r in ROOFS if r.name == roof)
    figures: tuple[str, ...] = ()
    key = f"peak_flops.{deployment['dtype']}" if figure == "peak_flops" else figure
    shown = device.parameter(key) if key else None
    if key and shown is not None:
        unit = "FLOP/s" if key.startswith("peak_flops") else "B/s" if "bandwidth" in key else "s"
        figures = (f"{key} {format_quantity(shown.value, unit)}",)
    return Judged(measurement.key, device.id, measured, most, floor, roof, figures, serial)


def _from_rate(
    measurement: Measurement, batch: float, prompt: float, devices: int
) -> tuple[float, float]:
    """The step time a token rate stands for (and the longest its digits allow): a decode
    step makes `batch` tokens, a prefill `batch * prompt`."""
    assert measurement.throughput is not None
    if measurement.scope == "request":
        raise Unjudged(
            "a request's measurement is a time, not a throughput",
            ("throughput",),
            "record the request's latency as time, or a step's rate with scope step",
        )
    match = _TOKEN_RATE.fullmatch(measurement.throughput.strip())
    if match is None:
        raise Unjudged(
            f"'{measurement.throughput}' is not a token rate",
            ("throughput",),
            "write tokens a second, e.g. 1250 tok/s",
        )
    number = match[1]
    factor = TOKEN_PREFIXES[match[2]] * (devices if measurement.counts == "device" else 1)
    rate = float(number) * factor
    slowest = (float(number) - half_last_digit(number)) * factor
    tokens = batch if measurement.phase != "prefill" else batch * prompt
    if not (rate > 0 and math.isfinite(rate)):
        raise Unjudged(
            f"'{measurement.throughput}' is not a finite, positive rate", ("throughput",)
        )
    return plausible(
        tokens / rate,
        tokens / slowest if slowest > 0 else math.inf,
        ("throughput",),
        measurement.throughput,
    )


def model_outcomes(
    model: Model,
    devices: Mapping[str, Device],
    cards: Mapping[str, Evaluator],
    on: Sequence[str] | None = None,
) -> list[MeasuredOutcome]:
    """The model's measurements that can be judged (on `on` only, where given), each beside
    its floor; those that cannot are kb check's to report (KB703)."""
    links = {s.id: s.url for s in model.sources}
    found = []
    for measurement in model.measurements:
        if on is not None and measurement.device not in on:
            continue
        try:
            judged = judge_model(model, measurement, devices, cards)
        except Unjudged:
            continue
        found.append(outcome(measurement, judged, links.get(measurement.reference, "")))
    return found
