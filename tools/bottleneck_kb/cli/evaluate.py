"""`kb eval`: one entry evaluated on the catalog's devices."""

from __future__ import annotations

import shlex
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .options import (
    EVALUATION,
    again_args,
    basis_options,
    catalog_option,
    format_option,
    root_folder,
    root_option,
    shown_here,
)

if TYPE_CHECKING:
    pass


def _parse_assignments(values: tuple[str, ...]) -> dict[str, float]:
    overrides = {}
    for item in values:
        name, sep, text = item.partition("=")
        try:
            if not sep or not name.strip():
                raise ValueError
            number = float(text)
        except ValueError:
            raise click.BadParameter(f"'{item}' is not SYMBOL=NUMBER", param_hint="--set") from None
        if number != number or number in (float("inf"), float("-inf")):
            raise click.BadParameter(f"'{item}' is not finite", param_hint="--set")
        if name.strip() in overrides:  # which one was meant? not the last by accident
            raise click.BadParameter(f"'{name.strip()}' is set twice", param_hint="--set")
        overrides[name.strip()] = number
    return overrides


@click.command("eval")
@click.argument("entry_id")
@click.option(
    "--on",
    "devices",
    multiple=True,
    metavar="HW",
    help="Device id to evaluate on (repeatable) [default: every device].",
)
@click.option(
    "--set",
    "assignments",
    multiple=True,
    metavar="SYMBOL=VALUE",
    help="Set a symbol to a value within its range (repeatable) [default: its typical value].",
)
@click.option(
    "--all",
    "every",
    is_flag=True,
    help="List every device row by row [default: the featured devices of kb.yaml, the rest "
    "summed up in a line; every device named by --on].",
)
@basis_options
@format_option(EVALUATION, "table")
@catalog_option
@root_option
def eval_command(
    entry_id: str,
    devices: tuple[str, ...],
    assignments: tuple[str, ...],
    every: bool,
    basis: str,
    derated: bool,
    output_format: str,
    catalog: Path | None,
    root: Path | None,
) -> None:
    """Evaluate ENTRY_ID (e.g. flops/speculative-draft) on devices of the catalog.

    Exit status: 0 evaluated, 1 an entry kb check refuses (its numbers are still shown where
    they can be worked out, with the errors), 2 a bad request.
    """
    from ..checking.run import check_read, checked_catalog
    from ..core.diagnostics import Severity, located_line, one_line
    from ..evaluation.entry import evaluate_entry
    from ..evaluation.result import Basis
    from ..knowledge.base import KnowledgeBase
    from ..knowledge.files import entry_file, related_folders
    from ..report import render
    from ..schemas import published

    overrides = _parse_assignments(assignments)
    base = root_folder(root)
    kb = KnowledgeBase.load(base, [entry_file(base, entry_id)], catalog)
    entry = kb.entry(entry_id)
    if entry is None:
        for d in shown_here(base, kb.diagnostics):
            click.echo(located_line(d), err=True)
        raise click.ClickException(f"cannot evaluate '{entry_id}': run kb check")
    figures = Basis(measured=basis == "measured", derated=derated)
    checked = checked_catalog(kb.catalog, published(base))
    usable = checked[0]
    evaluation = evaluate_entry(
        entry, usable.devices, devices, overrides, basis=figures, broken=usable.broken
    )
    if not devices and not every:
        # The answer first: the featured devices row by row, the others in one line.
        evaluation = replace(evaluation, shown=tuple(kb.config.featured(list(usable.devices))))
    click.echo(render(EVALUATION, output_format, evaluation), nl=False)
    # What kb check says of this entry, from what was read: the numbers above state what the
    # entry claims, and a claim kb check refuses is not to be taken from them unremarked.
    refused = [
        d
        for d in check_read(kb, checked).diagnostics
        if d.path == entry.path and d.severity is Severity.ERROR
    ]
    if refused:
        refused = shown_here(base, refused)
        for d in refused:
            click.echo(located_line(d), err=True)
        errors = f"{len(refused)} error{'s' if len(refused) > 1 else ''}"
        # The path as the command line takes it, from the current folder: as shown where that
        # is the root, inside it or above it; else whole.
        related = related_folders(base, Path.cwd())
        given = refused[0].path if related else str(Path(base, entry.path).absolute())
        again = shlex.join(["kb", "check", given, *again_args(root, catalog)])
        said = f"kb check refuses {entry_id}: {errors}, above ({again} gives hints)"
        click.echo(one_line(said), err=True)
        sys.exit(1)
