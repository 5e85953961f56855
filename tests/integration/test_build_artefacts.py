"""Build artefacts are input too: nothing a pull request commits in the output or cache
folders, or links there, changes the published site or reaches outside the repository.

Each test builds a small copy of the repository (a git repository of its own, as a fresh
clone is) with the real `mkdocs build`, in a process of its own.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bottleneck_kb.checking.run import check
from bottleneck_kb.site import mathml
from bottleneck_kb.site.cache import default_folder

from ..conftest import REPOSITORY, without_cited_measurements

#: The entry whose page the tests look at, and the parts of the repository a build reads.
ENTRY = "gemm/decode-weight-gemm"
COPIED = ("hardware", "schema", "site", "mkdocs.yml", "README.md", "CONTRIBUTING.md")
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]


def clone(target: Path) -> Path:
    """A git repository at `target` with the site's parts and one entry, all committed."""
    target.mkdir(parents=True)
    for name in COPIED:
        source = REPOSITORY / name
        if source.is_dir():
            shutil.copytree(source, target / name)
        else:
            shutil.copyfile(source, target / name)
    entry = target / "entries" / f"{ENTRY}.yaml"
    entry.parent.mkdir(parents=True)
    # Alone, without its links to the entries left out (kb check would refuse them).
    text = (REPOSITORY / "entries" / f"{ENTRY}.yaml").read_text("utf-8")
    entry.write_text(re.sub(r"^related:\n(?:  .*\n)+", "", text, flags=re.M), "utf-8")
    # So are the devices, without the fractions resting on the left-out cards' measurements.
    for device in (target / "hardware").glob("*.yaml"):
        without_cited_measurements(device)
    shutil.copyfile(REPOSITORY / ".gitignore", target / ".gitignore")
    git(target, "init", "-q")
    git(target, "add", ".")
    git(target, "commit", "-q", "-m", "a fresh clone")
    return target


def git(root: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=root, check=True, capture_output=True)


def mkdocs(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", *args]
    return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)


def page(site: Path) -> str:
    return (site / "entries" / ENTRY / "index.html").read_text("utf-8")


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    return clone(tmp_path / "repository")


@pytest.mark.slow
def test_a_forged_cache_file_changes_nothing_on_the_site(repository: Path) -> None:
    """The red team's case: a view rewritten with markup in its MathML and a made-up lower
    bound, where the build keeps its views. Unsigned by the user's key, it is never read."""
    assert mkdocs(repository).returncode == 0
    honest = page(repository / "build" / "site")
    views = sorted(default_folder(repository).glob("*.json"))
    assert len(views) == 1
    signature, _, text = views[0].read_text("utf-8").partition("\n")
    view = json.loads(text)
    view["flops_mathml"] = ["</math><img src=x onerror=alert(1)>"]
    view["intensity_mathml"] = [["img", {"onerror": "alert(1)"}, []]]
    for result in view["evaluation"]["results"]:
        result["time"] = 1e-30
        result["verdict"] = "<img src=x onerror=alert(2)>"
    forged = json.dumps(view)
    # Kept with its old signature, and in the first shape of a cache file (no signature).
    for content in (f"{signature}\n{forged}", forged):
        views[0].write_text(content, "utf-8")
        assert mkdocs(repository).returncode == 0
        built = page(repository / "build" / "site")
        assert built == honest
        assert "onerror" not in built and "1e-30" not in built


@pytest.mark.slow
def test_a_cache_folder_inside_the_repository_is_used_only_untracked_and_signed(
    repository: Path,
) -> None:
    config = repository / "mkdocs.yml"
    text = config.read_text("utf-8")
    assert text.count("\n  - bottleneck-kb\n") == 1  # the plugin, named without options
    config.write_text(
        text.replace(
            "\n  - bottleneck-kb\n", "\n  - bottleneck-kb:\n      cache_dir: build/.kb-site-cache\n"
        ),
        "utf-8",
    )
    assert mkdocs(repository).returncode == 0
    honest = page(repository / "build" / "site")
    cached = next((repository / "build" / ".kb-site-cache").glob("*.json"))
    signature, _, text = cached.read_text("utf-8").partition("\n")
    cached.write_text(f"{signature}\n{text.replace('memory', 'compute')}", "utf-8")
    assert mkdocs(repository).returncode == 0
    assert page(repository / "build" / "site") == honest

    git(repository, "add", "-f", "build/.kb-site-cache")
    done = mkdocs(repository)

    assert done.returncode == 1
    assert (
        "bottleneck-kb: the cache of views would be written where git tracks files: "
        f"build/.kb-site-cache/{cached.name}; an output folder is never committed: "
        "git rm -r --cached build/.kb-site-cache"
    ) in done.stderr


