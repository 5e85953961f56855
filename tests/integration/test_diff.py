"""`kb diff REF`: the working tree against the merge base of REF and HEAD, in real git
repositories: verdicts, times, checks and measurements that move, files added or removed, a
base the installed kb refuses, the threshold, and the three formats."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bottleneck_kb.cli import main
from bottleneck_kb.rules.examples import MINIMAL_ENTRY, MINIMAL_MODEL

from ..conftest import FIXTURES, git

H100 = "hardware/nvidia-h100-sxm.yaml"
MI300X = "hardware/amd-instinct-mi300x.yaml"
CARD = "entries/gemm/decode.yaml"
#: The card's work at its typical values: 2 * B * N FLOPs and 2 * N bytes, B = 256, N = 1e9.
FLOPS, BYTES = 2 * 256 * 1e9, 2 * 1e9
H100_BF16 = 989.4e12

#: The minimal entry at 256 rows: memory-bound on the H100 (ridge 295 FLOP/B), compute-bound
#: on the MI300X (ridge 247 FLOP/B); a check and a measurement on the H100.
DECODE = MINIMAL_ENTRY.replace("id: fixtures/minimal", "id: gemm/decode").replace(
    "typical: 8", "typical: 256"
).replace("bound_by: memory\n", "bound_by: compute\n") + (
    """checks:
  - claim: "Memory-bound on an H100 SXM, at least 0.597 ms."
    devices: [nvidia-h100-sxm]
    expect:
      bound_by: memory
      time: {min: 0.000596, max: 0.000598}
measurements:
  - id: h100-b256
    device: nvidia-h100-sxm
    set: {B: 256}
    software: {name: A benchmark, version: "1.0"}
    scope: kernel
    time: 0.62 ms
    how: Ten timed runs after three warm-ups.
    source:
      reference: https://doi.org/10.1145/1498765.1498785
      read: "2026-12-02"
      where: table 1
