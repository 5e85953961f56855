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
    """A reference's year is the year its arXiv id was submitted in (the id's YYMM).

    Fails: `arxiv: "2302.01318"` with `year: 2024`
    Passes: `arxiv: "2302.01318"` with `year: 2023`
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
