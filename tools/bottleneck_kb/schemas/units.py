"""The units of a quantity's text, written into the schemas: a string with an `x-dimension`
gets the `pattern` of exactly the units `kb check` reads in that dimension (`core.units`) and
a sentence an editor shows when the text is not one of them, so that a bandwidth in FLOP/s is
flagged where it is typed. The source schemas name the dimension; `schema` writes the rest
after it, as it writes an `x-enum-keys-of` list.
"""

from __future__ import annotations

from typing import Any

from ..core.units import TOKEN_RATE, Dimension, rate_meant, unit_pattern

DIMENSION = "x-dimension"

#: What a quantity of each dimension is, as a message says it, and the editor's sentence.
_SAID = {
    "bytes": (
        "an amount of memory in bytes",
        "An amount of memory in bytes, e.g. 80 GB or 64 MiB (not a rate such as GB/s).",
    ),
    "bandwidth": (
        "a bandwidth in bytes per second",
        "A bandwidth in bytes per second, e.g. 3.35 TB/s or 400 Gbit/s (not FLOP/s).",
    ),
    "flop_rate": (
        "a FLOP rate in FLOP per second",
        "A FLOP rate in FLOP per second, e.g. 989.4 TFLOP/s (not TB/s; TFLOPS is a count of "
        "FLOP: write TFLOP/s).",
    ),
    "time": (
        "a time",
        "A time, e.g. 3 us, 41.2 µs or 6.44 ms (not bytes, not a rate).",
    ),
    "token_rate": (
        "a token rate",
        "Tokens a second, e.g. 1250 tok/s or 1.2 ktok/s.",
    ),
}


def _pattern(name: str) -> str:
    if name == "token_rate":
        return f"^{TOKEN_RATE}$"
    return unit_pattern(Dimension[name.upper()])


def with_units(node: Any) -> Any:
    """`node` with a `pattern` and a `patternErrorMessage` right after the `x-dimension` of
    each string (a figure's mapping says its dimension too, which `records.fields` reads)."""
    if isinstance(node, list):
        return [with_units(item) for item in node]
    if not isinstance(node, dict):
        return node
    written: dict[str, Any] = {}
    for key, value in node.items():
        written[key] = with_units(value)
        if key == DIMENSION and node.get("type") == "string":
            written["pattern"] = _pattern(value)
            written["patternErrorMessage"] = _SAID[value][1]
    return written


def unit_error(node: Any, text: Any) -> tuple[str, str] | None:
    """(what is wrong, what to write) when `text` is refused by the unit pattern of `node`;
    None for a node that is not a quantity's text."""
    if not isinstance(node, dict) or node.get("type") != "string":
        return None
    said = _SAID.get(node.get(DIMENSION, ""))
    if said is None:
        return None
    rate = rate_meant(text) if node[DIMENSION] == "flop_rate" else None
    if rate is not None:
        return "is read as a count of FLOP (the S is not per second)", f"write '{rate}'"
    return f"is not {said[0]}", said[1]
