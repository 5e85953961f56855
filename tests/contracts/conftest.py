"""The repository's own site, built once per session as CI builds it (`mkdocs build --strict`
in a process of its own) for every contract test that reads it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from ..conftest import REPOSITORY


class RepositorySite(NamedTuple):
    """The strict build's process and the folder it wrote."""

    build: subprocess.CompletedProcess[str]
    folder: Path


@pytest.fixture(scope="session")
def repository_site(tmp_path_factory: pytest.TempPathFactory) -> RepositorySite:
    folder = tmp_path_factory.mktemp("repository-site") / "site"
    build = subprocess.run(
        [Path(sys.executable).parent / "mkdocs", "build", "--strict", "--site-dir", str(folder)],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=False,
    )
    return RepositorySite(build, folder)
