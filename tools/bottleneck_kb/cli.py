"""The `kb` command: a thin Click layer over the library.

Library modules are imported inside the commands so that `kb --help` costs little more than
importing Click.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

FORMATS = ["text", "json", "github", "sarif"]


def _is_root(folder: Path) -> bool:
    return (folder / "entries").is_dir() or (folder / "hardware").is_dir()


def _root(given: Path | None) -> Path:
    """The knowledge base to work on: `given`, or the nearest folder at or above the current
    one holding entries/ or hardware/. Anywhere else is a usage error, not an empty pass."""
    if given is not None:
        if not _is_root(given):
            raise click.BadParameter(f"{given} has no entries/ or hardware/", param_hint="--root")
        return given
    start = Path.cwd()
    for folder in (start, *start.parents):
        if _is_root(folder):
            return folder
    raise click.UsageError(
        f"no knowledge base at or above {start} (a folder with entries/ or hardware/); "
        "run kb inside one or pass --root"
    )


def _root_option(function: click.decorators.FC) -> click.decorators.FC:
    return click.option(
        "--root",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Knowledge-base root (holding entries/ and hardware/); found from the current "
        "folder upwards by default.",
    )(function)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="bottleneck-kb")
def main() -> None:
    """Bottleneck KB: a knowledge base of ML-systems performance bottlenecks."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default=None,
    help="Output format [default: github when GITHUB_ACTIONS is set, else text].",
)
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too.")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes [default: 1 for small bases, one per core for large].",
)
@click.option(
    "--changed-since",
    metavar="REF",
    default=None,
    help="Check the entry and device files changed since the git ref REF (from its merge "
    "base with HEAD, uncommitted changes included), as PATHS.",
)
@click.option(
    "--catalog",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="Check against the devices of another knowledge base (a folder holding hardware/, "
    "or that hardware/ folder itself) [default: the root's hardware/].",
)
@_root_option
def check(
    paths: tuple[Path, ...],
    output_format: str | None,
    strict: bool,
    jobs: int | None,
    changed_since: str | None,
    catalog: Path | None,
    root: Path | None,
) -> None:
    """Validate the knowledge base, or only PATHS and the entries that depend on them (an
    edited device re-checks the entries that name it), against the whole catalog.

    Exit status: 0 no errors (warnings allowed unless --strict), 1 errors found, 2 usage or
    internal error.
    """
    from .check import check as run_check
    from .diagnostics import INTERNAL
    from .kb import HARDWARE, ChangedFilesError, changed_paths
    from .report import REPORTERS

    if output_format is None:
        output_format = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    base = _root(root)
    selected: list[Path] | None = list(paths) if paths or changed_since is not None else None
    if changed_since is not None:
        try:
            selected = [*paths, *changed_paths(base, changed_since)]
        except ChangedFilesError as exc:
            raise click.BadParameter(str(exc), param_hint="--changed-since") from None
    if catalog is not None and catalog.name == HARDWARE and not (catalog / HARDWARE).is_dir():
        catalog = catalog.parent
    if catalog is not None and not (catalog / HARDWARE).is_dir():
        raise click.BadParameter(f"{catalog} has no {HARDWARE}/", param_hint="--catalog")
    result = run_check(base, selected, jobs, catalog)
    click.echo(REPORTERS[output_format](result), nl=False)
    if any(d.code == INTERNAL for d in result.diagnostics):
        sys.exit(2)
    sys.exit(1 if result.errors or (strict and result.warnings) else 0)


def _parse_assignments(values: tuple[str, ...]) -> dict[str, float]:
    overrides = {}
    for item in values:
        name, sep, text = item.partition("=")
        try:
            if not sep or not name.strip():
                raise ValueError
            number = float(text)
        except ValueError:
            raise click.BadParameter(f"'{item}' is not SYMBOL=NUMBER", param_hint="--set") from None
        if number != number or number in (float("inf"), float("-inf")):
            raise click.BadParameter(f"'{item}' is not finite", param_hint="--set")
        overrides[name.strip()] = number
    return overrides


