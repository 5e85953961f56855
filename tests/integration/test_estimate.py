"""`kb estimate` as a user runs it: the figures answer first with the breakdown, the JSON's keys,
what a bad request is told (exit 2), a model kb check refuses (exit 1, its errors located), and
what is re-checked when a card, a device or a model changes."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from bottleneck_kb.checking.results import CheckResult
from bottleneck_kb.checking.run import check
from bottleneck_kb.cli import main

from ..conftest import FIXTURES, copy_repository


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), env={"GITHUB_ACTIONS": ""})


@pytest.fixture
def knowledge_base(tmp_path: Path) -> Path:
    """A copy of the repository's cards and catalog with the frozen Llama 3.1 70B."""
    root = copy_repository(tmp_path / "kb", ("entries", "hardware"))
    (root / "models").mkdir()
    shutil.copy(FIXTURES / "models" / "llama-3.1-70b.yaml", root / "models")
    return root


def test_the_done_when_command_answers_first_with_the_breakdown(knowledge_base: Path) -> None:
    done = run(
        "estimate",
        "llama-3.1-70b",
        "--on",
        "nvidia-h100-sxm",
        "--tp",
        "8",
        "--set",
        "batch=1",
        "--set",
        "context=4096",
        "--root",
        str(knowledge_base),
    )
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert lines[0] == (
        "llama-3.1-70b at batch 1, prompt 4096, context 4096, output 1, tp 8 (16-bit weights, "
        "16-bit KV, bf16 compute; datasheet figures)"
    )
    assert lines[1].startswith("Fastest decode: nvidia-h100-sxm, 6.43 ms a token (floor 5.24 ms")
    assert "decode on nvidia-h100-sxm: 6.43 ms, floor 5.24 ms" in lines
    assert any(line.startswith("gate_up_projection") and "2.81 ms" in line for line in lines)


def test_the_json_is_what_the_export_carries(knowledge_base: Path) -> None:
    done = run("estimate", "llama-3.1-70b", "--format", "json", "--root", str(knowledge_base))
    assert done.exit_code == 0, done.output
    found = json.loads(done.output)
    assert found["model"] == "llama-3.1-70b"
    assert found["deployment"]["tp"] == 8
    h100 = next(r for r in found["results"] if r["device"] == "nvidia-h100-sxm")
    assert h100["weights_bytes"] == 141_107_412_992
    assert {r["device"] for r in found["results"]} | {s["device"] for s in found["skipped"]} == {
        p.stem for p in (knowledge_base / "hardware").glob("*.yaml")
    }


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--tp", "8", "--set", "tp=4"], "--tp and --set tp= both give tp: give one"),
        (["--set", "bacth=2"], "'bacth' is not a deployment parameter"),
        (["--set", "batch=5000"], "batch = 5000 is outside the model's offered range, [1, 1024]"),
        (["--set", "batch=many"], "batch=many: not a number"),
        (["--on", "nvidia-h100-sx"], "no device 'nvidia-h100-sx'"),
    ],
)
def test_a_bad_request_is_exit_2_and_says_what_is_allowed(
    knowledge_base: Path, args: list[str], said: str
) -> None:
    done = run("estimate", "llama-3.1-70b", *args, "--root", str(knowledge_base))
    assert done.exit_code == 2, done.output
    assert said in done.output


def test_an_unknown_model_is_told_the_nearest(knowledge_base: Path) -> None:
    done = run("estimate", "llama-3.1-70", "--root", str(knowledge_base))
    assert done.exit_code == 2
    assert "no model 'llama-3.1-70'" in done.output
    assert "llama-3.1-70b" in done.output


def test_a_parameter_no_row_reads_is_named_under_the_header(knowledge_base: Path) -> None:
    done = run(
        "estimate",
        "llama-3.1-70b",
        "--set",
        "ep=1",
        "--on",
        "nvidia-h100-sxm",
        "--root",
        str(knowledge_base),
    )
    assert done.exit_code == 0, done.output
    assert done.output.splitlines()[1] == "not read by any row: ep"


