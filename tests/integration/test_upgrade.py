"""Schema versions: files written to version 1 of the entry and device schemas (as they were
at the parent of commit 2c16625, in tests/fixtures/version-1; the H100's with three comments
added) are told at their top what to run, and `kb fmt --upgrade` rewrites them to today's
shape with every value and comment kept, leaving placeholders that `kb check` reports."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from bottleneck_kb import schemas
from bottleneck_kb.authoring.fmt import _comments
from bottleneck_kb.authoring.upgrade import scalars
from bottleneck_kb.checking.run import check
from bottleneck_kb.cli import main
from bottleneck_kb.rules.examples import MINIMAL_DEVICE

from ..conftest import FIXTURES, copy_repository

VERSION_1 = FIXTURES / "version-1"
FILES = sorted(p.relative_to(VERSION_1).as_posix() for p in VERSION_1.rglob("*.yaml"))


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), env={"GITHUB_ACTIONS": ""})


@pytest.fixture
def old_kb(tmp_path: Path) -> Path:
    """A knowledge base of version-1 files that publishes today's schemas."""
    root = tmp_path / "kb"
    shutil.copytree(VERSION_1, root)
    return copy_repository(root, ("schema",))


def test_each_version_1_file_is_told_at_its_top_what_to_run(old_kb: Path) -> None:
    said = [(d.path, d.line, d.col, d.code, d.message) for d in check(old_kb).diagnostics]
    assert said == [
        (
            path,
            1,
            1,
            "KB106",
            f"written to version 1 of the {'device' if path.startswith('hardware') else 'entry'}"
            " schema; this kb reads version 2",
        )
        for path in sorted(FILES, key=lambda p: (not p.startswith("hardware"), p))
    ]
    hint = check(old_kb).diagnostics[0].hint
    assert hint is not None and hint.startswith(
        "run `kb fmt --upgrade hardware/amd-instinct-mi300x.yaml`"
    )


def test_a_file_of_todays_shape_with_one_mistake_hears_exactly_that(kb_root: Path) -> None:
    device = kb_root / "hardware" / "fixture-device.yaml"
    device.write_text(MINIMAL_DEVICE.replace("{value: 3.35 TB/s, source: sheet}", "3.35 TB/s"))
    said = [(d.line, d.col, d.code, d.message) for d in check(kb_root).diagnostics]
    assert said == [
        (5, 19, "KB104", "memory_bandwidth must be a mapping, not a string ('3.35 TB/s')")
    ]


def test_kb_fmt_without_upgrade_leaves_an_old_file_and_says_what_to_run(old_kb: Path) -> None:
    before = {path: (old_kb / path).read_text() for path in FILES}
    result = run("fmt", "--root", str(old_kb))
    assert result.exit_code == 1
    assert result.output.count("KB106 written to version 1 of the") == len(FILES)
    assert {path: (old_kb / path).read_text() for path in FILES} == before


def test_the_upgrade_keeps_every_value_and_comment(old_kb: Path) -> None:
    before = {path: (old_kb / path).read_text() for path in FILES}
    result = run("fmt", "--upgrade", "--root", str(old_kb))
    assert result.exit_code == 0, result.output
    assert sorted(result.output.split("\n")[:-1]) == [f"reformatted {path}" for path in FILES]
    for path in FILES:
        after = (old_kb / path).read_text()
        old, new = yaml.safe_load(before[path]), yaml.safe_load(after)
        # Every value: as a value, or (a v1 source's `supports`) in the comment above it.
        missing = scalars(old) - scalars(new)
        assert all(m.strip("'") in " ".join(after.split()) for m in missing), path
        assert {c for c, _ in _comments(before[path])} - {c for c, _ in _comments(after)} <= {
            c for c, _ in _comments(before[path]) if c.startswith("# yaml-language-server")
        }, path
    h100 = (old_kb / "hardware/nvidia-h100-sxm.yaml").read_text()
    assert "memory_bandwidth:\n  value: 3.35 TB/s  # HBM3, the SXM5 part's figure\n" in h100
    assert '  source: "TODO: the id of the source (below) that gives this figure"\n' in h100
    assert "interconnect_bandwidth:\n  value: 900 GB/s\n  direction: both_directions\n" in h100
    assert "# Dense figures, as the whitepaper prints them.\npeak_flops:\n" in h100
    assert "  # The product page.\n  # version 1 'supports': memory capacity (80 GB)," in h100
    entry = (old_kb / "entries/flops/speculative-draft.yaml").read_text()
    # The year of an arXiv id is that of its YYMM; the first author only a person knows.
    assert (
        "  - title: Accelerating Large Language Model Decoding with Speculative Sampling (Chen et"
        " al., DeepMind)\n"
        '    first_author: "TODO: the family name of the first author"\n'
        "    year: 2023\n"
        '    arxiv: "2302.01318"\n'
    ) in entry
    # A second upgrade has nothing left to do.
    assert run("fmt", "--upgrade", "--check", "--root", str(old_kb)).exit_code == 0


