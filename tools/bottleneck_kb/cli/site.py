"""`kb site DIR`: the site's pages, assets, schemas and export written as files."""

from __future__ import annotations

import os
from pathlib import Path

import click

from .options import root_folder, root_option

#: The hand-written pages' folder, below the root, unless --docs names another.
DOCS = "site"


@click.command("site")
@click.argument("folder", metavar="DIR", type=click.Path(path_type=Path))
@root_option
@click.option(
    "--docs",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help=f"The site's hand-written pages, copied in beside the generated ones [default: "
    f"{DOCS}/ of the root, when there is one].",
)
@click.option(
    "--repository",
    metavar="OWNER/NAME",
    default=None,
    help="The GitHub repository the site is published from, which sets its address "
    "(https://OWNER.github.io/NAME/, the schemas' $id) and the entries' edit links "
    "[default: $KB_REPOSITORY, else $GITHUB_REPOSITORY, else bottleneck-kb/bottleneck-kb].",
)
def site_command(
    folder: Path, root: Path | None, docs: Path | None, repository: str | None
) -> None:
    """Write the site into DIR as a docs folder any builder builds with mkdocs.yml and no
    plugin (Zensical, say): the hand-written pages and every generated page, asset, published
    schema and the JSON export, as the MkDocs plugin serves them.

    DIR is replaced whole, or left as it was: it must be new, empty or written by kb site
    before, and it is never reached through a link. Nothing is written when kb check finds
    errors; they are printed and kb site exits 1.
    """
    from ..core.diagnostics import Severity, located_line
    from ..site.address import repository_address
    from ..site.cache import default_folder
    from ..site.files import write_site
    from ..site.pages.html import Options

    base = root_folder(root)
    if docs is None and (base / DOCS).is_dir():
        docs = base / DOCS
    address = repository_address(repository)
    options = Options(address.site_url, address.edit_url, True, default_folder(base))
    site = write_site(base, Path(os.path.abspath(folder)), options, docs)
    for diagnostic in site.diagnostics:
        click.echo(located_line(diagnostic), err=True)
    errors = sum(d.severity is Severity.ERROR for d in site.diagnostics)
    if errors:
        click.echo(f"Wrote nothing: kb check finds {errors} error(s).", err=True)
        raise SystemExit(1)
    click.echo(f"Wrote the site for {address.site_url} into {folder}.")
