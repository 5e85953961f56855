"""Claims beside sources: each claim names a reference and a check the entry has."""

from __future__ import annotations

from collections.abc import Iterable

from ..diagnostics import Diagnostic
from ..model import Entry
from ..schemas import suggest
from . import Context, Scope, rule

CLAIM_REFERENCE = "KB221"
CLAIM_CHECK = "KB222"

# difflib's cost grows with the product of the strings' lengths, for every candidate: a
# did-you-mean is offered among a few short references only, so a hostile file stays cheap.
_MAX_SUGGESTED = 20
_MAX_SUGGESTED_LENGTH = 100


@rule(CLAIM_REFERENCE, "claim-names-a-reference", Scope.ENTRY)
def claims_name_references(entry: Entry, context: Context) -> Iterable[Diagnostic]:
    """A claim's reference is the arXiv id or URL of one of the entry's references (top
    level or in a workaround).

    Fails: `reference: "2605.10435"` when the entry cites `arxiv: "2605.10453"`
    Passes: `reference: "2605.10453"`
    """
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
    """A claim's check is the index (from 0) of one of the entry's checks.

    Fails: `check: 4` in an entry with four checks
    Passes: `check: 3`, naming the fourth check
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
