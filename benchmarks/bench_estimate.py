"""How fast whole-model estimates are, against what a reader would otherwise run, in one run:

- `kb estimate MODEL --format json` of one model on every device against `kb eval ENTRY
  --format json` of one entry, as fresh processes taking turns (target: at most 2x);
- `estimate(model, deployment, [device])` on a knowledge base already loaded against
  llm-analysis 0.2.2's constructor plus its inference call on the same configuration (Llama
  3.1 70B's, tp 8, batch 1, 4,096 tokens, an H100 SXM), medians of --calls calls after a
  warm-up; llm-analysis runs in its own environment (benchmarks/.peers/llm-analysis, made
  with pip on first use) and times its own calls there (target: at most 1x);
- the model explorer's time per control change in Debian's Chromium: a change of batch on the
  model page, from the control's change event to the table re-drawn, median of --calls
  changes (target: at most 16 ms, a frame).

The site build with the models is held to bench_site.py's targets.

    .venv/bin/python benchmarks/bench_estimate.py [--repeat 9] [--calls 50]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

from bottleneck_kb.composition.cards import recipe_cards
from bottleneck_kb.composition.deployment import resolve
from bottleneck_kb.composition.estimate import estimate
from bottleneck_kb.knowledge.base import KnowledgeBase

REPOSITORY = Path(__file__).resolve().parents[1]
MODEL, ENTRY, DEVICE = "llama-3.1-70b", "gemm/lm-head", "nvidia-h100-sxm"
PEERS = Path(__file__).parent / ".peers"
LLM_ANALYSIS = "llm-analysis==0.2.2"

#: llm-analysis's constructor and inference call on Llama 3.1 70B's configuration, timed in
#: its own environment: the median seconds of a call, after one warm-up, printed as JSON.
#: It refuses an MLP width (28,672) that is not a multiple of the hidden size (8,192), so the
#: width is given as its ratio, 3.5, which is the same width.
LLM_ANALYSIS_TIMING = """
import json, sys, time
from statistics import median
from llm_analysis.analysis import LLMAnalysis
from llm_analysis.config import ModelConfig, GPUConfig, DtypeConfig, ParallelismConfig
calls = int(sys.argv[1])
model = ModelConfig(name="llama-3.1-70b", num_layers=80, n_head=64, hidden_dim=8192,
    vocab_size=128256, max_seq_len=131072, num_key_value_heads=8, expansion_ratio=3.5,
    model_type="llama")
gpu = GPUConfig(name="h100-sxm", mem_per_GPU_in_GB=80, hbm_bandwidth_in_GB_per_sec=3350,
    intra_node_bandwidth_in_GB_per_sec=450, intra_node_min_message_latency=8e-06,
    peak_fp16_TFLOPS=989.4, peak_i8_TFLOPS=1978.9, peak_i4_TFLOPS=3957.8,
    inter_node_bandwidth_in_GB_per_sec=50)
def once():
    analysis = LLMAnalysis(model, gpu, DtypeConfig(), ParallelismConfig(tp_size=8))
    analysis.inference(batch_size_per_gpu=1, seq_len=4096, num_tokens_to_generate=1)
once()
seconds = []
for _ in range(calls):
    start = time.perf_counter(); once(); seconds.append(time.perf_counter() - start)
