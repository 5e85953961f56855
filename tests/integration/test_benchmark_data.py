"""The benchmark's synthetic knowledge base stays valid as the schema and rules move on: a
benchmark that measured error reporting instead of checking would compare nothing."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import pytest

from bottleneck_kb.checking.run import check

from ..conftest import REPOSITORY

sys.path.insert(0, str(REPOSITORY / "benchmarks"))
from synthetic import make_knowledge_base


def test_synthetic_entries_check_clean_and_vary(tmp_path: Path) -> None:
    root = make_knowledge_base(tmp_path / "kb", 40, REPOSITORY)

    result = check(root, jobs=1)

    assert result.diagnostics == []
    assert result.entries == 40
    texts = {p.read_text(encoding="utf-8") for p in (root / "entries").rglob("*.yaml")}
    formulas = {line for text in texts for line in text.splitlines() if "  flops:" in line}
    assert len(texts) == 40
    assert len(formulas) >= 5


def test_parallel_and_single_process_checks_agree(tmp_path: Path) -> None:
    root = make_knowledge_base(tmp_path / "kb", 30, REPOSITORY)
    broken = next((root / "entries").rglob("*.yaml"))
    broken.write_text(
        broken.read_text(encoding="utf-8").replace("bound_by: memory", "bound_by: compute", 1),
        encoding="utf-8",
    )

    single = check(root, jobs=1)
    parallel = check(root, jobs=2)

    assert parallel.diagnostics == single.diagnostics
    assert [d.code for d in single.diagnostics] == ["KB406"]


@pytest.mark.parametrize("enabled", [True, False])
def test_a_check_leaves_the_garbage_collector_as_it_found_it(tmp_path: Path, enabled: bool) -> None:
    """check() pauses the collector for its run; a process that goes on (the site, a test run)
    must get it back as it was."""
    root = make_knowledge_base(tmp_path / "kb", 3, REPOSITORY)
    was_enabled = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        check(root, jobs=1)
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was_enabled else gc.disable)()
