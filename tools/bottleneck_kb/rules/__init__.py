"""The registry of rules: every diagnostic code `kb check` can report.

How to add a rule
-----------------
1. Pick the module of its concern (or add one: `rules/<concern>.py`) and a free code in its
   family: KB0xx reading YAML, KB1xx schema, KB2xx cross-references, KB3xx hardware catalog,
   KB4xx formulas and roofline, KB5xx markup of entry text.
2. Write the check as a function decorated with `@rule(code, name, scope)`. Its docstring is
   the rule's documentation (shown by `kb rules` and on the site): a one-line summary, then
   `Fails:` and `Passes:` examples. The function yields Diagnostics, built where the problem
   was written: `part.where.error(code, message, hint, at=("key",))` for a part of the typed
   model, or `entry.source.error_at(code, pointer, message, hint)` for a pointer into the
   file (`key=True` points at the key, `offset=` at a character inside a string).
   Scopes: `ENTRY` checks get `(entry, context)`, `DEVICE` checks get `(device, context)`,
   `KNOWLEDGE_BASE` checks get `(summaries, context)` once per run.
3. Import the module at the bottom of this file.
4. Add a fixture `tests/fixtures/invalid/<name>.yaml` with `<name>.expected` beside it, one
   `line:col CODE` per expected diagnostic; the fixture test picks it up.

Codes emitted while reading (KB0xx, KB1xx, KB301) are registered with `emitted_by` naming the
stage that finds them, so that every code a user can see is documented in one place.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from ..diagnostics import Diagnostic

if TYPE_CHECKING:
    from ..evaluate import Formulas
    from ..model import Device


class Scope(Enum):
    READ = "read"
    ENTRY = "entry"
    DEVICE = "device"
    KNOWLEDGE_BASE = "knowledge base"


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    scope: Scope
    doc: str
    check: Callable[..., Iterable[Diagnostic]] | None = None
    emitted_by: str | None = None

    @property
    def summary(self) -> str:
        return " ".join(self.doc.strip().split("\n\n")[0].split())


REGISTRY: dict[str, Rule] = {}


def _register(new: Rule) -> None:
    if new.code in REGISTRY:
        raise ValueError(f"rule code {new.code} is registered twice")
    REGISTRY[new.code] = new


def rule(code: str, name: str, scope: Scope) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a check under `code`; its docstring is its documentation."""

    def register(check: Callable[..., Any]) -> Callable[..., Any]:
        _register(Rule(code, name, scope, inspect.cleandoc(check.__doc__ or ""), check))
        return check

    return register


def emitted(code: str, name: str, by: str, doc: str) -> None:
    """Document a code that a reading stage emits rather than a check function."""
    _register(Rule(code, name, Scope.READ, inspect.cleandoc(doc), emitted_by=by))


def rules_for(scope: Scope) -> list[Rule]:
    return [r for r in REGISTRY.values() if r.scope is scope and r.check is not None]


@dataclass(frozen=True)
class Context:
    """What a check may consult besides its subject: the catalog, and (for entry checks) the
    entry's formulas, parsed once for all the checks that need them."""

    devices: Mapping[str, Device]
    formulas: Formulas | None = None
    formula_problems: tuple[Diagnostic, ...] = ()


# Importing a rule module registers its rules.
from . import cross_references, formulas, identity, markup, reading, roofline  # noqa: E402, F401
