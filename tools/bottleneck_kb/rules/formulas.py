"""Formulas and the symbols they use: parseable, declared, valued, in range."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..budget import cost, ratio_cost
from ..diagnostics import Diagnostic
from ..model import Entry, Located
from ..numbers import number
from ..roofline import FORMULA
from ..schemas import suggest
from . import Context, Scope, rule

NO_TYPICAL = "KB402"
OUT_OF_RANGE = "KB403"
UNKNOWN_OVERRIDE = "KB404"
SYMBOLIC_BUDGET = "KB408"


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


@rule(OUT_OF_RANGE, "values-in-range", Scope.ENTRY)
def values_within_range(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """A range is [lo, hi] with lo <= hi; it is the symbol's domain, so the typical value and
    every value a check or a workaround sets lie inside it, and a symbol without a range
    keeps its typical value.

    Fails: `typical: 32` with `range: [1, 16]`, or a check with `set: {k: 32}` there
    Passes: `typical: 4` with `range: [1, 16]`, and `set: {k: 8}`
    """
    for symbol in entry.scales_with:
        if symbol.range is None:
            continue
        lo, hi = symbol.range
        if lo > hi:
            yield symbol.where.error(
                OUT_OF_RANGE, f"range [{number(lo)}, {number(hi)}] has lo > hi", at=("range",)
            )
        elif symbol.typical is not None and not lo <= symbol.typical <= hi:
            yield symbol.where.error(
                OUT_OF_RANGE,
                f"typical value {number(symbol.typical)} of '{symbol.symbol}' is outside its "
                f"range [{number(lo)}, {number(hi)}]",
                at=("typical",),
            )
    settings = [(c.overrides, c.where) for c in entry.checks]
    settings += [(w.model.overrides, w.model.where) for w in entry.workarounds if w.model]
    for overrides, where in settings:
        for name, value in overrides.items():
            declared = entry.symbols.get(name)
            if declared is None:
                continue  # known-override says so
            if declared.range is None:
                if value != declared.typical:
                    yield where.error(
                        OUT_OF_RANGE,
                        f"'{name}' has no range, so it keeps its typical value",
                        f"give '{name}' a range that holds {number(value)}",
                        at=("set", name),
                    )
            elif not declared.range[0] <= value <= declared.range[1]:
                lo, hi = declared.range
                yield where.error(
                    OUT_OF_RANGE,
                    f"{name}={number(value)} is outside its range [{number(lo)}, {number(hi)}]",
                    "widen the range on purpose (the formulas must hold on all of it), or set "
                    "a value inside it",
                    at=("set", name),
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


@rule(SYMBOLIC_BUDGET, "symbolic-budget", Scope.ENTRY)
def within_symbolic_budget(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """The intensity (FLOPs over bytes, for the entry and each workaround) stays within the
    budget of the symbolic side that `kb eval` and the site use to simplify and typeset it: a
    polynomial degree of at most 16, an expansion of at most 256 terms, at most 4 arguments
    to one min or max. The budget is counted on the formula, not timed, so it is the same on
    every machine.

    Fails: `flops: B * N * (x + y + z + 1) ** 16` (969 terms once expanded)
    Passes: `flops: 2 * B * N`
    """
    formulas = context.formulas
    if formulas is None:
        return
    pairs = [(formulas.flops, formulas.bytes, entry.intensity.flops, entry.intensity.bytes)]
    for workaround, (flops, bytes_) in zip(entry.workarounds, formulas.workaround, strict=True):
        model = workaround.model
        if model is not None and (flops or bytes_):
            pairs.append(
                (
                    flops or formulas.flops,
                    bytes_ or formulas.bytes,
                    model.flops or entry.intensity.flops,
                    model.bytes or entry.intensity.bytes,
                )
            )
    for flops, bytes_, flops_written, bytes_written in pairs:
        found = ratio_cost(flops, bytes_)
        if found.within():
            continue
        worse = flops_written if cost(flops).terms >= cost(bytes_).terms else bytes_written
        yield worse.where.error(
            SYMBOLIC_BUDGET,
            f"the intensity is too large to simplify and typeset: {found.excess()}",
            "factor the formula, or leave out terms that do not matter for the bound",
        )
