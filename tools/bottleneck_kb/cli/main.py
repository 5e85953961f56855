"""The `kb` command: a thin Click layer over the library, one module a command (`check`,
`evaluate`, `hardware`, `rules`, `fmt`, `schema`, `new`) and the group that holds them here.

Library modules are imported inside the commands so that `kb --help` costs little more than
importing Click."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any, NoReturn

import click

from .check import check
from .diff import diff_command
from .estimate import estimate_command
from .evaluate import eval_command
from .fmt import fmt
from .hardware import hardware
from .new import new
from .rules import rules
from .schema import schema_command
from .site import site_command

if TYPE_CHECKING:
    from ..core.errors import KBError


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


for _command in (
    check,
    diff_command,
    eval_command,
    estimate_command,
    hardware,
    rules,
    fmt,
    schema_command,
    site_command,
    new,
):
    main.add_command(_command)
