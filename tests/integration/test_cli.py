"""The kb command through Click's runner, on real files."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from bottleneck_kb import rules, schemas
from bottleneck_kb.checking.run import check as check_of
from bottleneck_kb.cli import main
from bottleneck_kb.core.diagnostics import Diagnostic, Severity
from bottleneck_kb.rules.examples import MINIMAL_ENTRY

from ..conftest import EARLY_CARDS, REPOSITORY, console_script, copy_repository, counted, summary_of


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), env=env or {"GITHUB_ACTIONS": ""})


@pytest.fixture
def broken_root(kb_root: Path) -> Path:
    entry = kb_root / "entries" / "fixtures" / "minimal.yaml"
    entry.write_text(
        entry.read_text(encoding="utf-8").replace("bound_by: memory", "bound_by: memroy"),
        encoding="utf-8",
    )
    return kb_root


def test_check_on_the_repository_is_clean(repository: Path) -> None:
    result = run("check", "--root", str(repository))
    assert result.exit_code == 0, result.output
    assert summary_of(result.output) == f"All clear: checked {counted(repository)}.\n"


#: Where the broken entry's bound_by value stands: its line in the minimal entry, column 11.
BOUND_BY = MINIMAL_ENTRY.splitlines().index("bound_by: memory") + 1


def test_check_reports_located_errors_and_exits_1(broken_root: Path) -> None:
    result = run("check", "--root", str(broken_root))
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"entries/fixtures/minimal.yaml:{BOUND_BY}:11: KB103 'memroy' is not an allowed bound_by",
        "    hint: did you mean 'memory'? allowed values: compute, memory, interconnect, "
        "host_link, network, latency, capacity",
        "Found 1 error in 1 file; checked 1 entry against 2 devices.",
    ]


def test_a_selected_rule_that_could_not_run_is_not_all_clear(broken_root: Path) -> None:
    """What kept a file from being checked is said whatever --select, unless the selected
    codes are all found while reading (they ran)."""
    for code in ("KB015", "KB406"):
        result = run("check", "--root", str(broken_root), "--select", code)
        assert result.exit_code == 1
        assert result.output.splitlines()[0] == (
            f"entries/fixtures/minimal.yaml:{BOUND_BY}:11: KB103 'memroy' is not an allowed "
            "bound_by"
        )
    read = run("check", "--root", str(broken_root), "--select", "KB005")
    assert (read.exit_code, read.output) == (0, "All clear: checked 1 entry against 2 devices.\n")


def test_json_format(broken_root: Path) -> None:
    result = run("check", "--root", str(broken_root), "--format", "json")
    assert result.exit_code == 1
    document = json.loads(result.output)
    (diagnostic,) = document["diagnostics"]
    assert (diagnostic["code"], diagnostic["line"], diagnostic["col"]) == ("KB103", BOUND_BY, 11)
    assert document["summary"]["errors"] == 1


def test_github_format_is_chosen_by_github_actions(broken_root: Path) -> None:
    result = run("check", "--root", str(broken_root), env={"GITHUB_ACTIONS": "true"})
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        f"::error file=entries/fixtures/minimal.yaml,line={BOUND_BY},col=11,title=KB103::"
        "'memroy' is not an allowed bound_by%0Adid you mean 'memory'? allowed values: "
        "compute, memory, interconnect, host_link, network, latency, capacity"
    )


def test_sarif_format(broken_root: Path) -> None:
    result = run("check", "--root", str(broken_root), "--format", "sarif")
    document = json.loads(result.output)
    run_ = document["runs"][0]
    assert document["version"] == "2.1.0"
    assert run_["tool"]["driver"]["rules"][0]["id"] == "KB103"
    region = run_["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": BOUND_BY, "startColumn": 11}


def test_check_given_paths_still_uses_the_catalog(kb_root: Path) -> None:
    entry = kb_root / "entries" / "fixtures" / "minimal.yaml"
    result = run("check", "--root", str(kb_root), str(entry))
    assert result.exit_code == 0
    assert result.output == "All clear: checked 1 entry against 2 devices.\n"


def test_an_error_in_a_folded_formula_is_reported_at_its_token(tmp_path: Path) -> None:
    """The early decode GEMM card's crossover_batch is a `>-` formula over two lines: a typo on
    the second line is reported there, in the text and in the GitHub annotation, not at the
    `>-`."""
    root = shutil.copytree(EARLY_CARDS, tmp_path / "kb")
    path = "entries/gemm/decode-weight-gemm.yaml"
    lines = (root / path).read_text(encoding="utf-8").splitlines(keepends=True)
    typo = lines.index("      / M)))\n")
    assert lines[typo - 2] == "    formula: >-\n"
    lines[typo] = "      / Mx)))\n"
    (root / path).write_text("".join(lines), encoding="utf-8")

    text = run("check", "--root", str(root), str(root / path))
    github = run("check", "--root", str(root), "--format", "github", str(root / path))

    assert text.exit_code == 1
    assert text.output.startswith(f"{path}:{typo + 1}:9: KB411 unknown symbol `Mx`;")
    assert f"::error file={path},line={typo + 1},col=9,title=KB411::" in github.output


def test_a_missing_path_is_an_error(kb_root: Path) -> None:
    result = run("check", "--root", str(kb_root), str(kb_root / "entries" / "nope.yaml"))
    assert result.exit_code == 1
    assert "entries/nope.yaml:1:1: KB011 no such file or directory" in result.output


@pytest.mark.parametrize(
    ("args", "echoed"),
    [
        (
            ["eval", "gemm/decode-weight-gemm", "--set", "B=1\n::error::pwned"],
            "'B=1\\n::error::pwned'",
        ),
        (["eval", "gemm/decode-weight-gemm", "a\n::error::p"], "(a\\n::error::p)"),
        (["check", "--select", "KB\x1b[2J"], "KB\\x1b[2J"),
        (["--bogus\n::warning::x"], "--bogus\\n::warning::x"),
    ],
)
def test_a_refused_command_line_value_is_echoed_on_one_line(args: list[str], echoed: str) -> None:
    """A usage error quotes what was given: a line break in it must not start a line that a
    CI runner would read as a workflow command, nor a control character reach the terminal."""
    done = console_script(*args, cwd=REPOSITORY, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = done.communicate(timeout=60)
    said = (out + err).decode()
    assert done.returncode == 2
    assert echoed in said, said
    assert not any(line.lstrip().startswith("::") for line in said.splitlines())
    assert "\x1b" not in said


def test_usage_error_exits_2() -> None:
    assert run("check", "--format", "xml").exit_code == 2
    assert run("frobnicate").exit_code == 2


def test_internal_error_in_one_file_exits_2_and_keeps_the_others(
    kb_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explodes(entry: object, context: object) -> Iterable[Diagnostic]:
        raise RuntimeError("boom")

    broken = rules.Rule(
        "KB999",
        "explodes",
        rules.Scope.ENTRY,
        Severity.ERROR,
        rules.Documentation.parse("Explodes."),
        "tests",
        explodes,
    )
    monkeypatch.setitem(rules.REGISTRY, "KB999", broken)
    result = run("check", "--root", str(kb_root))
    assert result.exit_code == 2
    assert (
        "entries/fixtures/minimal.yaml:1:1: KB000 internal error while checking this file: "
        "RuntimeError: boom" in result.output
    )
    assert "Traceback" not in result.output


def test_eval_table_shows_the_numbers() -> None:
    """The table's numbers, worked out by hand for the early LM-head card (frozen)."""
    result = run(
        "eval", "flops/speculative-quantized-drafter-lm-head", "--root", str(EARLY_CARDS), "--all"
    )
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line for line in result.output.splitlines() if line[:1].isalpha()}
    # The bytes do not depend on the device: said once, above the table.
    assert "  on every device: 4.2 GFLOP, 1.05 GB, intensity 4.0 FLOP/B" in result.output
    assert "0.314 ms" in rows["nvidia-h100-sxm"]
    assert "295 FLOP/B" in rows["nvidia-h100-sxm"]
    assert "0.198 ms" in rows["amd-instinct-mi300x"] and "247 FLOP/B" in rows["amd-instinct-mi300x"]
    assert (
        "nvidia-h100-sxm  B (1 to 512 sequences): memory to compute at 79.77 sequences"
        in result.output
    )
    assert "reported: Halves draft memory traffic" in result.output


