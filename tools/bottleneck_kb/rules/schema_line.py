"""The schema line: the first line by which editors find a file's schema.

Only asked for where the knowledge base publishes its schemas in schema/ (as this repository
does): elsewhere no relative path leads to one. Reading the line costs nothing, since the loader
keeps the file's text.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..core.diagnostics import Diagnostic, Severity
from ..records.device import Device
from ..records.entry import Entry
from ..records.model import Model
from ..schemas import ENTRY, HARDWARE, MODEL, line_to_schema, published_path
from ..source import Document
from . import Context, Scope, rule
from .identity import Summary

ENTRY_SCHEMA_LINE = "KB016"
DEVICE_SCHEMA_LINE = "KB018"
STALE_SCHEMA = "KB020"
MODEL_SCHEMA_LINE = "KB022"


def _report(code: str, document: Document, kind: str, context: Context) -> Iterator[Diagnostic]:
    if kind not in context.published or document.path.startswith("/"):
        return  # outside a knowledge base that publishes it: no relative path leads there
    expected = line_to_schema(document.path, kind)
    first = document.text.partition("\n")[0].removesuffix("\r")
    if first != expected:
        yield Diagnostic(
            code,
            Severity.WARNING,
            document.path,
            1,
            1,
            "the first line does not point editors at the schema"
            if first.startswith("# yaml-language-server:")
            else "the file does not start with the schema line",
            f"make the first line `{expected}` (kb fmt writes it)",
            fixable=True,
        )


@rule(ENTRY_SCHEMA_LINE, "entry-schema-line", Scope.ENTRY, Severity.WARNING)
def entry_schema_line(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """An entry's first line names its schema, for editors' completion and hover help.

    ## What it checks
    In a knowledge base that publishes its schemas in `schema/` (as this repository does),
    that an entry's first line is exactly
    `# yaml-language-server: $schema=../../schema/entry.schema.json`, the path from the
    entry's folder to the entry schema.
    An editor cannot show this: the line is a comment, which a JSON Schema never sees.
    ## Why it matters
    Editors with the YAML language server (the VS Code YAML extension and others) read the
    line to complete keys and values, explain each field on hover and underline mistakes as
    the entry is typed.
    ## How to fix
    Run `kb fmt` on the file: it writes the line. `kb new` starts every entry with it.
    ## Fails
    ```yaml
    # file: schema/entry.schema.json
    ---
    # file: entries/fixtures/minimal.yaml
    title: A minimal valid entry
    ```
    ## Passes
    ```yaml
    title: A minimal valid entry
    ```
    (No `schema/` folder: no line is asked for.)
    """
    return _report(ENTRY_SCHEMA_LINE, entry.source, ENTRY, context)


@rule(DEVICE_SCHEMA_LINE, "device-schema-line", Scope.DEVICE, Severity.WARNING)
def device_schema_line(device: Device, context: Context) -> Iterable[Diagnostic]:
    """A device's first line names its schema, for editors' completion and hover help.

    ## What it checks
    In a knowledge base that publishes its schemas in `schema/`, that a device's first line
    is exactly `# yaml-language-server: $schema=../schema/hardware.schema.json`.
    An editor cannot show this: the line is a comment, which a JSON Schema never sees.
    ## Why it matters
    Editors read the line to complete and explain a device's figures and their sources as
    they are typed.
    ## How to fix
    Run `kb fmt` on the file: it writes the line. `kb new --hardware` starts every device
    with it.
    ## Fails
    ```yaml
    # file: schema/hardware.schema.json
    ---
    # file: hardware/fixture-device.yaml
    name: Fixture device
    ```
    ## Passes
    ```yaml
    name: Fixture device
    ```
    (No `schema/` folder: no line is asked for.)
    """
    return _report(DEVICE_SCHEMA_LINE, device.source, HARDWARE, context)


@rule(MODEL_SCHEMA_LINE, "model-schema-line", Scope.MODEL, Severity.WARNING)
def model_schema_line(model: Model, context: Context) -> Iterable[Diagnostic]:
    """A model's first line names its schema, for editors' completion and hover help.

    ## What it checks
    In a knowledge base that publishes its schemas in `schema/`, that a model's first line
    is exactly `# yaml-language-server: $schema=../schema/model.schema.json`.
    An editor cannot show this: the line is a comment, which a JSON Schema never sees.
    ## Why it matters
    Editors read the line to complete and explain a model's deployment parameters and its
    sources as they are typed.
    ## How to fix
    Run `kb fmt` on the file: it writes the line. `kb new --model` starts every model with
    it.
    ## Fails
    ```yaml
    # file: schema/model.schema.json
    ---
    # file: models/fixture-model.yaml
    title: Fixture model
    ```
    ## Passes
    ```yaml
    title: Fixture model
    ```
    (No `schema/` folder: no line is asked for.)
    """
    return _report(MODEL_SCHEMA_LINE, model.source, MODEL, context)


@rule(STALE_SCHEMA, "published-schema-current", Scope.KNOWLEDGE_BASE, Severity.WARNING)
def published_schema_current(_: list[Summary], context: Context) -> Iterable[Diagnostic]:
    """The schemas a knowledge base publishes for editors are the ones kb checks with.

    ## What it checks
    That each schema in `schema/` holds the same JSON as the schema the installed `kb` ships
    and checks with; where one does not, the warning points where its text first departs
    from what `kb schema` writes. And that a `schema/` folder publishing one kind's schema
    publishes the others too (the model schema where there is a `models/` folder): the first
    lines `kb new` and `kb fmt` wrote point there.
    An editor cannot show this: a JSON Schema sees one file's data, not the files around it.
    ## Why it matters
    Editors complete, explain and underline what is typed by the schemas in `schema/`. A copy
    from another version of `kb` (another repository that copied them once, then upgraded
    `kb`) offers keys and values that `kb check` refuses, and misses those it added.
    ## How to fix
    Write the schema again from the installed `kb`:
    `kb schema entry > schema/entry.schema.json`,
    `kb schema hardware > schema/hardware.schema.json` and
    `kb schema model > schema/model.schema.json`.
    ## Fails
    ```yaml
    # file: schema/entry.schema.json
    title: An entry schema from another version of kb
    ---
    title: A minimal valid entry
    ```
    ## Passes
    ```yaml
    title: A minimal valid entry
    ```
    (No `schema/` folder: nothing to compare.)
    """
    for kind, (line, col) in sorted(context.stale_schemas.items()):
        yield Diagnostic(
            STALE_SCHEMA,
            Severity.WARNING,
            published_path(kind),
            line,
            col,
            f"is not the {kind} schema this kb checks with: editors offer what kb check refuses",
            f"write it again, from the knowledge base's root: kb schema {kind} > "
            f"{published_path(kind)}",
        )
    for kind in sorted(context.unpublished_schemas):
        yield Diagnostic(
            STALE_SCHEMA,
            Severity.WARNING,
            published_path(kind),
            1,
            1,
            "is missing from schema/, which publishes the others: the first lines that "
            "point editors here point at nothing",
            f"write it, from the knowledge base's root: kb schema {kind} > {published_path(kind)}",
        )
