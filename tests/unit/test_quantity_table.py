"""The table of units that spares a one-file `kb check` from importing pint gives pint's
factors, reads every unit the knowledge base writes, and leaves the rest to pint."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from itertools import product

import pytest
import yaml

from bottleneck_kb.knowledge.base import KnowledgeBase
from bottleneck_kb.records.quantity import (
    _BASES,
    _PREFIXES,
    _QUANTITY,
    Dimension,
    QuantityError,
    _pint_factor,
    _table_factor,
    parse_quantity,
)
from bottleneck_kb.rules.cross_references import _pieces

from ..conftest import REPOSITORY

SYMBOLS = [prefix + base for prefix, base in product(_PREFIXES, _BASES)]
#: Over every prefixed time, and over a few symbols that are not times.
DENOMINATORS = [prefix + "s" for prefix in _PREFIXES] + ["B", "kbit", "FLOP", "Mflop"]
UNITS = SYMBOLS + [f"{top}/{bottom}" for top, bottom in product(SYMBOLS, DENOMINATORS)]


def _units(data: object) -> Iterator[str]:
    """Units of the quantities in a device's data: values that are a number and a unit and
    nothing else (prose such as notes never is)."""
    if isinstance(data, dict):
        for value in data.values():
            yield from _units(value)
    elif isinstance(data, list):
        for value in data:
            yield from _units(value)
    elif isinstance(data, str) and (match := _QUANTITY.fullmatch(data)):
        yield match["unit"]


def written_units() -> set[str]:
    """Every unit the repository's catalog and entries write."""
    found: set[str] = set()
    for path in sorted((REPOSITORY / "hardware").glob("*.yaml")):
        found.update(_units(yaml.safe_load(path.read_text(encoding="utf-8"))))
    for entry in KnowledgeBase.load(REPOSITORY).entries:
        for parameter in entry.hardware_parameters:
            for _, piece in _pieces(parameter.magnitude or ""):
                found.add(_QUANTITY.fullmatch(piece)["unit"])  # type: ignore[index]
    return found


@pytest.mark.slow
def test_every_unit_the_knowledge_base_writes_is_in_the_table() -> None:
    units = written_units()
    assert {"GB", "TB/s", "GB/s", "TFLOP/s"} <= units
    assert all(any(_table_factor(unit, d) is not None for d in Dimension) for unit in units), units


@pytest.mark.slow
@pytest.mark.parametrize("dimension", list(Dimension), ids=lambda d: d.name)
def test_the_table_gives_pints_factor_or_leaves_the_unit_to_pint(dimension: Dimension) -> None:
    read = 0
    for unit in UNITS:
        factor = _table_factor(unit, dimension)
        try:
            expected = _pint_factor(unit, dimension)
        except QuantityError:
            assert factor is None, unit  # pint refuses it: the table must not accept it
            continue
        if factor is not None:
            assert factor == pytest.approx(expected, rel=1e-15), unit
            read += 1
    assert read >= len(_PREFIXES)


def test_what_the_table_does_not_read_still_parses_with_pint() -> None:
    assert _table_factor("TFLOPS", Dimension.FLOP_RATE) is None
    assert parse_quantity("2 kilobyte", Dimension.BYTES).value == 2000.0
    with pytest.raises(QuantityError, match="'TFLOPS' is not bytes per time"):
        parse_quantity("989 TFLOPS", Dimension.BANDWIDTH)
    with pytest.raises(QuantityError, match="unknown unit 'TBps'"):
        parse_quantity("3 TBps", Dimension.BANDWIDTH)


@pytest.mark.parametrize(
    ("written", "unit", "rate"),
    [("31.2 TFLOPS", "TFLOPS", "31.2 TFLOP/s"), ("5e3flops", "flops", "5e3 flop/s")],
)
def test_a_rate_written_as_flops_is_told_why_and_how_to_write_it(
    written: str, unit: str, rate: str
) -> None:
    with pytest.raises(QuantityError) as refused:
        parse_quantity(written, Dimension.FLOP_RATE)
    assert (refused.value.message, refused.value.hint) == (
        f"'{unit}' is read as a count of FLOP (the S is not per second)",
        f"write '{rate}'",
    )
    assert parse_quantity(rate, Dimension.FLOP_RATE).value > 0  # the hint, followed, is read


@pytest.mark.slow
def test_checking_the_repository_does_not_import_pint() -> None:
    probe = (
        "import sys; from pathlib import Path; from bottleneck_kb.checking.run import check; "
        f"r = check(Path({str(REPOSITORY)!r})); assert not r.errors, r.diagnostics; "
        "print('pint' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout == "False\n"
