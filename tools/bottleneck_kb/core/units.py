"""The units a knowledge base writes its figures in: the definitions pint is given, the
dimensions a figure may have, and, for each dimension, a regular expression of exactly the
spellings the quantity parser (`records.quantity`) reads in it.

The spellings come from the definitions as pint reads a unit's name: any prefix (symbol or
name, or none), then any name or alias of a unit, then a plural `s` after one of more than one
letter (`bits`, `secs`, never `Bs`). A rate is such a unit, '/', and such a time. The parser
reads the micro sign and the Greek mu as `u` before the '/' only, and so does the expression.
The schemas write the expression of each `x-dimension` (`schemas.units`), so that an editor
flags a bandwidth in FLOP/s as `kb check` does; a test holds the two to the same spellings.
"""

from __future__ import annotations

import re
from enum import Enum
from functools import cache

#: What pint is given, and the one list of the units and prefixes a figure may be written in.
DEFINITIONS = """
byte = [information] = B
bit = byte / 8
FLOP = [computation] = flop = FLOPS
second = [time] = s = sec
minute = 60 * second = min
hour = 60 * minute = h
kilo- = 1e3 = k- = K-
mega- = 1e6 = M-
giga- = 1e9 = G-
tera- = 1e12 = T-
peta- = 1e15 = P-
exa- = 1e18 = E-
milli- = 1e-3 = m-
micro- = 1e-6 = u-
nano- = 1e-9 = n-
kibi- = 2**10 = Ki-
mebi- = 2**20 = Mi-
gibi- = 2**30 = Gi-
tebi- = 2**40 = Ti-
pebi- = 2**50 = Pi-
"""

#: A number as a quantity writes it: digits, a fraction, an exponent; never a sign.
NUMBER = r"[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
#: The micro sign and the Greek mu, which papers and datasheets print for a microsecond.
MICRO_SIGNS = "µμ"

#: A token rate's prefixes and units (a model's measured throughput: `1.2 ktok/s`).
TOKEN_PREFIXES = {"": 1.0, "k": 1e3, "M": 1e6}
TOKEN_UNITS = ("tok", "tokens")


class Dimension(Enum):
    """What a catalog field measures: its base unit, how to say it, and the dimensions (of
    `DEFINITIONS`) of its numerator and denominator."""

    BYTES = ("B", "bytes", "information", None)
    BANDWIDTH = ("B/s", "bytes per time", "information", "time")
    FLOP_RATE = ("FLOP/s", "FLOP per time", "computation", "time")
    TIME = ("s", "time", "time", None)

    def __init__(
        self, base_unit: str, spoken: str, numerator: str, denominator: str | None
    ) -> None:
        self.base_unit = base_unit
        self.spoken = spoken
        self.numerator = numerator
        self.denominator = denominator


def _read_definitions() -> tuple[list[str], dict[str, list[str]]]:
    """The prefix spellings ('' first) and the unit spellings by what they measure."""
    prefixes = [""]
    measure_of: dict[str, str] = {}
    units: dict[str, list[str]] = {}
    for line in DEFINITIONS.strip().splitlines():
        names = [part.strip() for part in line.split("=")]
        spellings = [names[0], *names[2:]]
        if names[0].endswith("-"):
            prefixes += [name.removesuffix("-") for name in spellings]
            continue
        defined = names[1]
        if defined.startswith("["):
            measure = defined.strip("[]")
        else:
            measure = next(measure_of[word] for word in defined.split() if word in measure_of)
        for name in spellings:
            measure_of[name] = measure
        units.setdefault(measure, []).extend(spellings)
    return prefixes, units


def spellings(measure: str) -> list[str]:
    """Every spelling of a unit of `measure` ('information', 'computation', 'time') that
    pint reads, without the micro signs: `['B', 'kB', ..., 'gibibytes', ...]`."""
    prefixes, units = _read_definitions()
    plural = [f"{unit}s" for unit in units[measure] if len(unit) > 1]
    return [prefix + unit for prefix in prefixes for unit in units[measure] + plural]


def _alternatives(names: list[str]) -> str:
    return "(?:" + "|".join(names) + ")"


def _unit(measure: str, micro: bool) -> str:
    """The expression of a prefixed unit of `measure`."""
    prefixes, units = _read_definitions()
    written = [f"{unit}s?" if len(unit) > 1 else unit for unit in units[measure]]
    text = _alternatives(prefixes[1:]) + "?" + _alternatives(written)
    return text.replace("u", f"[u{MICRO_SIGNS}]") if micro else text


@cache
def unit_pattern(dimension: Dimension) -> str:
    """The whole text of a quantity of `dimension`, anchored: a number, an optional space,
    and a unit the parser reads in that dimension (`3.35 TB/s`, `41.2 µs`)."""
    unit = _unit(dimension.numerator, micro=True)
    if dimension.denominator is not None:
        unit += "/" + _unit(dimension.denominator, micro=False)
    return f"^{NUMBER} ?{unit}$"


@cache
def _count_written_as_rate() -> re.Pattern[str]:
    prefixes, _ = _read_definitions()
    return re.compile(rf"\s*({NUMBER})\s?({_alternatives(prefixes[1:])}?)(FLOPS|flops)\s*")


def rate_meant(text: str) -> str | None:
    """The FLOP rate a datasheet means by a count of FLOP written as its rate: `1307.4 TFLOPS`
    -> `1307.4 TFLOP/s`, `5e3flops` -> `5e3 flop/s`; None for any other text. The units read
    an `S` as a plural, never as per second."""
    found = _count_written_as_rate().fullmatch(re.sub(f"[{MICRO_SIGNS}]", "u", text))
    if found is None:
        return None
    number, prefix, flops = found.groups()
    return f"{number} {prefix}{flops[:-1]}/s"


#: A token rate as written, its number and prefix captured (a model's measured throughput:
#: `1250 tok/s`, `1.2 ktok/s`, `95 tokens/s`).
TOKEN_RATE = f"({NUMBER}) ?([{''.join(TOKEN_PREFIXES)}]?){_alternatives(list(TOKEN_UNITS))}/s"
