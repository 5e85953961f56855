"""`kb rules`: every diagnostic code, or one code's documentation."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..core.text import suggest

if TYPE_CHECKING:
    pass


def known_rule(code: str) -> None:
    from ..core.errors import BadRequest
    from ..rules import REGISTRY

    if code not in REGISTRY:
        raise BadRequest(f"no rule {code}", suggest(code, sorted(REGISTRY), "codes"))


def explanation(code: str) -> str:
    from ..rules import REGISTRY

    known_rule(code)
    rule = REGISTRY[code]
    return f"{code} {rule.name} ({rule.severity.value})\n\n{rule.doc.text}"


@click.command()
@click.argument("codes", nargs=-1)
def rules(codes: tuple[str, ...]) -> None:
    """List every diagnostic code with its name and summary; with CODES, show each one's
    documentation (as kb check --explain CODE does)."""
    from ..rules import REGISTRY

    if codes:
        click.echo("\n\n".join(explanation(code.upper()) for code in codes))
        return
    for code in sorted(REGISTRY):
        rule = REGISTRY[code]
        click.echo(f"{code}  {rule.name:<28} {rule.summary}")
