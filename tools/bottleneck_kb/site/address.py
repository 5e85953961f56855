"""Where the site is published, from one setting: the repository's address on GitHub.

`OWNER/NAME` gives the site's address (GitHub Pages': `https://owner.github.io/NAME/`, or
`https://owner.github.io/` for the repository `OWNER/owner.github.io`), which the canonical
links, the sitemap and the site's copies of the schemas (their `$id`) are under, and where an
entry's source is edited (`https://github.com/OWNER/NAME/edit/main/` and the entry's path).
The setting is the one given (`kb site --repository`, the plugin's `repository:` in
mkdocs.yml), else `KB_REPOSITORY`, else `GITHUB_REPOSITORY` (which GitHub Actions sets in
every workflow, so the Pages workflow needs nothing), else `DEFAULT_REPOSITORY`. The
repository's `schema/` and `kb schema` keep the project's canonical `$id` whatever it is."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..core.errors import KBError

#: The repository a site is published from when nothing names another: this project's.
DEFAULT_REPOSITORY = "bottleneck-kb/bottleneck-kb"
#: Read in this order when no repository is given.
ENVIRONMENT = ("KB_REPOSITORY", "GITHUB_REPOSITORY")
#: The branch an entry's edit link opens.
BRANCH = "main"

# GitHub's own rules: an owner is letters, digits and single hyphens (39 at most), a
# repository's name letters, digits, `.`, `-` and `_` (100 at most, not `.` or `..`).
_OWNER = re.compile(r"[A-Za-z0-9](?:-?[A-Za-z0-9]){0,38}")
_NAME = re.compile(r"(?!\.\.?$)[A-Za-z0-9._-]{1,100}")


@dataclass(frozen=True)
class Address:
    """A repository on GitHub and where its site is published."""

    owner: str
    name: str

    @property
    def repository(self) -> str:
        return f"{self.owner}/{self.name}"

    @property
    def site_url(self) -> str:
        host = f"{self.owner.lower()}.github.io"
        return f"https://{host}/" if self.name.lower() == host else f"https://{host}/{self.name}/"

    @property
    def edit_url(self) -> str:
        """The prefix of a file's path (from the repository's top) for its edit link."""
        return f"https://github.com/{self.repository}/edit/{BRANCH}/"


def repository_address(
    given: str | None = None, environ: Mapping[str, str] = os.environ
) -> Address:
    """The address of `given` (`OWNER/NAME`), else of the first of `ENVIRONMENT` set, else
    of `DEFAULT_REPOSITORY`; KBError for one that is not a repository's address."""
    source, value = "the repository given", given
    for variable in ENVIRONMENT:
        if value:
            break
        source, value = variable, environ.get(variable)
    if not value:
        source, value = "the default", DEFAULT_REPOSITORY
    owner, _, name = value.partition("/")
    if _OWNER.fullmatch(owner) is None or _NAME.fullmatch(name) is None:
        raise KBError(
            f"{source} is {value!r}, not a GitHub repository's OWNER/NAME",
            "the site's address and edit links are those of a repository: "
            "OWNER/NAME, as GITHUB_REPOSITORY has it (bottleneck-kb/bottleneck-kb)",
        )
    return Address(owner, name)
