"""The registry of rules: every diagnostic code `kb check` can report, with its documentation.

How to add a rule
-----------------
1. Pick the module of its concern (or add one: `rules/<concern>.py`; every module of this
   package is imported, no list to extend) and a free code in its family: KB0xx reading
   YAML, KB1xx schema, KB2xx cross-references, KB3xx hardware catalog, KB4xx formulas and
   roofline, KB5xx what pages show, KB6xx models, KB7xx measurements.
2. Write the check as a function decorated with `@rule(code, name, scope, severity)`. It
   yields Diagnostics built where the problem was written, `part.where.error(code, message,
   hint, at=("key",))` for a part of the typed model or `entry.source.error_at(code, pointer,
   message, hint)` for a pointer into the file (`key=True` points at the key, `offset=` at a
   character inside a string); the runner stamps the registered code and severity on them.
   Scopes: `ENTRY` checks get `(entry, context)`, `DEVICE` checks get `(device, context)`,
   `KNOWLEDGE_BASE` checks get `(summaries, context)` once per run. A check that reads only
   what entries and devices share (their file's text) can run in both: `also=(Scope.DEVICE,)`
   (the markup rules); its documentation's examples are of its first scope.
3. Its docstring is its documentation, in fixed sections (`kb check --explain CODE`, `kb rules`
   and the site read it; a test runs its examples through the rule alone):

       One-sentence summary (wrapped over lines as needed: its whole first paragraph).

       ## What it checks
       ...
       ## Why it matters
       ...
       ## How to fix
       ...
       ## Fails
       ```yaml
       bound_by: compute
       ```
       ## Passes
       ```yaml
       bound_by: memory
       ```

   An example is a JSON merge patch (RFC 7386: mappings merge, anything else replaces, null
   removes a key) onto the minimal valid entry of `rules/examples.py` (the minimal valid
   device for a DEVICE rule). A first line `# file: <path>` writes it elsewhere (one more file
   per `---`-separated document, for knowledge-base rules); for codes found while reading
   YAML, the example is the whole file's text.
4. Add its line to the table of `core/codes.py`, and a fixture `tests/fixtures/rules/<CODE>/`
   (see tests/rules/test_rule_fixtures.py).

Codes emitted while reading (KB0xx, KB1xx, KB301) are registered with `emitted(...)` naming
the stage that finds them, so that every code a user can see is documented in one place.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import TYPE_CHECKING, Any

from ..core.diagnostics import Diagnostic, Severity
from ..knowledge.files import HARDWARE
from ..schemas import BUILT_IN, Words

if TYPE_CHECKING:
    from ..evaluation.cost import EvaluationCost
    from ..evaluation.evaluator import Evaluator
    from ..evaluation.formulas import Formulas
    from ..records.device import Device
    from ..records.model import Model


class Scope(Enum):
    READ = "read"
    ENTRY = "entry"
    DEVICE = "device"
    MODEL = "model"
    KNOWLEDGE_BASE = "knowledge base"


#: The documentation sections every rule has, in order.
SECTIONS = ("What it checks", "Why it matters", "How to fix", "Fails", "Passes")
_HEADING = re.compile(r"^## (.+)$", re.MULTILINE)
_EXAMPLE = re.compile(r"^```yaml\n(.*?)^```$", re.MULTILINE | re.DOTALL)
#: The longest example the documentation shows whole. A longer one (KB009's file of 50,001
#: values) would bury the page, so it is shown by its start and its length; the tests still
#: run it whole.
SHOWN_EXAMPLE_CHARACTERS = 1_000
#: How much of the start of a longer example is shown.
_SHOWN_START = 72


@dataclass(frozen=True, slots=True)
class Documentation:
    """A rule's docstring, cut into its summary and fixed sections."""

    summary: str
    sections: Mapping[str, str]

    @classmethod
    def parse(cls, text: str) -> Documentation:
        text = inspect.cleandoc(text)
        first_paragraph, _, rest = text.partition("\n\n")
        summary = " ".join(line.strip() for line in first_paragraph.splitlines())
        parts = _HEADING.split(rest)
        sections = {
            title.strip(): body.strip()
            for title, body in zip(parts[1::2], parts[2::2], strict=True)
        }
        return cls(summary, sections)

    def examples(self, section: str) -> list[str]:
        """The YAML examples of `Fails` or `Passes`."""
        return [found.group(1) for found in _EXAMPLE.finditer(self.sections.get(section, ""))]

    @property
    def text(self) -> str:
        """The whole documentation as Markdown."""
        body = [
            f"## {title}\n\n{_EXAMPLE.sub(_shown, self.sections[title])}"
            for title in SECTIONS
            if title in self.sections
        ]
        return "\n\n".join([self.summary, *body])


def _shown(example: re.Match[str]) -> str:
    """An example as the documentation shows it: whole, or if too long to read, its start
    cut at a space and its length."""
    whole = example.group(1)
    if len(whole) <= SHOWN_EXAMPLE_CHARACTERS:
        return example.group(0)
    start = whole[: _SHOWN_START + 1].rsplit(None, 1)[0]
    return f"```yaml\n{start} ...\n# (abbreviated: {len(whole):,} characters in all)\n```"


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    scope: Scope
    severity: Severity
    doc: Documentation
    module: str
    check: Callable[..., Iterable[Diagnostic]] | None = None
    #: Further scopes the check runs in, on subjects of the same shape (device files' text as
    #: well as entries').
    also: tuple[Scope, ...] = ()

    @property
    def summary(self) -> str:
        return self.doc.summary

    def run(self, subject: Any, context: Context) -> list[Diagnostic]:
        """The rule's findings on `subject`, stamped with its code and severity."""
        assert self.check is not None
        found = list(self.check(subject, context))
        if not found:
            return found  # the usual case, with nothing to stamp
        return [self.stamped(d) for d in found]

    def stamped(self, found: Diagnostic) -> Diagnostic:
        """A finding of the rule, with its code and severity."""
        if found.code == self.code and found.severity is self.severity:
            return found
        return replace(found, code=self.code, severity=self.severity)