def test_eval_where_no_device_named_can_run_the_values_says_so(repository: Path) -> None:
    ring = "collective/tensor-parallel-all-reduce"
    result = run(
        "eval", ring, "--root", str(repository), "--on", "nvidia-h100-sxm", "--set", "P=16"
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    at = lines.index("No device evaluated at these values; each is skipped, with the reason:")
    assert lines[at + 1] == "nvidia-h100-sxm: skipped, P = 16 is more than its scale_up_domain (8)"
    assert not any(line.startswith("Crossovers") or line.startswith("device ") for line in lines)
    assert (
        "    nvidia-h100-sxm: 134 MB, 0.224 ms, interconnect-bound (the entry itself is "
        "skipped there)" in lines
    )
    assert "Checks:" in lines


def test_eval_json_and_overrides() -> None:
    """The early draft card (frozen), whose intensity is k."""
    result = run(
        "eval",
        "flops/speculative-draft",
        "--root",
        str(EARLY_CARDS),
        "--on",
        "nvidia-h100-sxm",
        "--set",
        "k=8",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    (row,) = document["results"]
    assert (row["device"], row["intensity"], row["verdict"]) == ("nvidia-h100-sxm", 8.0, "memory")
    assert document["intensity_formula"] == "k"
    assert document["intensity_latex"] == "k"
    assert "<mi>k</mi>" in document["intensity_mathml"]
    # Every symbol the formulas read is swept, k (set) too, the others held at k = 8.
    swept = [(c["symbol"], c["below"]) for c in document["crossovers"]["nvidia-h100-sxm"]]
    assert swept == [("k", "memory"), ("N_d", "memory"), ("a", "memory"), ("N_t", "memory")]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--set", "k"], "'k' is not SYMBOL=NUMBER"),
        (["--set", "K=4"], "did you mean 'k'?"),
        (["--set", "k=nan"], "'k=nan' is not finite"),
        (["--set", "k=4", "--set", " k=8"], "'k' is set twice"),
        (["--on", "h100"], "no device 'h100'"),
        # Not rounded onto the bound it is compared with.
        (["--set", "k=16.0001"], "k=16.0001 is outside its range [1, 16]"),
        (["--set", "k=0.99999"], "k=0.99999 is outside its range [1, 16]"),
    ],
)
def test_eval_bad_arguments_exit_2(args: list[str], message: str, repository: Path) -> None:
    result = run("eval", "flops/speculative-draft", "--root", str(repository), *args)
    assert result.exit_code == 2
    assert message in result.output


