"""Links between entries: every related id names an entry of the knowledge base, not itself."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

from ..core.diagnostics import Diagnostic, error
from ..core.text import suggest
from ..records.entry import Entry
from . import Context, Scope, rule
from .identity import Summary

UNKNOWN_RELATED = "KB212"
RELATED_TO_ITSELF = "KB213"


@rule(UNKNOWN_RELATED, "known-related", Scope.KNOWLEDGE_BASE)
def related_ids_exist(summaries: Sequence[Summary], context: Context) -> Iterable[Diagnostic]:
    """Every id in `related` is the id of an entry of the knowledge base.

    ## What it checks
    That each `related[].id` is the id of a file of `entries/`, whether or not that file is
    among the files checked in this run.
    An editor cannot show this: a JSON Schema sees one file's data, not the files around it.
    ## Why it matters
    Related entries are shown as links in both directions; a link to an id that does not
    exist is a dead link on the site and in the JSON export.
    ## How to fix
    Correct the id (the hint names the closest existing one), or drop the item.
    ## Fails
    ```yaml
    related:
      - id: fixtures/othre
        relation: compares_to
    ---
    # file: entries/fixtures/other.yaml
    id: fixtures/other
    ```
    ## Passes
    ```yaml
    related:
      - id: fixtures/other
        relation: compares_to
    ---
    # file: entries/fixtures/other.yaml
    id: fixtures/other
    ```
    """
    # Every entry's id is in context.entry_ids but for a check of files outside entries/.
    checked: set[str] | None = None
    listed: list[str] | None = None
    for summary in summaries:
        for target, line, col in summary.related:
            if target in context.entry_ids:
                continue
            if checked is None:
                checked = {s.id for s in summaries}
            if target in checked:
                continue
            listed = listed or sorted(context.entry_ids | checked)
            yield error(
                UNKNOWN_RELATED,
                summary.path,
                line,
                col,
                f"no entry '{target}' in entries/",
                _closest(target, listed),
            )


def _closest(target: str, known: list[str]) -> str:
    """did-you-mean among the ids of the target's namespace, or among all ids when the
    namespace itself is wrong (then without listing them: there may be thousands)."""
    namespace = target.partition("/")[0]
    same = [known_id for known_id in known if known_id.partition("/")[0] == namespace]
    if same:
        return suggest(target, same, f"ids in {namespace}/")
    close = difflib.get_close_matches(target, known, n=1)
    return f"did you mean '{close[0]}'?" if close else f"no entries in {namespace}/"


@rule(RELATED_TO_ITSELF, "related-not-self", Scope.ENTRY)
def not_related_to_itself(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """An entry does not list itself in `related`.

    ## What it checks
    That no `related[].id` is the entry's own id.
    An editor cannot show this: a JSON Schema cannot compare one value of a file with another.
    ## Why it matters
    A link from a page to itself tells the reader nothing, and is usually a copied id.
    ## How to fix
    Link to the other entry meant, or drop the item.
    ## Fails
    ```yaml
    related:
      - id: fixtures/minimal
        relation: compares_to
    ```
    ## Passes
    ```yaml
    related:
      - id: fixtures/other
        relation: compares_to
    ---
    # file: entries/fixtures/other.yaml
    id: fixtures/other
    ```
    """
    for link in entry.related:
        if link.id == entry.id:
            yield link.where.error(
                RELATED_TO_ITSELF,
                f"'{link.id}' is this entry",
                "link to another entry, or drop the item",
                at=("id",),
            )
