"""Derived formulas and names: each derived value is a formula over the entry's symbols, the
device's figures and derived values defined above it, under a name nothing else takes."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from ..core.diagnostics import Diagnostic
from ..core.text import suggest
from ..maths import formula
from ..records.entry import Derived, Entry
from ..schemas import ENTRY, vocabulary
from . import Context, Scope, rule

DERIVED_FORMULA = "KB411"
DERIVED_ORDER = "KB412"
NAME_CLASH = "KB413"
RESERVED_NAME = "KB414"
UNKNOWN_DERIVED = "KB415"


def _figures() -> tuple[str, ...]:
    return vocabulary(ENTRY, "device_figure")


def _parsed(entry: Entry) -> Iterator[tuple[int, Derived, formula.Formula | formula.FormulaError]]:
    """Each derived item with its formula parsed over every name a formula could mean (symbols,
    figures, all derived names), or the error that stopped it."""
    if not entry.derived:
        return  # most entries: no names to gather
    given = {*entry.symbols, *_figures()}
    names = {*given, *(d.name for d in entry.derived)} - formula.FUNCTIONS.keys()
    for index, item in enumerate(entry.derived):
        parsed = _parse(item.formula.text, names)
        if isinstance(parsed, formula.FormulaError):
            # A derived name below parses (derived-order says it is below), but a misspelt
            # name is told only what it may use: the names above it. Parsed again to say so.
            above = given.union(d.name for d in entry.derived[:index])
            parsed = _parse(item.formula.text, names, above - formula.FUNCTIONS.keys())
        yield index, item, parsed


def _parse(
    text: str, names: set[str], usable: set[str] | None = None
) -> formula.Formula | formula.FormulaError:
    try:
        return formula.parse(text, names, usable)
    except formula.FormulaError as exc:
        return exc


@rule(DERIVED_FORMULA, "derived-formula", Scope.ENTRY)
def derived_formulas_parse(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """A derived formula is in the formula language and names only known values.

    ## What it checks
    That each `derived[].formula` parses in the language of `flops`, and that every name in
    it is a symbol of `scales_with`, a device figure (`$defs/device_figure`) or a derived
    name. The error points at the column inside the formula.
    An editor cannot show this: a JSON Schema cannot parse or evaluate a formula.
    ## Why it matters
    A derived value is shown, checked and swept like the built-in ones; a formula that does
    not parse or names an undeclared value would make every command that shows it fail.
    ## How to fix
    Correct the name (the hint gives the closest declared one) or declare the symbol.
    ## Fails
    ```yaml
    derived:
      - name: rows
        formula: 2 * b
        unit: rows
        description: Rows, with the symbol misspelt.
    ```
    ## Passes
    ```yaml
    derived:
      - name: rows
        formula: 2 * B
        unit: rows
        description: Rows.
    ```
    """
    if context.formulas is not None:
        return  # the evaluation parsed every derived formula over the names above it
    for _, item, parsed in _parsed(entry):
        if isinstance(parsed, formula.FormulaError):
            yield item.formula.where.error(
                DERIVED_FORMULA, parsed.message, parsed.hint, offset=parsed.offset
            )


def _first_use(parsed: formula.Formula, name: str) -> int:
    return min(
        node.col_offset
        for node in ast.walk(parsed.tree)
        if isinstance(node, ast.Name) and node.id == name
    )


@rule(DERIVED_ORDER, "derived-order", Scope.ENTRY)
def derived_use_earlier_names(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """A derived formula uses only derived names defined above it.

    ## What it checks
    That no derived formula refers to itself, to a derived name defined below it, or
    through others back to itself; the message names the cycle when there is one.
    An editor cannot show this: a JSON Schema cannot parse or evaluate a formula.
    ## Why it matters
    Derived values are computed top to bottom once per evaluation; a forward reference or
    a cycle has no value to compute.
    ## How to fix
    Move the used value above the one that uses it, or write the formula out.
    ## Fails
    ```yaml
    derived:
      - name: per_row
        formula: weight_bytes / B
        unit: B
        description: Uses a value defined below it.
      - name: weight_bytes
        formula: 2 * N
        unit: B
        description: Weight bytes.
    ```
    ## Passes
    ```yaml
    derived:
      - name: weight_bytes
        formula: 2 * N
        unit: B
        description: Weight bytes.
      - name: per_row
        formula: weight_bytes / B
        unit: B
        description: Weight bytes per row.
    ```
    """
    if context.formulas is not None:
        return  # each derived formula parsed over the names above it alone: none is later
    position = {item.name: index for index, item in enumerate(entry.derived)}
    uses: dict[str, set[str]] = {}
    found = []
    for index, item, parsed in _parsed(entry):
        if isinstance(parsed, formula.FormulaError):
            continue  # derived-formula reports it
        uses[item.name] = {name for name in parsed.symbols if name in position}
        for name in sorted(uses[item.name]):
            if position[name] >= index:
                found.append((item, name, _first_use(parsed, name)))
    for item, name, offset in found:
        if name == item.name:
            message = f"'{name}' refers to itself"
        else:
            cycle = _path(uses, name, item.name)
            message = (
                f"'{item.name}' uses '{name}', a cycle: {' -> '.join([item.name, *cycle])}"
                if cycle
                else f"'{item.name}' uses '{name}', which is defined below it"
            )
        yield item.formula.where.error(
            DERIVED_ORDER,
            message,
            "a derived formula may use only the derived names above it; reorder, or write the "
            "formula out",
            offset=offset,
        )


def _path(uses: dict[str, set[str]], start: str, goal: str) -> list[str]:
    """The names from `start` to `goal` along `uses` (both included), or [] if none."""
    came_from: dict[str, str | None] = {start: None}
    frontier = [start]
    while frontier:
        current = frontier.pop(0)
        if current == goal:
            path = [current]
            while (previous := came_from[path[-1]]) is not None:
                path.append(previous)
            return path[::-1]
        for following in sorted(uses.get(current, ())):
            if following not in came_from:
                came_from[following] = current
                frontier.append(following)
    return []


@rule(NAME_CLASH, "derived-name-unique", Scope.ENTRY)
def derived_names_are_unique(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """A derived name is not a symbol, a function or an earlier derived name.

    ## What it checks
    That each `derived[].name` differs from the symbols of `scales_with`, from the names of
    the formula language's functions (`max`, say) and from the derived names above it.
    An editor cannot show this: a JSON Schema cannot compare one value of a file with another.
    ## Why it matters
    Formulas and checks refer to values by name; one name for two values would make every
    use of it ambiguous.
    ## How to fix
    Choose another name.
    ## Fails
    ```yaml
    derived:
      - name: B
        formula: 2 * N
        unit: B
        description: Takes a symbol's name.
    ```
    ## Passes
    ```yaml
    derived:
      - name: weight_bytes
        formula: 2 * N
        unit: B
        description: Weight bytes.
    ```
    """
    seen: dict[str, int] = {}
    for index, item in enumerate(entry.derived):
        if item.name in entry.symbols:
            message = f"'{item.name}' is already a symbol of scales_with"
        elif item.name in formula.FUNCTIONS:
            message = f"'{item.name}' is the name of a function"
        elif item.name in seen:
            message = f"'{item.name}' is already derived[{seen[item.name]}]"
        else:
            seen[item.name] = index
            continue
        yield item.where.error(NAME_CLASH, message, "choose another name", at=("name",))


@rule(RESERVED_NAME, "reserved-name", Scope.ENTRY)
def device_figures_are_reserved(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """No symbol or derived name takes the name of a device figure.

    ## What it checks
    That no `scales_with[].symbol` and no `derived[].name` is one of the device figures of
    `$defs/device_figure` in the entry schema, which every formula may read.
    An editor cannot show this yet: the schema could list the figures' names as forbidden, which it
    leaves to this rule and its hint.
    ## Why it matters
    A formula that reads `memory_bandwidth` means the device's figure; a symbol of the same
    name would silently replace it on every device.
    ## How to fix
    Rename the symbol or derived value; to use the device's figure, read it in a formula
    without declaring it.
    ## Fails
    ```yaml
    derived:
      - name: launch_latency
        formula: 2 * N
        unit: s
        description: Takes a device figure's name.
    ```
    ## Passes
    ```yaml
    derived:
      - name: weight_seconds
        formula: 2 * N / memory_bandwidth
        unit: s
        description: Reads the device figure instead.
    ```
    """
    figures = _figures()
    hint = "rename it; formulas read the device's figure by this name"
    for symbol in entry.scales_with:
        if symbol.symbol in figures:
            yield symbol.where.error(
                RESERVED_NAME,
                f"'{symbol.symbol}' is reserved for the device figure",
                hint,
                at=("symbol",),
            )
    for item in entry.derived:
        if item.name in figures:
            yield item.where.error(
                RESERVED_NAME,
                f"'{item.name}' is reserved for the device figure",
                hint,
                at=("name",),
            )


@rule(UNKNOWN_DERIVED, "known-derived", Scope.ENTRY)
def expected_derived_exist(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """A check's `expect: {derived: ...}` names values of the entry's `derived`.

    ## What it checks
    That every name under a check's `expect.derived` is the name of a derived value of the
    entry.
    An editor cannot show this: a JSON Schema cannot parse or evaluate a formula.
    ## Why it matters
    A bound on a value that does not exist can never be evaluated, so the claim it stands
    for would never be checked.
    ## How to fix
    Correct the name (the hint gives the closest derived name), or add the derived value.
    ## Fails
    ```yaml
    derived:
      - name: weight_bytes
        formula: 2 * N
        unit: B
        description: Weight bytes.
    checks:
      - claim: Two bytes a weight.
        devices: [nvidia-h100-sxm]
        expect:
          derived:
            weight_byte: {min: 2.0e+9}
    ```
    ## Passes
    ```yaml
    derived:
      - name: weight_bytes
        formula: 2 * N
        unit: B
        description: Weight bytes.
    checks:
      - claim: Two bytes a weight.
        devices: [nvidia-h100-sxm]
        expect:
          derived:
            weight_bytes: {min: 2.0e+9}
    ```
    """
    names = [item.name for item in entry.derived]
    for check in entry.checks:
        for name in check.derived:
            if name not in names:
                yield check.where.error(
                    UNKNOWN_DERIVED,
                    f"'{name}' is not a derived value of this entry",
                    suggest(name, names, "derived names") if names else "add it to derived",
                    at=("expect", "derived", name),
                    key=True,
                )
