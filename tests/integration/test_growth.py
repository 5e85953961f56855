"""Growing the vocabulary takes one edit: a new dtype (its row in the hardware schema), a new
roof (its row in the entry schema's roof table), a new function of the formula language (its
row in formula.FUNCTIONS) and a new output format (one decorated reporter) each work in every
command, shown in a temporary copy of the package and of the knowledge base, run as a user
runs kb."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bottleneck_kb.records import fields
from bottleneck_kb.rules.examples import MINIMAL_ENTRY

from ..conftest import EARLY_CARDS, REPOSITORY

#: Every test here starts processes, lints or builds: the slow tier.
pytestmark = pytest.mark.slow

PACKAGE = REPOSITORY / "tools" / "bottleneck_kb"
DRAFT = "flops/speculative-draft"


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A copy of the package (under tmp/tools) and of the early cards (tmp/kb, frozen: the
    numbers below are worked out from them)."""
    shutil.copytree(PACKAGE, tmp_path / "tools" / "bottleneck_kb", ignore=_caches)
    shutil.copytree(EARLY_CARDS, tmp_path / "kb")
    return tmp_path


def _caches(folder: str, names: list[str]) -> list[str]:
    return [name for name in names if name == "__pycache__"]


def kb(copy: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`kb ARGS` with the copied package, in the copied knowledge base."""
    run = f"import sys; sys.path.insert(0, {str(copy / 'tools')!r}); "
    run += "from bottleneck_kb.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", run, *args],
        cwd=copy / "kb",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _edit_json(path: Path, change: object) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)  # type: ignore[operator]
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")


def test_a_new_dtype_is_one_row_of_the_hardware_schema(copy: Path) -> None:
    def add_row(schema: dict) -> None:  # type: ignore[type-arg]
        rows = schema["properties"]["peak_flops"]["properties"]
        rows["fp6"] = {**rows["fp8"], "title": "FP6", "description": "Dense FP6.", "x-bits": 6}

    _edit_json(copy / "tools" / "bottleneck_kb" / "schemas" / "hardware.schema.json", add_row)
    # Published as CONTRIBUTING says, so that check also holds the entries to the published
    # schemas (their schema lines; KB020).
    published = copy / "kb" / "schema"
    published.mkdir()
    for kind in ("entry", "hardware"):
        printed = kb(copy, "schema", kind)
        assert printed.returncode == 0, printed.stderr
        (published / f"{kind}.schema.json").write_text(printed.stdout, "utf-8")
    entry_schema = json.loads((published / "entry.schema.json").read_text("utf-8"))
    dtype = entry_schema["properties"]["arithmetic_intensity"]["properties"]["dtype"]
    assert dtype["enum"] == [*fields.dtype_traits(), "fp6"]
    named = ("nvidia-h100-sxm", "amd-instinct-mi300x")  # the devices the entry names
    for name in named:
        device = copy / "kb" / "hardware" / f"{name}.yaml"
        text = device.read_text(encoding="utf-8")
        fp8 = re.search(r"\n  fp8:.*?value: ([0-9.]+ TFLOP/s).*?source: ([a-z0-9-]+)", text, re.S)
        assert fp8 is not None
        fp6 = f"  fp6: {{value: {fp8[1]}, source: {fp8[2]}, note: as fp8}}\n"
        device.write_text(text.replace("peak_flops:\n", "peak_flops:\n" + fp6, 1), "utf-8")
    entry = copy / "kb" / "entries" / f"{DRAFT}.yaml"
    entry.write_text(
        entry.read_text(encoding="utf-8").replace("dtype: bf16", "dtype: fp6"), "utf-8"
    )

    checked = kb(copy, "check", "--strict")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    listing = kb(copy, "hardware")
    assert "ridge fp6" in listing.stdout, listing.stderr
    evaluated = kb(copy, "eval", DRAFT, "--format", "json")
    assert evaluated.returncode == 0, evaluated.stderr
    document = json.loads(evaluated.stdout)
    assert document["dtype"] == "fp6"
    assert sorted(r["device"] for r in document["results"]) == sorted(named)
    assert {s["reason"] for s in document["skipped"]} == {"no dense fp6 peak in the catalog"}


def test_a_new_roof_is_one_row_of_the_roof_table(copy: Path) -> None:
    """A roof over a figure the catalog has (the host link, read again as a disk's): one row
    of the entry schema's table, and bound_by, the formula, a workaround's replacement, a
    check's bounds, the evaluation and the explorer's data all have it."""

    def add_row(schema: dict) -> None:  # type: ignore[type-arg]
        table = schema["$defs"]["roof"]["x-roofs"]
        table.insert(-2, {
            "name": "disk", "formula": "disk_bytes", "figure": "host_link_bandwidth",
            "unit": "B", "title": "Disk", "description": "Time is set by bytes read from disk.",
            "formula_title": "Disk bytes", "formula_description": "Formula for bytes read.",
            "bounds_description": "Bounds on bytes read from disk.",
        })  # fmt: skip

    _edit_json(copy / "tools" / "bottleneck_kb" / "schemas" / "entry.schema.json", add_row)
    printed = kb(copy, "schema", "entry")
    assert printed.returncode == 0, printed.stderr
    published = json.loads(printed.stdout)
    assert "disk" in published["properties"]["bound_by"]["enum"]
    assert "disk_bytes" in published["properties"]["arithmetic_intensity"]["properties"]
    model = published["properties"]["workarounds"]["items"]["properties"]["model"]
    assert "disk_bytes" in model["properties"]
    expect = published["properties"]["checks"]["items"]["properties"]["expect"]
    assert "disk_bytes" in expect["properties"]
    device = copy / "kb" / "hardware" / "nvidia-h100-sxm.yaml"
    assert "host_link_bandwidth:" in device.read_text("utf-8")  # the disk reads its figure
    entry = copy / "kb" / "entries" / "runtime" / "disk-read.yaml"
    entry.write_text(
        MINIMAL_ENTRY.replace("fixtures/minimal", "runtime/disk-read")
        .replace("bound_by: memory", "bound_by: disk")
        .replace("  bytes: 2 * N\n", "  bytes: 2 * N\n  disk_bytes: 1.0e+3 * N\n")
        + "checks:\n  - claim: Reading the weights from disk sets the time.\n"
        "    devices: [nvidia-h100-sxm]\n"
        "    expect: {bound_by: disk, disk_bytes: {min: 1.0e+12}}\n",
        "utf-8",
    )

    checked = kb(copy, "check", "entries/runtime/disk-read.yaml")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    evaluated = kb(copy, "eval", "runtime/disk-read", "--on", "nvidia-h100-sxm", "--format", "json")
    assert evaluated.returncode == 0, evaluated.stderr
    (result,) = json.loads(evaluated.stdout)["results"]
    assert result["verdict"] == "disk"
    assert result["times"]["disk"] == 1.0e12 / 64e9  # 128 GB/s both ways: 64 GB/s each


def test_a_new_function_is_one_row_of_the_table(copy: Path) -> None:
    formula = copy / "tools" / "bottleneck_kb" / "maths" / "formula.py"
    text = formula.read_text(encoding="utf-8")
    row = '        "sqrt": Function('
    assert row in text
    formula.write_text(
        text.replace(
            row,
            '        "cbrt": Function(1, 1, math.cbrt, _increasing(math.cbrt), '
            'lambda sympy: sympy.cbrt, "Math.cbrt"),\n' + row,
        ),
        "utf-8",
    )
    entry = copy / "kb" / "entries" / f"{DRAFT}.yaml"
    entry.write_text(
        entry.read_text(encoding="utf-8").replace("bytes: 2 * N_d", "bytes: 2 * N_d * cbrt(8) / 2"),
        "utf-8",
    )
    checked = kb(copy, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    evaluated = kb(copy, "eval", DRAFT, "--format", "json")
    assert evaluated.returncode == 0, evaluated.stderr
    document = json.loads(evaluated.stdout)
    assert document["intensity_formula"] == "k"
    assert document["results"][0]["bytes"] == pytest.approx(2.0e9)


def test_a_new_output_format_is_one_reporter(copy: Path) -> None:
    reporters = copy / "tools" / "bottleneck_kb" / "report" / "check.py"
    reporters.write_text(
        reporters.read_text(encoding="utf-8") + '\n\n@reporter(CHECK, "count")\n'
        "def count(result: CheckResult) -> str:\n"
        '    return f"{len(result.diagnostics)}\\n"\n',
        "utf-8",
    )
    checked = kb(copy, "check", "--format", "count")
    assert (checked.returncode, checked.stdout) == (0, "0\n"), checked.stderr
