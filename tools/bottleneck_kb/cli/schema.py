"""`kb schema`: print a published schema."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from .options import root_folder, root_option

if TYPE_CHECKING:
    pass


@click.command("schema")
@click.argument("kind", metavar="KIND")
@root_option
def schema_command(kind: str, root: Path | None) -> None:
    """Print the JSON Schema kb checks files of KIND (entry, hardware, model or config) with, to
    publish in a knowledge base's schema/ folder for editors: kb schema entry >
    schema/entry.schema.json.

    In a knowledge base whose kb.yaml adds namespaces or classes, the entry schema holds them
    (it is the schema kb check checks that knowledge base with); outside one, kb's own.
    """
    from ..knowledge.config import words_of
    from ..schemas import BUILT_IN, FILE_KINDS, schema_text

    if kind not in FILE_KINDS:
        raise click.BadParameter(
            f"'{kind}' is not {', '.join(FILE_KINDS[:-1])} or {FILE_KINDS[-1]}", param_hint="KIND"
        )
    try:
        words = words_of(root_folder(root))
    except click.UsageError:  # BadParameter too: a --root that is no knowledge base
        if root is not None:
            raise
        words = BUILT_IN  # not in a knowledge base: kb's own words
    click.echo(schema_text(kind, words), nl=False)