@pytest.mark.parametrize(
    ("entry_id", "message"),
    [
        (
            "flops/speculative-drafts",
            "Error: no entry 'flops/speculative-drafts'\n"
            "    hint: did you mean 'flops/speculative-draft'?\n",
        ),
        # An id is its file's path: other spellings of the path name no entry.
        (
            "flops/../flops/speculative-draft",
            "Error: 'flops/../flops/speculative-draft' is not an entry id\n",
        ),
        ("./flops/speculative-draft", "Error: './flops/speculative-draft' is not an entry id\n"),
        (
            "../hardware/nvidia-h100-sxm",
            "Error: '../hardware/nvidia-h100-sxm' is not an entry id\n",
        ),
    ],
)
def test_eval_of_no_entry_is_a_bad_request(entry_id: str, message: str, repository: Path) -> None:
    result = run("eval", entry_id, "--root", str(repository))
    assert result.exit_code == 2
    assert result.output.startswith(message)


def test_eval_says_which_devices_have_broken_files(tmp_path: Path) -> None:
    """A unit slip in a device file: kb eval names the file instead of the device's absence."""
    root = copy_repository(tmp_path / "kb")
    h100 = root / "hardware" / "nvidia-h100-sxm.yaml"
    h100.write_text(h100.read_text("utf-8").replace("989.4 TFLOP/s", "989.4 TFLOPS"), "utf-8")

    listed = run("eval", "flops/speculative-draft", "--root", str(root))
    named = run("eval", "flops/speculative-draft", "--root", str(root), "--on", "nvidia-h100-sxm")

    assert listed.exit_code == 1  # kb check refuses an entry naming a device that fails
    assert "nvidia-h100-sxm: skipped, hardware/nvidia-h100-sxm.yaml has errors\n" in listed.stdout
    assert "KB204 device 'nvidia-h100-sxm' is defined in hardware/nvidia-h100-sxm.yaml" in (
        listed.stderr
    )
    assert (named.exit_code, named.output) == (
        2,
        "Error: device 'nvidia-h100-sxm' is defined in hardware/nvidia-h100-sxm.yaml, which has "
        "errors\n    hint: run kb check hardware/nvidia-h100-sxm.yaml\n",
    )


def test_a_device_failing_its_own_rules_is_left_out_of_eval_and_hardware(tmp_path: Path) -> None:
    """As kb check leaves it out: it was evaluated and listed without a word."""
    root = copy_repository(tmp_path / "kb")
    h100 = root / "hardware" / "nvidia-h100-sxm.yaml"
    original = h100.read_text("utf-8")
    text = original.replace(
        "memory_capacity:\n  value: 80 GB\n  source: hpctech-h100\n",
        "memory_capacity:\n  value: 80 GB\n  source: nowhere\n",
    )
    assert text != original
    h100.write_text(text, "utf-8")
    assert "KB310" in {d.code for d in check_of(root).diagnostics}

    listed = run("eval", "flops/speculative-draft", "--root", str(root))
    named = run("eval", "flops/speculative-draft", "--root", str(root), "--on", "nvidia-h100-sxm")
    devices = run("hardware", "--root", str(root))

    assert "nvidia-h100-sxm: skipped, hardware/nvidia-h100-sxm.yaml has errors\n" in listed.stdout
    assert (named.exit_code, named.output.splitlines()[0]) == (
        2,
        "Error: device 'nvidia-h100-sxm' is defined in hardware/nvidia-h100-sxm.yaml, which has "
        "errors",
    )
    assert devices.exit_code == 1
    assert "nvidia-h100-sxm" not in devices.stdout
    assert devices.stderr == "1 problem(s) in hardware/, 1 device(s) left out; run kb check\n"


def test_eval_of_an_entry_kb_check_refuses_shows_the_numbers_and_exits_1(
    broken_root: Path,
) -> None:
    """A claim kb check refuses (here bound_by: compute on a memory-bound entry) is not left
    unremarked under numbers that contradict it."""
    entry = broken_root / "entries" / "fixtures" / "minimal.yaml"
    entry.write_text(MINIMAL_ENTRY.replace("bound_by: memory", "bound_by: compute"), "utf-8")

    result = run("eval", "fixtures/minimal", "--root", str(broken_root))

    assert result.exit_code == 1
    assert "memory" in result.stdout
    assert result.stderr.splitlines()[0].startswith(
        f"entries/fixtures/minimal.yaml:{BOUND_BY}:11: KB406 bound_by is compute, but "
    )
    # A command that runs as it is, from here: the file by its path, and the same --root.
    entry = broken_root / "entries" / "fixtures" / "minimal.yaml"
    assert result.stderr.splitlines()[-1] == (
        "kb check refuses fixtures/minimal: 1 error, above "
        f"(kb check {entry.absolute()} --root {broken_root} gives hints)"
    )


