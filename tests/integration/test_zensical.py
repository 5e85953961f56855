"""The site builds with Zensical, Material for MkDocs' successor, which reads mkdocs.yml but runs
no MkDocs plugin: `kb site DIR` writes the pages as files, Zensical (the version pinned in the
test extras) builds them with the repository's mkdocs.yml, and the entry, device and model
pages come out with their MathML, tables and SVG charts, their links resolving. In CI a
Zensical that did not install fails; elsewhere the test is skipped."""

from __future__ import annotations

import json
import os
import posixpath
import re
import subprocess
import sys
import tomllib
from html.parser import HTMLParser
from importlib import metadata
from pathlib import Path

import pytest
import yaml

from bottleneck_kb.knowledge.addresses import device_page, entry_page, model_page
from bottleneck_kb.knowledge.base import KnowledgeBase
from bottleneck_kb.schemas import ENTRY

from ..conftest import REPOSITORY

pytestmark = pytest.mark.slow

REPOSITORY_NAME = "team/perf-kb"
SITE_URL = "https://team.github.io/perf-kb/"
#: What each page kind must hold, counted in the page's generated Markdown and in what
#: Zensical made of it: formulas, tables, charts.
MARKERS = {"math": "<math ", "table": "<table ", "chart": '<svg class="kb-chart"'}


def pinned() -> str:
    """Zensical's version as the test extras pin it."""
    extras = tomllib.loads((REPOSITORY / "pyproject.toml").read_text("utf-8"))
    test: list[str] = extras["project"]["optional-dependencies"]["test"]
    return next(r.split("==")[1] for r in test if r.startswith("zensical=="))


@pytest.fixture(scope="module")
def zensical() -> Path:
    try:
        version = metadata.version("zensical")
    except metadata.PackageNotFoundError:
        if os.environ.get("CI") == "true":
            pytest.fail("Zensical is not installed; pip install -e '.[test]' installs it")
        pytest.skip("Zensical is not installed (pip install -e '.[test]')")
    assert version == pinned()
    return Path(sys.executable).with_name("zensical")


@pytest.fixture(scope="module")
def built(zensical: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The repository's site written by `kb site` and built by Zensical: (docs, site)."""
    top = tmp_path_factory.mktemp("zensical")
    environ = {**os.environ, "KB_REPOSITORY": REPOSITORY_NAME}
    kb = [sys.executable, "-m", "bottleneck_kb", "site", str(top / "docs")]
    done = subprocess.run(
        [*kb, "--root", str(REPOSITORY)], env=environ, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    # The repository's mkdocs.yml as it is, but for its folders (Zensical takes them relative
    # to the configuration file) and the address the plugin would have set.
    config = yaml.safe_load((REPOSITORY / "mkdocs.yml").read_text("utf-8"))
    config.update(docs_dir="docs", site_dir="site", site_url=SITE_URL)
    for extension in config["markdown_extensions"]:
        if isinstance(extension, dict) and "pymdownx.snippets" in extension:
            extension["pymdownx.snippets"]["base_path"] = [str(REPOSITORY)]
    (top / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False), "utf-8")
    run = subprocess.run(
        [str(zensical), "build", "-f", "mkdocs.yml"],
        cwd=top,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return top / "docs", top / "site"


class _Article(HTMLParser):
    """The tags of a page's article (its content, not the theme's frame)."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "article" or self.depth:
            self.depth += 1
            self.tags.append((tag, attributes))

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag == "article":
            self.depth = 0


def html_file(site: Path, page: str) -> Path:
    stem = page.removesuffix(".md")
    return site / (f"{stem}.html" if stem.endswith("index") else f"{stem}/index.html")


def kinds() -> dict[str, list[str]]:
    kb = KnowledgeBase.load(REPOSITORY)
    return {
        "entry": [entry_page(e.id) for e in kb.entries],
        "device": [device_page(d) for d in kb.catalog.devices],
        "model": [model_page(m.id) for m in kb.models],
    }


def test_entry_device_and_model_pages_render_their_math_tables_and_charts(
    built: tuple[Path, Path],
) -> None:
    docs, site = built
    for kind, pages in kinds().items():
        totals = dict.fromkeys(MARKERS, 0)
        for page in pages:
            markdown = (docs / page).read_text("utf-8")
            html = html_file(site, page).read_text("utf-8")
            article = html[html.index("<article") : html.index("</article>")]
            for name, marker in MARKERS.items():
                assert article.count(marker) == markdown.count(marker), (page, name)
                totals[name] += markdown.count(marker)
        # Entries have formulas, tables and charts; devices and models tables and charts.
        wanted = set(MARKERS) if kind == "entry" else {"table", "chart"}
        assert {name for name, count in totals.items() if count} >= wanted, (kind, totals)


def test_every_link_of_the_generated_pages_resolves_in_the_zensical_site(
    built: tuple[Path, Path],
) -> None:
    """Zensical resolves raw HTML's addresses against the page's file, as the pages write
    them (MkDocs needs the plugin to make them relative to the page's URL)."""
    _, site = built
    for pages in kinds().values():
        for page in pages:
            path = html_file(site, page)
            article = _Article()
            article.feed(path.read_text("utf-8"))
            folder = path.parent.relative_to(site).as_posix()
            for _, attributes in article.tags:
                for name in ("href", "src"):
                    value = attributes.get(name) or ""
                    if not value or value.startswith("#") or re.match(r"[a-z]+:", value):
                        continue
                    target = posixpath.normpath(posixpath.join(folder, value.split("#")[0]))
                    resolved = site / target
                    if resolved.is_dir():
                        resolved = resolved / "index.html"
                    assert resolved.is_file(), (page, value)


def test_the_zensical_site_is_published_under_the_repositorys_address(
    built: tuple[Path, Path],
) -> None:
    docs, site = built
    kb = KnowledgeBase.load(REPOSITORY)
    entry = min(kb.entries, key=lambda e: e.id)
    html = html_file(site, entry_page(entry.id)).read_text("utf-8")
    assert f'<link rel="canonical" href="{SITE_URL}entries/{entry.id}/">' in html
    assert f'href="https://github.com/{REPOSITORY_NAME}/edit/main/{entry.path}"' in html
    published = json.loads((site / "schema" / f"{ENTRY}.schema.json").read_text("utf-8"))
    assert published["$id"] == f"{SITE_URL}schema/{ENTRY}.schema.json"
    # The page's own stylesheet and script, which mkdocs.yml names for a builder without
    # the plugin.
    assert "assets/bottleneck-kb.css" in html and "assets/kb-page.js" in html
    assert (site / "export" / "knowledge-base.json").is_file()
    assert (docs / ".kb-site").is_file() and not (site / ".kb-site").exists()
