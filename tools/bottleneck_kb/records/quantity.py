"""Quantities as people write them (`3.35 TB/s`, `989.4 TFLOP/s`, `80 GB`) -> base units.

pint does the unit algebra and the dimension check. It is handed only text that a strict
pattern has already cut into a number and a unit of letters and one '/', never a whole
user-written expression: pint's expression parser knows `**`, and entries are hostile.

Importing pint and building its registry costs more than the rest of a one-file `kb check`
(the pre-commit hook), so the units people write are read from a table first: a prefix symbol
and a base symbol, over an optional time. Anything else, and every unit of the wrong
dimension, goes to pint, which also words the errors. A test holds the table to pint's factor
for every prefix and base it knows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from ..core.errors import KBError
from ..core.numbers import half_last_digit
from ..core.units import DEFINITIONS, MICRO_SIGNS, NUMBER, rate_meant
from ..core.units import Dimension as Dimension

if TYPE_CHECKING:
    import pint

_QUANTITY = re.compile(
    rf"\s*(?P<number>{NUMBER})\s?(?P<unit>[A-Za-z{MICRO_SIGNS}]+(?:/[A-Za-z]+)?)\s*"
)


class QuantityError(KBError):
    """Text that is not a quantity of the dimension asked for."""


@dataclass(frozen=True, slots=True)
class Measure:
    """A value in base units and how precisely it was written (half a unit in the last digit)."""

    value: float
    resolution: float

    def agrees_with(self, exact: float) -> bool:
        """True when `exact` rounds to what was written."""
        return abs(exact - self.value) <= self.resolution * (1 + 1e-9) + abs(exact) * 1e-12


#: The prefix symbols of DEFINITIONS and their factors.
_PREFIXES = {
    "": 1.0,
    **dict.fromkeys(("k", "K"), 1e3),
    "M": 1e6,
    "G": 1e9,
    "T": 1e12,
    "P": 1e15,
    "E": 1e18,
    "m": 1e-3,
    "u": 1e-6,
    "n": 1e-9,
    "Ki": 2.0**10,
    "Mi": 2.0**20,
    "Gi": 2.0**30,
    "Ti": 2.0**40,
    "Pi": 2.0**50,
}

#: Base symbols of DEFINITIONS the table reads: (what it measures, factor to the base unit).
#: FLOPS is left to pint: it is an alias of FLOP there, not a rate.
_BASES = {
    "B": ("information", 1.0),
    "bit": ("information", 0.125),
    "FLOP": ("computation", 1.0),
    "flop": ("computation", 1.0),
    "s": ("time", 1.0),
}


def _symbol(text: str) -> tuple[str, float] | None:
    """`'TB'` -> `('information', 1e12)`: a prefix symbol and a base symbol of the table."""
    for base, (measures, factor) in _BASES.items():
        prefix = text.removesuffix(base)
        if prefix != text and prefix in _PREFIXES:
            return measures, _PREFIXES[prefix] * factor
    return None


def _table_factor(unit: str, dimension: Dimension) -> float | None:
    """The factor of `unit` to the base unit of `dimension` from the table, or None when the
    table does not read it (pint then decides)."""
    top, _, bottom = unit.partition("/")
    numerator = _symbol(top)
    denominator = _symbol(bottom) if bottom else (None, 1.0)
    if numerator is None or denominator is None:
        return None
    if (numerator[0], denominator[0]) != (dimension.numerator, dimension.denominator):
        return None
    return numerator[1] / denominator[1]


@cache
def _registry() -> pint.UnitRegistry[float]:
    import pint

    registry: pint.UnitRegistry[float] = pint.UnitRegistry(
        None, autoconvert_offset_to_baseunit=False
    )
    for line in DEFINITIONS.strip().splitlines():
        registry.define(line)
    return registry


@cache
def _dimensionality(dimension: Dimension) -> object:
    return _registry().parse_units(dimension.base_unit).dimensionality


@lru_cache(maxsize=256)
def _unit_factor(unit: str, dimension: Dimension) -> float:
    factor = _table_factor(unit, dimension)
    return _pint_factor(unit, dimension) if factor is None else factor


def _pint_factor(unit: str, dimension: Dimension) -> float:
    import pint

    registry = _registry()
    try:
        parsed = registry.parse_units(unit)
    except (pint.UndefinedUnitError, pint.DefinitionSyntaxError, AttributeError, TypeError):
        raise QuantityError(
            f"unknown unit '{unit}'",
            f"write {dimension.spoken} such as {_EXAMPLES[dimension]}",
        ) from None
    if parsed.dimensionality != _dimensionality(dimension):
        raise QuantityError(
            f"'{unit}' is not {dimension.spoken}",
            f"write {dimension.spoken} such as {_EXAMPLES[dimension]}",
        )
    return float(registry.Quantity(1, parsed).to(dimension.base_unit).magnitude)


_EXAMPLES = {
    Dimension.BYTES: "'80 GB'",
    Dimension.BANDWIDTH: "'3.35 TB/s'",
    Dimension.FLOP_RATE: "'989.4 TFLOP/s'",
    Dimension.TIME: "'0.3 ms'",
}


@lru_cache(maxsize=1024)
def parse_quantity(text: str, dimension: Dimension) -> Measure:
    """`text` in the base unit of `dimension`; QuantityError says what is wrong.

    Cached: a knowledge base quotes the same few figures ("3.35 TB/s") in entry after entry.
    Bounded, as every cache keyed by what entries say: a process that lives long (the site's
    `mkdocs serve`) or reads a large knowledge base would otherwise keep every text it saw.
    """
    match = _QUANTITY.fullmatch(text)
    if match is None:
        raise QuantityError(
            f"'{text}' is not a number followed by a unit",
            f"write {dimension.spoken} such as {_EXAMPLES[dimension]}",
        )
    # The micro sign and the Greek mu, as papers and datasheets print a microsecond, are the
    # u that pint and the table read.
    unit = re.sub(f"[{MICRO_SIGNS}]", "u", match["unit"])
    rate = rate_meant(f"{match['number']} {unit}")
    if dimension is Dimension.FLOP_RATE and rate is not None:
        # Datasheets write "TFLOPS" for a rate; the registry reads FLOPS as a count of FLOP,
        # so that a rate is always written with its '/s' and never guessed from a letter.
        raise QuantityError(
            f"'{unit}' is read as a count of FLOP (the S is not per second)", f"write '{rate}'"
        )
    factor = _unit_factor(unit, dimension)
    value = float(Decimal(match["number"])) * factor
    if value != value or value in (float("inf"), 0.0):
        raise QuantityError(f"'{text}' is not a positive finite quantity")
    return Measure(value, half_last_digit(match["number"]) * factor)