print(json.dumps(median(seconds)))
"""


def processes(repeat: int) -> tuple[float, float]:
    """Median seconds of `kb estimate` and `kb eval` as fresh processes, taking turns."""
    kb = [sys.executable, "-m", "bottleneck_kb"]
    commands = (
        [*kb, "estimate", MODEL, "--format", "json", "--root", str(REPOSITORY)],
        [*kb, "eval", ENTRY, "--format", "json", "--root", str(REPOSITORY)],
    )
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for command, taken in zip(commands, times, strict=True):
            start = time.perf_counter()
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            taken.append(time.perf_counter() - start)
    return median(times[0]), median(times[1])


def in_process(calls: int) -> float:
    """Median seconds of one estimate on one device of a knowledge base already loaded."""
    kb = KnowledgeBase.load(REPOSITORY)
    model = kb.model(MODEL)
    assert model is not None
    cards = recipe_cards(REPOSITORY)
    device = kb.catalog.devices[DEVICE]
    given = {"batch": 1.0, "context": 4096.0, "tp": 8.0}
    deployment = resolve(model.typical, model.offered, given)

    def once() -> None:
        estimate(model, deployment, [device], cards)

    once()
    seconds = []
    for _ in range(calls):
        start = time.perf_counter()
        once()
        seconds.append(time.perf_counter() - start)
    return median(seconds)


def llm_analysis(calls: int) -> float | None:
    """llm-analysis's median seconds a call, in its own environment; None where it cannot be
    installed (said)."""
    environment = PEERS / "llm-analysis"
    python = environment / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(environment)], check=True)
        installed = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", LLM_ANALYSIS], check=False
        )
        if installed.returncode:
            print(f"  {LLM_ANALYSIS} did not install: its comparison is left out")
            return None
    run = subprocess.run(
        [str(python), "-c", LLM_ANALYSIS_TIMING, str(calls)],
        capture_output=True,
        text=True,
        check=False,
    )
    if run.returncode:
        print(f"  llm-analysis failed: {run.stderr.strip().splitlines()[-1:]}")
        return None
    return float(json.loads(run.stdout.splitlines()[-1]))


def explorer(calls: int) -> float | None:
    """Median milliseconds from a batch control's change to the model explorer's table
    re-drawn, in Chromium; None without Debian's chromium."""
    chromium = Path("/usr/bin/chromium")
    if not chromium.exists():
        print("  Debian's chromium is not installed: the explorer's timing is left out")
        return None
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(REPOSITORY))
    from tests.browser import ARGS, serve

    with tempfile.TemporaryDirectory() as folder:
        site = Path(folder) / "site"
        env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
        subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "-q", "-d", str(site)],
            check=True,
            cwd=REPOSITORY,
            env=env,
        )
        with serve(site) as base, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(chromium), args=ARGS)
            page = browser.new_page()
            page.goto(f"{base}models/{MODEL}/")
            page.wait_for_selector(".kb-model-results table")
            taken = page.evaluate(
                """calls => {
                    const input = document.querySelector('#kb-model-batch');
                    const times = [];
                    for (let i = 0; i < calls + 1; i++) {
                        input.value = String(1 + (i % 64));
                        const start = performance.now();
                        input.dispatchEvent(new Event('change'));
                        times.push(performance.now() - start);
                    }
                    times.shift();
                    times.sort((a, b) => a - b);
                    return times[Math.floor(times.length / 2)];
                }""",
                calls,
            )
            browser.close()
    return float(taken)


def verdict(ratio: float, target: float) -> str:
    return "met" if ratio <= target else "MISSED"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--calls", type=int, default=50)
    args = parser.parse_args()
    calls = max(args.calls, 20)

    estimated, evaluated = processes(args.repeat)
    ratio = estimated / evaluated
    print(
        f"kb estimate {MODEL} (every device) {estimated:.3f} s / kb eval {ENTRY} "
        f"{evaluated:.3f} s = {ratio:.2f}x (target <= 2x: {verdict(ratio, 2.0)})"
    )
    ours = in_process(calls)
    theirs = llm_analysis(calls)
    if theirs is not None:
        ratio = ours / theirs
        print(
            f"estimate() on one device {ours * 1e3:.3f} ms / llm-analysis constructor and "
            f"inference {theirs * 1e3:.3f} ms = {ratio:.2f}x (target <= 1x: {verdict(ratio, 1.0)})"
        )
    else:
        print(f"estimate() on one device {ours * 1e3:.3f} ms (llm-analysis not measured)")
    taken = explorer(calls)
    if taken is not None:
        print(
            f"model explorer, a change of batch: {taken:.2f} ms (target <= 16 ms: "
            f"{verdict(taken, 16.0)})"
        )


if __name__ == "__main__":
    main()
