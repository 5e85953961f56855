"""The `kb` command: a thin Click layer over the library.

Library modules are imported inside the commands so that `kb --help` costs little more than
importing Click.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click
from click.decorators import FC

from ..core.codes import INTERNAL
from ..core.text import suggest

if TYPE_CHECKING:
    from ..core.diagnostics import Diagnostic
    from ..core.errors import KBError

#: The kinds of result that commands report (`report.CHECK` ...), spelt here so that
#: `kb --help` need not import the reporters.
CHECK, EVALUATION, HARDWARE = "check", "eval", "hardware"


def _is_root(folder: Path) -> bool:
    return (folder / "entries").is_dir() or (folder / "hardware").is_dir()


def _root(given: Path | None, paths: tuple[Path, ...] = ()) -> Path:
    """The knowledge base to work on: `given`, or the nearest folder at or above the current
    one holding entries/ or hardware/, or else at or above the first of the `paths` named (as
    pre-commit names them from the top of a repository that keeps its knowledge base in a
    subfolder). Anywhere else is a usage error, not an empty pass."""
    if given is not None:
        if not _is_root(given):
            raise click.BadParameter(f"{given} has no entries/ or hardware/", param_hint="--root")
        return given
    start = Path.cwd()
    named = [Path(os.path.abspath(paths[0]))] if paths else []
    for folder in (start, *start.parents, *(f for p in named for f in p.parents)):
        if _is_root(folder):
            return folder
    raise click.UsageError(
        f"no knowledge base at or above {start} (a folder with entries/ or hardware/); "
        "run kb inside one or pass --root (kb new --root DIR starts one)"
    )


def _again_args(root: Path | None, catalog: Path | None) -> list[str]:
    """The --root and --catalog options that a command suggested to the user must repeat."""
    given = (("--root", root), ("--catalog", catalog))
    return [part for option, value in given if value is not None for part in (option, str(value))]


def _path_here(base: Path) -> Callable[[str], str]:
    """How a path shown from the root reads from the current folder (kb.shown_from_here)."""
    from ..knowledge.files import shown_from_here

    return shown_from_here(base, Path.cwd()) or str


def _shown_here(base: Path, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics with their paths as they open from the current folder."""
    from ..knowledge.files import shown_from_here

    shown = shown_from_here(base, Path.cwd())
    if shown is None:  # the usual case: nothing to change
        return diagnostics
    return [dataclasses.replace(d, path=shown(d.path)) for d in diagnostics]


def _jobs_option(function: click.decorators.FC) -> click.decorators.FC:
    return click.option(
        "--jobs",
        "-j",
        type=click.IntRange(min=1),
        default=None,
        help="Worker processes [default: 1 for a few files, one per core for many].",
    )(function)


def _root_option(function: click.decorators.FC) -> click.decorators.FC:
    return click.option(
        "--root",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Knowledge-base root (holding entries/ and hardware/); found from the current "
        "folder upwards by default.",
    )(function)


def _catalog_option(function: click.decorators.FC) -> click.decorators.FC:
    return click.option(
        "--catalog",
        type=click.Path(file_okay=False, exists=True, path_type=Path),
        default=None,
        callback=_catalog_root,
        help="Use the devices of another knowledge base (a folder holding hardware/, or that "
        "hardware/ folder itself) [default: the root's hardware/].",
    )(function)


def _catalog_root(_: click.Context, param: click.Parameter, catalog: Path | None) -> Path | None:
    """The knowledge base whose hardware/ --catalog names."""
    from ..knowledge.files import HARDWARE

    folder = HARDWARE
    if catalog is not None and catalog.name == folder and not (catalog / folder).is_dir():
        catalog = catalog.parent
    if catalog is not None and not (catalog / folder).is_dir():
        raise click.BadParameter(f"{catalog} has no {folder}/", param=param)
    return catalog


class _Formats(click.Choice):  # type: ignore[type-arg]
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


def _format_option(kind: str, default: str | None, said: str | None = None) -> Callable[[FC], FC]:
    """--format, offering every format the reporter registry holds for results of `kind`;
    `said` describes a default that depends on the environment."""
    return click.option(
        "--format",
        "output_format",
        type=_Formats(kind),
        default=default,
        help=f"Output format [default: {said or default}].",
    )