"""
)


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A knowledge base of two devices and one card, committed on main."""
    root = tmp_path / "kb"
    shutil.copytree(FIXTURES / "kb", root)
    (root / CARD).parent.mkdir(parents=True)
    (root / CARD).write_text(DECODE, encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    commit(root, "base")
    return root


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def bandwidth(root: Path, value: str) -> None:
    edit(root / H100, "memory_bandwidth: {value: 3.35 TB/s", f"memory_bandwidth: {{value: {value}")


def kb_diff(root: Path, *args: str) -> tuple[int, str]:
    here = os.getcwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(main, ["diff", *args])
    finally:
        os.chdir(here)
    return result.exit_code, result.output


def diff_json(root: Path, *args: str) -> dict[str, Any]:
    code, output = kb_diff(root, *args, "--format", "json")
    assert code == 0, output
    found: dict[str, Any] = json.loads(output)
    return found


def test_a_commit_that_edits_a_bandwidth_lists_the_verdicts_and_times_that_move(
    repository: Path,
) -> None:
    bandwidth(repository, "4 TB/s")
    commit(repository, "a faster H100")
    found = diff_json(repository, "HEAD~1")
    assert found["verdicts"] == [
        {"entry": "gemm/decode", "device": "nvidia-h100-sxm", "from": "memory", "to": "compute"}
    ]
    before, after = BYTES / 3.35e12, FLOPS / H100_BF16
    assert found["times"] == [
        {
            "entry": "gemm/decode",
            "device": "nvidia-h100-sxm",
            "from_s": before,
            "to_s": after,
            "change": after / before - 1,
        }
    ]
    assert [(c["entry"], c["device"], c["from"], c["to"]) for c in found["checks"]] == [
        ("gemm/decode", "nvidia-h100-sxm", "pass", "fail")
    ]
    assert found["compared"] == {"cards": 1, "devices": 2, "models": 0}
    assert found["base_errors"] == []
    # The check kb check now refuses is said as an error of the working tree.
    assert {(e["path"], e["code"]) for e in found["errors"]} == {(CARD, "KB407")}

    code, text = kb_diff(repository, "HEAD~1")
    assert code == 0
    assert text.splitlines()[0].endswith(
        ": 1 verdict flips; 1 lower bound moves by more than 1%; 1 check newly fails; "
        "1 card, 2 devices, 0 models compared"
    )
    assert "  gemm/decode  nvidia-h100-sxm  memory  compute" in text
    assert "  gemm/decode  nvidia-h100-sxm  0.597 ms  0.517 ms  -13.3%" in text


def test_uncommitted_changes_are_compared_and_nothing_changed_moves_nothing(
    repository: Path,
) -> None:
    code, text = kb_diff(repository, "HEAD")
    assert code == 0
    assert text.splitlines()[0].endswith(": nothing moves; 1 card, 2 devices, 0 models compared")
    bandwidth(repository, "4 TB/s")  # in the working tree only
    assert len(diff_json(repository, "HEAD")["verdicts"]) == 1


def test_a_measurement_that_newly_fails(repository: Path) -> None:
    # 3 TB/s puts the bound at 0.667 ms, above the 0.62 ms measured.
    bandwidth(repository, "3 TB/s")
    found = diff_json(repository, "HEAD")
    assert found["measurements"] == [
        {
            "subject": "gemm/decode",
            "measurement": "gemm/decode#h100-b256",
            "device": "nvidia-h100-sxm",
            "from": "pass",
            "to": "fail",
            "detail": "measured 0.62 ms, bound 0.667 ms",
        }
    ]
    assert found["verdicts"] == []


@pytest.mark.parametrize(("threshold", "moves"), [("0.2", 0), ("0.133", 1), ("0.134", 0), ("0", 1)])
def test_a_time_moves_past_the_threshold(repository: Path, threshold: str, moves: int) -> None:
    bandwidth(repository, "4 TB/s")  # the lower bound moves by 13.32 %
    found = diff_json(repository, "HEAD", "--threshold", threshold)
    assert len(found["times"]) == moves
    assert found["threshold"] == float(threshold)
    assert len(found["verdicts"]) == 1  # a verdict flips whatever the threshold


@pytest.mark.parametrize("threshold", ["-0.1", "nan", "inf", "a lot"])
def test_a_threshold_is_a_finite_fraction(repository: Path, threshold: str) -> None:
    code, output = kb_diff(repository, "HEAD", "--threshold", threshold)
    assert code == 2
    assert "Invalid value for '--threshold'" in output


def test_cards_devices_and_models_added_or_removed(repository: Path) -> None:
    (repository / MI300X).unlink()
    other = repository / "hardware" / "nvidia-h100-copy.yaml"
    other.write_text(
        (repository / H100)
        .read_text(encoding="utf-8")
        .replace("id: nvidia-h100-sxm", "id: nvidia-h100-copy"),
        encoding="utf-8",
    )
    (repository / "entries" / "gemm" / "prefill.yaml").write_text(
        DECODE.replace("id: gemm/decode", "id: gemm/prefill"), encoding="utf-8"
    )
    (repository / "models").mkdir()
    (repository / "models" / "fixture-model.yaml").write_text(MINIMAL_MODEL, encoding="utf-8")
    found = diff_json(repository, "HEAD")
    assert found["added"] == {
        "cards": ["gemm/prefill"],
        "devices": ["nvidia-h100-copy"],
        "models": ["fixture-model"],
    }
    assert found["removed"] == {"cards": [], "devices": ["amd-instinct-mi300x"], "models": []}
    # Results on a device one side lacks are no move: the device is said added or removed.
    assert found["verdicts"] == found["times"] == found["checks"] == []


def test_a_base_the_installed_kb_refuses_is_said_and_what_both_evaluate_compared(
    repository: Path,
) -> None:
    # The base's H100 written to the first schema's shape, which this kb refuses.
    edit(
        repository / H100,
        "memory_bandwidth: {value: 3.35 TB/s, source: hpctech-h100}",
        "memory_bandwidth: 3.35 TB/s",
    )
    commit(repository, "an old device")
    git(repository, "checkout", "-q", "-b", "change")
    (repository / H100).write_text(
        (FIXTURES / "kb" / H100).read_text(encoding="utf-8"), encoding="utf-8"
    )
    edit(repository / MI300X, "bf16: {value: 1307.4 TFLOP/s", "bf16: {value: 1250 TFLOP/s")
    found = diff_json(repository, "main")
    # The card's check names the H100, whose file has errors: said there too.
    assert {e["path"] for e in found["base_errors"]} == {H100, CARD}
    assert found["errors"] == []
    assert [(u["kind"], u["id"], u["side"]) for u in found["not_compared"]] == [
        ("devices", "nvidia-h100-sxm", "merge base")
    ]
    assert found["compared"] == {"cards": 1, "devices": 1, "models": 0}
    # The MI300X's slower peak is compared, where both sides evaluate.
    assert [(t["device"], t["from_s"], t["to_s"]) for t in found["times"]] == [
        ("amd-instinct-mi300x", FLOPS / 1307.4e12, FLOPS / 1250e12)
    ]
    code, markdown = kb_diff(repository, "main", "--format", "markdown")
    assert code == 0
    assert "#### The merge base's files that this kb refuses" in markdown
    assert "| `devices` |" not in markdown  # kinds are kb's own words, not code
    assert "| device | `nvidia-h100-sxm` | merge base |" in markdown


def test_links_in_the_base_are_not_followed(repository: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text(DECODE.replace("id: gemm/decode", "id: gemm/secret"), encoding="utf-8")
    (repository / "entries" / "gemm" / "secret.yaml").symlink_to(secret)
    commit(repository, "a link out")
    (repository / "entries" / "gemm" / "secret.yaml").unlink()
    found = diff_json(repository, "HEAD")
    assert found["unread"] == [
        {
            "path": "entries/gemm/secret.yaml",
            "why": "is a symbolic link, which kb diff does not follow",
        }
    ]
    assert found["removed"]["cards"] == ["gemm/secret"]


def test_the_markdown_shows_a_strangers_text_as_code(repository: Path) -> None:
    hostile = "Memory-bound @octocat <img src=x onerror=alert(1)> | [x](https://e.com) #1 `a`"
    edit(
        repository / CARD,
        'claim: "Memory-bound on an H100 SXM, at least 0.597 ms."',
        f"claim: {json.dumps(hostile)}",
    )
    commit(repository, "a claim")
    bandwidth(repository, "4 TB/s")
    code, markdown = kb_diff(repository, "HEAD", "--format", "markdown")
    assert code == 0
    row = next(line for line in markdown.splitlines() if "octocat" in line)
    claim = "Memory-bound @octocat <img src=x onerror=alert(1)> \\| [x](https://e.com) #1 `a`"
    assert row.startswith(f"| `gemm/decode` | `nvidia-h100-sxm` | `` {claim} `` | passes | `")
    assert markdown.startswith("### kb diff against `HEAD`\n\nMerge base `")


def test_a_ref_that_is_no_commit_and_a_folder_outside_git_are_usage_errors(
    repository: Path, tmp_path: Path
) -> None:
    code, output = kb_diff(repository, "no-such-branch")
    assert code == 2
    assert "Error: Invalid value for REF: 'no-such-branch' is not a commit" in output
    alone = tmp_path / "alone"
    shutil.copytree(FIXTURES / "kb", alone)
    code, output = kb_diff(alone, "HEAD")
    assert code == 2
    assert f"Error: Invalid value for REF: {alone} is not in a git repository" in output
