"""`kb hardware`: the device catalog."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .options import HARDWARE, catalog_option, format_option, root_folder, root_option

if TYPE_CHECKING:
    pass


@click.command()
@format_option(HARDWARE, "table")
@catalog_option
@root_option
def hardware(output_format: str, catalog: Path | None, root: Path | None) -> None:
    """List the devices of the catalog with their ridge point per dtype."""
    from ..checking.results import HardwareListing
    from ..checking.run import checked_catalog
    from ..knowledge.base import Catalog
    from ..report import render
    from ..schemas import published

    base = catalog or root_folder(root)
    read = Catalog.load(base, catalog)
    # As kb check and kb eval have it: a device whose file fails its own rules is left out.
    usable, found = checked_catalog(read, published(base))
    listing = HardwareListing(list(usable.devices.values()))
    click.echo(render(HARDWARE, output_format, listing), nl=False)
    problems = len(read.diagnostics) + len(found)
    if not read.devices and not problems:
        click.echo(f"no devices in {read.folder}: add one with kb new --hardware ID", err=True)
    if problems:
        left_out = f", {len(usable.broken)} device(s) left out" if usable.broken else ""
        click.echo(f"{problems} problem(s) in {read.folder}{left_out}; run kb check", err=True)
        sys.exit(1)
