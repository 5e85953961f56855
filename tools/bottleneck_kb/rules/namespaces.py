"""Namespaces: the part of an entry id before the slash comes from the schema's vocabulary."""

from __future__ import annotations

from collections.abc import Iterable

from ..diagnostics import Diagnostic
from ..model import Entry
from ..schemas import ENTRY, suggest, vocabulary
from . import Context, Scope, rule

UNKNOWN_NAMESPACE = "KB211"


@rule(UNKNOWN_NAMESPACE, "known-namespace", Scope.ENTRY)
def known_namespace(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """An entry's namespace is one the schema documents (`$defs/namespace`), so that entries
    of one family sit together and a misspelt folder is caught.

    Fails: `id: gem/decode-weight-gemm` in entries/gem/decode-weight-gemm.yaml
    Passes: `id: gemm/decode-weight-gemm` in entries/gemm/decode-weight-gemm.yaml
    """
    namespace = entry.id.partition("/")[0]
    allowed = vocabulary(ENTRY, "namespace")
    if namespace not in allowed:
        yield entry.source.error_at(
            UNKNOWN_NAMESPACE,
            ("id",),
            f"'{namespace}' is not a namespace",
            suggest(namespace, allowed, "namespaces")
            + "; a new one is added to $defs/namespace of the entry schema, with a description",
        )
