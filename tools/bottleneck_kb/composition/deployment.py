"""The deployment: one vocabulary of parameters for `kb estimate`, the recipes, the export, the
model pages' explorer and model files, with the default of each, and how a deployment is
made from what a user gave, the model's typical deployment and the table."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.errors import BadRequest
from ..core.numbers import exact_number
from ..core.text import suggest


@dataclass(frozen=True, slots=True)
class Parameter:
    """A deployment parameter. Where it is a quantity cards share, the entry schema's shared
    vocabulary (`$defs/quantity`) records this name beside it (`x-deployment`), and a test
    holds the two to the same names."""

    name: str
    meaning: str
    default: float | str


#: Every deployment parameter, in the order they are shown.
PARAMETERS = (
    Parameter("batch", "sequences decoded together", 1),
    Parameter("prompt", "tokens prefilled a sequence", 1),
    Parameter("context", "tokens in each sequence's KV cache at the decode step", 1),
    Parameter("output", "tokens generated a sequence (request time only)", 1),
    Parameter("tp", "tensor parallel degree", 1),
    Parameter("ep", "expert parallel degree", 1),
    Parameter("pp", "pipeline parallel degree", 1),
    Parameter("weight_bits", "bits a stored weight", 16),
    Parameter("kv_bits", "bits a cached key or value", 16),
    Parameter("activation_bits", "bits an activation", 16),
    Parameter("dtype", "compute data type (a peak_flops row of the hardware schema)", "bf16"),
    Parameter("draft_k", "with a draft model: tokens drafted a step", 4),
    Parameter("acceptance_rate", "with a draft model: the chance each is accepted", 0.7),
)

BY_NAME = {p.name: p for p in PARAMETERS}

#: The parameters whose values are numbers (all but dtype): what recipes may read.
NUMERIC = tuple(p.name for p in PARAMETERS if p.name != "dtype")

#: The parallel degrees: offered as a list of values, each checked on its own.
DEGREES = ("tp", "ep", "pp")

#: The parameters of speculative decoding, which a model does not offer: their ranges are the
#: draft and verification cards'.
SPECULATIVE = ("draft_k", "acceptance_rate")

#: Their allowed values, the cards' ranges (flops/speculative-draft's k and a).
SPECULATIVE_RANGES = {"draft_k": (1.0, 16.0), "acceptance_rate": (0.0, 0.99)}

Deployment = dict[str, Any]


def parse_value(name: str, text: str) -> float | str:
    """A value given on the command line (`--set NAME=VALUE`) for parameter `name`."""
    if name == "dtype":
        return text
    try:
        value = float(text)
    except ValueError:
        raise BadRequest(f"{name}={text}: not a number", f"e.g. --set {name}=8") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise BadRequest(f"{name}={text}: not a finite number")
    return value


def check_names(given: Mapping[str, Any]) -> None:
    """A BadRequest for a name that is not a deployment parameter, with the allowed names."""
    for name in given:
        if name not in BY_NAME:
            raise BadRequest(
                f"'{name}' is not a deployment parameter",
                suggest(name, list(BY_NAME), "parameter")
                + f"; the parameters: {', '.join(BY_NAME)}",
            )


def resolve(
    typical: Mapping[str, Any], offered: Mapping[str, list[Any]], given: Mapping[str, Any]
) -> Deployment:
    """The deployment `given` asks for, every parameter filled in: what was given, else the
    typical deployment's value, else the table's default (prompt and context stand for each
    other when only one is given). A BadRequest for an unknown name or a value the model is
    not offered at, naming the allowed range."""
    check_names(given)
    deployment: Deployment = {}
    for parameter in PARAMETERS:
        name = parameter.name
        if name in given:
            deployment[name] = given[name]
        elif name == "prompt" and "context" in given:
            deployment[name] = given["context"]
        elif name == "context" and "prompt" in given:
            deployment[name] = given["prompt"]
        elif name in typical:
            deployment[name] = typical[name]
        elif name == "prompt" and "context" in typical:
            deployment[name] = typical["context"]
        elif name == "context" and "prompt" in typical:
            deployment[name] = typical["prompt"]
        else:
            deployment[name] = parameter.default
    for name, value in deployment.items():
        if name not in given and not (
            name in ("prompt", "context") and given.keys() & {"prompt", "context"}
        ):
            continue
        problem = outside(name, value, typical, offered)
        if problem is not None:
            raise BadRequest(f"{name} = {_shown(value)} is {problem}")
    return deployment


def outside(
    name: str, value: Any, typical: Mapping[str, Any], offered: Mapping[str, list[Any]]
) -> str | None:
    """What `value` of `name` lies outside of (`'not offered: ...'`), or None when the model is
    offered at it."""
    if name in SPECULATIVE:
        low, high = SPECULATIVE_RANGES[name]
        inside = low <= value <= high
        return (
            None
            if inside
            else f"outside the range of the draft cards, [{_shown(low)}, {_shown(high)}]"
        )
    allowed = offered.get(name)
    if allowed is None:
        only = typical.get(name, BY_NAME[name].default)
        return (
            None if value == only else f"not offered: the model is offered only at {_shown(only)}"
        )
    if name == "dtype" or name in DEGREES:
        if value in allowed:
            return None
        return f"not offered: the model is offered at {', '.join(_shown(v) for v in allowed)}"
    low, high = allowed
    if low <= value <= high:
        return None
    return f"outside the model's offered range, [{_shown(low)}, {_shown(high)}]"


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else exact_number(float(value))
