"""A check's expectation beside what a result gives: what fails, said with both sides in enough
digits to tell them apart, and what holds, in four significant digits."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..core.numbers import format_quantity, format_seconds, number
from ..records.entry import Check
from .formulas import Formulas
from .result import Result
from .roofs import COMPUTE, MEMORY, UNITS


def describe(
    values: Mapping[str, float], formulas: Formulas, symbols: Iterable[str] | None = None
) -> str:
    """`B=1, k=4, q=16`: the values of `symbols`, by default those the entry's own formulas
    use (not a workaround's)."""
    names = formulas.symbols if symbols is None else symbols
    return ", ".join(f"{name}={number(values[name])}" for name in sorted(names) if name in values)


def explain_verdict(result: Result, at: str) -> str:
    """`on nvidia-h100-sxm at k=4: intensity 4.0 FLOP/B, ridge 295 FLOP/B -> memory`, or with
    more roofs each roof's time."""
    if not result.fits:
        assert result.capacity is not None
        footprint = format_quantity(result.quantities["footprint"], "B")
        return (
            f"on {result.device} at {at}: footprint {footprint} over memory capacity "
            f"{format_quantity(result.capacity, 'B')} -> capacity"
        )
    if set(result.times) == {COMPUTE, MEMORY}:
        return (
            f"on {result.device} at {at}: intensity "
            f"{format_quantity(result.intensity, 'FLOP/B')}, "
            f"ridge {format_quantity(result.ridge, 'FLOP/B')} -> {result.verdict}"
        )
    times = ", ".join(f"{name} {format_seconds(t)}" for name, t in result.times.items())
    return f"on {result.device} at {at}: {times} -> {result.verdict}"


def check_failures(
    check: Check, result: Result, formulas: Formulas, units: Mapping[str, str] | None = None
) -> list[str]:
    """What of the check's expectation `result` does not meet, each said with both sides in
    enough digits to tell them apart; [] when the check holds. `units` gives the derived
    values' units."""
    failures = []

    def at() -> str:  # only a failure says where: formatting the values costs a passing check
        return describe(result.values, formulas)

    if check.bound_by is not None and result.verdict != check.bound_by:
        failures.append(f"expected {check.bound_by} {explain_verdict(result, at())}: FAIL")
    bounded = [
        (name, UNITS[name], result.quantity(name), limits) for name, limits in check.bounds.items()
    ]
    bounded += [
        (name, (units or {}).get(name, ""), result.derived[name], limits)
        for name, limits in check.derived.items()
        if name in result.derived  # an unknown name is known-derived's to report
    ]
    for name, unit, value, (low, high) in bounded:
        if value is None:
            failures.append(f"expected {name}, but the entry gives no formula for it: FAIL")
            continue
        below = low is not None and value < low
        if below or (high is not None and value > high):
            got, expected = _expected(unit, value, low, high, below)
            failures.append(
                f"expected {name} {expected} on {result.device} at {at()}, got {got}: FAIL"
            )
    return failures


def checked_values(
    check: Check, result: Result, units: Mapping[str, str] | None = None
) -> list[str]:
    """Each value the check bounds, as `result` gives it (`speedup 2.886 x`): what a check
    that holds is shown to hold on, in four significant digits."""
    shown = [
        f"{name} {_show(UNITS[name], value, 4)}"
        for name in check.bounds
        if (value := result.quantity(name)) is not None
    ]
    shown += [
        f"{name} {_show((units or {}).get(name, ''), result.derived[name], 4)}"
        for name in check.derived
        if name in result.derived
    ]
    return shown


def _show(unit: str, value: float, digits: int = 3) -> str:
    return format_quantity(value, unit, digits)


def _distinct(unit: str, value: float, bound: float) -> tuple[str, str]:
    """`value` and `bound` shown with the fewest digits (3 to 17) that tell them apart."""
    for digits in range(3, 18):
        got, expected = _show(unit, value, digits), _show(unit, bound, digits)
        if got != expected:
            return got, expected
    return _show(unit, value, 17), _show(unit, bound, 17)


def _expected(
    unit: str, value: float, low: float | None, high: float | None, below: bool
) -> tuple[str, str]:
    """(what was got, what was expected), the violated bound in as many digits as it takes."""
    violated = low if below else high
    assert violated is not None
    got, shown = _distinct(unit, value, violated)
    if low is None:
        return got, f"at most {shown}"
    if high is None:
        return got, f"at least {shown}"
    if low == high:
        return got, f"of exactly {shown}"
    if below:
        return got, f"between {shown} and {_show(unit, high)}"
    return got, f"between {_show(unit, low)} and {shown}"
