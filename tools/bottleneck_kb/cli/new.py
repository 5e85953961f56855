"""`kb new`: scaffold an entry or a device (or start a knowledge base)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from .options import path_here, root_folder, root_option

if TYPE_CHECKING:
    pass


@click.command("new")
@click.argument("identifier", metavar="ID")
@click.option("--hardware", "is_device", is_flag=True, help="Scaffold a device, not an entry.")
@click.option("--model", "is_model", is_flag=True, help="Scaffold a model file, not an entry.")
@click.option("--class", "cls", default=None, help="The entry's class.")
@click.option("--bound-by", default=None, help="What bounds the entry (memory, compute, ...).")
@root_option
def new(
    identifier: str,
    is_device: bool,
    is_model: bool,
    cls: str | None,
    bound_by: str | None,
    root: Path | None,
) -> None:
    """Write a skeleton entries/ID.yaml (or hardware/ID.yaml, or models/ID.yaml) to fill in.

    Each field has a comment saying what it holds and a TODO placeholder that kb check reports
    until it is replaced. An existing file is never overwritten. `--root DIR` names the
    knowledge base, and starts one in an existing folder that has none.
    """
    from ..authoring.scaffold import new_file
    from ..core.diagnostics import one_line
    from ..knowledge.files import display_path
    from ..schemas import ENTRY, HARDWARE, MODEL

    given = {k: v for k, v in (("class", cls), ("bound_by", bound_by)) if v is not None}
    if is_device and is_model:
        raise click.UsageError("--hardware and --model each name a kind of file: give one")
    if (is_device or is_model) and given:
        raise click.UsageError(
            f"--class and --bound-by are for entries, not --{'hardware' if is_device else 'model'}"
        )
    if root is not None and not root.is_dir():
        raise click.BadParameter(f"{root} is not a folder", param_hint="--root")
    # Named by --root, a folder becomes a knowledge base with its first file.
    base = root if root is not None else root_folder(None)
    kind = HARDWARE if is_device else MODEL if is_model else ENTRY
    path = new_file(base, kind, identifier, given)
    shown = display_path(path, base)
    shown = path_here(base)(shown)
    click.echo(one_line(f"wrote {shown}; replace each TODO, then run kb check"))
    if kind == ENTRY:  # the skeleton holds the keys an entry must have, not those it may
        click.echo(
            "  it holds the required keys; the optional ones (the other roofs' formulas, "
            "checks, derived values, bounds, ...) are in CONTRIBUTING.md, 'What each field "
            "means', and the schema"
        )
