"""`kb schema`: print a published schema."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    pass


@click.command("schema")
@click.argument("kind", metavar="KIND")
def schema_command(kind: str) -> None:
    """Print the JSON Schema kb checks files of KIND (entry, hardware, model or config) with, to
    publish in a knowledge base's schema/ folder for editors: kb schema entry >
    schema/entry.schema.json.
    """
    from ..schemas import FILE_KINDS, schema_text

    if kind not in FILE_KINDS:
        raise click.BadParameter(
            f"'{kind}' is not {', '.join(FILE_KINDS[:-1])} or {FILE_KINDS[-1]}", param_hint="KIND"
        )
    click.echo(schema_text(kind), nl=False)
