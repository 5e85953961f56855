"""Benchmark `kb fmt --check` beside `kb check` on the same files, as ratios.

Run from the repository root, after `pip install -e '.[test]'`:

    .venv/bin/python benchmarks/bench_fmt.py               # N = 1,000
    .venv/bin/python benchmarks/bench_fmt.py --sizes 1000 --repeat 5

`kb fmt` re-writes every file with ruamel.yaml's round-trip mode, which keeps comments and is
far slower than libyaml; that is why formatting is checked by `kb fmt --check` (pre-commit, CI)
and never by `kb check`. Pre-commit hands it the changed files, so the figure that matters on
every commit is one file. Every figure is a median of fresh processes from the same run.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_check import BIN, REPOSITORY, compile_package, measure, median_runs
from synthetic import make_knowledge_base

ONE_FILE_TARGET = 0.5


def bench_size(count: int, repeat: int, root: Path) -> None:
    base = make_knowledge_base(root / f"kb-{count}", count, REPOSITORY)
    kb = str(BIN / "kb")
    files = sorted((base / "entries").rglob("*.yaml"))
    code = measure([kb, "fmt"], base)[1]  # the synthetic entries' own style, made canonical
    if code != 0 or measure([kb, "fmt", "--check"], base)[1] != 0:
        raise SystemExit("kb fmt does not settle on the synthetic knowledge base")
    timed = median_runs(
        {
            "fmt": [kb, "fmt", "--check"],
            "check": [kb, "check"],
            "single": [kb, "check", "--jobs", "1"],
        },
        base,
        repeat,
    )
    fmt_time, check_time, check_one_job = timed["fmt"], timed["check"], timed["single"]
    changed = files[len(files) // 2]
    changed.write_text(changed.read_text(encoding="utf-8") + "\n\n", encoding="utf-8")
    one = median_runs(
        {"fmt": [kb, "fmt", "--check", str(changed)], "check": [kb, "check", str(changed)]},
        base,
        repeat,
    )
    one_fmt, one_check = one["fmt"], one["check"]
    verdict = "met" if one_fmt < ONE_FILE_TARGET else "MISSED"
    print(f"\nN = {count:,} entries and {len(list((base / 'hardware').glob('*.yaml')))} devices")
    print(f"  ({repeat} runs each, medians)")
    print(f"  kb fmt --check                   {fmt_time:8.2f} s")
    print(f"  kb check (default jobs)          {check_time:8.2f} s")
    print(f"  kb check --jobs 1                {check_one_job:8.2f} s")
    print(f"  kb fmt --check / kb check        {fmt_time / check_time:8.2f}x")
    print(f"  kb fmt --check / check --jobs 1  {fmt_time / check_one_job:8.2f}x")
    print(f"  per file: kb fmt --check         {fmt_time / count * 1000:8.2f} ms")
    print(
        f"  kb fmt --check, one changed file {one_fmt:8.3f} s"
        f"   target < {ONE_FILE_TARGET} s: {verdict}"
    )
    print(f"  kb check, one changed file       {one_check:8.3f} s")
    print(f"  one file: fmt --check / check    {one_fmt / one_check:8.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    compile_package()
    print(f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as scratch:
        for count in args.sizes:
            bench_size(count, args.repeat, Path(scratch))


if __name__ == "__main__":
    main()
