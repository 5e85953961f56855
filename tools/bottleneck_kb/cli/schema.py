"""`kb schema`: print a published schema."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    pass


@click.command("schema")
@click.argument("kind", metavar="KIND")
def schema_command(kind: str) -> None:
    """Print the JSON Schema kb checks files of KIND (entry or hardware) with, to publish in a
    knowledge base's schema/ folder for editors: kb schema entry > schema/entry.schema.json.
    """
    from ..schemas import ENTRY, HARDWARE, schema_text

    if kind not in (ENTRY, HARDWARE):
        raise click.BadParameter(f"'{kind}' is not {ENTRY} or {HARDWARE}", param_hint="KIND")
    click.echo(schema_text(kind), nl=False)