def test_the_bound_by_hint_names_the_check_that_would_mend_it(kb_root: Path) -> None:
    """At B = 270 the intensity is 270 FLOP/B: past the MI300X's bf16 ridge (247), short of
    the H100's (295). Followed literally, the hint passes; where the claim holds nowhere, it
    offers no check, which cannot excuse that."""
    entry = kb_root / "entries" / "fixtures" / "minimal.yaml"
    between = MINIMAL_ENTRY.replace("typical: 8\n", "typical: 270\n")
    entry.write_text(between.replace("bound_by: memory", "bound_by: compute"), "utf-8")
    hint = run("check", "--root", str(kb_root)).output.splitlines()[1]
    assert hint == (
        "    hint: fix the formulas or typical values, change bound_by, or add a check at the "
        "typical values (no set) on nvidia-h100-sxm expecting {bound_by: memory}"
    )
    check_ = (
        "  - {claim: Memory-bound here., devices: [nvidia-h100-sxm], expect: {bound_by: memory}}"
    )
    followed = between.replace("bound_by: memory", "bound_by: compute") + f"checks:\n{check_}\n"
    entry.write_text(followed, "utf-8")
    assert run("check", "--root", str(kb_root)).exit_code == 0

    entry.write_text(MINIMAL_ENTRY.replace("bound_by: memory", "bound_by: compute"), "utf-8")
    assert run("check", "--root", str(kb_root)).output.splitlines()[1] == (
        "    hint: fix the formulas or typical values, or change bound_by (it is memory on 2 of "
        "2 devices): a check cannot excuse a claim that holds on no device"
    )


def test_an_empty_catalog_is_said_to_be_empty(tmp_path: Path) -> None:
    (tmp_path / "hardware").mkdir()
    result = run("hardware", "--root", str(tmp_path))
    assert result.exit_code == 0
    assert result.stderr == "no devices in hardware/: add one with kb new --hardware ID\n"
    (tmp_path / "entries" / "fixtures").mkdir(parents=True)
    (tmp_path / "entries" / "fixtures" / "minimal.yaml").write_text(MINIMAL_ENTRY, "utf-8")
    checked = run("check", "--root", str(tmp_path))
    assert checked.output.splitlines()[-1] == (
        "All clear: checked 1 entry against 0 devices (no claim was evaluated)."
    )


def test_a_check_of_the_published_schemas_says_what_a_full_run_says_of_them(
    kb_root: Path,
) -> None:
    """schema/ is read for KB020 alone: named, its files are not entries, and a stale one is
    said whether the file or its folder is named."""
    published = kb_root / "schema"
    published.mkdir()
    for kind in ("entry", "hardware"):
        (published / f"{kind}.schema.json").write_text(schemas.schema_text(kind), "utf-8")
    for named in ("schema/entry.schema.json", "schema"):
        current = run("check", "--root", str(kb_root), "--strict", str(kb_root / named))
        assert (current.exit_code, current.output) == (
            0,
            "All clear: checked 0 entries against 2 devices.\n",
        )
    (published / "entry.schema.json").write_text("{}", "utf-8")
    for named in ("schema/entry.schema.json", "schema"):
        stale = run("check", "--root", str(kb_root), "--strict", str(kb_root / named))
        assert stale.exit_code == 1
        # Where its text first departs from the schema's: inside the braces.
        assert stale.output.splitlines()[0].startswith("schema/entry.schema.json:1:2: KB020 ")


def test_a_schema_missing_beside_the_other_is_said(kb_root: Path) -> None:
    """A schema/ folder that publishes one kind's schema and not the other's leaves the
    first lines of that kind's files pointing at nothing: KB020 says which file is missing."""
    published = kb_root / "schema"
    published.mkdir()
    for kind in ("entry", "hardware"):
        (published / f"{kind}.schema.json").write_text(schemas.schema_text(kind), "utf-8")
    assert run("check", "--root", str(kb_root), "--strict", "--select", "KB020").exit_code == 0
    (published / "entry.schema.json").unlink()
    missing = run("check", "--root", str(kb_root), "--strict", "--select", "KB020")
    assert (missing.exit_code, missing.output.splitlines()[:2]) == (
        1,
        [
            "schema/entry.schema.json:1:1: KB020 warning: is missing from schema/, which "
            "publishes the others: the first lines that point editors here point at "
            "nothing",
            "    hint: write it, from the knowledge base's root: kb schema entry > "
            "schema/entry.schema.json",
        ],
    )
    (published / "hardware.schema.json").unlink()  # nothing published: no line asked for
    assert run("check", "--root", str(kb_root), "--strict", "--select", "KB020").exit_code == 0


