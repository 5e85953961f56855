from __future__ import annotations

import pytest

from bottleneck_kb.core.numbers import format_quantity, format_seconds
from bottleneck_kb.records.quantity import Dimension, QuantityError, parse_quantity


@pytest.mark.parametrize(
    ("text", "dimension", "value"),
    [
        ("3.35 TB/s", Dimension.BANDWIDTH, 3.35e12),
        ("5.3TB/s", Dimension.BANDWIDTH, 5.3e12),
        ("900 GB/s", Dimension.BANDWIDTH, 9.0e11),
        ("989.4 TFLOP/s", Dimension.FLOP_RATE, 9.894e14),
        ("2.6149 PFLOP/s", Dimension.FLOP_RATE, 2.6149e15),
        ("80 GB", Dimension.BYTES, 8.0e10),
        ("80 GiB", Dimension.BYTES, 80 * 2**30),
        ("0.3 ms", Dimension.TIME, 3.0e-4),
    ],
)
def test_parses_to_base_units(text: str, dimension: Dimension, value: float) -> None:
    assert parse_quantity(text, dimension).value == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize(
    ("text", "dimension", "message"),
    [
        ("3.35 TFLOP/s", Dimension.BANDWIDTH, "'TFLOP/s' is not bytes per time"),
        ("80 GB/s", Dimension.BYTES, "'GB/s' is not bytes"),
        ("3.35 XB/s", Dimension.BANDWIDTH, "unknown unit 'XB/s'"),
        ("fast", Dimension.BANDWIDTH, "'fast' is not a number followed by a unit"),
        ("2**64 B", Dimension.BYTES, "is not a number followed by a unit"),
        ("0 B", Dimension.BYTES, "is not a positive finite quantity"),
    ],
)
def test_rejects_with_a_reason(text: str, dimension: Dimension, message: str) -> None:
    with pytest.raises(QuantityError) as raised:
        parse_quantity(text, dimension)
    assert message in raised.value.message


def test_resolution_follows_the_written_digits() -> None:
    written = parse_quantity("3.4 TB/s", Dimension.BANDWIDTH)
    assert written.resolution == pytest.approx(0.05e12)
    assert written.agrees_with(3.35e12)
    assert not written.agrees_with(3.3e12)
    assert parse_quantity("3.35 TB/s", Dimension.BANDWIDTH).agrees_with(3.35e12)
    assert not parse_quantity("3.35 TB/s", Dimension.BANDWIDTH).agrees_with(5.3e12)


def test_formatting() -> None:
    assert format_quantity(1.0506e9, "B") == "1.05 GB"
    assert format_quantity(3.35e12, "B/s") == "3.35 TB/s"
    assert format_quantity(295.34, "FLOP/B") == "295 FLOP/B"
    assert format_quantity(4.0, "FLOP/B") == "4.0 FLOP/B"
    # Three significant digits between 1 and 100, as everywhere: a check expecting 3.050 to
    # 3.051 tokens is not shown 3.1.
    assert format_quantity(3.0508, "tokens") == "3.05 tokens"
    assert format_quantity(42.53, "x") == "42.5 x"
    assert format_quantity(-0.0, "rows") == "0 rows"  # a derived value of -0 is 0 to a reader
    assert format_seconds(3.1395e-4) == "0.314 ms"
    assert format_seconds(4.2477e-6) == "4.25 µs"


@pytest.mark.parametrize(
    ("value", "unit", "shown"),
    [
        (3.3881317890172016e49, "FLOP/B", "3.39e+49 FLOP/B"),
        (3.3881317890172016e49, "FLOP", "3.39e+49 FLOP"),
        (4.2e9, "FLOP", "4.2 GFLOP"),
        (999.9, "B", "1 kB"),
        (1e-13, "s", "1.00e-13 s"),
        (0.125, "FLOP/B", "0.125 FLOP/B"),
    ],
)
def test_numbers_never_print_as_long_integers(value: float, unit: str, shown: str) -> None:
    assert format_quantity(value, unit) == shown