def test_a_link_committed_as_the_output_folder_is_refused_and_its_target_kept(
    repository: Path, tmp_path: Path
) -> None:
    """The red team's case: `build/site` committed as a link. MkDocs empties its output
    folder before it writes; the build stops before that, and the folder pointed to keeps
    what it had."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "precious.txt").write_text("kept", "utf-8")
    (repository / "build").mkdir()
    (repository / "build" / "site").symlink_to(elsewhere)
    git(repository, "add", "-f", "build/site")

    done = mkdocs(repository)

    assert done.returncode == 1
    assert (
        f"bottleneck-kb: the site would be written through a link: build/site is a link to "
        f"{elsewhere}; remove the link (git rm build/site if it is committed)"
    ) in done.stderr
    assert [p.name for p in elsewhere.iterdir()] == ["precious.txt"]


@pytest.mark.parametrize("link", ["build", "build/site/entries"])
def test_a_link_anywhere_on_the_way_or_inside_is_refused(
    repository: Path, tmp_path: Path, link: str
) -> None:
    """Beyond the example: a link above the output folder, and one inside it, which MkDocs
    would write pages through."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    place = repository / link
    place.parent.mkdir(parents=True, exist_ok=True)
    place.symlink_to(elsewhere)

    done = mkdocs(repository)

    assert done.returncode == 1
    assert (
        f"bottleneck-kb: the site would be written through a link: {link} is a link to {elsewhere}"
    ) in done.stderr
    assert list(elsewhere.iterdir()) == []


@pytest.mark.slow
def test_an_output_folder_outside_the_repository_is_the_users_to_name(
    repository: Path, tmp_path: Path
) -> None:
    """mkdocs.yml is the repository's: it may not send the site outside it. A folder the user
    names on the command line may lie anywhere, but not be a link."""
    config = repository / "mkdocs.yml"
    outside = tmp_path / "outside"
    config.write_text(
        config.read_text("utf-8").replace("site_dir: build/site", f"site_dir: {outside}"),
        "utf-8",
    )
    refused = mkdocs(repository)
    assert refused.returncode == 1
    assert f"the site would be written outside the repository, at {outside}" in refused.stderr
    assert not outside.exists()

    named = tmp_path / "named"
    assert mkdocs(repository, "-d", str(named)).returncode == 0
    assert (named / "entries" / ENTRY / "index.html").is_file()

    link = tmp_path / "link"
    link.symlink_to(named)
    through = mkdocs(repository, "-d", str(link))
    assert through.returncode == 1
    assert f"the site would be written through a link: {link} is a link to" in through.stderr


@pytest.mark.slow
def test_kb_check_and_the_site_build_say_what_is_committed_under_build(repository: Path) -> None:
    smuggled = repository / "build" / "site" / "entries" / "index.html"
    smuggled.parent.mkdir(parents=True)
    smuggled.write_text("<p>never built here</p>", "utf-8")
    git(repository, "add", "-f", "build")

    found = check(repository).diagnostics

    assert [(d.code, d.path, d.message) for d in found if d.code == "KB021"] == [
        (
            "KB021",
            "build/site/entries/index.html",
            "is committed under build/, where the site build writes its output and caches",
        )
    ]
    # --quiet drops warnings before --strict counts them: kb check's errors are errors.
    done = mkdocs(repository, "-d", str(repository.parent / "elsewhere"))
    assert done.returncode == 1
    assert (
        "bottleneck_kb: kb check: build/site/entries/index.html:1:1: KB021 is committed under "
        "build/"
    ) in done.stderr


def test_mathml_is_written_from_data_and_refuses_what_is_not_mathml() -> None:
    printed = "<mrow><mi>B</mi><mo>&InvisibleTimes;</mo><msup><mi>K</mi><mn>2</mn></msup></mrow>"
    assert mathml.markup(mathml.tree(printed)) == printed
    escaped = "&lt;/math&gt;&lt;script&gt;x&lt;/script&gt;"
    assert mathml.markup(["</math><script>x</script>"]) == escaped
    for hostile in (
        [["script", {}, []]],
        [["mi", {"onclick": "x"}, []]],
        [["mi", {"href": "javascript:x"}, ["x"]]],
        ["mi", {}, []],
        [["mi", {}, "not a list"]],
    ):
        with pytest.raises(mathml.MathMLError):
            mathml.markup(hostile)
    with pytest.raises(mathml.MathMLError):
        mathml.tree("<mi>x</mo>")


def test_a_hand_written_page_at_a_generated_pages_address_is_refused(repository: Path) -> None:
    """The plugin used to drop the hand-written page without a word."""
    page = repository / "site" / "devices" / "index.md"
    page.parent.mkdir()
    page.write_text("# My own device list\n", "utf-8")

    done = mkdocs(repository)

    assert done.returncode == 1
    assert (
        f"bottleneck-kb: {repository / 'site'}/devices/index.md is where the site's generated "
        "page devices/index.md goes; move or rename that file"
    ) in done.stderr