class _Commands(click.Group):
    """Every command's errors become messages: a KBError is located and exits 1; anything
    else is a bug in kb, said as one, and exits 2. Never a traceback. A usage error echoes
    what was given on one line, neutralised as text from a file is (a value with a line
    break must not start a line of a CI log as a workflow command)."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        from ..core.diagnostics import one_line

        kwargs["standalone_mode"] = False
        try:
            code = super().main(*args, **kwargs)
        except click.ClickException as exc:
            # click declares the message final; it is shown once, here, neutralised.
            setattr(exc, "message", one_line(exc.message))  # noqa: B010
            exc.show()
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx: click.Context) -> Any:
        from ..core.errors import BadRequest, KBError

        try:
            return super().invoke(ctx)
        except KBError as exc:
            click.echo(_error_text(exc), err=True)
            sys.exit(2 if isinstance(exc, BadRequest) else 1)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
            raise
        except BrokenPipeError:
            raise  # the reader stopped reading (`kb rules | head`): click exits 1, quietly
        except OSError as exc:  # the machine, not kb: a full disk under the output, say
            from ..core.diagnostics import one_line

            with contextlib.suppress(OSError):
                where = f": {exc.filename}" if exc.filename else ""
                click.echo(one_line(f"kb: {exc.strerror or exc}{where}"), err=True)
            sys.exit(2)
        except Exception as exc:  # the point is to catch what nobody foresaw
            from ..core.diagnostics import one_line

            click.echo(
                f"kb: internal error: {type(exc).__name__}: {one_line(str(exc))}\n"
                "    this is a bug in kb; please report it with the command and files",
                err=True,
            )
            sys.exit(2)


def _error_text(exc: KBError) -> str:
    from ..core.diagnostics import one_line

    location = exc.location()
    where = "{}:{}:{}: ".format(*location) if location else ""
    hint = f"\n    hint: {one_line(exc.hint)}" if exc.hint else ""
    return f"Error: {one_line(where + exc.message)}{hint}"


def run() -> NoReturn:
    """The `kb` console script: `main`, then leave without tearing the interpreter down.

    Freeing every object at exit (a last collection over the few hundred thousand that the
    schemas, caches and results make) took about 0.3 s of a 4 s `kb check` of 10,000
    entries, when the process ends anyway. mypy leaves the same way. Output is flushed first;
    a reader that closed the pipe early gets exit 1, as click gives.
    """
    code: object = 0
    try:
        main()
    except SystemExit as done:  # click's standalone mode ends every command this way
        code = done.code
    status = code if isinstance(code, int) else 0 if code is None else 1
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:  # None: the stream was closed before kb started (`>&-`)
                stream.flush()
        except OSError:
            status = status or 1  # a failure the command already reported keeps its status
    os._exit(status)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="bottleneck-kb")
def main() -> None:
    """Bottleneck KB: a knowledge base of ML-systems performance bottlenecks."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@_format_option(CHECK, None, "github when GITHUB_ACTIONS is set, else text")
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too.")
@click.option(
    "--select",
    multiple=True,
    metavar="CODE",
    help="Report only this code (repeatable); the other rules do not run. A file that "
    "cannot be read is still reported: the rule could not run on it.",
)
@click.option(
    "--explain",
    metavar="CODE",
    default=None,
    help="Print what CODE checks, why, how to fix it, with failing and passing examples.",
)
@_jobs_option
@click.option(
    "--changed-since",
    metavar="REF",
    default=None,
    help="Check the files changed since the git ref REF (from its merge base with HEAD, "
    "uncommitted changes included) and what depends on them, as for PATHS.",
)
@click.option(
    "--staged",
    is_flag=True,
    help="Also check the files staged for commit, deletions included, and what depends on "
    "them (the pre-commit hook's mode).",
)
@_catalog_option
@_root_option
def check(
    paths: tuple[Path, ...],
    output_format: str | None,
    strict: bool,
    select: tuple[str, ...],
    explain: str | None,
    jobs: int | None,
    changed_since: str | None,
    staged: bool,
    catalog: Path | None,
    root: Path | None,
) -> None:
    """Validate the knowledge base, or only PATHS and the entries that depend on them (an
    edited device re-checks every entry), against the whole catalog.

    Exit status: 0 no errors (warnings allowed unless --strict), 1 errors found, 2 usage or
    internal error.
    """
    from ..checking.run import check as run_check
    from ..core.diagnostics import one_line
    from ..knowledge.files import display_path
    from ..knowledge.git import ChangedFilesError, changed_paths, staged_paths
    from ..report import render

    # Codes are printed in upper case; `kb406` typed from memory means the same rule.
    if explain is not None:
        click.echo(_explanation(explain.upper()))
        return
    select = tuple(code.upper() for code in select)
    for code in select:
        _known_rule(code)
    if output_format is None:
        output_format = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    base = _root(root, paths)
    if staged and changed_since is not None:
        raise click.UsageError("--staged and --changed-since each choose the changes; give one")
    by_change = staged or changed_since is not None
    selected: list[Path] | None = list(paths) if paths or by_change else None
    changed: list[Path] = []
    removed: list[Path] = []
    try:
        if staged:
            changed, removed = staged_paths(base)
        elif changed_since is not None:
            changed, removed = changed_paths(base, changed_since)
    except ChangedFilesError as exc:
        option = "--staged" if staged else "--changed-since"
        raise click.BadParameter(str(exc), param_hint=option) from None
    result = run_check(base, selected, jobs, frozenset(select) or None, catalog, removed, changed)
    result = dataclasses.replace(result, diagnostics=_shown_here(base, result.diagnostics))
    click.echo(render(CHECK, output_format, result), nl=False)
    if any(d.code == INTERNAL for d in result.diagnostics):
        sys.exit(2)
    # kb reads files from disk: one the commit deletes but the disk keeps (`git rm --cached`)
    # is checked as if the commit held it, and what depends on it would pass unseen.
    kept = [p for p in removed if staged and (p.exists() or p.is_symlink())]
    for path in kept:
        shown = _path_here(base)(display_path(path, base))
        said = f"kb: {shown} is deleted by this commit but kept on disk, where kb reads it"
        click.echo(one_line(f"{said}: delete it, or stage it again"), err=True)
    sys.exit(1 if result.errors or (strict and result.warnings) or kept else 0)


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
        if name.strip() in overrides:  # which one was meant? not the last by accident
            raise click.BadParameter(f"'{name.strip()}' is set twice", param_hint="--set")
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
    help="Set a symbol to a value within its range (repeatable) [default: its typical value].",
)
@click.option(
    "--basis",
    type=click.Choice(["datasheet", "measured"]),
    default="datasheet",
    show_default=True,
    help="Device figures: the datasheet's, or measured ones where the catalog has them.",
)
@click.option(
    "--derated",
    is_flag=True,
    help="Apply each device's typical achieved fraction of peak, where the catalog has one.",
)
@_format_option(EVALUATION, "table")
@_catalog_option
@_root_option
def eval_command(
    entry_id: str,
    devices: tuple[str, ...],
    assignments: tuple[str, ...],
    basis: str,
    derated: bool,
    output_format: str,
    catalog: Path | None,
    root: Path | None,
) -> None:
    """Evaluate ENTRY_ID (e.g. flops/speculative-draft) on devices of the catalog.

    Exit status: 0 evaluated, 1 an entry kb check refuses (its numbers are still shown where
    they can be worked out, with the errors), 2 a bad request.
    """
    from ..checking.run import check_read, checked_catalog
    from ..core.diagnostics import Severity, located_line, one_line
    from ..evaluation.entry import evaluate_entry
    from ..evaluation.result import Basis
    from ..knowledge.base import KnowledgeBase
    from ..knowledge.files import entry_file, related_folders
    from ..report import render
    from ..schemas import published

    overrides = _parse_assignments(assignments)
    base = _root(root)
    kb = KnowledgeBase.load(base, [entry_file(base, entry_id)], catalog)
    entry = kb.entry(entry_id)
    if entry is None:
        for d in _shown_here(base, kb.diagnostics):
            click.echo(located_line(d), err=True)
        raise click.ClickException(f"cannot evaluate '{entry_id}': run kb check")
    figures = Basis(measured=basis == "measured", derated=derated)
    checked = checked_catalog(kb.catalog, published(base))
    usable = checked[0]
    evaluation = evaluate_entry(
        entry, usable.devices, devices, overrides, basis=figures, broken=usable.broken
    )
    click.echo(render(EVALUATION, output_format, evaluation), nl=False)
    # What kb check says of this entry, from what was read: the numbers above state what the
    # entry claims, and a claim kb check refuses is not to be taken from them unremarked.
    refused = [
        d
        for d in check_read(kb, checked).diagnostics
        if d.path == entry.path and d.severity is Severity.ERROR
    ]
    if refused:
        refused = _shown_here(base, refused)
        for d in refused:
            click.echo(located_line(d), err=True)
        errors = f"{len(refused)} error{'s' if len(refused) > 1 else ''}"
        # The path as the command line takes it, from the current folder: as shown where that
        # is the root, inside it or above it; else whole.
        related = related_folders(base, Path.cwd())
        given = refused[0].path if related else str(Path(base, entry.path).absolute())
        again = shlex.join(["kb", "check", given, *_again_args(root, catalog)])
        said = f"kb check refuses {entry_id}: {errors}, above ({again} gives hints)"
        click.echo(one_line(said), err=True)
        sys.exit(1)


