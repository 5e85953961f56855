"""Hostile entries against the budgets: whatever `kb check` accepts must evaluate, format
and render within 10x of a seed entry, measured in the same run.

Run from the repository root, after `pip install -e '.[test]'`:

    .venv/bin/python benchmarks/bench_adversarial.py [--repeat 3] [--no-site]

Two kinds of attack, each written into a temporary copy of the knowledge base; those that
`kb check` refuses are listed as refused (with the codes that refused them):

- formulas against the symbolic budget (the shapes that make sympy slow), timed with
  `kb eval ID --format json` in fresh processes (median of --repeat runs); target 3x;
- whole entries at the schema's limits (benchmarks/attacks.py: 50 derived values, 50
  workarounds, 50 checks, a verdict that flips everywhere, pathological Markdown near the
  file's size limit, 100 claims, 20 aliases), each timed with `kb eval`, `kb fmt` (on a copy
  of the file) and the site build of a knowledge base holding it alone (`mkdocs build`,
  against the same build with a seed entry alone; both less the build of no entry at all,
  so that the entry's own cost is compared); target 10x.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bottleneck_kb.rules.examples import MINIMAL_ENTRY, patched

sys.path.insert(0, str(Path(__file__).parent))
import attacks

REPOSITORY = Path(__file__).resolve().parents[1]
KB = Path(sys.executable).parent / "kb"
SEEDS = ["flops/speculative-draft", "flops/speculative-quantized-drafter-lm-head"]
SYMBOLS = "abcdefgh"

#: A max of 41 arguments, written as 40 maxes of two: sympy joins them and compares pairs.
NESTED_MAX = "a"
for _step in range(2, 42):
    NESTED_MAX = f"max({NESTED_MAX}, {_step} * a + b)"

#: (flops, bytes): the budget's edges and the shapes that make sympy slow.
FORMULAS = [
    ("(a + b + c + d + e + f + g + h)**2", "(a + b + c)**2"),
    ("(a + b + c + 1)**3 * (d + e)", "(a + b)**2 * d"),
    ("(a + 1)**15", "a"),
    ("(a + 1)**16", "a"),
    ("(a + b + c + d)**3", "(a + b + 1)**2"),
    ("min(a, b, c, d) * max(e, f, g, h)", "min(a + b, c + d) + max(e, f)"),
    ("min(a, b, c, d) * max(e, f, g, h) * min(a, b, c, d)", "max(a, b, c, d)"),
    ("sqrt((a + b + c + d)**2 + (e + f + g + h)**2)", "log2(a + b + 2)"),
    ("a**(b**(c**d))", "e**(f**(g**h))"),
    ("(a + b*c + d*e*f + g*h)**3", "a + b"),
    ("ceil(a / b) * floor(c / d) * (e + f + g + h)**2", "(a + b)**2"),
    ("(a + b + c + d + e + f + g + h)**3", "a"),
    ("2 * a * b * (c + d + e + f + g + h + 1)**2", "(a + b + c + d + e + f + g + h)**2"),
    # sympy's Max compared these under assumptions, isolating real roots: minutes each.
    ("1", "max((a + 1e-300) / a ** 8, 1)"),
    ("a", NESTED_MAX),
    # sympy's ceiling evaluated this constant past its precision, and gave up.
    ("2 * a", "2 + a + ceil((1e16 * 3 ** (1/3)) ** 8)"),
    # Roots of one base merge: P ** 8, expanded (46 s when the budget counted one symbol).
    ("sqrt(a + b + c + d + e + f + g + h) ** 16", "a"),
    ("sqrt(a + b + c + d) ** 4", "a"),
    # An exponent whose symbols cancel where it is defined: 40 to sympy (33 s before).
    ("a * (b + c + d + e) ** (sqrt(a - 6) * 0 + 40)", "a"),
]


def entry(flops: str, bytes_: str, index: int) -> str:
    """The minimal entry (which carries whatever an entry must) with these formulas."""
    symbols = "\n".join(
        f"  - {{name: s_{s}, symbol: {s}, description: {s}., typical: 2, range: [1, 4]}}"
        for s in SYMBOLS
    )
    return patched(
        MINIMAL_ENTRY,
        f"id: gemm/adversarial-f{index}\ntitle: Adversarial {index}\narithmetic_intensity:\n"
        f'  flops: "{flops}"\n  bytes: "1.0e+12 * ({bytes_})"\nscales_with:\n{symbols}\n',
    )


#: The codes that refuse a formula for what it is (its parse, domain or symbolic budget):
#: any other refusal means the benchmark's entries are wrong, not the formula.
FORMULA_CODES = {"KB401", "KB405", "KB408"}


def timed(command: list[str], cwd: Path, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(command, cwd=cwd, capture_output=True, check=False)
        runs.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"{command} failed: {done.stderr.decode()[-2000:]}")
    return statistics.median(runs)


#: What a site build of one entry reads besides the entry and the catalog.
SITE_PARTS = ("hardware", "schema", "site", "mkdocs.yml", "README.md", "CONTRIBUTING.md")


def site_build(entry: Path | None, folder: Path, repeat: int) -> float:
    """Seconds for `mkdocs build` of a knowledge base holding `entry` alone (or no entry)."""
    root = folder / "site-kb"
    shutil.rmtree(root, ignore_errors=True)
    for part in SITE_PARTS:
        source = REPOSITORY / part
        if source.is_dir():
            shutil.copytree(source, root / part)
        else:
            shutil.copyfile(source, root / part)
    (root / "entries").mkdir()
    if entry is not None:
        target = root / "entries" / entry.parent.name / entry.name
        target.parent.mkdir()
        text = entry.read_text("utf-8")
        # Alone: its links to entries left behind would be errors of their own.
        target.write_text(re.sub(r"^related:\n(?:  .*\n)+", "", text, flags=re.M), "utf-8")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "XDG_CACHE_HOME": str(folder / "cache")}
    command = [sys.executable, "-m", "mkdocs", "build", "--quiet", "-f", str(root / "mkdocs.yml")]
    runs = []
    for _ in range(repeat):
        shutil.rmtree(folder / "cache", ignore_errors=True)  # cold: the entry is evaluated
        start = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True)
        runs.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"the site build of {entry} failed: {done.stderr.decode()[-2000:]}")
    return statistics.median(runs)


def formatted(path: Path, folder: Path, repeat: int) -> float:
    """Seconds for `kb fmt` of a copy of the entry at `path`, in a knowledge base of its own
    (the copy is written anew before each run, so that every run formats it)."""
    root = folder / "fmt-kb"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(REPOSITORY / "hardware", root / "hardware")
    target = root / "entries" / path.parent.name / path.name
    target.parent.mkdir(parents=True)
    runs = []
    for _ in range(repeat):
        shutil.copyfile(path, target)
        start = time.perf_counter()
        done = subprocess.run([str(KB), "fmt", str(target)], cwd=root, capture_output=True)
        runs.append(time.perf_counter() - start)
        if done.returncode not in (0, 1):
            raise SystemExit(f"kb fmt failed on {path}: {done.stderr.decode()[-2000:]}")
    return statistics.median(runs)


def whole_entries(root: Path, folder: Path, repeat: int, site: bool) -> float:
    """Time each whole-entry attack against a seed entry; the worst ratio."""
    devices = sorted(p.stem for p in (root / "hardware").glob("*.yaml"))
    written = []
    for attack in attacks.ATTACKS:
        data = attack()
        if attack is attacks.checks:
            data = attacks.with_checks(data, devices)
        path = root / "entries" / f"{data['id']}.yaml"
        path.write_text(attacks.entry_text(data), encoding="utf-8")
        written.append((attack.__name__, data["id"], path))
    seed = root / "entries" / f"{SEEDS[1]}.yaml"
    empty = site_build(None, folder, repeat) if site else 0.0

    def costs(entry_id: str, path: Path) -> dict[str, float]:
        found = {
            "eval": timed([str(KB), "eval", entry_id, "--format", "json"], root, repeat),
            "fmt": formatted(path, folder, repeat),
        }
        if site:
            found["site"] = max(site_build(path, folder, repeat) - empty, 1e-3)
        return found

    base = costs(SEEDS[1], seed)
    print(f"\nwhole entries, against {SEEDS[1]}")
    shown = "   ".join(f"{k} {v:5.2f} s" for k, v in base.items())
    print(
        f"  {'seed':<14} {shown}" + (f"   (site build of no entry: {empty:.2f} s)" if site else "")
    )
    worst = 0.0
    for name, entry_id, path in written:
        checked = subprocess.run(
            [str(KB), "check", "--format", "json", str(path.relative_to(root))],
            cwd=root,
            capture_output=True,
        )
        if checked.returncode != 0:
            codes = sorted(set(re.findall(r'"code": "(KB\d+)"', checked.stdout.decode())))
            print(f"  {name:<14} refused by kb check: {', '.join(codes)}")
            continue
        found = costs(entry_id, path)
        ratios = {k: found[k] / base[k] for k in found}
        worst = max(worst, *ratios.values())
        shown = "   ".join(f"{k} {found[k]:5.2f} s {ratios[k]:5.2f}x" for k in found)
        print(f"  {name:<14} {shown}")
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-site", action="store_true", help="leave out the site builds")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for part in ("entries", "hardware"):
            shutil.copytree(REPOSITORY / part, root / part)
        (root / "entries" / "gemm").mkdir(exist_ok=True)
        for index, (flops, bytes_) in enumerate(FORMULAS):
            path = root / "entries" / "gemm" / f"adversarial-f{index}.yaml"
            path.write_text(entry(flops, bytes_, index), encoding="utf-8")
        seeds = {
            s: timed([str(KB), "eval", s, "--format", "json"], root, args.repeat) for s in SEEDS
        }
        print("seed entries (kb eval --format json, median)")
        for name, seconds in seeds.items():
            print(f"  {name:<48} {seconds:6.2f} s")
        print("\nadversarial formulas")
        worst = 0.0
        for index, (flops, bytes_) in enumerate(FORMULAS):
            written = f"entries/gemm/adversarial-f{index}.yaml"
            checked = subprocess.run(
                [str(KB), "check", "--format", "json", written], cwd=root, capture_output=True
            )
            shown = f"{flops}  /  {bytes_}"
            if checked.returncode != 0:
                codes = sorted(set(re.findall(r'"code": "(KB\d+)"', checked.stdout.decode())))
                if not set(codes) <= FORMULA_CODES:
                    raise SystemExit(
                        f"{written} refused for another reason than its formulas: {codes}"
                    )
                print(f"  refused {','.join(codes):<14} {shown}")
                continue
            seconds = timed(
                [str(KB), "eval", f"gemm/adversarial-f{index}", "--format", "json"],
                root,
                args.repeat,
            )
            worst = max(worst, seconds)
            print(f"  {seconds:6.2f} s accepted    {shown}")
        if worst == 0:
            raise SystemExit("no adversarial formula was accepted: nothing was measured")
        ratio = worst / max(seeds.values())
        verdict = "met" if ratio <= 3 else "MISSED"
        print(f"\nworst accepted / slowest seed   {ratio:.2f}x   target <= 3: {verdict}")
        entries = whole_entries(root, Path(folder), args.repeat, not args.no_site)
        verdict = "met" if entries <= 10 else "MISSED"
        print(f"\nworst whole entry / seed        {entries:.2f}x   target <= 10: {verdict}")


if __name__ == "__main__":
    main()
