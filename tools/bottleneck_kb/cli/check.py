"""`kb check`: validate a knowledge base, or only the paths given and what depends on them."""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..core.codes import INTERNAL
from .options import (
    CHECK,
    catalog_option,
    format_option,
    jobs_option,
    path_here,
    root_folder,
    root_option,
    shown_here,
)
from .rules import explanation, known_rule

if TYPE_CHECKING:
    pass


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@format_option(CHECK, None, "github when GITHUB_ACTIONS is set, else text")
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too.")
@click.option(
    "--select",
    multiple=True,
    metavar="CODE",
    help="Report only this code (repeatable); the other rules do not run. A file that "
    "cannot be read is still reported: the rule could not run on it.",
)
@click.option(
    "--explain",
    metavar="CODE",
    default=None,
    help="Print what CODE checks, why, how to fix it, with failing and passing examples.",
)
@jobs_option
@click.option(
    "--changed-since",
    metavar="REF",
    default=None,
    help="Check the files changed since the git ref REF (from its merge base with HEAD, "
    "uncommitted changes included) and what depends on them, as for PATHS.",
)
@click.option(
    "--staged",
    is_flag=True,
    help="Also check the files staged for commit, deletions included, and what depends on "
    "them (the pre-commit hook's mode).",
)
@catalog_option
@root_option
def check(
    paths: tuple[Path, ...],
    output_format: str | None,
    strict: bool,
    select: tuple[str, ...],
    explain: str | None,
    jobs: int | None,
    changed_since: str | None,
    staged: bool,
    catalog: Path | None,
    root: Path | None,
) -> None:
    """Validate the knowledge base, or only PATHS and the entries that depend on them (an
    edited device re-checks every entry), against the whole catalog.

    Exit status: 0 no errors (warnings allowed unless --strict), 1 errors found, 2 usage or
    internal error.
    """
    from ..checking.run import check as run_check
    from ..core.diagnostics import one_line
    from ..knowledge.files import display_path
    from ..knowledge.git import ChangedFilesError, changed_paths, staged_paths
    from ..report import render

    # Codes are printed in upper case; `kb406` typed from memory means the same rule.
    if explain is not None:
        click.echo(explanation(explain.upper()))
        return
    select = tuple(code.upper() for code in select)
    for code in select:
        known_rule(code)
    if output_format is None:
        output_format = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    base = root_folder(root, paths)
    if staged and changed_since is not None:
        raise click.UsageError("--staged and --changed-since each choose the changes; give one")
    by_change = staged or changed_since is not None
    selected: list[Path] | None = list(paths) if paths or by_change else None
    changed: list[Path] = []
    removed: list[Path] = []
    try:
        if staged:
            changed, removed = staged_paths(base)
        elif changed_since is not None:
            changed, removed = changed_paths(base, changed_since)
    except ChangedFilesError as exc:
        option = "--staged" if staged else "--changed-since"
        raise click.BadParameter(str(exc), param_hint=option) from None
    result = run_check(base, selected, jobs, frozenset(select) or None, catalog, removed, changed)
    result = dataclasses.replace(result, diagnostics=shown_here(base, result.diagnostics))
    click.echo(render(CHECK, output_format, result), nl=False)
    if any(d.code == INTERNAL for d in result.diagnostics):
        sys.exit(2)
    # kb reads files from disk: one the commit deletes but the disk keeps (`git rm --cached`)
    # is checked as if the commit held it, and what depends on it would pass unseen.
    kept = [p for p in removed if staged and (p.exists() or p.is_symlink())]
    for path in kept:
        shown = path_here(base)(display_path(path, base))
        said = f"kb: {shown} is deleted by this commit but kept on disk, where kb reads it"
        click.echo(one_line(f"{said}: delete it, or stage it again"), err=True)
    sys.exit(1 if result.errors or (strict and result.warnings) or kept else 0)
