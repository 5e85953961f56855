"""How fast the site builds, against MkDocs building the same pages written out as files.

For 1,000 and 2,000 synthetic entries (benchmarks/synthetic.py: varied formulas, so that a
cache keyed on formula content is not flattered) beside the repository's cards and models, in
fresh processes, from the same run:

- cold: `mkdocs build` with no cache (every entry evaluated, sympy included);
- baseline: MkDocs (same theme, navigation and stylesheet, no plugin) building the very pages
  the plugin generates (same Markdown, MathML and SVG), written out as plain files;
- rebuild: `mkdocs build` again after one entry changed (the other entries' evaluations come
  from the cache under build/, keyed by the content they were computed from);
- warm: `mkdocs build` with nothing changed.

Warm measurements are the median of --runs runs (a cold build runs once: it takes minutes).

Targets: cold / baseline <= 2x, rebuild / baseline <= 1.3x, 2,000 / 1,000 <= 2.2x.

    .venv/bin/python benchmarks/bench_site.py [--sizes 1000 2000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

import yaml

from bottleneck_kb.site.address import repository_address
from bottleneck_kb.site.files import write_site
from bottleneck_kb.site.pages.html import Options

sys.path.insert(0, str(Path(__file__).parent))
from synthetic import make_knowledge_base

REPOSITORY = Path(__file__).resolve().parents[1]
CACHE = "build/.kb-site-cache"


def prepare(target: Path, count: int) -> Path:
    """A synthetic knowledge base with the repository's site pages and configuration, and
    the repository's cards and models (a model's recipe binds real cards), so that the build
    makes the model pages and their explorers too."""
    root = make_knowledge_base(target, count, REPOSITORY)
    shutil.copytree(REPOSITORY / "entries", root / "entries", dirs_exist_ok=True)
    shutil.copytree(REPOSITORY / "models", root / "models")
    shutil.copytree(REPOSITORY / "site", root / "site")
    for name in ("mkdocs.yml", "README.md", "CONTRIBUTING.md"):
        if (REPOSITORY / name).exists():
            shutil.copyfile(REPOSITORY / name, root / name)
    return root


def mkdocs_build(config: Path) -> float:
    """Seconds for `mkdocs build` of `config` in a fresh process."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    command = [sys.executable, "-m", "mkdocs", "build", "--quiet", "--strict", "-f", str(config)]
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env)
    return time.perf_counter() - start


def plain_files(root: Path) -> Path:
    """The generated pages and assets written out as files beside the hand-written pages (as
    `kb site` writes them), and a configuration that builds them without the plugin; returns
    that configuration. (MkDocs leaves their links relative to their files, which the plugin
    would make relative to their URLs: the same work, links aside.)"""
    config = yaml.safe_load((root / "mkdocs.yml").read_text("utf-8"))
    address = repository_address()
    options = Options(address.site_url, address.edit_url, True, root / CACHE)
    write_site(root, root / "plain-docs", options, root / "site")
    config.update(
        docs_dir="plain-docs",
        site_dir="build/plain-site",
        site_url=address.site_url,
        plugins=["search"],
    )
    plain = root / "plain.yml"
    plain.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return plain


def change_one_entry(root: Path, run: int) -> None:
    entry = sorted((root / "entries").rglob("synthetic-*.yaml"))[run]
    text = entry.read_text("utf-8")
    entry.write_text(text.replace('title: "Synthetic', 'title: "Changed synthetic', 1), "utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000])
    parser.add_argument("--runs", type=int, default=3, help="runs of each warm measurement")
    arguments = parser.parse_args()
    sizes, runs = arguments.sizes, arguments.runs
    cold: dict[int, float] = {}
    warm: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        first = sizes[0]
        for count in sizes:
            root = prepare(Path(folder) / f"kb-{count}", count)
            cold[count] = mkdocs_build(root / "mkdocs.yml")  # once: minutes of sympy
            warm[count] = median(mkdocs_build(root / "mkdocs.yml") for _ in range(runs))
            print(f"N = {count:,}: cold {cold[count]:.1f} s, warm {warm[count]:.1f} s", flush=True)
            if count == first:
                plain = plain_files(root)
                baseline = median(mkdocs_build(plain) for _ in range(runs))
                rebuilds = []
                for run in range(runs):
                    change_one_entry(root, run)
                    rebuilds.append(mkdocs_build(root / "mkdocs.yml"))
                rebuild = median(rebuilds)
    rows = [
        (f"N = {first:,}: baseline, MkDocs on the same pages as files", f"{baseline:.1f} s"),
        (f"N = {first:,}: cold build (no cache)", f"{cold[first]:.1f} s"),
        (f"N = {first:,}: rebuild, one entry changed", f"{rebuild:.1f} s"),
        (f"N = {first:,}: warm build, nothing changed", f"{warm[first]:.1f} s"),
        ("cold / baseline (target <= 2x)", f"{cold[first] / baseline:.2f}x"),
        ("rebuild / baseline (target <= 1.3x)", f"{rebuild / baseline:.2f}x"),
    ]
    for count in sizes[1:]:
        rows += [
            (
                f"cold N = {count:,} / N = {first:,} (target <= 2.2x)",
                f"{cold[count] / cold[first]:.2f}x",
            ),
            (f"warm N = {count:,} / N = {first:,}", f"{warm[count] / warm[first]:.2f}x"),
        ]
    print()
    for label, value in rows:
        print(f"{label:<58} {value:>8}")


if __name__ == "__main__":
    main()
