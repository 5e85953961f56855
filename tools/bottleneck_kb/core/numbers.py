"""Numbers as people read them, in messages and tables: `1.05 GB`, `4.2 GFLOP`, `0.314 ms`,
`295 FLOP/B`, and `3.39e+49 FLOP/B` where a value is past any prefix, never a long integer."""

from __future__ import annotations

import math
from decimal import Decimal

_PREFIXES = ((1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))
_TIME_PREFIXES = ((1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n"))

#: Units that take SI prefixes upwards (`GB`, `TFLOP/s`); seconds take them downwards.
PREFIXED_UNITS = frozenset({"FLOP", "B", "B/s", "FLOP/s"})


def format_quantity(value: float, unit: str, digits: int = 3) -> str:
    """`value` in `unit` with an SI prefix where the unit takes one, else in `digits`
    significant digits, in scientific notation when it is past what digits can show."""
    if not math.isfinite(value):
        return f"{value} {unit}".rstrip()
    value += 0.0  # -0.0 is 0 to a reader
    if unit == "s":
        return _seconds(value, digits)
    if unit in PREFIXED_UNITS and value != 0:
        for scale, prefix in _PREFIXES:
            if abs(value) >= scale * 0.9995:
                scaled = value / scale
                if abs(scaled) >= 1000:  # past the largest prefix
                    break
                return f"{_significant(scaled, digits)} {prefix}{unit}"
    return f"{_plain(value, digits)} {unit}".rstrip()


def _seconds(value: float, digits: int) -> str:
    if value != 0 and abs(value) < 1e3:
        for scale, prefix in _TIME_PREFIXES:
            if abs(value) >= scale * 0.1:
                return f"{_significant(value / scale, digits)} {prefix}s"
    return f"{_plain(value, digits)} s"


def _significant(value: float, digits: int) -> str:
    """`digits` significant digits, without an exponent for values below 1000."""
    text = f"{value:.{digits}g}"
    return f"{value:.0f}" if "e" in text and abs(value) >= 1 else text


def _plain(value: float, digits: int) -> str:
    """A ratio as people write it (`295`, `4.0`, `0.125`), scientific past a million or
    below a thousandth; with more digits asked for, that many significant digits."""
    magnitude = abs(value)
    if value != 0 and (magnitude >= 1e6 or magnitude < 1e-3):
        return f"{value:.{digits - 1}e}"
    if digits > 3:
        return _significant(value, digits)
    if magnitude >= 100:
        return f"{value:.0f}"
    # Three significant digits, a whole number with its `.0`: 0.9995 rounds to 1.0 as 1.0 does.
    if magnitude >= 1 or abs(float(f"{value:.3g}")) >= 1:
        text = f"{value:.3g}"
        return text if "." in text else f"{text}.0"
    return f"{value:.3g}"


def format_seconds(value: float, digits: int = 3) -> str:
    """A time as people read it: `0.314 ms`, `12.5 µs`, `1.20 s`."""
    return _seconds(value, digits)


def times(value: float) -> str:
    """How many times (a speedup, a cut in bytes): `2.50x`, and past a million `1.00e+307x`,
    not the 300 digits a fixed point would print."""
    return f"{value:.2f}x" if abs(value) < 1e6 else f"{value:.2e}x"


def number(value: float) -> str:
    """A symbol's value as a person writes it: 4, 0.25, 128256, 1e+09."""
    if math.isfinite(value) and value == int(value) and abs(value) < 1e7:
        return str(int(value))
    return f"{value:.4g}"


def amount(value: float, unit: str | None = None) -> str:
    """A symbol's value as a reader reads it, with its unit: `128,256 tokens`, `6.74 G
    parameters`, `0.25 fraction`, `4 bits`; bytes, FLOPs and seconds with their SI prefix
    (`1.05 GB`, `3.6 µs`), as `format_quantity` writes them."""
    unit = unit or ""
    if unit == "s" or unit in PREFIXED_UNITS:
        return format_quantity(value, unit)
    if not math.isfinite(value):
        return f"{value} {unit}".rstrip()
    magnitude = abs(value)
    if magnitude >= 1e6:
        for scale, prefix in _PREFIXES:
            if magnitude >= scale * 0.9995 and magnitude / scale < 1000:
                return f"{_significant(value / scale, 3)} {prefix} {unit}".rstrip()
        return f"{value:.3g} {unit}".rstrip()
    if value == int(value):
        shown = f"{value:,.0f}"
    elif magnitude >= 1000:  # four significant digits, grouped: 153,900, not 1.539e+05
        shown = f"{float(f'{value:.4g}'):,.0f}"
    else:
        shown = f"{value:.4g}"
    return f"{shown} {unit}".rstrip()


def amount_range(low: float, high: float, unit: str | None = None) -> str:
    """A range of a symbol's values, both ends in `amount`'s style and the unit said once
    where it is a word (`1 M to 1 G tokens`), with each end where it carries a prefix
    (`1 kB to 1 GB`)."""
    prefixed = (unit or "") == "s" or (unit or "") in PREFIXED_UNITS
    low_text = amount(low, unit if prefixed else None)
    return f"{low_text} to {amount(high, unit)}"


def grouped(value: float) -> str:
    """A rate as people read it: 13,420 with its thousands grouped, else as `number` (821.9,
    0.53)."""
    return f"{value:,.0f}" if value >= 1000 else number(value)


def exact_number(value: float) -> str:
    """`number(value)` where that is the value, else every digit it takes (4096.0001): what a
    message compares with a bound must not be rounded onto it."""
    short = number(value)
    return short if not math.isfinite(value) or float(short) == value else repr(value)


def half_last_digit(written: str) -> float:
    """Half a unit of the last digit of a number as written (`41.2` -> 0.05, `1.5e3` -> 50):
    how far the value it stands for may lie from it."""
    exponent = Decimal(written).as_tuple().exponent
    if not isinstance(exponent, int):  # a NaN or an infinity has no last digit
        raise ValueError(f"{written!r} is not a finite number")
    return 0.5 * 10.0**exponent
