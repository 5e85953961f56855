"""Namespaces: the part of an entry id before the slash comes from the schema's vocabulary."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.diagnostics import Diagnostic
from ..records.entry import Entry
from ..schemas import unknown_namespace
from . import Context, Scope, rule

UNKNOWN_NAMESPACE = "KB211"


@rule(UNKNOWN_NAMESPACE, "known-namespace", Scope.ENTRY)
def known_namespace(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """An entry's namespace is one the entry schema documents.

    ## What it checks
    That the part of `id` before the slash is a value of `$defs/namespace` in the entry
    schema (flops, gemm, attention, collective, runtime, speculative, ...).
    An editor shows the id's form and completes a namespace from the schema's examples; that the
    namespace is a known one is left to this rule, which knows kb.yaml's too.
    ## Why it matters
    Namespaces group entries of one family on the site and in `entries/`; a misspelt or
    ad-hoc namespace scatters them and is usually a typo in the folder name.
    ## How to fix
    Move the file to a documented namespace. A family of bottlenecks kb does not have is a
    new namespace: in this repository, added to `$defs/namespace` of the entry schema kb
    ships (`tools/bottleneck_kb/schemas/entry.schema.json`, then its published copy with
    `kb schema entry > schema/entry.schema.json`), with a description, in the same pull
    request; in a knowledge base kept elsewhere, added to its `kb.yaml` under `namespaces:`
    (a name, a title and a description), then `kb schema entry > schema/entry.schema.json`.
    A namespace is a family of bottlenecks, not a team.
    ## Fails
    ```yaml
    # file: entries/gem/minimal.yaml
    id: gem/minimal
    ```
    ## Passes
    ```yaml
    # file: entries/gemm/minimal.yaml
    id: gemm/minimal
    ```
    """
    unknown = unknown_namespace(entry.id, context.words)
    if unknown is not None:
        message, close = unknown
        yield entry.source.error_at(
            UNKNOWN_NAMESPACE,
            ("id",),
            message,
            f"{close}; a family kb does not have is added, with a title and a description, to"
            " kb.yaml's namespaces: (then kb schema entry > schema/entry.schema.json)",
        )