def test_kb_schema_prints_what_a_knowledge_base_publishes_for_editors(kb_root: Path) -> None:
    """A copy of schema/ left behind by an upgrade of kb is said (KB020), and `kb schema`
    writes the current one."""
    published = kb_root / "schema"
    published.mkdir()
    for kind in ("entry", "hardware"):
        shipped = run("schema", kind)
        assert shipped.exit_code == 0
        assert shipped.stdout == schemas.schema_text(kind)
        (published / f"{kind}.schema.json").write_text(shipped.stdout, encoding="utf-8")
    assert run("check", "--root", str(kb_root), "--strict", "--select", "KB020").exit_code == 0
    older = json.loads(schemas.schema_text("entry"))
    older["properties"]["class"]["enum"].remove("decode_gemm")
    (published / "entry.schema.json").write_text(json.dumps(older), encoding="utf-8")
    stale = run("check", "--root", str(kb_root), "--strict", "--select", "KB020")
    assert stale.exit_code == 1
    assert stale.output.splitlines()[:2] == [
        "schema/entry.schema.json:1:2: KB020 warning: is not the entry schema this kb checks "
        "with: editors offer what kb check refuses",
        "    hint: write it again, from the knowledge base's root: kb schema entry > "
        "schema/entry.schema.json",
    ]
    # The same keys and values, one key written twice: editors may read either.
    title = '"title": "Bottleneck KB entry",'
    twice = schemas.schema_text("entry").replace(title, title + " " + title, 1)
    assert json.loads(twice) == schemas.schema("entry")
    (published / "entry.schema.json").write_text(twice, encoding="utf-8")
    stale = run("check", "--root", str(kb_root), "--strict", "--select", "KB020")
    assert stale.exit_code == 1
    line = 1 + schemas.schema_text("entry").split(title)[0].count("\n")
    column = 1 + len(twice.splitlines()[line - 1].split(title)[0]) + len(title)
    # At the key written the second time.
    assert stale.output.startswith(f"schema/entry.schema.json:{line}:{column}: KB020 ")
    # Not read through a link out of the repository, nor nested past Python's stack.
    (published / "hardware.schema.json").unlink()
    (published / "hardware.schema.json").symlink_to("/etc/hostname")
    (published / "entry.schema.json").write_text("[" * 100_000, encoding="utf-8")
    hostile = run("check", "--root", str(kb_root), "--strict", "--select", "KB020")
    assert hostile.exit_code == 1
    assert [line.split(": KB")[0] for line in hostile.output.splitlines()[:-1:2]] == [
        "schema/entry.schema.json:1:1",
        "schema/hardware.schema.json:1:1",
    ]
    unknown = run("schema", "export")
    assert (unknown.exit_code, unknown.stderr.splitlines()[-1]) == (
        2,
        "Error: Invalid value for KIND: 'export' is not entry, hardware, model or config",
    )


def test_hardware_lists_ridge_points(repository: Path) -> None:
    result = run("hardware", "--root", str(repository))
    assert result.exit_code == 0
    header, *rows = result.output.splitlines()
    h100 = next(line for line in rows if line.startswith("nvidia-h100-sxm ")).split()
    assert h100[:5] == ["nvidia-h100-sxm", "3.35", "TB/s", "80", "GB"]
    # A column per data type of the catalog, whichever a contributor adds.
    ridges = dict(zip(re.findall(r"ridge (\w+)", header), h100[5:], strict=True))
    expected = {"fp64": "20.0", "fp32": "20.0", "tf32": "148", "bf16": "295", "fp16": "295"}
    expected |= {"fp8": "591", "fp4": "-"}
    assert {dtype: ridges[dtype] for dtype in expected} == expected


def test_rules_lists_every_code() -> None:
    result = run("rules")
    codes = [line.split()[0] for line in result.output.splitlines()]
    assert codes == sorted(rules.REGISTRY)


def test_rules_with_codes_shows_what_check_explain_shows() -> None:
    shown = run("rules", "kb223", "KB001")
    assert shown.exit_code == 0, shown.output
    explained = [run("check", "--explain", code).output for code in ("KB223", "KB001")]
    assert shown.output == "\n".join(explained)
    unknown = run("rules", "KB999")
    assert unknown.exit_code == 2 and "no rule KB999" in unknown.output


def test_every_rule_is_explained_in_a_readable_length() -> None:
    lengths = {code: len(run("check", "--explain", code).output) for code in rules.REGISTRY}
    assert {code: n for code, n in lengths.items() if n > 3_000} == {}


def test_outside_a_knowledge_base_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["check", "--root", str(tmp_path)])
    assert result.exit_code == 2
    assert "has no entries/, hardware/ or models/" in result.output


