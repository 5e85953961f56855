"""Benchmark `kb check` against the YAML-parsing floor and check-jsonschema, as ratios.

Run from the repository root, after `pip install -e '.[test,bench]'`:

    .venv/bin/python benchmarks/bench_check.py            # N = 1,000 and 10,000
    .venv/bin/python benchmarks/bench_check.py --sizes 1000 --repeat 3

Every figure is a median of --repeat runs of a fresh process, measured in the same run as
the figures it is compared with, because the machines are shared and noisy: the ratios are
the result, the seconds only context. The commands of a ratio take turns, one run of each in
each round, so that a machine that slows down or speeds up during the benchmark moves both
sides of the ratio alike. Peak memory is the largest sum of resident memory over
the process and its children, sampled from /proc every 5 ms in a run of its own.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic import make_knowledge_base

REPOSITORY = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

FLOOR = """
import sys, pathlib, yaml
for path in sorted(pathlib.Path(sys.argv[1]).rglob("*.yaml")):
    with open(path, "rb") as handle:
        yaml.load(handle.read(), Loader=yaml.CSafeLoader)
"""

#: The targets, and the knowledge-base size at which each is judged (None: any size).
TARGETS = {
    # 0.6x until the synthetic entries carried what reviewed cards carry: benchmarks/README.md.
    "kb check / floor": ("<=", 0.7, 10_000),
    "check-jsonschema / kb check": (">=", 15.0, 10_000),
    "kb --help / import click": ("<=", 1.5, None),
}


def _tree_rss(pid: int) -> int:
    """Resident bytes of `pid` and all its descendants."""
    total = 0
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            with open(f"/proc/{current}/status", encoding="ascii") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
                        break
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children", encoding="ascii") as kids:
                    stack.extend(int(k) for k in kids.read().split())
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return total


def measure(command: list[str], cwd: Path) -> tuple[float, int]:
    """(wall seconds, exit code) of one run, with nothing else of ours running."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{command} failed: {done.stderr.decode()[-2000:]}")
    return wall, done.returncode


def peak_memory(command: list[str], cwd: Path) -> int:
    """Peak resident bytes of the process and its children, sampled every 5 ms. A run of its
    own: the sampling takes CPU that a timed run on two cores would miss."""
    process = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    peak = 0
    while process.poll() is None:
        peak = max(peak, _tree_rss(process.pid))
        time.sleep(0.005)
    return peak


def median_runs(commands: dict[str, list[str]], cwd: Path, repeat: int) -> dict[str, float]:
    """The median wall time of each command over `repeat` rounds, each round one run of
    every command in turn."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, command in commands.items():
            times[name].append(measure(command, cwd)[0])
    return {name: statistics.median(found) for name, found in times.items()}


def report(name: str, value: float, count: int | None = None) -> str:
    if name not in TARGETS:
        return ""
    sense, bound, at = TARGETS[name]
    ok = value <= bound if sense == "<=" else value >= bound
    if at is not None and count != at:
        return f"   (target {sense} {bound} is judged at N = {at:,})"
    return f"   target {sense} {bound}: {'met' if ok else 'MISSED'}"


def bench_size(count: int, repeat: int, competitor_repeat: int, root: Path) -> dict[str, float]:
    base = make_knowledge_base(root / f"kb-{count}", count, REPOSITORY)
    files = sorted(str(p) for p in (base / "entries").rglob("*.yaml"))
    kb = str(BIN / "kb")
    code = measure([kb, "check"], base)[1]
    if code != 0:
        raise SystemExit(f"the synthetic knowledge base does not check clean (exit {code})")
    check_peak = peak_memory([kb, "check"], base)
    timed = median_runs(
        {
            "check": [kb, "check"],
            "floor": [sys.executable, "-c", FLOOR, "entries"],
            "single": [kb, "check", "--jobs", "1"],
        },
        base,
        repeat,
    )
    check_time, floor_time, single_time = timed["check"], timed["floor"], timed["single"]
    changed = base / files[len(files) // 2]
    changed.write_text(changed.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    one_time = median_runs({"one": [kb, "check", str(changed)]}, base, repeat)["one"]
    competitor = [
        str(BIN / "check-jsonschema"),
        "--schemafile",
        str(REPOSITORY / "schema" / "entry.schema.json"),
        *files,
    ]
    competitor_time = median_runs({"competitor": competitor}, base, competitor_repeat)["competitor"]
    print(f"\nN = {count:,} entries ({repeat} runs each; check-jsonschema {competitor_repeat})")
    memory = "met" if check_peak < 300 * 2**20 else "MISSED"
    print(
        f"  kb check (default jobs)          {check_time:8.2f} s   "
        f"peak {check_peak / 2**20:6.0f} MB   target < 300 MB: {memory}"
    )
    print(f"  kb check --jobs 1                {single_time:8.2f} s")
    print(f"  floor (yaml.load CSafeLoader)    {floor_time:8.2f} s")
    print(f"  check-jsonschema                 {competitor_time:8.2f} s")
    print(
        f"  kb check, one changed entry      {one_time:8.3f} s"
        f"   target < 0.6 s: {'met' if one_time < 0.6 else 'MISSED'}"
    )
    ratios = {
        "kb check / floor": check_time / floor_time,
        "kb check --jobs 1 / floor": single_time / floor_time,
        "check-jsonschema / kb check": competitor_time / check_time,
    }
    for name, value in ratios.items():
        print(f"  {name:<32} {value:8.2f}x{report(name, value, count)}")
    return ratios


def bench_startup(repeat: int) -> None:
    timed = median_runs(
        {"help": [str(BIN / "kb"), "--help"], "click": [sys.executable, "-c", "import click"]},
        REPOSITORY,
        repeat,
    )
    help_time, click_time = timed["help"], timed["click"]
    ratio = help_time / click_time
    print("\nStart-up")
    print(f"  kb --help                        {help_time * 1000:8.1f} ms")
    print(f"  python -c 'import click'         {click_time * 1000:8.1f} ms")
    name = "kb --help / import click"
    print(f"  {name:<32} {ratio:8.2f}x{report(name, ratio)}")


def compile_package() -> None:
    """Byte-compile the package, as pip does for an installed one: an editable install run
    where PYTHONDONTWRITEBYTECODE is set (as on these machines) would otherwise compile every
    module in every run and measure the compiler."""
    import compileall

    compileall.compile_dir(REPOSITORY / "tools" / "bottleneck_kb", quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--competitor-repeat",
        type=int,
        default=None,
        help="runs of check-jsonschema [default: --repeat at N <= 1000, else 1]",
    )
    args = parser.parse_args()
    compile_package()
    print(f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}")
    bench_startup(max(10, args.repeat))
    with tempfile.TemporaryDirectory() as scratch:
        for count in args.sizes:
            competitor_repeat = args.competitor_repeat or (args.repeat if count <= 1000 else 1)
            bench_size(count, args.repeat, competitor_repeat, Path(scratch))


if __name__ == "__main__":
    main()
