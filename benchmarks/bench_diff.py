"""Benchmark `kb diff HEAD~1` against `kb check` on the same change, as ratios.

Run from the repository root, after `pip install -e '.[test,bench]'`:

    .venv/bin/python benchmarks/bench_diff.py             # the repository's knowledge base
    .venv/bin/python benchmarks/bench_diff.py --repeat 5

A copy of the repository's knowledge base (entries, hardware, models, kb.yaml, schema) is
committed in a fresh git repository, then a commit edits the H100's memory bandwidth (the
change the issue names: every entry and model is evaluated again on it). `kb diff HEAD~1`,
`kb check --changed-since HEAD~1` (which re-checks every entry, a device having changed) and
a full `kb check` are each the median of --repeat fresh processes, taking turns, measured in
the same run: the ratios are the result, the seconds only context.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_check import BIN, REPOSITORY, compile_package, median_runs

#: What `kb diff` costs beside `kb check` on the same change: it reads, checks and evaluates
#: both sides (in two processes where there are two cores).
TARGET = 3.0
KNOWLEDGE = ("entries", "hardware", "models", "kb.yaml", "schema")
DEVICE = "hardware/nvidia-h100-sxm.yaml"


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.org", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def changed_repository(root: Path) -> Path:
    """The repository's knowledge base committed, then a commit that edits a bandwidth."""
    for name in KNOWLEDGE:
        source = REPOSITORY / name
        if source.is_dir():
            shutil.copytree(source, root / name)
        elif source.is_file():
            shutil.copy2(source, root / name)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    device = root / DEVICE
    text = device.read_text(encoding="utf-8")
    if "  value: 3.35 TB/s" not in text:
        raise SystemExit(f"{DEVICE} no longer gives 3.35 TB/s: update the benchmark's edit")
    device.write_text(text.replace("  value: 3.35 TB/s", "  value: 3.9 TB/s"), encoding="utf-8")
    git(root, "commit", "-q", "-am", "a faster H100")
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    compile_package()
    print(f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}")
    kb = str(BIN / "kb")
    with tempfile.TemporaryDirectory(prefix="kb-bench-diff-") as scratch:
        root = changed_repository(Path(scratch))
        timed = median_runs(
            {
                "diff": [kb, "diff", "HEAD~1"],
                "changed": [kb, "check", "--changed-since", "HEAD~1"],
                "check": [kb, "check"],
            },
            root,
            args.repeat,
        )
    print(f"\nThe repository's knowledge base, {DEVICE} edited ({args.repeat} runs each)")
    print(f"  kb diff HEAD~1                        {timed['diff']:8.2f} s")
    print(f"  kb check --changed-since HEAD~1       {timed['changed']:8.2f} s")
    print(f"  kb check                              {timed['check']:8.2f} s")
    for name, other in (("--changed-since", "changed"), ("full", "check")):
        ratio = timed["diff"] / timed[other]
        verdict = "met" if ratio <= TARGET else "MISSED"
        print(f"  kb diff / kb check ({name:<15})   {ratio:8.2f}x   target <= {TARGET}: {verdict}")


if __name__ == "__main__":
    main()