REGISTRY: dict[str, Rule] = {}


def _register(new: Rule) -> None:
    if new.code in REGISTRY:
        raise ValueError(f"rule code {new.code} is registered twice")
    REGISTRY[new.code] = new


def _module_name(module: str) -> str:
    return module.removeprefix(__name__ + ".")


def rule(
    code: str,
    name: str,
    scope: Scope,
    severity: Severity = Severity.ERROR,
    *,
    also: tuple[Scope, ...] = (),
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a check under `code`; its docstring is its documentation (its examples are
    of `scope`; `also` names further scopes it runs in)."""

    def register(check: Callable[..., Any]) -> Callable[..., Any]:
        doc = Documentation.parse(check.__doc__ or "")
        module = _module_name(check.__module__)
        _register(Rule(code, name, scope, severity, doc, module, check, also))
        return check

    return register


def emitted(
    code: str, name: str, module: str, doc: str, severity: Severity = Severity.ERROR
) -> None:
    """Document a code that a reading stage (`module`, e.g. `source`) emits rather than a
    check function."""
    _register(Rule(code, name, Scope.READ, severity, Documentation.parse(doc), module))


def rules_in(codes: Iterable[str]) -> list[Rule]:
    """The registered rules of `codes` (those of rules; others are ignored)."""
    return [REGISTRY[code] for code in codes if code in REGISTRY]


def rules_for(scope: Scope, select: Iterable[str] | None = None) -> list[Rule]:
    """The checks of `scope`, or only those whose codes are in `select`."""
    chosen = None if select is None else set(select)
    return [
        r
        for r in REGISTRY.values()
        if (r.scope is scope or scope in r.also)
        and r.check is not None
        and (chosen is None or r.code in chosen)
    ]


@dataclass(frozen=True)
class Context:
    """What a check may consult besides its subject: the catalog, (for entry checks) the
    entry's Evaluator, its formulas parsed once for all the checks that need them, and the
    knowledge base's root folder when there is one."""

    devices: Mapping[str, Device]
    #: The entry ready to evaluate, where its formulas parse.
    evaluator: Evaluator | None = None
    formula_problems: tuple[Diagnostic, ...] = ()
    #: The devices with every figure the entry's formulas read, found once for its rules.
    runnable: tuple[Device, ...] = ()
    #: What evaluating the entry on `runnable` costs (evaluation_cost), where its formulas
    #: parse: past the budget, the rules that evaluate it leave it to KB416.
    cost: EvaluationCost | None = None
    #: Device id -> the file of hardware/ that would define it but has errors (Catalog.broken).
    broken_devices: Mapping[str, str] = field(default_factory=dict)
    #: The folder `devices` were read from, as messages name it (Catalog.folder).
    hardware_folder: str = f"{HARDWARE}/"
    #: For knowledge-base checks: the id of every file of entries/, checked this run or not
    #: (an id is its path), so that a check of a few files still resolves links to the rest.
    entry_ids: frozenset[str] = frozenset()
    #: The kinds whose schemas the knowledge base publishes in its schema/ folder
    #: (schemas.published), looked up once a run rather than once a file.
    published: frozenset[str] = frozenset()
    #: The namespaces and classes the knowledge base adds (kb.yaml) to kb's own.
    words: Words = BUILT_IN
    #: For knowledge-base checks: the kinds whose published schema is not the one kb checks
    #: with (schemas.stale), each with where its text first departs from that one.
    stale_schemas: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    #: For knowledge-base checks: the kinds whose schema is missing from a schema/ folder
    #: that publishes the other kind's (schemas.unpublished).
    unpublished_schemas: frozenset[str] = frozenset()
    #: For model checks: the cards the architecture kinds' recipes bind, ready to evaluate, by
    #: id (those of entries/ that read and parse).
    cards: Mapping[str, Evaluator] = field(default_factory=dict)
    #: For device checks: whether `cards` holds the cards whose measurements the devices'
    #: achieved fractions cite (kb check reads them; other commands do not hold fractions to
    #: measurements).
    cited_cards_read: bool = False
    #: What one rule works out that another of the same subject reads again, by key: a
    #: subject's measurements judged (KB703 and KB704 each read them), found once.
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    #: For model checks: every model of models/ that reads, by id (a model's drafts).
    models: Mapping[str, Model] = field(default_factory=dict)

    @property
    def formulas(self) -> Formulas | None:
        """The entry's parsed formulas, where they parse."""
        return None if self.evaluator is None else self.evaluator.formulas

    @property
    def evaluable(self) -> bool:
        """The entry's formulas parse and evaluating it stays within the budget."""
        from ..evaluation.cost import EVALUATION_BUDGET

        return self.formulas is not None and (
            self.cost is None or self.cost.total <= EVALUATION_BUDGET
        )


def _import_all() -> None:
    """Import every module of this package: importing a rule module registers its rules."""
    for found in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        importlib.import_module(f"{__name__}.{found.name}")


_import_all()
