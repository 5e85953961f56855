"""Bottleneck KB: a knowledge base of ML-systems performance bottlenecks whose numbers are live.

The public surface: what other code may import from `bottleneck_kb` itself (everything else
is internal and may move between releases):

- `check(root, paths=None, ...)`: `kb check` as a library; a `CheckResult` with its
  `diagnostics` (each a `Diagnostic`: code, severity, path, line, col, message, hint),
  `errors`, `warnings`, and the counts of entries and devices checked.
- `KnowledgeBase.load(root)`: a knowledge base read into typed entries and devices (its
  `entries`, its `catalog.devices`, and the `diagnostics` found while reading).
- `evaluate_entry(entry, catalog, on=(), overrides=None, ...)`: an entry on the devices of
  `catalog` (id -> device: a knowledge base's `catalog.devices`), as
  `kb eval` shows it (`EntryEvaluation`: each device's result, the skipped devices and why,
  the crossovers, the workarounds' effects, the checks).
- `Diagnostic`, `Severity`, `KBError` (every error kb raises on purpose; `BadRequest` for a
  request that names what is not there) and `__version__`.

Names are looked up on first use, so that `import bottleneck_kb` (and `kb --help`) stays
light.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

#: Each public name, and the module that defines it.
_PUBLIC = {
    "check": "bottleneck_kb.checking.run",
    "CheckResult": "bottleneck_kb.checking.results",
    "KnowledgeBase": "bottleneck_kb.knowledge.base",
    "evaluate_entry": "bottleneck_kb.evaluation.entry",
    "EntryEvaluation": "bottleneck_kb.evaluation.entry",
    "Diagnostic": "bottleneck_kb.core.diagnostics",
    "Severity": "bottleneck_kb.core.diagnostics",
    "KBError": "bottleneck_kb.core.errors",
    "BadRequest": "bottleneck_kb.core.errors",
}

__all__ = [*_PUBLIC, "__version__"]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        # importlib.metadata costs more than the rest of what `kb --help` imports.
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("bottleneck-kb")
        except PackageNotFoundError:  # a source tree that was never installed
            return "0+unknown"
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'bottleneck_kb' has no attribute {name!r}")
    return getattr(import_module(module), name)
