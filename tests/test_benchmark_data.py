"""The benchmark's synthetic knowledge base stays valid as the schema and rules move on: a
benchmark that measured error reporting instead of checking would compare nothing."""

from __future__ import annotations

import sys
from pathlib import Path

from bottleneck_kb.check import check

from .conftest import REPOSITORY

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