@main.command()
@_format_option(HARDWARE, "table")
@_catalog_option
@_root_option
def hardware(output_format: str, catalog: Path | None, root: Path | None) -> None:
    """List the devices of the catalog with their ridge point per dtype."""
    from ..checking.results import HardwareListing
    from ..checking.run import checked_catalog
    from ..knowledge.base import Catalog
    from ..report import render
    from ..schemas import published

    base = catalog or _root(root)
    read = Catalog.load(base, catalog)
    # As kb check and kb eval have it: a device whose file fails its own rules is left out.
    usable, found = checked_catalog(read, published(base))
    listing = HardwareListing(list(usable.devices.values()))
    click.echo(render(HARDWARE, output_format, listing), nl=False)
    problems = len(read.diagnostics) + len(found)
    if not read.devices and not problems:
        click.echo(f"no devices in {read.folder}: add one with kb new --hardware ID", err=True)
    if problems:
        left_out = f", {len(usable.broken)} device(s) left out" if usable.broken else ""
        click.echo(f"{problems} problem(s) in {read.folder}{left_out}; run kb check", err=True)
        sys.exit(1)


def _known_rule(code: str) -> None:
    from ..core.errors import BadRequest
    from ..rules import REGISTRY

    if code not in REGISTRY:
        raise BadRequest(f"no rule {code}", suggest(code, sorted(REGISTRY), "codes"))