def test_a_model_kb_check_refuses_is_exit_1_with_its_errors_located(knowledge_base: Path) -> None:
    path = knowledge_base / "models" / "llama-3.1-70b.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("  batch: [1, 1024]", "  batch: [1, 100000]"),
        encoding="utf-8",
    )
    done = run(
        "estimate", "llama-3.1-70b", "--on", "nvidia-h100-sxm", "--root", str(knowledge_base)
    )
    assert done.exit_code == 1
    assert (
        "models/llama-3.1-70b.yaml:5:15: KB607 llama-3.1-70b, decode row attention "
        "(attention/gqa-decode): B = batch reaches [1, 100000], outside its card's range "
        "[1, 16384] at tp = 1, ep = 1, pp = 1"
    ) in done.output
    assert "kb check refuses llama-3.1-70b" in done.output


def test_absurd_sizes_are_located_errors_in_bounded_time(knowledge_base: Path) -> None:
    path = knowledge_base / "models" / "llama-3.1-70b.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            "num_hidden_layers: 80", "num_hidden_layers: 1.0e+30"
        ),
        encoding="utf-8",
    )
    started = time.monotonic()
    done = run("estimate", "llama-3.1-70b", "--root", str(knowledge_base))
    checked = run("check", "--root", str(knowledge_base))
    assert time.monotonic() - started < 60  # bounded, not a benchmark
    assert (done.exit_code, checked.exit_code) == (1, 1)
    assert "Traceback" not in done.output + checked.output
    assert "KB603" in checked.output and "KB607" in checked.output


def test_a_changed_card_rechecks_the_models_that_bind_it(knowledge_base: Path) -> None:
    path = knowledge_base / "models" / "llama-3.1-70b.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("  batch: [1, 1024]", "  batch: [1, 100000]"),
        encoding="utf-8",
    )
    card = knowledge_base / "entries" / "gemm" / "lm-head.yaml"
    unrelated = knowledge_base / "entries" / "training" / "optimizer-step.yaml"
    device = knowledge_base / "hardware" / "nvidia-l4.yaml"

    def model_paths(found: CheckResult) -> set[str]:
        return {d.path for d in found.diagnostics if d.path.startswith("models/")}

    assert model_paths(check(knowledge_base, [card])) == {"models/llama-3.1-70b.yaml"}
    assert model_paths(check(knowledge_base, [device])) == {"models/llama-3.1-70b.yaml"}
    assert model_paths(check(knowledge_base, [path])) == {"models/llama-3.1-70b.yaml"}
    assert model_paths(check(knowledge_base, [unrelated])) == set()


def test_an_invented_moe_model_is_one_file_and_no_python(knowledge_base: Path) -> None:
    """A new model of a known kind: kb check passes it, kb estimate estimates it, and the
    site has its page and its estimate in the export (tests/integration/test_site.py)."""
    (knowledge_base / "models" / "invented-moe-16x1b.yaml").write_text(
        INVENTED_MOE, encoding="utf-8"
    )
    checked = run("check", "--root", str(knowledge_base))
    assert checked.exit_code == 0, checked.output
    assert "and 2 models against" in checked.output
    done = run("estimate", "invented-moe-16x1b", "--format", "json", "--root", str(knowledge_base))
    assert done.exit_code == 0, done.output
    found = json.loads(done.output)
    h100 = next(r for r in found["results"] if r["device"] == "nvidia-h100-sxm")
    assert {t["as"] for t in h100["breakdown"]} >= {"router", "experts"}


#: A made-up MoE model of the moe-decoder kind: 16 experts of 1,024, 2 a token.
INVENTED_MOE = """\
id: invented-moe-16x1b
title: Invented MoE 16x1B
publisher: Nobody
architecture: moe-decoder
config:
  hidden_size: 2048
  intermediate_size: 1024
  num_hidden_layers: 24
  num_attention_heads: 16
  num_key_value_heads: 4
  num_local_experts: 16
  num_experts_per_tok: 2
  vocab_size: 32000
config_source: made-up
parameters:
  value: 2.8e+9
  tolerance: 0.01
  source: made-up
  note: The invented config implies 2.80 billion.
typical: {batch: 8, context: 2048}
offered:
  batch: [1, 256]
  prompt: [16, 4096]
  context: [128, 4096]
sources:
  - id: made-up
    title: A config made up for a test
    url: https://example.com/invented
    publisher: Nobody
    kind: secondary
    read: "2026-12-02"
"""
