"""Claims beside sources: each claim names a reference and a check the entry has."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.diagnostics import Diagnostic
from ..core.text import suggest
from ..records.entry import Entry
from . import Context, Scope, rule

CLAIM_REFERENCE = "KB221"
CLAIM_CHECK = "KB222"

# difflib's cost grows with the product of the strings' lengths, for every candidate: a
# did-you-mean is offered among a few short references only, so a hostile file stays cheap.
_MAX_SUGGESTED = 20
_MAX_SUGGESTED_LENGTH = 100


@rule(CLAIM_REFERENCE, "claim-names-a-reference", Scope.ENTRY)
def claims_name_references(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """A claim's reference is one the entry cites.

    ## What it checks
    `claims[].reference` is the arXiv id or URL of one of the entry's references (top level
    or a workaround's).
    An editor cannot show this: a JSON Schema cannot compare one value of a file with another.
    ## Why it matters
    A claim beside its source is only useful when the source can be found.
    ## How to fix
    Cite the source in `references` and name it by its arXiv id or URL.
    ## Fails
    ```yaml
    references:
      - {title: Speculative sampling, first_author: Chen, year: 2023, arxiv: "2302.01318"}
    claims:
      - card: Drafting costs about one target step.
        source: Scoring a short continuation costs about one target token.
        reference: "2302.01381"
        verdict: agrees
    ```
    ## Passes
    ```yaml
    references:
      - {title: Speculative sampling, first_author: Chen, year: 2023, arxiv: "2302.01318"}
    claims:
      - card: Drafting costs about one target step.
        source: Scoring a short continuation costs about one target token.
        reference: "2302.01318"
        verdict: agrees
    ```
    """
    if all(claim.reference is None for claim in entry.claims):
        return  # nothing to look up (most entries)
    keys = list(dict.fromkeys(r.key for r in entry.all_references()))
    for claim in entry.claims:
        if claim.reference is None or claim.reference in keys:
            continue
        if not keys:
            hint = "add the source to references first"
        elif len(keys) <= _MAX_SUGGESTED and len(claim.reference) <= _MAX_SUGGESTED_LENGTH:
            hint = suggest(claim.reference, keys, "references")
        else:
            hint = "write the arXiv id or URL exactly as one of the entry's references gives it"
        yield claim.where.error(
            CLAIM_REFERENCE,
            f"'{claim.reference}' is not the arXiv id or URL of any reference of the entry",
            hint,
            at=("reference",),
        )


@rule(CLAIM_CHECK, "claim-names-a-check", Scope.ENTRY)
def claims_name_checks(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """A claim's check is one of the entry's checks.

    ## What it checks
    `claims[].check` is the index (from 0) of an item of `checks`.
    An editor cannot show this: a JSON Schema cannot compare one value of a file with another.
    ## Why it matters
    A computed claim points at the check that computes it, and the site shows its result.
    ## How to fix
    Give the index of the check, counted from 0.
    ## Fails
    ```yaml
    claims:
      - card: Memory-bound at batch 8.
        verdict: computed
        check: 1
    checks:
      - claim: Memory-bound at batch 8.
        devices: [nvidia-h100-sxm]
        expect: {bound_by: memory}
    ```
    ## Passes
    ```yaml
    claims:
      - card: Memory-bound at batch 8.
        verdict: computed
        check: 0
    checks:
      - claim: Memory-bound at batch 8.
        devices: [nvidia-h100-sxm]
        expect: {bound_by: memory}
    ```
    """
    count = len(entry.checks)
    for claim in entry.claims:
        if claim.check is not None and claim.check >= count:
            yield claim.where.error(
                CLAIM_CHECK,
                f"check {claim.check} does not exist: the entry has {count} check(s)",
                f"checks are counted from 0, so the last is {count - 1}"
                if count
                else "add the check that computes the claim to checks",
                at=("check",),
            )