def _explanation(code: str) -> str:
    from ..rules import REGISTRY

    _known_rule(code)
    rule = REGISTRY[code]
    return f"{code} {rule.name} ({rule.severity.value})\n\n{rule.doc.text}"


@main.command()
@click.argument("codes", nargs=-1)
def rules(codes: tuple[str, ...]) -> None:
    """List every diagnostic code with its name and summary; with CODES, show each one's
    documentation (as kb check --explain CODE does)."""
    from ..rules import REGISTRY

    if codes:
        click.echo("\n\n".join(_explanation(code.upper()) for code in codes))
        return
    for code in sorted(REGISTRY):
        rule = REGISTRY[code]
        click.echo(f"{code}  {rule.name:<28} {rule.summary}")


@main.command("fmt")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--check", "check_only", is_flag=True, help="Write nothing; list files that would change."
)
@click.option("--diff", is_flag=True, help="Write nothing; show the changes as a unified diff.")
@_jobs_option
@_root_option
def fmt(
    paths: tuple[Path, ...], check_only: bool, diff: bool, jobs: int | None, root: Path | None
) -> None:
    """Rewrite entries and devices (or PATHS) in the canonical form; comments are kept.

    Exit status: 0 nothing to do (or all written), 1 a file would change (--check, --diff) or
    was refused because it does not load, 2 usage error.
    """
    from ..authoring.fmt import format_paths, write_atomic
    from ..core.diagnostics import located_line, one_line, printable

    base = _root(root, paths)
    run = format_paths(base, list(paths) or None, jobs)
    shown = _path_here(base)
    run.formatted = [dataclasses.replace(f, display=shown(f.display)) for f in run.formatted]
    for d in _shown_here(base, run.diagnostics):
        click.echo(located_line(d), err=True)
        if d.hint:
            click.echo(printable(f"    hint: {d.hint}"), err=True)
    if diff or check_only:
        for formatted in run.changed:
            if diff:
                click.echo(printable(formatted.diff()), nl=False)
            else:
                click.echo(one_line(f"would reformat {formatted.display}"))
        sys.exit(1 if run.diagnostics or run.changed else 0)
    # Every file is written before any is reported: a reader that stops early (`| head`)
    # cuts the report short, not the work.
    left: dict[str, str] = {}
    for formatted in run.changed:
        try:
            write_atomic(formatted.path, formatted.after, read=formatted.before)
        except OSError as exc:  # the old file is whole; say so and go on with the rest
            left[formatted.display] = exc.strerror or str(exc)
    for formatted in run.changed:
        if formatted.display in left:
            reason = left[formatted.display]
            click.echo(one_line(f"{formatted.display}: left as it was: {reason}"), err=True)
        else:
            click.echo(one_line(f"reformatted {formatted.display}"))
    sys.exit(1 if run.diagnostics or left else 0)