def test_the_root_is_found_from_the_current_folder_upwards(
    kb_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(kb_root / "entries" / "fixtures")
    found = run("check")
    assert found.exit_code == 0
    assert found.output == "All clear: checked 1 entry against 2 devices.\n"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    lost = run("check")
    assert lost.exit_code == 2
    assert "no knowledge base at or above" in lost.output


def test_paths_open_from_where_kb_runs(
    kb_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Paths were shown from the knowledge base's root wherever kb ran: from a subfolder
    they did not open, and CI at the top of a repository keeping its knowledge base in a
    subfolder annotated files that do not exist."""
    entry = kb_root / "entries" / "fixtures" / "minimal.yaml"
    text = entry.read_text(encoding="utf-8")
    entry.write_text(text.replace("bound_by: memory", "bound_by: compute"), encoding="utf-8")
    line = 1 + text[: text.index("bound_by: memory")].count("\n")
    said = f":{line}:11: KB406 bound_by is compute, but"

    monkeypatch.chdir(kb_root / "entries" / "fixtures")
    assert f"\nminimal.yaml{said}" in "\n" + run("check").output
    (kb_root / "entries" / "gemm").mkdir()
    monkeypatch.chdir(kb_root / "entries" / "gemm")
    assert f"\n../fixtures/minimal.yaml{said}" in "\n" + run("check", "--root", "../..").output
    evaluated = run("eval", "fixtures/minimal")
    assert evaluated.exit_code == 1
    assert evaluated.stderr.splitlines()[-1] == (
        "kb check refuses fixtures/minimal: 1 error, above "
        "(kb check ../fixtures/minimal.yaml gives hints)"
    )

    top = tmp_path / "repository"
    shutil.move(kb_root, top / "perf")
    monkeypatch.chdir(top)
    named = run("check", "perf/entries/fixtures/minimal.yaml")  # no --root: found from the path
    assert f"\nperf/entries/fixtures/minimal.yaml{said}" in "\n" + named.output
    annotated = run("check", "--root", "perf", "--format", "github")
    assert annotated.output.startswith(
        f"::error file=perf/entries/fixtures/minimal.yaml,line={line},col=11,title=KB406::"
    )
    sarif = json.loads(run("check", "--root", "perf", "--format", "sarif").output)
    location = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "perf/entries/fixtures/minimal.yaml"
    # A file in another knowledge base, named from here: by its whole path, not prefixed.
    other = top / "other" / "entries" / "fixtures" / "minimal.yaml"
    other.parent.mkdir(parents=True)
    other.write_text(MINIMAL_ENTRY, encoding="utf-8")
    two = run("check", "perf/entries/fixtures/minimal.yaml", "other/entries/fixtures/minimal.yaml")
    assert f"{other.as_posix()}:1:1: KB011 is outside the repository" in two.output.splitlines()
    # A root named through a link is the same folder.
    (top / "link").symlink_to(top / "perf", target_is_directory=True)
    monkeypatch.chdir(top / "perf" / "entries")
    linked = run("check", "--root", str(top / "link"))
    assert f"\nfixtures/minimal.yaml{said}" in "\n" + linked.output
    monkeypatch.chdir(top)
    moved = top / "perf" / "entries" / "fixtures" / "minimal.yaml"
    moved.write_text(moved.read_text(encoding="utf-8") + "\n\n", encoding="utf-8")
    formatted = run("fmt", "--check", "perf/entries")
    assert formatted.stdout == "would reformat perf/entries/fixtures/minimal.yaml\n"
    # Elsewhere (neither folder holds the other) paths stay as seen from the root.
    (tmp_path / "apart").mkdir()
    monkeypatch.chdir(tmp_path / "apart")
    assert (
        f"\nentries/fixtures/minimal.yaml{said}"
        in "\n" + run("check", "--root", str(top / "perf")).output
    )


def test_warnings_pass_unless_strict(kb_root: Path) -> None:
    entry = kb_root / "entries" / "fixtures" / "minimal.yaml"
    entry.write_text(entry.read_text(encoding="utf-8") + "notes: yes\n", encoding="utf-8")
    relaxed = run("check", "--root", str(kb_root))
    strict = run("check", "--root", str(kb_root), "--strict")
    assert (relaxed.exit_code, strict.exit_code) == (0, 1)
    assert relaxed.output.splitlines()[-1] == (
        "Found 1 warning in 1 file; checked 1 entry against 2 devices."
    )


def test_eval_skips_devices_without_the_entrys_dtype(kb_root: Path) -> None:
    h100 = kb_root / "hardware" / "nvidia-h100-sxm.yaml"
    h100.write_text(
        h100.read_text(encoding="utf-8").replace(
            "  bf16: {value: 989.4 TFLOP/s, source: klockwood-h100}\n", ""
        ),
        encoding="utf-8",
    )
    result = CliRunner().invoke(
        main, ["eval", "fixtures/minimal", "--root", str(kb_root), "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["skipped"] == [
        {"device": "nvidia-h100-sxm", "reason": "no dense bf16 peak in the catalog"}
    ]
    assert [row["device"] for row in document["results"]] == ["amd-instinct-mi300x"]
    table = CliRunner().invoke(main, ["eval", "fixtures/minimal", "--root", str(kb_root)])
    assert "nvidia-h100-sxm: skipped, no dense bf16 peak in the catalog" in table.stdout


def test_the_console_script_keeps_the_output_and_the_exit_code(
    broken_root: Path,
) -> None:
    done = console_script("check", cwd=broken_root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = done.communicate(timeout=120)

    assert done.returncode == 1
    assert out.decode() == run("check", "--root", str(broken_root)).stdout
    assert out.decode().endswith("checked 1 entry against 2 devices.\n")
    assert err == b""


def test_the_console_script_stops_quietly_when_the_reader_does(repository: Path) -> None:
    """`kb rules | head -1`: the closed pipe is not a bug in kb, and says nothing."""
    done = console_script("rules", cwd=repository, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert done.stdout is not None
    done.stdout.close()  # before kb writes anything: it is still importing
    err = done.communicate(timeout=120)[1]

    assert (done.returncode, err) == (1, b"")


@pytest.mark.parametrize("closed", [1, 2], ids=["stdout", "stderr"])
def test_the_console_script_runs_with_a_stream_closed_before_it_started(
    repository: Path, closed: int
) -> None:
    """`kb check >&-` or `2>&-`: Python has no such stream at all (None), which is no error."""
    done = console_script(
        "check",
        cwd=repository,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: os.close(closed),
    )
    out, err = done.communicate(timeout=120)

    assert done.returncode == 0
    assert err == b""
    assert summary_of(out.decode()).startswith("" if closed == 1 else "All clear: checked ")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_a_full_disk_under_the_output_is_said_as_such(repository: Path) -> None:
    with open("/dev/full", "wb") as full:
        done = console_script("rules", cwd=repository, stdout=full, stderr=subprocess.PIPE)
        err = done.communicate(timeout=120)[1]

    assert (done.returncode, err) == (2, b"kb: No space left on device\n")


#: The line of the minimal entry's FLOPs formula.
FLOPS = MINIMAL_ENTRY.splitlines().index("  flops: 2 * B * N") + 1


def test_eval_of_an_entry_past_the_symbolic_budget_says_where(kb_root: Path) -> None:
    entry = kb_root / "entries" / "fixtures" / "minimal.yaml"
    entry.write_text(
        entry.read_text("utf-8").replace("flops: 2 * B * N", "flops: 2 * N * (B + 1) ** 20"),
        "utf-8",
    )

    result = run("eval", "fixtures/minimal", "--root", str(kb_root))

    assert result.exit_code == 1
    assert result.output.startswith(
        f"Error: entries/fixtures/minimal.yaml:{FLOPS}:10: intensity is past the symbolic budget"
    )


def test_eval_says_a_symbolic_refusal_at_the_formula_that_has_it(kb_root: Path) -> None:
    """It was always said at the FLOPs, wherever the power stood."""
    entry = kb_root / "entries" / "fixtures" / "minimal.yaml"
    text = entry.read_text("utf-8").replace("bytes: 2 * N", "bytes: 2 * N * 1.0625 ** 5000")
    entry.write_text(text, "utf-8")
    line = text.splitlines().index("  bytes: 2 * N * 1.0625 ** 5000") + 1

    result = run("eval", "fixtures/minimal", "--root", str(kb_root))

    assert result.exit_code == 1
    assert result.output.startswith(
        f"Error: entries/fixtures/minimal.yaml:{line}:25: constant power is too large to "
        "compute exactly (about 25000 bits)"
    )


def test_a_datasheet_tflops_is_told_why_it_is_refused_and_what_to_write(kb_root: Path) -> None:
    mi300x = kb_root / "hardware" / "amd-instinct-mi300x.yaml"
    mi300x.write_text(mi300x.read_text("utf-8").replace("1307.4 TFLOP/s", "1307.4 TFLOPS"), "utf-8")
    result = run("check", "--root", str(kb_root), str(mi300x))
    # The schema's own unit pattern refuses it, in the editor as here (with its sentence);
    # kb check says why and writes the rate it means.
    assert result.output.splitlines()[:2] == [
        "hardware/amd-instinct-mi300x.yaml:7:17: KB105 peak_flops.bf16.value: '1307.4 TFLOPS' "
        "is read as a count of FLOP (the S is not per second)",
        "    hint: write '1307.4 TFLOP/s'",
    ]


def test_codes_are_taken_in_any_case(broken_root: Path) -> None:
    explained = run("check", "--explain", "kb406")
    assert explained.output.startswith("KB406 bound-by-holds (error)\n")
    assert explained.output == run("check", "--explain", "KB406").output
    selected = run("check", "--root", str(broken_root), "--select", "kb103")
    assert selected.exit_code == 1
    assert selected.output.splitlines()[0] == (
        f"entries/fixtures/minimal.yaml:{BOUND_BY}:11: KB103 'memroy' is not an allowed bound_by"
    )
    unknown = run("check", "--select", "kb999")
    assert (unknown.exit_code, unknown.output.splitlines()[0]) == (2, "Error: no rule KB999")


def test_eval_of_an_entry_nothing_is_close_to_says_what_an_id_is(kb_root: Path) -> None:
    result = run("eval", "attention/nope", "--root", str(kb_root))
    assert (result.exit_code, result.output) == (
        2,
        "Error: no entry 'attention/nope'\n"
        "    hint: an entry's id is the path of its file below entries/ without .yaml, "
        "e.g. 'fixtures/minimal'\n",
    )
    (kb_root / "entries" / "fixtures" / "minimal.yaml").unlink()
    emptied = run("eval", "attention/nope", "--root", str(kb_root))
    assert (emptied.exit_code, emptied.output) == (
        2,
        "Error: no entry 'attention/nope'\n    hint: entries/ holds no entry\n",
    )


def test_a_speedup_past_a_million_is_not_printed_in_full(kb_root: Path) -> None:
    """A modeled speedup of 1e300 printed as a 300-digit number."""
    entry = kb_root / "entries" / "fixtures" / "minimal.yaml"
    model = '  - title: W\n    description: D.\n    model: {bytes: "2.0e-291 * N"}\n'
    text = entry.read_text("utf-8").replace("workarounds: []\n", f"workarounds:\n{model}")
    entry.write_text(text, "utf-8")

    result = run("eval", "fixtures/minimal", "--root", str(kb_root), "--on", "nvidia-h100-sxm")

    assert result.exit_code == 0, result.output
    assert "x faster, bytes cut 1.00e+291x (2.00e-282 B, " in result.output


@pytest.mark.parametrize("module", ["bottleneck_kb", "bottleneck_kb.cli"])
def test_python_dash_m_runs_kb(kb_root: Path, module: str) -> None:
    """Where the console script is not on PATH, `python -m` runs the same command, exit
    status included."""

    def checked() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", module, "check", "--root", str(kb_root)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    clean = checked()
    assert (clean.returncode, clean.stdout) == (
        0,
        "All clear: checked 1 entry against 2 devices.\n",
    )
    (kb_root / "entries" / "fixtures" / "minimal.yaml").write_text("id: [", encoding="utf-8")
    broken = checked()
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "KB001" in broken.stdout


def test_eval_says_which_symbols_set_no_formula_reads(kb_root: Path) -> None:
    """`--set D=64` on an entry whose formulas do not read D was accepted without a word:
    the header listed the other symbols, and the reader could think D was part of the result.
    A symbol only a workaround reads, and sets itself, changes nothing either."""
    entry = kb_root / "entries" / "fixtures" / "minimal.yaml"
    symbols = (
        "  - {name: depth, symbol: D, description: In no formula., typical: 4, range: [1, 64]}\n"
        "  - {name: rank, symbol: r, description: Low rank., typical: 8, range: [1, 64]}\n"
    )
    model = '  - title: W\n    description: D.\n    model: {set: {r: 8}, bytes: "2 * N / r"}\n'
    text = entry.read_text("utf-8").replace("workarounds: []\n", f"workarounds:\n{model}")
    entry.write_text(text.replace("\nworkarounds:", f"\n{symbols}workarounds:", 1), "utf-8")
    at = ["eval", "fixtures/minimal", "--root", str(kb_root), "--on", "nvidia-h100-sxm"]

    result = run(*at, "--set", "D=64", "--set", "r=16", "--set", "B=2")

    assert result.exit_code == 0, result.output
    header = result.output.splitlines()[1:4]
    assert header[0].endswith(" at B = 2, N = 1 G (dtype bf16)"), header
    assert header[2] == "  D=64, r=16: set, but no formula reads them at those values"
    alone = run(*at, "--set", "D=3.5").output.splitlines()[3]
    assert alone == "  D=3.5: set, but no formula reads it at that value"
    assert run(*at, "--set", "B=2").output.splitlines()[3].startswith("  work: ")


def test_eval_header_names_a_value_only_a_workaround_reads(repository: Path) -> None:
    """t_node is read by the CUDA-graphs workaround alone, which does not set it: a reader's
    value changes that workaround's effect, so the header says it."""
    at = ["eval", "runtime/launch-overhead", "--root", str(repository), "--on", "nvidia-h100-sxm"]
    header = run(*at, "--set", "t_node=1e-6").output.splitlines()[1]
    assert header.endswith("t_launch = 3.25 µs, t_node = 1 µs (dtype bf16)"), header


def test_eval_gives_no_speedup_for_a_workaround_step_that_does_not_fit(repository: Path) -> None:
    """The 16 GB TPU v5e cannot hold the verification step's weights and caches, with or
    without the 2-bit cache: a modeled time it cannot run at is no speedup."""
    at = ["eval", "speculative/verification", "--root", str(repository), "--on", "google-tpu-v5e"]
    lines = run(*at).output.splitlines()
    (modeled,) = [line for line in lines if line.startswith("    google-tpu-v5e: ")]
    assert modeled.startswith("    google-tpu-v5e: does not fit, bytes cut "), modeled
    assert modeled.endswith(", capacity-bound)"), modeled


def test_the_readmes_kb_eval_example_is_what_kb_eval_prints() -> None:
    """The README shows `kb eval`'s answer-first output, trimmed where it says `...`: every
    line it shows is a line kb eval prints, in the order it prints them."""
    readme = (REPOSITORY / "README.md").read_text(encoding="utf-8")
    example = readme.split("$ kb eval gemm/lm-head\n", 1)[1].split("```", 1)[0]
    # Lines that count the catalog's devices change with every device added: not held here.
    shown = [
        line
        for line in example.splitlines()
        if line.strip() != "..." and not re.search(r"\d+ (more )?devices", line)
    ]
    assert len(shown) > 10
    printed = run("eval", "gemm/lm-head", "--root", str(REPOSITORY))
    assert printed.exit_code == 0, printed.output
    lines = printed.output.splitlines()
    at = 0
    for line in shown:
        assert line in lines[at:], f"README line not printed (or out of order): {line!r}"
        at = lines.index(line, at) + 1
    # The answer first, the rest folded: the default is the featured devices, --all each.
    assert len(lines) < 80
    every = run("eval", "gemm/lm-head", "--all", "--root", str(REPOSITORY)).output
    assert "nvidia-rtx-4090" in every and "nvidia-rtx-4090" not in printed.output
