"""Formulas and the symbols they use: parseable, declared, valued, in range."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..core.codes import FORMULA
from ..core.diagnostics import Diagnostic
from ..core.numbers import number
from ..core.text import suggest
from ..evaluation.cost import EVALUATION_BUDGET, budget_pointer, over_budget
from ..evaluation.crossovers import CROSSOVER_SAMPLES
from ..maths.budget import cost, power_problem, ratio_cost
from ..records.entry import Entry
from ..records.located import Located
from ..schemas import shared_quantities
from . import Context, Scope, rule

NO_TYPICAL = "KB402"
OUT_OF_RANGE = "KB403"
UNKNOWN_OVERRIDE = "KB404"
SYMBOLIC_BUDGET = "KB408"
UNREAD_BOUND = "KB409"
EVALUATION_BUDGET_CODE = "KB416"
SHARED_QUANTITY = "KB417"


@rule(FORMULA, "formula", Scope.ENTRY)
def formulas_parse(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """Every formula is in the formula language and uses only declared symbols.

    ## What it checks
    Formulas are numbers, the symbols of `scales_with`, `+ - * / **`, parentheses and the
    language's functions (the message lists them when another is called; CONTRIBUTING.md,
    Formulas, describes each); nothing else. The error points at the column inside the
    formula.
    An editor cannot show this: a JSON Schema cannot parse or evaluate a formula.
    ## Why it matters
    Formulas come from strangers and are evaluated in CI; anything outside the language is
    refused rather than run.
    ## How to fix
    Declare the symbol in `scales_with`, or rewrite the expression in the language.
    ## Fails
    ```yaml
    arithmetic_intensity: {flops: 2 * b * N}
    ```
    ## Passes
    ```yaml
    arithmetic_intensity: {flops: 2 * B * N}
    ```
    """
    return context.formula_problems


@rule(NO_TYPICAL, "symbol-has-typical", Scope.ENTRY)
def used_symbols_have_typical(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """A symbol the formulas use has a typical value.

    ## What it checks
    Every symbol a formula uses has `typical:` in `scales_with`.
    An editor cannot show this: a JSON Schema cannot parse or evaluate a formula.
    ## Why it matters
    The entry is evaluated at its typical values; without one it has no numbers.
    ## How to fix
    Add `typical:` (and a `range:` to explore).
    ## Fails
    ```yaml
    scales_with:
      - {name: batch_rows, symbol: B, description: Rows., range: [1, 1024]}
      - {name: weights, symbol: N, description: Weights., typical: 1.0e+9}
    ```
    ## Passes
    ```yaml
    scales_with:
      - {name: batch_rows, symbol: B, description: Rows., typical: 8, range: [1, 1024]}
      - {name: weights, symbol: N, description: Weights., typical: 1.0e+9}
    ```
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
    """A symbol's range is its domain: every value it takes lies inside it.

    ## What it checks
    A range is `[lo, hi]` with lo <= hi; the typical value and every value a check or a
    workaround sets lie inside it; a symbol without a range keeps its typical value.
    An editor cannot show this: a JSON Schema cannot compare one value of a file with another.
    ## Why it matters
    `kb check` shows the formulas defined on the ranges; a value outside them was never
    checked, and may divide by zero or flip a verdict nobody reviewed.
    ## How to fix
    Set a value inside the range, or widen the range on purpose (the formulas must hold on
    all of it).
    ## Fails
    ```yaml
    checks:
      - claim: Memory-bound at batch 2048.
        set: {B: 2048}
        devices: [nvidia-h100-sxm]
        expect: {bound_by: memory}
    ```
    ## Passes
    ```yaml
    checks:
      - claim: Memory-bound at batch 16.
        set: {B: 16}
        devices: [nvidia-h100-sxm]
        expect: {bound_by: memory}
    ```
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

    ## What it checks
    Every key of a `set:` names a symbol of `scales_with`; the hint offers the closest one.
    An editor cannot show this: a JSON Schema cannot parse or evaluate a formula.
    ## Why it matters
    A misspelt symbol would be ignored and the check or model would run at other values than
    it says.
    ## How to fix
    Use the symbol's exact name.
    ## Fails
    ```yaml
    checks:
      - claim: Memory-bound at batch 16.
        set: {b: 16}
        devices: [nvidia-h100-sxm]
        expect: {bound_by: memory}
    ```
    ## Passes
    ```yaml
    checks:
      - claim: Memory-bound at batch 16.
        set: {B: 16}
        devices: [nvidia-h100-sxm]
        expect: {bound_by: memory}
    ```
    """
    for workaround in entry.workarounds:
        if workaround.model is not None:
            yield from _undeclared(workaround.model.overrides, workaround.model.where, entry)
    for check in entry.checks:
        yield from _undeclared(check.overrides, check.where, entry)


