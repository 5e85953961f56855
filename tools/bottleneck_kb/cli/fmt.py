"""`kb fmt`: format entry and device files."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .options import jobs_option, path_here, root_folder, root_option, shown_here

if TYPE_CHECKING:
    pass


@click.command("fmt")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--check", "check_only", is_flag=True, help="Write nothing; list files that would change."
)
@click.option("--diff", is_flag=True, help="Write nothing; show the changes as a unified diff.")
@click.option(
    "--upgrade",
    is_flag=True,
    help="Rewrite files written to an earlier version of their schema to today's shape, "
    "marking with TODO what only you can supply.",
)
@jobs_option
@root_option
def fmt(
    paths: tuple[Path, ...],
    check_only: bool,
    diff: bool,
    upgrade: bool,
    jobs: int | None,
    root: Path | None,
) -> None:
    """Rewrite entries and devices (or PATHS) in the canonical form; comments are kept.

    With --upgrade, a file that kb check says was written to an earlier version of its
    schema (KB106) is first rewritten to today's shape, keeping every value and comment; what
    only a person knows (a source's id, a paper's first author) becomes a TODO placeholder,
    which kb check then reports at its line.

    Exit status: 0 nothing to do (or all written), 1 a file would change (--check, --diff) or
    was refused because it does not load, 2 usage error.
    """
    from ..authoring.atomic import write_atomic
    from ..authoring.fmt import format_paths
    from ..core.diagnostics import located_line, one_line, printable

    base = root_folder(root, paths)
    run = format_paths(base, list(paths) or None, jobs, upgrade)
    shown = path_here(base)
    run.formatted = [dataclasses.replace(f, display=shown(f.display)) for f in run.formatted]
    for d in shown_here(base, run.diagnostics):
        click.echo(located_line(d), err=True)
        if d.hint:
            click.echo(printable(f"    hint: {d.hint}"), err=True)
    if diff or check_only:
        for formatted in run.changed:
            if diff:
                click.echo(printable(formatted.diff()), nl=False)
            else:
                click.echo(one_line(f"would reformat {formatted.display}"))
        sys.exit(1 if run.diagnostics or run.changed else 0)
    # Every file is written before any is reported: a reader that stops early (`| head`)
    # cuts the report short, not the work.
    left: dict[str, str] = {}
    for formatted in run.changed:
        try:
            write_atomic(formatted.path, formatted.after, read=formatted.before)
        except OSError as exc:  # the old file is whole; say so and go on with the rest
            left[formatted.display] = exc.strerror or str(exc)
    for formatted in run.changed:
        if formatted.display in left:
            reason = left[formatted.display]
            click.echo(one_line(f"{formatted.display}: left as it was: {reason}"), err=True)
        else:
            click.echo(one_line(f"reformatted {formatted.display}"))
    sys.exit(1 if run.diagnostics or left else 0)
