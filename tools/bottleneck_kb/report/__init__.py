"""Results -> text for people and formats for machines: one registry of reporters, by the kind
of result and the format's name, for every command.

A new output format is one function decorated with `@reporter(kind, name)` in the module of
its kind; the commands offer whatever the registry holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: The kinds of result, one per command that reports.
CHECK = "check"
EVALUATION = "eval"
HARDWARE = "hardware"
ESTIMATE = "estimate"
DIFF = "diff"

Reporter = Callable[[Any], str]
REPORTERS: dict[str, dict[str, Reporter]] = {
    CHECK: {},
    EVALUATION: {},
    HARDWARE: {},
    ESTIMATE: {},
    DIFF: {},
}


def reporter(kind: str, name: str) -> Callable[[Reporter], Reporter]:
    """Register `function` as the `name` format of results of `kind`."""

    def register(function: Reporter) -> Reporter:
        if name in REPORTERS[kind]:
            raise ValueError(f"format {name!r} of {kind} results is registered twice")
        REPORTERS[kind][name] = function
        return function

    return register


def formats(kind: str) -> list[str]:
    """The format names results of `kind` can be shown in, the default first."""
    return list(REPORTERS[kind])


def render(kind: str, name: str, result: Any) -> str:
    return REPORTERS[kind][name](result)


def aligned_columns(header: list[str], rows: list[list[str]]) -> list[str]:
    """Aligned columns: the first left-aligned, the rest right-aligned."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return [line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)]


# Importing a reporter module registers its formats.
from . import check, diff, estimate, evaluation, hardware  # noqa: E402, F401
