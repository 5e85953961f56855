"""`kb diff REF`: what the working tree changes across the knowledge base, for a reviewer."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import click

from .options import DIFF, format_option, jobs_option, root_folder, root_option, shown_here


def _fraction(_: click.Context, param: click.Parameter, value: float) -> float:
    if not math.isfinite(value) or value < 0:
        raise click.BadParameter(
            f"{value} is not a fraction of 0 or more (0.01 is 1 %)", param=param
        )
    return value


@click.command("diff")
@click.argument("ref")
@click.option(
    "--threshold",
    type=float,
    default=0.01,
    show_default=True,
    callback=_fraction,
    metavar="FRACTION",
    help="A lower bound or an estimate moves when it changes by more than this fraction of "
    "itself (0.01 is 1 %; 0 lists every change).",
)
@format_option(DIFF, "text")
@jobs_option
@root_option
def diff_command(
    ref: str, threshold: float, output_format: str, jobs: int | None, root: Path | None
) -> None:
    """What the working tree changes against the merge base of REF and HEAD (the commit
    kb check --changed-since counts from), across the whole knowledge base: verdicts that
    flip, lower bounds and estimates that move, checks and measurements that newly fail or
    pass, cards, devices and models added or removed. REF's files are read out of git, never
    run, and judged by this kb; what either side's files fail is said, and what both sides
    can evaluate compared.

    Exit status: 0 compared (whatever moved, and whatever either side's files fail, which
    the output says), 2 usage or internal error (REF no commit, no git repository).
    """
    from ..checking.diff import diff
    from ..knowledge.git import ChangedFilesError
    from ..report import render

    base = root_folder(root)
    try:
        found = diff(base, ref, threshold, jobs)
    except ChangedFilesError as exc:
        raise click.BadParameter(str(exc), param_hint="REF") from None
    found = dataclasses.replace(
        found,
        errors=shown_here(base, found.errors),
        base_errors=shown_here(base, found.base_errors),
    )
    click.echo(render(DIFF, output_format, found), nl=False)
