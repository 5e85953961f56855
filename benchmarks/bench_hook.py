"""Benchmark the pre-commit hook: `kb check` on one changed file beside `yamllint` on the same
file, as a ratio.

Every commit that touches an entry pays for the hook, so it should cost about what a plain YAML
linter costs. Run from the repository root, after `pip install -e '.[test,bench]'`:

    .venv/bin/python benchmarks/bench_hook.py
    .venv/bin/python benchmarks/bench_hook.py --repeat 15

Each figure is the median of --repeat fresh processes, timed in the same run as the figure it
is compared with (the machines are shared: the ratio is the result, the seconds context).
Cases: a changed entry of the repository; and in a synthetic knowledge base of 1,000 entries a
changed entry, and a changed device (which re-checks every entry that names it).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_check import BIN, REPOSITORY, compile_package, median_run
from synthetic import make_knowledge_base

#: `kb check` on one changed file at most this many times `yamllint` on it.
TARGET = 1.5


def repository_copy(target: Path) -> Path:
    for folder in ("entries", "hardware", "schema"):
        shutil.copytree(REPOSITORY / folder, target / folder)
    return target


def bench(label: str, root: Path, changed: str, repeat: int) -> float:
    kb = median_run([str(BIN / "kb"), "check", changed], root, repeat)
    lint = median_run([str(BIN / "yamllint"), changed], root, repeat)
    ratio = kb / lint
    verdict = "met" if ratio <= TARGET else "MISSED"
    print(
        f"  {label:<44} kb check {kb * 1000:6.0f} ms   yamllint {lint * 1000:6.0f} ms"
        f"   {ratio:5.2f}x   target <= {TARGET}x: {verdict}"
    )
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    if shutil.which("yamllint", path=str(BIN)) is None:
        raise SystemExit("yamllint is missing: pip install -e '.[test,bench]'")
    compile_package()
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        repository = repository_copy(base / "repository")
        entry = sorted((repository / "entries").rglob("*.yaml"))[0]
        print(f"One changed file, median of {args.repeat} runs:")
        bench("repository, one entry", repository, str(entry.relative_to(repository)), args.repeat)
        synthetic = make_knowledge_base(base / "synthetic", 1000, REPOSITORY)
        entry = sorted((synthetic / "entries").rglob("*.yaml"))[0]
        device = sorted((synthetic / "hardware").glob("*.yaml"))[0]
        for label, path in (
            ("1,000 entries, one entry", entry),
            ("1,000 entries, one device", device),
        ):
            bench(label, synthetic, str(path.relative_to(synthetic)), args.repeat)


if __name__ == "__main__":
    main()
