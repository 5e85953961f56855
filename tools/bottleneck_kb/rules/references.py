"""References: what an entry cites agrees with itself (an arXiv id carries its year)."""

from __future__ import annotations

from collections.abc import Iterable

from ..diagnostics import Diagnostic
from ..model import Entry
from . import Context, Scope, rule

ARXIV_YEAR = "KB220"


def arxiv_year(arxiv: str) -> int:
    """The year an arXiv id was submitted in: its first two digits, `2302.01318` -> 2023.
    New-style ids (the only ones the schema accepts) began in April 2007, so every one is 20YY."""
    return 2000 + int(arxiv[:2])


@rule(ARXIV_YEAR, "year-matches-arxiv", Scope.ENTRY)
def years_match_arxiv(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """A reference's year is the year its arXiv id was submitted in.

    ## What it checks
    `year` equals 20YY of an arXiv id YYMM.NNNNN.
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