@main.command("eval")
@click.argument("entry_id")
@click.option(
    "--on",
    "devices",
    multiple=True,
    metavar="HW",
    help="Device id to evaluate on (repeatable) [default: every device].",
)
@click.option(
    "--set",
    "assignments",
    multiple=True,
    metavar="SYMBOL=VALUE",
    help="Override a symbol's typical value (repeatable).",
)
@click.option("--format", "output_format", type=click.Choice(["table", "json"]), default="table")
@_root_option
def eval_command(
    entry_id: str,
    devices: tuple[str, ...],
    assignments: tuple[str, ...],
    output_format: str,
    root: Path | None,
) -> None:
    """Evaluate ENTRY_ID (e.g. flops/speculative-draft) on devices of the catalog."""
    import json

    from .diagnostics import located_line, printable
    from .evaluate import EvaluationError, parse_formulas
    from .evaluation import evaluate_entry, to_dict, to_text
    from .kb import KnowledgeBase
    from .schemas import suggest

    overrides = _parse_assignments(assignments)
    base = _root(root)
    kb = KnowledgeBase.load(base, [base / "entries" / f"{entry_id}.yaml"])
    entry = kb.entry(entry_id)
    if entry is None:
        for d in kb.diagnostics:
            click.echo(located_line(d), err=True)
        raise click.ClickException(f"cannot evaluate '{entry_id}'")
    unknown = [name for name in overrides if name not in entry.symbols]
    if unknown:
        raise click.BadParameter(
            f"'{unknown[0]}' is not a symbol of {entry_id}; "
            + suggest(unknown[0], sorted(entry.symbols), "symbols"),
            param_hint="--set",
        )
    missing = [name for name in devices if name not in kb.catalog.devices]
    if missing:
        raise click.BadParameter(
            f"no device '{missing[0]}'; "
            + suggest(missing[0], sorted(kb.catalog.devices), "devices"),
            param_hint="--on",
        )
    dtype = entry.intensity.dtype
    if devices:
        chosen = [kb.catalog.devices[n] for n in devices]
    else:  # every device that can run the entry's dtype; say which cannot
        chosen = [d for d in kb.catalog.devices.values() if dtype in d.peak_flops]
        for skipped in sorted(set(kb.catalog.devices) - {d.id for d in chosen}):
            click.echo(f"{skipped}: skipped, no dense {dtype} peak in the catalog", err=True)
    formulas, problems = parse_formulas(entry)
    if formulas is None:
        for d in problems:
            click.echo(located_line(d), err=True)
        raise click.ClickException(f"the formulas of '{entry_id}' do not parse")
    try:
        evaluation = evaluate_entry(entry, formulas, chosen, overrides)
    except EvaluationError as exc:
        raise click.ClickException(exc.message) from None
    if output_format == "json":
        click.echo(json.dumps(to_dict(evaluation), indent=2))
    else:
        click.echo(printable(to_text(evaluation)), nl=False)


@main.command()
@click.option("--format", "output_format", type=click.Choice(["table", "json"]), default="table")
@_root_option
def hardware(output_format: str, root: Path | None) -> None:
    """List the devices of the catalog with their ridge point per dtype."""
    import json

    from .evaluation import hardware_rows, hardware_text
    from .kb import Catalog

    catalog = Catalog.load(_root(root))
    devices = list(catalog.devices.values())
    if output_format == "json":
        click.echo(json.dumps(hardware_rows(devices), indent=2))
    else:
        click.echo(hardware_text(devices), nl=False)
    if catalog.diagnostics:
        click.echo(f"{len(catalog.diagnostics)} problem(s) in hardware/; run kb check", err=True)
        sys.exit(1)


@main.command()
def rules() -> None:
    """List every diagnostic code with its name and summary."""
    from .rules import REGISTRY

    for code in sorted(REGISTRY):
        rule = REGISTRY[code]
        click.echo(f"{code}  {rule.name:<28} {rule.summary}")
