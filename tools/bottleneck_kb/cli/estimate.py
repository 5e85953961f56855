"""`kb estimate`: a model at a deployment on the catalog's devices."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import click

from .options import (
    ESTIMATE,
    again_args,
    basis_options,
    catalog_option,
    format_option,
    root_folder,
    root_option,
    shown_here,
)


def _deployment(values: tuple[str, ...], degrees: dict[str, int | None]) -> dict[str, Any]:
    from ..composition.deployment import check_names, parse_value
    from ..core.errors import BadRequest

    given: dict[str, Any] = {}
    for item in values:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise click.BadParameter(f"'{item}' is not NAME=VALUE", param_hint="--set")
        if name in given:
            raise click.BadParameter(f"'{name}' is set twice", param_hint="--set")
        try:
            check_names({name: None})
            given[name] = parse_value(name, text.strip())
        except BadRequest as exc:
            raise click.BadParameter(
                f"{exc.message}; {exc.hint}" if exc.hint else exc.message, param_hint="--set"
            ) from None
    for name, value in degrees.items():
        if value is None:
            continue
        if name in given:
            raise click.UsageError(f"--{name} and --set {name}= both give {name}: give one")
        given[name] = float(value)
    return given


@click.command("estimate")
@click.argument("model_id")
@click.option(
    "--on",
    "devices",
    multiple=True,
    metavar="HW",
    help="Device id to estimate on (repeatable) [default: every device].",
)
@click.option(
    "--set",
    "assignments",
    multiple=True,
    metavar="NAME=VALUE",
    help="Set a deployment parameter (batch, prompt, context, output, tp, ep, pp, weight_bits, "
    "kv_bits, activation_bits, dtype, draft_k, acceptance_rate) [default: the model's typical "
    "deployment].",
)
@click.option("--tp", type=click.IntRange(min=1), default=None, help="Short for --set tp=N.")
@click.option("--ep", type=click.IntRange(min=1), default=None, help="Short for --set ep=N.")
@click.option("--pp", type=click.IntRange(min=1), default=None, help="Short for --set pp=N.")
@click.option(
    "--draft",
    "draft_id",
    default=None,
    metavar="MODEL",
    help="A draft model: add speculative decoding.",
)
@basis_options
@format_option(ESTIMATE, "table")
@catalog_option
@root_option
def estimate_command(
    model_id: str,
    devices: tuple[str, ...],
    assignments: tuple[str, ...],
    tp: int | None,
    ep: int | None,
    pp: int | None,
    draft_id: str | None,
    basis: str,
    derated: bool,
    output_format: str,
    catalog: Path | None,
    root: Path | None,
) -> None:
    """Estimate MODEL_ID (e.g. llama-3.1-70b) at a deployment on devices of the catalog: time
    to first token, time per output token, memory and what bounds each.

    Exit status: 0 estimated, 1 a model kb check refuses (its numbers are still shown where
    they can be worked out, with the errors), 2 a bad request.
    """
    from dataclasses import replace

    from ..checking.run import checked_catalog, model_findings
    from ..composition.cards import recipe_cards
    from ..composition.estimate import ModelError
    from ..composition.measured import model_outcomes
    from ..composition.request import devices_named, estimate_model, find_model, unread_parameters
    from ..core.diagnostics import Severity, located_line, one_line
    from ..evaluation.result import Basis
    from ..knowledge.base import Catalog, read_models
    from ..report import render
    from ..schemas import published

    given = _deployment(assignments, {"tp": tp, "ep": ep, "pp": pp})
    base = root_folder(root)
    problems: list[Any] = []
    models = read_models(base, problems)
    try:
        model = find_model(models, model_id)
    except Exception:
        broken = [d for d in problems if Path(d.path).stem == model_id]
        if broken:
            for d in shown_here(base, broken):
                click.echo(located_line(d), err=True)
            raise click.ClickException(f"cannot estimate '{model_id}': run kb check") from None
        raise
    draft = None if draft_id is None else find_model(models, draft_id)
    usable, _ = checked_catalog(Catalog.load(base, catalog), published(base))
    chosen = devices_named(usable.devices, devices)
    cards = recipe_cards(base)
    figures = Basis(measured=basis == "measured", derated=derated)
    refused = [
        d
        for d in model_findings(
            base, [model, *([draft] if draft else [])], usable.devices, everyone=models
        )
        if d.severity is Severity.ERROR
    ]
    unread = unread_parameters(model, given)
    try:
        found = estimate_model(model, given, chosen, cards, figures, draft)
    except ModelError as exc:
        found = None
        refused = refused or []
        click.echo(one_line(f"cannot estimate {model_id}: {exc.message}"), err=True)
    if found is not None:
        on = [d.id for d in chosen] if devices else None
        found = replace(found, measured=tuple(model_outcomes(model, usable.devices, cards, on)))
        text = render(ESTIMATE, output_format, found)
        if unread and output_format == "table":
            first, _, rest = text.partition("\n")
            text = f"{first}\n{one_line('not read by any row: ' + ', '.join(unread))}\n{rest}"
        click.echo(text, nl=False)
    if refused or found is None:
        refused = shown_here(base, refused)
        for d in refused:
            click.echo(located_line(d), err=True)
        again = shlex.join(["kb", "check", model.path, *again_args(root, catalog)])
        errors = f"{len(refused)} error{'s' * (len(refused) != 1)}"
        said = f"kb check refuses {model_id}: {errors} ({again} gives hints)"
        click.echo(one_line(said), err=True)
        sys.exit(1)
