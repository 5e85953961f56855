"""The schema line: the first line by which editors find a file's schema.

Only asked for where the knowledge base publishes its schemas in schema/ (as this repository
does): elsewhere no relative path leads to one. Reading the line costs nothing, since the loader
keeps the file's text."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..diagnostics import Diagnostic, Severity
from ..model import Device, Entry
from ..schemas import ENTRY, HARDWARE, schema_line
from ..source import Document
from . import Context, Scope, rule

ENTRY_SCHEMA_LINE = "KB016"
DEVICE_SCHEMA_LINE = "KB018"


def _report(code: str, document: Document, kind: str, context: Context) -> Iterator[Diagnostic]:
    if context.root is None or document.path.startswith("/"):
        return  # outside a knowledge base: no relative path leads to its schema/
    expected = schema_line(context.root, document.path, kind)
    first = document.text.partition("\n")[0].removesuffix("\r")
    if expected is not None and first != expected:
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


@rule(ENTRY_SCHEMA_LINE, "entry-schema-line", Scope.ENTRY)
def entry_schema_line(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """An entry's first line names its schema, for editors' completion and hover help.

    Fails: an entry that starts with `id: flops/speculative-draft`
    Passes: `# yaml-language-server: $schema=../../schema/entry.schema.json` on line 1
    """
    return _report(ENTRY_SCHEMA_LINE, entry.source, ENTRY, context)


@rule(DEVICE_SCHEMA_LINE, "device-schema-line", Scope.DEVICE)
def device_schema_line(device: Device, context: Context) -> Iterable[Diagnostic]:
    """A device's first line names its schema, for editors' completion and hover help.

    Fails: a device that starts with `id: nvidia-h100-sxm`
    Passes: `# yaml-language-server: $schema=../schema/hardware.schema.json` on line 1
    """
    return _report(DEVICE_SCHEMA_LINE, device.source, HARDWARE, context)
