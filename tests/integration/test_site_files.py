"""`kb site DIR` writes the site as files, only where it may (a new, empty or its own folder,
no link, nothing git tracks), whole or not at all; and the published address comes from one
setting, the repository's, in `kb site` and in a real MkDocs build alike."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from bottleneck_kb.cli import main
from bottleneck_kb.schemas import ENTRY, HARDWARE, schema
from bottleneck_kb.site.files import MARKER

from ..conftest import MINIMAL_PATH

#: The fixture knowledge base's one entry, as a page below the docs folder.
PAGE = "entries/fixtures/minimal.md"
CONFIG = """\
site_name: Fixture
docs_dir: site
site_dir: build/site
theme:
  name: material
plugins:
  - bottleneck-kb
"""


def kb_site(*args: str, environ: dict[str, str] | None = None) -> Result:
    env = {"KB_REPOSITORY": None, "GITHUB_REPOSITORY": None, **(environ or {})}
    return CliRunner().invoke(main, ["site", *args], env=env, catch_exceptions=False)


def with_docs(root: Path) -> Path:
    (root / "site").mkdir()
    (root / "site" / "about.md").write_text("# About\n", "utf-8")
    return root


def test_a_folder_kb_site_did_not_write_is_left_as_it_was(kb_root: Path) -> None:
    folder = kb_root / "build" / "docs"
    folder.mkdir(parents=True)
    (folder / "notes.md").write_text("mine\n", "utf-8")
    result = kb_site(str(folder), "--root", str(kb_root))
    assert result.exit_code == 1
    assert result.output == (
        f"Error: the site's pages would replace {folder}, which holds files kb site did not "
        f"write (it has no {MARKER})\n"
        "    hint: name a new or empty folder; kb site replaces its folder whole\n"
    )
    assert [p.name for p in folder.iterdir()] == ["notes.md"]


def test_a_folder_reached_through_a_link_is_refused(kb_root: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (kb_root / "build").symlink_to(elsewhere)
    result = kb_site(str(kb_root / "build" / "docs"), "--root", str(kb_root))
    assert result.exit_code == 1
    assert result.output.startswith(
        f"Error: the site's pages would be written through a link: build is a link to {elsewhere}"
    )
    assert list(elsewhere.iterdir()) == []


def test_a_link_among_the_hand_written_pages_is_not_followed(kb_root: Path) -> None:
    with_docs(kb_root)
    (kb_root / "site" / "secret.md").symlink_to("/etc/hostname")
    result = kb_site(str(kb_root / "build" / "docs"), "--root", str(kb_root))
    assert result.exit_code == 1
    assert result.output.startswith(
        f"Error: {kb_root / 'site' / 'secret.md'} is a link; the site's hand-written pages are "
        "copied from real files only"
    )
    assert not (kb_root / "build").exists()


@pytest.mark.slow
def test_a_hand_written_page_where_a_generated_one_goes_is_refused(kb_root: Path) -> None:
    with_docs(kb_root)
    (kb_root / "site" / "index.md").write_text("# Mine\n", "utf-8")
    result = kb_site(str(kb_root / "out"), "--root", str(kb_root))
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        f"Error: {kb_root / 'site'}/index.md is where the site's generated page index.md goes; "
        "move or rename that file"
    )
    assert not (kb_root / "out").exists()


def test_the_folder_may_not_lie_in_the_hand_written_pages(kb_root: Path) -> None:
    with_docs(kb_root)
    result = kb_site(str(kb_root / "site" / "out"), "--root", str(kb_root))
    assert result.exit_code == 1
    assert "which holds or lies in the folder of hand-written pages" in result.output


def test_a_folder_git_tracks_files_in_is_refused(kb_root: Path) -> None:
    folder = kb_root / "docs-out"
    folder.mkdir()
    (folder / MARKER).write_text("", "utf-8")
    subprocess.run(["git", "init", "-q", str(kb_root)], check=True)
    subprocess.run(["git", "-C", str(kb_root), "add", f"docs-out/{MARKER}"], check=True)
    result = kb_site(str(folder), "--root", str(kb_root))
    assert result.exit_code == 1
    assert result.output.startswith(
        f"Error: the site's pages would be written where git tracks files: docs-out/{MARKER}"
    )


def test_a_repository_that_is_no_address_is_a_located_error(kb_root: Path) -> None:
    result = kb_site(str(kb_root / "out"), "--root", str(kb_root), "--repository", "a b")
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        "Error: the repository given is 'a b', not a GitHub repository's OWNER/NAME"
    )


@pytest.mark.slow
def test_kb_site_writes_every_page_and_replaces_its_own_folder_whole(kb_root: Path) -> None:
    with_docs(kb_root)
    folder = kb_root / "build" / "docs"
    first = kb_site(str(folder), "--root", str(kb_root), environ={"GITHUB_REPOSITORY": "a/b"})
    assert first.exit_code == 0, first.output
    assert first.output == f"Wrote the site for https://a.github.io/b/ into {folder}.\n"
    written = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert {"about.md", "index.md", MARKER, PAGE, "export/knowledge-base.json"} <= written
    assert f"https://github.com/a/b/edit/main/{MINIMAL_PATH}" in (folder / PAGE).read_text()
    for kind in (ENTRY, HARDWARE):
        published = json.loads((folder / "schema" / f"{kind}.schema.json").read_text("utf-8"))
        assert published["$id"] == f"https://a.github.io/b/schema/{kind}.schema.json"
    # The repository's schemas and kb schema keep the project's own $id.
    assert json.loads(kb_schema(ENTRY))["$id"] == schema(ENTRY)["$id"]
    assert "github.io" not in schema(ENTRY)["$id"]
    (folder / "stale.md").write_text("from before\n", "utf-8")
    again = kb_site(str(folder), "--root", str(kb_root), "--repository", "c/d")
    assert again.exit_code == 0, again.output
    assert not (folder / "stale.md").exists()
    assert "https://github.com/c/d/edit/main/" in (folder / PAGE).read_text("utf-8")
    # Nothing is left beside it: the new folder took the old one's place.
    assert sorted(p.name for p in folder.parent.iterdir()) == ["docs"]
    assert oct(folder.stat().st_mode & 0o777) == "0o755"


@pytest.mark.slow
def test_nothing_is_written_where_kb_check_finds_errors(kb_root: Path) -> None:
    (kb_root / MINIMAL_PATH).write_text("id: fixtures/minimal\n", "utf-8")
    result = kb_site(str(kb_root / "out"), "--root", str(kb_root))
    assert result.exit_code == 1
    assert result.output.splitlines()[-1].startswith("Wrote nothing: kb check finds ")
    assert not (kb_root / "out").exists()


def kb_schema(kind: str) -> str:
    result = CliRunner().invoke(main, ["schema", kind], catch_exceptions=False)
    assert result.exit_code == 0
    return result.output


def mkdocs_site(root: Path, monkeypatch: pytest.MonkeyPatch, repository: str | None) -> Path:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    monkeypatch.delenv("KB_REPOSITORY", raising=False)
    if repository is not None:
        monkeypatch.setenv("KB_REPOSITORY", repository)
    (root / "mkdocs.yml").write_text(CONFIG, "utf-8")
    build(load_config(config_file=str(root / "mkdocs.yml"), strict=True))
    return root / "build" / "site"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("repository", "site_url", "edit_url"),
    [
        ("team/perf", "https://team.github.io/perf/", "https://github.com/team/perf/edit/main/"),
        (
            None,
            "https://bottleneck-kb.github.io/bottleneck-kb/",
            "https://github.com/bottleneck-kb/bottleneck-kb/edit/main/",
        ),
    ],
)
def test_a_mkdocs_build_publishes_under_the_repositorys_address(
    kb_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    repository: str | None,
    site_url: str,
    edit_url: str,
) -> None:
    site = mkdocs_site(with_docs(kb_root), monkeypatch, repository)
    page = (site / "entries" / "fixtures" / "minimal" / "index.html").read_text("utf-8")
    assert f'<link rel="canonical" href="{site_url}entries/fixtures/minimal/">' in page
    assert f'<p class="kb-edit"><a href="{edit_url}{MINIMAL_PATH}">' in page
    for kind in (ENTRY, HARDWARE):
        published = json.loads((site / "schema" / f"{kind}.schema.json").read_text("utf-8"))
        assert published["$id"] == f"{site_url}schema/{kind}.schema.json"
    assert f"<loc>{site_url}entries/fixtures/minimal/</loc>" in (site / "sitemap.xml").read_text()
    assert os.environ.get("KB_REPOSITORY") == repository
