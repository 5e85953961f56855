"""Formulas and the symbols they use: parseable, declared, valued, in range."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..diagnostics import Diagnostic
from ..model import Entry, Located
from ..roofline import FORMULA
from ..schemas import suggest
from . import Context, Scope, rule

NO_TYPICAL = "KB402"
OUT_OF_RANGE = "KB403"
UNKNOWN_OVERRIDE = "KB404"


@rule(FORMULA, "formula", Scope.ENTRY)
def formulas_parse(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """Every formula is in the formula language and uses only declared symbols.

    The language: numbers, the symbols of scales_with, + - * / **, parentheses, and
    min, max, ceil, floor, log2, sqrt. Errors point at the column inside the formula.

    Fails: `flops: 2 * k * N_D` when scales_with declares N_d
    Passes: `flops: 2 * k * N_d`
    """
    return context.formula_problems


@rule(NO_TYPICAL, "symbol-has-typical", Scope.ENTRY)
def used_symbols_have_typical(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """A symbol the formulas use has a typical value, so the entry can be evaluated as it is.

    Fails: `flops: 2 * k * N_d` with N_d declared without `typical`
    Passes: the same with `typical: 1.0e9`
    """
    if context.formulas is None:
        return
    used = context.formulas.flops.symbols | context.formulas.bytes.symbols
    for symbol in entry.scales_with:
        if symbol.symbol in used and symbol.typical is None:
            yield symbol.where.error(
                NO_TYPICAL,
                f"symbol '{symbol.symbol}' is used in the formulas but has no typical value",
                "add `typical:` (and a `range:` to explore)",
                key=True,
            )


@rule(OUT_OF_RANGE, "typical-in-range", Scope.ENTRY)
def typical_within_range(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """A range is [lo, hi] with lo <= hi, and the typical value lies inside it.

    Fails: `typical: 32` with `range: [1, 16]`
    Passes: `typical: 4` with `range: [1, 16]`
    """
    for symbol in entry.scales_with:
        if symbol.range is None:
            continue
        lo, hi = symbol.range
        if lo > hi:
            yield symbol.where.error(
                OUT_OF_RANGE, f"range [{lo:g}, {hi:g}] has lo > hi", at=("range",)
            )
        elif symbol.typical is not None and not lo <= symbol.typical <= hi:
            yield symbol.where.error(
                OUT_OF_RANGE,
                f"typical value {symbol.typical:g} of '{symbol.symbol}' is outside its range "
                f"[{lo:g}, {hi:g}]",
                at=("typical",),
            )


def _undeclared(
    overrides: Mapping[str, float], where: Located, entry: Entry
) -> Iterable[Diagnostic]:
    declared = sorted(entry.symbols)
    for name in overrides:
        if name not in entry.symbols:
            yield where.error(
                UNKNOWN_OVERRIDE,
                f"'{name}' is not a declared symbol",
                suggest(name, declared, "symbols"),
                at=("set", name),
                key=True,
            )


@rule(UNKNOWN_OVERRIDE, "known-override", Scope.ENTRY)
def overrides_are_declared(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """Symbols set by a workaround model or a check are declared in scales_with.

    Fails: `set: {Q: 4}` when the symbol is q
    Passes: `set: {q: 4}`
    """
    for workaround in entry.workarounds:
        if workaround.model is not None:
            yield from _undeclared(workaround.model.overrides, workaround.model.where, entry)
    for check in entry.checks:
        yield from _undeclared(check.overrides, check.where, entry)