def test_an_upgraded_knowledge_base_passes_but_for_the_placeholders(old_kb: Path) -> None:
    assert run("fmt", "--upgrade", "--root", str(old_kb)).exit_code == 0
    found = check(old_kb).diagnostics
    placeholders = [d for d in found if d.code in ("KB015", "KB017")]
    # Each placeholder written is said, once: 19 on the H100, 18 on the MI300X, a first
    # author for each of the entries' 11 references.
    written = [
        (p, n) for p in FILES for n, line in enumerate((old_kb / p).open(), 1) if '"TODO' in line
    ]
    assert sorted((d.path, d.line) for d in placeholders) == sorted(written)
    assert len(placeholders) == 48
    assert {d.message for d in found if d.code == "KB204"} == {
        f"device '{d}' is defined in hardware/{d}.yaml, which has errors"
        for d in ("nvidia-h100-sxm", "amd-instinct-mi300x")
    }
    assert len(found) == len(placeholders) + 4
    # Each placeholder is said at its line: the first is the MI300X's capacity's source.
    first = placeholders[0]
    text = (old_kb / first.path).read_text().splitlines()
    assert (first.path, first.message) == (
        "hardware/amd-instinct-mi300x.yaml",
        "memory_capacity.source is still a placeholder",
    )
    assert text[first.line - 1].strip().startswith('source: "TODO')
    # A person fills them in: then the knowledge base checks clean.
    for path in FILES:
        file = old_kb / path
        # The product page gives the memory figures, the whitepaper the peaks.
        memory, peak, rest = file.read_text().partition("\npeak_flops:")
        figure = r'"TODO: the id of [^"]*"'
        filled = re.sub(figure, "sheet", memory) + peak + re.sub(figure, "paper", rest)
        filled = re.sub(r'id: "TODO: an id for this source[^"]*"', "id: sheet", filled, count=1)
        filled = re.sub(r'id: "TODO: an id for this source[^"]*"', "id: paper", filled)
        for placeholder, value in (
            ("the document's title", "The sheet"),
            ("who published it", "The vendor"),
            ("vendor or secondary", "vendor"),
            ("the date it was read, YYYY-MM-DD", '"2026-12-03"'),
            ("the family name of the first author", "Someone"),
        ):
            filled = filled.replace(f'"TODO: {placeholder}"', value)
        file.write_text(filled)
    assert [d.code for d in check(old_kb).diagnostics if d.severity.value == "error"] == []


def test_a_placeholder_where_a_set_form_belongs_is_said_as_a_placeholder(kb_root: Path) -> None:
    device = kb_root / "hardware" / "fixture-device.yaml"
    device.write_text(MINIMAL_DEVICE.replace("kind: vendor", 'kind: "TODO: vendor or secondary"'))
    said = [(d.line, d.code, d.message) for d in check(kb_root).diagnostics]
    assert said == [(15, "KB017", "sources[0].kind is still a placeholder")]


def test_every_schema_says_its_version() -> None:
    assert {kind: schemas.schema(kind)["x-version"] for kind in schemas.FILE_KINDS} == {
        "entry": 2,
        "hardware": 2,
        "model": 1,
        "config": 1,
    }
