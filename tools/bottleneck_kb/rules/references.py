"""References: an entry cites its sources, and what it cites agrees with itself (an arXiv id
carries its year)."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.diagnostics import Diagnostic, Severity
from ..records.entry import Entry
from . import Context, Scope, rule

ARXIV_YEAR = "KB220"
CITES_A_SOURCE = "KB223"


def arxiv_year(arxiv: str) -> int:
    """The year an arXiv id was submitted in: its first two digits, `2302.01318` -> 2023.
    New-style ids (the only ones the schema accepts) began in April 2007, so every one is 20YY."""
    return 2000 + int(arxiv[:2])


@rule(ARXIV_YEAR, "year-matches-arxiv", Scope.ENTRY)
def years_match_arxiv(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """A reference's year is the year its arXiv id was submitted in.

    ## What it checks
    `year` equals 20YY of an arXiv id YYMM.NNNNN.
    An editor cannot show this: a JSON Schema cannot compare one value of a file with another.
    ## Why it matters
    A year that disagrees with the id is a sign the reference was copied wrong.
    ## How to fix
    Write the id's year; to cite a later journal version, give its url instead.
    ## Fails
    ```yaml
    references:
      - {title: Speculative sampling, first_author: Chen, year: 2024, arxiv: "2302.01318"}
    ```
    ## Passes
    ```yaml
    references:
      - {title: Speculative sampling, first_author: Chen, year: 2023, arxiv: "2302.01318"}
    ```
    """
    for reference in entry.all_references():
        if reference.arxiv is None:
            continue
        submitted = arxiv_year(reference.arxiv)
        if reference.year != submitted:
            yield reference.where.error(
                ARXIV_YEAR,
                f"year {reference.year} disagrees with arXiv {reference.arxiv}, "
                f"submitted in {submitted}",
                f"write year: {submitted}; to cite a later journal version, give its url "
                "instead of the arXiv id",
                at=("year",),
            )


@rule(CITES_A_SOURCE, "entry-cites-a-source", Scope.ENTRY, Severity.WARNING)
def entries_cite_a_source(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """An entry lists the sources its formulas and figures come from.

    ## What it checks
    That the entry has at least one item in `references`. A workaround's own references do
    not count: they back the workaround, not the entry's formulas.
    An editor does not show this: it is a warning, and a JSON Schema can only refuse.
    ## Why it matters
    Readers decide how to build a system from these numbers; a formula or a typical value
    nobody can trace to a paper, a datasheet or a measurement cannot be checked or trusted.
    A warning, so a knowledge base can choose: `kb check --strict` (this repository's CI)
    fails on it.
    ## How to fix
    Add the paper, datasheet or measurement you read, with its first author and year, and an
    arXiv id or a url.
    ## Fails
    ```yaml
    references: []
    ```
    ## Passes
    ```yaml
    references:
      - {title: Speculative sampling, first_author: Chen, year: 2023, arxiv: "2302.01318"}
    ```
    """
    if not entry.references:
        yield entry.source.error_at(
            CITES_A_SOURCE,
            ("references",) if "references" in entry.source.data else (),
            "the entry cites no source",
            "list under references: the paper, datasheet or measurement its formulas and "
            "typical values come from",
            key="references" in entry.source.data,
        )
