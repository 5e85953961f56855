"""Published measurements judged against their bounds: the numbers a measurement stands for,
the refusal of one faster than its bound (at its line, with both numbers), a model's between
its floor and its serial sum, achieved fractions by class and what they derate."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from bottleneck_kb.checking.run import check
from bottleneck_kb.cli.main import main
from bottleneck_kb.composition.cards import recipe_cards
from bottleneck_kb.composition.measured import judge_model
from bottleneck_kb.evaluation.evaluator import Evaluator
from bottleneck_kb.evaluation.measured import judge_card
from bottleneck_kb.evaluation.result import Basis
from bottleneck_kb.knowledge.base import KnowledgeBase, read_models

from ..conftest import REPOSITORY, copy_repository

MEASURED = "KB704"


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def _line_of(path: Path, needle: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


@pytest.fixture(scope="module")
def base() -> KnowledgeBase:
    return KnowledgeBase.load(REPOSITORY)


def _card(base: KnowledgeBase, card: str, measurement: str) -> tuple[Evaluator, object]:
    entry = base.entry(card)
    assert entry is not None
    found = next(m for m in entry.measurements if m.id == measurement)
    return Evaluator.of(entry), found


def test_a_measurement_faster_than_its_bound_is_refused_at_its_line_with_both_numbers(
    tmp_path: Path,
) -> None:
    root = copy_repository(tmp_path / "kb")
    card = root / "entries" / "elementwise" / "rmsnorm.yaml"
    # Liger's RMSNorm of 4,096 x 8,192 bf16 on an H100: 134 MB at 3.35 TB/s is 40.07 µs.
    _replace(card, "time: 0.050912000238895416 ms", "time: 30 µs")

    found = [d for d in check(root).diagnostics if d.code == MEASURED]

    (refused,) = found
    assert (refused.path, refused.line) == (
        "entries/elementwise/rmsnorm.yaml",
        _line_of(card, "time: 30 µs"),
    )
    assert refused.message == (
        "measurement 'liger-megatron-rmsnorm-h100-t4096-h8192-fwd' on nvidia-h100-sxm: measured "
        "30 µs is below the lower bound 40.1 µs, memory-bound (memory_bandwidth 3.35 TB/s)"
    )
    # A check of the card alone refuses it too, and names the device fraction resting on it.
    alone = check(root, [card]).diagnostics
    assert {(d.path, d.code) for d in alone} == {
        ("entries/elementwise/rmsnorm.yaml", MEASURED),
        ("hardware/nvidia-h100-sxm.yaml", "KB705"),
    }


def test_the_last_printed_digit_decides(tmp_path: Path) -> None:
    """40.07 µs is the bound: 40 µs may be 40.49 µs, so it stands; 39 µs cannot be."""
    root = copy_repository(tmp_path / "kb")
    card = root / "entries" / "elementwise" / "rmsnorm.yaml"
    _replace(card, "time: 0.050912000238895416 ms", "time: 40 µs")
    assert not [d for d in check(root, [card]).diagnostics if d.code == MEASURED]
    _replace(card, "time: 40 µs", "time: 39 µs")
    assert [d.code for d in check(root, [card]).diagnostics].count(MEASURED) == 1


def test_a_rate_stands_for_the_cards_work_over_it(base: KnowledgeBase) -> None:
    evaluator, measurement = _card(
        base, "gemm/fp8-prefill-gemm", "deepgemm-h800-m4096-n24576-k1536"
    )
    judged = judge_card(evaluator, measurement, base.catalog.devices)  # type: ignore[arg-type]
    flops = 2 * 4096 * 24576 * 1536
    assert judged.measured_s == pytest.approx(flops / 1212e12, rel=1e-12)
    fp8 = base.catalog.devices["nvidia-h800-sxm"].peak_flops["fp8"].value
    assert judged.bound_s == pytest.approx(flops / fp8, rel=1e-12)
    assert judged.roof == "compute"
    assert round(judged.fraction, 4) == 0.6124


def test_a_token_rate_is_a_decode_step(base: KnowledgeBase) -> None:
    (model,) = [m for m in read_models(REPOSITORY, []) if m.id == "llama-2-7b"]
    measurement = next(m for m in model.measurements if m.id == "gpt-fast-a100-b1-bf16-tp1")
    judged = judge_model(model, measurement, base.catalog.devices, recipe_cards(REPOSITORY))
    assert judged.measured_s == pytest.approx(1 / 104.9, rel=1e-12)
    assert judged.serial_s is not None and judged.bound_s <= judged.serial_s < judged.measured_s


def test_a_model_step_between_its_floor_and_its_serial_sum_overlapped(tmp_path: Path) -> None:
    root = copy_repository(tmp_path / "kb")
    path = root / "models" / "llama-2-7b.yaml"
    # gpt-fast's tp 8 step: floor 0.82 ms, serial 1.29 ms; 1 ms is faster than serial.
    _replace(path, "throughput: 328.43 tok/s", "throughput: 1000 tok/s")
    assert not [d for d in check(root, [path]).diagnostics if d.code == MEASURED]
    (model,) = [m for m in read_models(root, []) if m.id == "llama-2-7b"]
    measurement = next(m for m in model.measurements if m.id == "gpt-fast-a100-b1-bf16-tp8")
    base = KnowledgeBase.load(root)
    judged = judge_model(model, measurement, base.catalog.devices, recipe_cards(root))
    assert judged.overlapped and not judged.below
    # Below the floor no overlap explains it.
    _replace(path, "throughput: 1000 tok/s", "throughput: 2000 tok/s")
    (refused,) = [d for d in check(root, [path]).diagnostics if d.code == MEASURED]
    assert refused.line == _line_of(path, "throughput: 2000 tok/s")
    assert re.fullmatch(
        r"measurement 'gpt-fast-a100-b1-bf16-tp8' on nvidia-a100-sxm-80gb: measured 0\.5 ms is "
        r"below the floor 0\.81\d ms, memory-bound \(memory_bandwidth 2\.04 TB/s\)",
        refused.message,
    ), refused.message


def test_derating_takes_the_cards_class_then_the_figure_wide_value(base: KnowledgeBase) -> None:
    h100 = base.catalog.devices["nvidia-h100-sxm"]
    derated = Basis(derated=True)
    norm = Evaluator.of(base.entry("elementwise/rmsnorm"))  # type: ignore[arg-type]
    done = norm.work({})
    # Elementwise kernels reach 0.83 of the H100's bandwidth (its by-class value) ...
    assert norm.on(h100, done, derated).memory_time == pytest.approx(
        done.bytes / (3.35e12 * 0.83), rel=1e-12
    )
    # ... a decode GEMM, which has none, the figure-wide 0.84.
    gemm = Evaluator.of(base.entry("gemm/decode-weight-gemm"))  # type: ignore[arg-type]
    work = gemm.work({})
    assert gemm.on(h100, work, derated).memory_time == pytest.approx(
        work.bytes / (3.35e12 * 0.84), rel=1e-12
    )


@pytest.mark.parametrize(("tokens", "fraction"), [(4096, 0.47), (65536, 0.59), (256, None)])
def test_a_collectives_fraction_is_the_one_for_its_message_size(
    base: KnowledgeBase, tokens: int, fraction: float | None
) -> None:
    """64 MB and 1 GB all-reduces take their ranges' values; 4 MB, in neither, is not derated
    (the interconnect has no figure-wide value)."""
    h100 = base.catalog.devices["nvidia-h100-sxm"]
    card = Evaluator.of(base.entry("collective/nvls-all-reduce"))  # type: ignore[arg-type]
    done = card.work({"T": tokens})
    plain = card.on(h100, done).times["interconnect"]
    derated = card.on(h100, done, Basis(derated=True)).times["interconnect"]
    assert derated == pytest.approx(plain / (fraction or 1.0), rel=1e-12)


def test_a_fraction_outside_its_measurements_is_refused(tmp_path: Path) -> None:
    root = copy_repository(tmp_path / "kb")
    h100 = root / "hardware" / "nvidia-h100-sxm.yaml"
    _replace(h100, "        value: 0.83\n", "        value: 0.95\n")
    (refused,) = [d for d in check(root).diagnostics if d.code == "KB705"]
    assert (refused.path, refused.line) == (
        "hardware/nvidia-h100-sxm.yaml",
        _line_of(h100, "value: 0.95"),
    )
    assert refused.message == (
        "memory_bandwidth for elementwise is 0.95, outside what its measurements show: "
        "0.787 to 0.8768 of the bound"
    )


def test_a_fraction_cannot_rest_on_another_devices_measurement(tmp_path: Path) -> None:
    root = copy_repository(tmp_path / "kb")
    h100 = root / "hardware" / "nvidia-h100-sxm.yaml"
    _replace(
        h100,
        "          - elementwise/rmsnorm#liger-megatron-rmsnorm-h100-t4096-h8192-fwd\n",
        "          - elementwise/rmsnorm#liger-rmsnorm-a100-t2048-h8192-fwd\n",
    )
    messages = [d.message for d in check(root).diagnostics if d.code == "KB705"]
    assert messages == [
        # What is left to rest on, SwiGLU's 0.8768, does not bear out 0.83 (said at the value,
        # which comes first in the file) ...
        "memory_bandwidth for elementwise is 0.83, outside what its measurements show: "
        "0.8768 to 0.8768 of the bound",
        "elementwise/rmsnorm#liger-rmsnorm-a100-t2048-h8192-fwd: measured on "
        "nvidia-a100-sxm-80gb, not on nvidia-h100-sxm",
    ]


def test_kb_eval_and_kb_estimate_show_the_measurements() -> None:
    runner = CliRunner()
    shown = runner.invoke(
        main, ["eval", "elementwise/rmsnorm", "--on", "nvidia-h100-sxm", "--root", str(REPOSITORY)]
    )
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert "Measured (published; each at its own workload, beside its bound there):" in lines
    row = next(line for line in lines if "T=4096, h=8192" in line)
    assert row.split()[:2] == ["nvidia-h100-sxm", "T=4096,"]
    assert "50.9 µs  40.1 µs      0.79  at or above the bound" in row
    assert (
        "  nvidia-h100-sxm: about 24.1 µs (0.83 of memory_bandwidth, from "
        "elementwise/rmsnorm#liger-megatron-rmsnorm-h100-t4096-h8192-fwd, "
        "elementwise/swiglu-activation#liger-megatron-swiglu-h100-t8192-i8192-fwd)"
    ) in lines
    data = json.loads(
        runner.invoke(
            main,
            ["eval", "elementwise/rmsnorm", "--format", "json", "--root", str(REPOSITORY)],
        ).output
    )
    keys = [m["key"] for m in data["measurements"]]
    assert "elementwise/rmsnorm#liger-rmsnorm-a100-t2048-h8192-fwd" in keys
    estimated = runner.invoke(
        main,
        [
            "estimate",
            "llama-2-7b",
            "--on",
            "nvidia-h100-sxm",
            "--format",
            "json",
            "--root",
            str(REPOSITORY),
        ],
    )
    judged = json.loads(estimated.output)["measurements"]
    assert {m["device"] for m in judged} == {"nvidia-h100-sxm"}
    assert {m["scope"] for m in judged} == {"prefill step"}


def test_kb_check_reports_the_range_of_fractions() -> None:
    result = CliRunner().invoke(main, ["check", "--root", str(REPOSITORY), "--format", "json"])
    report = json.loads(result.output)
    fractions = {m["key"]: m["fraction_of_bound"] for m in report["measurements"]}
    assert round(fractions["gemm/fp8-prefill-gemm#deepgemm-h800-m4096-n24576-k1536"], 4) == 0.6124
    assert all(0 < f <= 1 for f in fractions.values())


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ("time: 0.050912000238895416 ms", "time: 1e300 s", "stands for 1.00e+300 s, outside"),
        (
            "time: 0.050912000238895416 ms",
            "throughput: 1e-300 B/s\n    counts: bytes",
            "stands for 1.34e+308 s, outside",
        ),
        ("time: 0.050912000238895416 ms", "time: 1e-12 s", "stands for 1.00e-12 s, outside"),
    ],
)
def test_a_result_no_measurement_can_have_is_refused_and_every_command_says_so(
    tmp_path: Path, old: str, new: str, said: str
) -> None:
    """A time or a rate that stands for a time past a nanosecond to a hundred days is refused
    at its line (KB703), and kb eval and the site's evaluation go on without it."""
    root = copy_repository(tmp_path / "kb")
    card = root / "entries" / "elementwise" / "rmsnorm.yaml"
    _replace(card, old, new)
    (refused,) = [d for d in check(root, [card]).diagnostics if d.code == "KB703"]
    assert refused.line == _line_of(card, new.splitlines()[0])
    assert said in refused.message
    shown = CliRunner().invoke(
        main, ["eval", "elementwise/rmsnorm", "--format", "json", "--root", str(root)]
    )
    assert shown.exit_code == 1  # an entry kb check refuses: its numbers, then the errors
    keys = [m["key"] for m in json.loads(shown.stdout)["measurements"]]
    assert "elementwise/rmsnorm#liger-megatron-rmsnorm-h100-t4096-h8192-fwd" not in keys


@pytest.mark.parametrize("rate", ["1e-320 tok/s", "1e308 Mtok/s", "0 tok/s"])
def test_a_token_rate_no_step_can_have_is_refused(tmp_path: Path, rate: str) -> None:
    root = copy_repository(tmp_path / "kb")
    path = root / "models" / "llama-2-7b.yaml"
    _replace(path, "throughput: 104.9 tok/s", f"throughput: {rate}")
    (refused,) = [d for d in check(root, [path]).diagnostics if d.code == "KB703"]
    assert refused.line == _line_of(path, f"throughput: {rate}")
    estimated = CliRunner().invoke(
        main, ["estimate", "llama-2-7b", "--format", "json", "--root", str(root)]
    )
    assert estimated.exit_code == 1 and "Traceback" not in estimated.output
