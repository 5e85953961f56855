"""What the commands share: finding the knowledge base to work on, the options several take
(--root, --catalog, --jobs, --format) and paths shown as they open from the current folder.

Library modules are imported inside the functions so that `kb --help` costs little more than
importing Click."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click
from click.decorators import FC

if TYPE_CHECKING:
    from ..core.diagnostics import Diagnostic


#: The kinds of result that commands report (`report.CHECK` ...), spelt here so that
#: `kb --help` need not import the reporters.
CHECK, EVALUATION, HARDWARE, ESTIMATE, DIFF = "check", "eval", "hardware", "estimate", "diff"


def is_root(folder: Path) -> bool:
    return any((folder / name).is_dir() for name in ("entries", "hardware", "models"))


def root_folder(given: Path | None, paths: tuple[Path, ...] = ()) -> Path:
    """The knowledge base to work on: `given`, or the nearest folder at or above the current
    one holding entries/, hardware/ or models/, or else at or above the first of the `paths`
    named (as pre-commit names them from the top of a repository that keeps its knowledge base
    in a subfolder). Anywhere else is a usage error, not an empty pass."""
    if given is not None:
        if not is_root(given):
            raise click.BadParameter(
                f"{given} has no entries/, hardware/ or models/", param_hint="--root"
            )
        return given
    start = Path.cwd()
    named = [Path(os.path.abspath(paths[0]))] if paths else []
    for folder in (start, *start.parents, *(f for p in named for f in p.parents)):
        if is_root(folder):
            return folder
    raise click.UsageError(
        f"no knowledge base at or above {start} (a folder with entries/, hardware/ or models/); "
        "run kb inside one or pass --root (kb new --root DIR starts one)"
    )


def again_args(root: Path | None, catalog: Path | None) -> list[str]:
    """The --root and --catalog options that a command suggested to the user must repeat."""
    given = (("--root", root), ("--catalog", catalog))
    return [part for option, value in given if value is not None for part in (option, str(value))]


def path_here(base: Path) -> Callable[[str], str]:
    """How a path shown from the root reads from the current folder (kb.shown_from_here)."""
    from ..knowledge.files import shown_from_here

    return shown_from_here(base, Path.cwd()) or str


def shown_here(base: Path, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics with their paths as they open from the current folder."""
    from ..knowledge.files import shown_from_here

    shown = shown_from_here(base, Path.cwd())
    if shown is None:  # the usual case: nothing to change
        return diagnostics
    return [dataclasses.replace(d, path=shown(d.path)) for d in diagnostics]


def jobs_option(function: click.decorators.FC) -> click.decorators.FC:
    return click.option(
        "--jobs",
        "-j",
        type=click.IntRange(min=1),
        default=None,
        help="Worker processes [default: 1 for a few files, one per core for many].",
    )(function)


def root_option(function: click.decorators.FC) -> click.decorators.FC:
    return click.option(
        "--root",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Knowledge-base root (holding entries/ and hardware/); found from the current "
        "folder upwards by default.",
    )(function)


def basis_options(function: click.decorators.FC) -> click.decorators.FC:
    """--basis and --derated: which device figures an evaluation uses (`kb eval`,
    `kb estimate`)."""
    function = click.option(
        "--derated",
        is_flag=True,
        help="Apply each device's typical achieved fraction of peak, where the catalog has one.",
    )(function)
    return click.option(
        "--basis",
        type=click.Choice(["datasheet", "measured"]),
        default="datasheet",
        show_default=True,
        help="Device figures: the datasheet's, or measured ones where the catalog has them.",
    )(function)


def catalog_option(function: click.decorators.FC) -> click.decorators.FC:
    return click.option(
        "--catalog",
        type=click.Path(file_okay=False, exists=True, path_type=Path),
        default=None,
        callback=catalog_root,
        help="Use the devices of another knowledge base (a folder holding hardware/, or that "
        "hardware/ folder itself) [default: the root's hardware/].",
    )(function)


def catalog_root(_: click.Context, param: click.Parameter, catalog: Path | None) -> Path | None:
    """The knowledge base whose hardware/ --catalog names."""
    from ..knowledge.files import HARDWARE

    folder = HARDWARE
    if catalog is not None and catalog.name == folder and not (catalog / folder).is_dir():
        catalog = catalog.parent
    if catalog is not None and not (catalog / folder).is_dir():
        raise click.BadParameter(f"{catalog} has no {folder}/", param=param)
    return catalog


class Formats(click.Choice):  # type: ignore[type-arg]
    """The formats the reporter registry holds for one kind of result, read when first asked
    for (parsing or help), so that `kb --help` does not import the reporters."""

    def __init__(self, kind: str) -> None:
        super().__init__([])
        self.kind = kind

    @property  # type: ignore[override]
    def choices(self) -> list[str]:
        from ..report import formats

        return formats(self.kind)

    @choices.setter
    def choices(self, value: object) -> None:
        pass


def format_option(kind: str, default: str | None, said: str | None = None) -> Callable[[FC], FC]:
    """--format, offering every format the reporter registry holds for results of `kind`;
    `said` describes a default that depends on the environment."""
    return click.option(
        "--format",
        "output_format",
        type=Formats(kind),
        default=default,
        help=f"Output format [default: {said or default}].",
    )