@rule(SYMBOLIC_BUDGET, "symbolic-budget", Scope.ENTRY)
def within_symbolic_budget(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """The intensity stays within the budget of the symbolic side.

    ## What it checks
    FLOPs over bytes (for the entry and each workaround) expands to a polynomial of degree at
    most 16 and at most 256 terms (the inside of a function counted on its own, since the
    function stays as written around it; but a square root or a fractional power counts as
    much as its base, since roots of one base merge: `sqrt(P) ** 16` is `P ** 8`). No power
    of numbers is past 4,096 bits exactly (`1.25 ** 2000` is), and no exponent past 64 stands
    on a base that is not a number. The budget is counted on the formula, not timed, so it is
    the same on every machine.
    An editor cannot show this: a JSON Schema cannot parse or evaluate a formula.
    ## Why it matters
    `kb eval` and the site simplify and typeset the intensity; past the budget that takes
    minutes, so one entry would hang every page build.
    ## How to fix
    Factor the formula, or leave out terms that do not matter for the bound.
    ## Fails
    ```yaml
    arithmetic_intensity: {flops: 2 * N * (B + 1) ** 20}
    ```
    ## Passes
    ```yaml
    arithmetic_intensity: {flops: 2 * B * N}
    ```
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
    seen: set[int] = set()  # a workaround shares the formula it does not set with the entry
    for flops, bytes_, flops_written, bytes_written in pairs:
        for parsed, written in ((flops, flops_written), (bytes_, bytes_written)):
            if id(written) in seen:
                continue
            seen.add(id(written))
            problem = power_problem(parsed)
            if problem is not None:
                yield written.where.error(
                    SYMBOLIC_BUDGET,
                    f"the formula cannot be simplified and typeset: {problem.message}",
                    problem.hint,
                    offset=problem.offset,
                )
        found = ratio_cost(flops, bytes_)
        if found.within():
            continue
        worse = flops_written if cost(flops).terms >= cost(bytes_).terms else bytes_written
        yield worse.where.error(
            SYMBOLIC_BUDGET,
            f"the intensity is too large to simplify and typeset: {found.excess()}",
            "factor the formula, or leave out terms that do not matter for the bound",
        )


@rule(UNREAD_BOUND, "bounded-symbol-read", Scope.ENTRY)
def bounded_symbol_read(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """A symbol bounded by a device figure is read by a formula.

    ## What it checks
    A symbol with `at_most` (a count of the device, such as `scale_up_domain`, that it cannot
    exceed) is read by a formula of the entry, a workaround's included.
    An editor cannot show this: a JSON Schema cannot parse or evaluate a formula.
    ## Why it matters
    A device whose figure is below the symbol's value is skipped. A symbol no formula reads
    changes no number, so skipping devices for its value would contradict every result shown.
    ## How to fix
    Leave `at_most` out, or use the symbol in the formula it was meant for.
    ## Fails
    ```yaml
    scales_with:
      - name: batch_rows
        symbol: B
        description: Rows of the GEMM.
        typical: 8
        range: [1, 1024]
      - name: weights
        symbol: N
        description: Weights streamed.
        typical: 1.0e+9
      - name: ranks
        symbol: P
        description: Ranks of the ring, read by no formula.
        typical: 8
        range: [2, 72]
        at_most: scale_up_domain
    ```
    ## Passes
    ```yaml
    arithmetic_intensity:
      bytes: 2 * N * (P - 1) / P
    scales_with:
      - name: batch_rows
        symbol: B
        description: Rows of the GEMM.
        typical: 8
        range: [1, 1024]
      - name: weights
        symbol: N
        description: Weights streamed.
        typical: 1.0e+9
      - name: ranks
        symbol: P
        description: Ranks of the ring.
        typical: 8
        range: [2, 72]
        at_most: scale_up_domain
    ```
    """
    formulas = context.formulas
    if formulas is None:
        return
    for symbol in entry.scales_with:
        if symbol.at_most is not None and symbol.symbol not in formulas.read_anywhere:
            yield symbol.where.error(
                UNREAD_BOUND,
                f"'{symbol.symbol}' is bounded by {symbol.at_most}, but no formula reads it: "
                "devices would be skipped for a value that changes no number",
                "leave at_most out, or use the symbol in a formula",
                at=("at_most",),
            )


#: A derived formula of about 1,000 characters (its terms grouped: the language nests at
#: most 64 deep), for the failing example of KB416.
_LONG = " + ".join(["(" + " + ".join(["B * N"] * 8) + ")"] * 15)
_MANY_DERIVED = ", ".join(
    f'{{name: v{i}, formula: "{_LONG}", unit: x, description: d.}}' for i in range(50)
)
_MANY_CHECKS = ", ".join(
    f"{{claim: c{i}., set: {{B: {i + 1}}}, devices: [nvidia-h100-sxm, amd-instinct-mi300x], "
    "expect: {bound_by: memory}}"
    for i in range(50)
)


def within_evaluation_budget(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    found = context.cost
    if found is None or found.total <= EVALUATION_BUDGET:
        return
    yield entry.source.error_at(
        EVALUATION_BUDGET_CODE,
        budget_pointer(entry, found),
        over_budget(found),
        "fewer or shorter derived values, checks or workarounds; a check names the devices "
        "its claim is about, not every device",
        key=True,
    )


within_evaluation_budget.__doc__ = f"""An entry's evaluation stays within the budget of
    formula steps that every command and the site spend on it.

    ## What it checks
    The formula steps evaluating the entry on the devices that can run it takes (each
    formula's size in nodes, times how often it is evaluated: once a device for the results,
    again for each workaround, on each device of each check, at {CROSSOVER_SAMPLES} points of
    every swept range) are at most {EVALUATION_BUDGET:,}. It is counted on the formulas, not
    timed, so it is the same on every machine; the cards of this repository take 7,000 to
    1,800,000 (median about 63,000; the most, memory/kv-cache-capacity, in 0.9 s of `kb eval`).
    An editor cannot show this: a JSON Schema cannot parse or evaluate a formula.
    ## Why it matters
    `kb eval`, the site build and the explorer do this work for every reader and every build:
    an entry within every schema limit (50 derived values of 1,000 characters, 50 checks on
    every device) would otherwise take minutes where a real card takes a second, and every
    command refuses an entry past the budget.
    ## How to fix
    Keep derived values to what a reader needs; a check names the devices its claim is
    about; one workaround a way around the bottleneck.
    ## Fails
    ```yaml
    derived: [{_MANY_DERIVED}]
    checks: [{_MANY_CHECKS}]
    ```
    ## Passes
    ```yaml
    derived: [{{name: weight_bytes, formula: 2 * N, unit: B, description: Bytes of weights.}}]
    ```
    """
rule(EVALUATION_BUDGET_CODE, "evaluation-budget", Scope.ENTRY)(within_evaluation_budget)


@rule(SHARED_QUANTITY, "shared-quantity", Scope.ENTRY)
def shared_quantity_units(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """A symbol named as a shared quantity has that quantity's unit.

    ## What it checks
    Each symbol of `scales_with` whose `name` is one of the entry schema's shared quantities
    (`$defs/quantity`: `batch_size`, `context_length`, `hidden_size`, `kv_heads`,
    `weight_bits`, `tensor_parallel_degree` and the others) gives that quantity's unit
    (`sequences`, `tokens`, `features`, `heads`, `bits`, `devices`).
    An editor does not show this yet: the schema could tie each shared quantity's name to its unit,
    which it leaves to this rule and its hint.
    ## Why it matters
    Whole-model estimates bind every card's symbols to one model's sizes and one deployment:
    `batch_size` must mean sequences in every card, or a recipe that binds it to the
    deployment's batch counts tokens in one card and sequences in the next.
    ## How to fix
    Give the shared quantity's unit; a different quantity takes a name of its own
    (`batch_rows` for the rows of a GEMM, which count sequences times positions).
    ## Fails
    ```yaml
    scales_with:
      - {name: batch_size, symbol: B, description: Rows., unit: rows, typical: 8, range: [1, 1024]}
      - {name: weights, symbol: N, description: Weights streamed., typical: 1.0e+9}
    ```
    ## Passes
    ```yaml
    scales_with:
      - {name: batch_size, symbol: B, description: Sequences., unit: sequences, typical: 8}
      - {name: weights, symbol: N, description: Weights streamed., typical: 1.0e+9}
    ```
    """
    shared = shared_quantities()
    for symbol in entry.scales_with:
        found = shared.get(symbol.name)
        if found is None or symbol.unit == found[0]:
            continue
        unit = found[0]
        given = f"'{symbol.unit}'" if symbol.unit is not None else "none"
        yield symbol.where.error(
            SHARED_QUANTITY,
            f"{symbol.name} is a shared quantity measured in {unit}, but this symbol's unit "
            f"is {given}",
            f"write unit: {unit}, or give a quantity of another unit a name of its own; the "
            "shared quantities are the entry schema's $defs/quantity",
            at=("unit",) if symbol.unit is not None else ("name",),
        )