@main.command("schema")
@click.argument("kind", metavar="KIND")
def schema_command(kind: str) -> None:
    """Print the JSON Schema kb checks files of KIND (entry or hardware) with, to publish in a
    knowledge base's schema/ folder for editors: kb schema entry > schema/entry.schema.json.
    """
    from ..schemas import ENTRY, HARDWARE, schema_text

    if kind not in (ENTRY, HARDWARE):
        raise click.BadParameter(f"'{kind}' is not {ENTRY} or {HARDWARE}", param_hint="KIND")
    click.echo(schema_text(kind), nl=False)


@main.command("new")
@click.argument("identifier", metavar="ID")
@click.option("--hardware", "is_device", is_flag=True, help="Scaffold a device, not an entry.")
@click.option("--class", "cls", default=None, help="The entry's class.")
@click.option("--bound-by", default=None, help="What bounds the entry (memory, compute, ...).")
@_root_option
def new(
    identifier: str, is_device: bool, cls: str | None, bound_by: str | None, root: Path | None
) -> None:
    """Write a skeleton entries/ID.yaml (or hardware/ID.yaml) to fill in.

    Each field has a comment saying what it holds and a TODO placeholder that kb check reports
    until it is replaced. An existing file is never overwritten. `--root DIR` names the
    knowledge base, and starts one in an existing folder that has none.
    """
    from ..authoring.scaffold import new_file
    from ..core.diagnostics import one_line
    from ..knowledge.files import display_path
    from ..schemas import ENTRY, HARDWARE

    given = {k: v for k, v in (("class", cls), ("bound_by", bound_by)) if v is not None}
    if is_device and given:
        raise click.UsageError("--class and --bound-by are for entries, not --hardware")
    if root is not None and not root.is_dir():
        raise click.BadParameter(f"{root} is not a folder", param_hint="--root")
    # Named by --root, a folder becomes a knowledge base with its first file.
    base = root if root is not None else _root(None)
    path = new_file(base, HARDWARE if is_device else ENTRY, identifier, given)
    shown = display_path(path, base)
    shown = _path_here(base)(shown)
    click.echo(one_line(f"wrote {shown}; replace each TODO, then run kb check"))
    if not is_device:  # the skeleton holds the keys an entry must have, not those it may
        click.echo(
            "  it holds the required keys; the optional ones (the other roofs' formulas, "
            "checks, derived values, bounds, ...) are in CONTRIBUTING.md, 'What each field "
            "means', and the schema"
        )
