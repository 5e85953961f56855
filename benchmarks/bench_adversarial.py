"""Adversarial formulas against the symbolic budget: the worst entry `kb check` accepts must
evaluate (`kb eval`, which simplifies and typesets the intensity) within 3x of the seed
entries, measured in the same run.

Run from the repository root, after `pip install -e '.[test]'`:

    .venv/bin/python benchmarks/bench_adversarial.py [--repeat 3]

Each formula is written into an entry of a temporary copy of the knowledge base; those that
`kb check` refuses are listed as refused (with the code that refused them), the others are
timed with `kb eval ID --format json` in fresh processes (median of --repeat runs).
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bottleneck_kb.rules.examples import MINIMAL_ENTRY, patched

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
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


if __name__ == "__main__":
    main()
