"""The peers' comparison (benchmarks/peers/): its page is what the recorded results and today's
cards give, the peer that counts our terms agrees within 1%, and the pip-installed peers, each
in an environment of its own, still give the numbers recorded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

import pytest

from ..conftest import REPOSITORY

PEERS = REPOSITORY / "benchmarks" / "peers"
sys.path.insert(0, str(PEERS))
import compare  # noqa: E402

#: Each pip-installed peer: the environment's requirement and the script that runs it.
PINNED = {
    "genz": ("genz-llm==0.0.16", "run_genz.py"),
    "llm_analysis": ("llm-analysis==0.2.2", "run_llm_analysis.py"),
    "mlsysim": ("mlsysim==0.3.0", "run_mlsysim.py"),
}


def test_the_peers_page_is_the_one_the_results_and_cards_give() -> None:
    assert compare.main(["--check"]) == 0, "run .venv/bin/python benchmarks/peers/compare.py"


def test_genz_and_our_common_terms_agree_within_one_percent_on_every_decode_case() -> None:
    records = compare.main_records()
    mine = compare.ours()
    cases = [r for r in records if r["tool"] == "GenZ" and r["run"] == "datasheet"]
    assert len([r for r in cases if r["phase"] == "decode"]) == 24
    assert compare.agreement(records, mine, "GenZ", "decode") <= compare.AGREE


def _key(record: dict[str, Any]) -> tuple[Any, ...]:
    breakdown = record.get("breakdown")
    variant = breakdown.get("variant") if isinstance(breakdown, dict) else None
    fields = ("tool", "model", "device", "run", "phase", "batch", "context")
    return (*(record[f] for f in fields), variant, record["notes"])


@pytest.mark.slow
@pytest.mark.parametrize("peer", sorted(PINNED))
def test_each_pip_peer_gives_the_numbers_recorded(peer: str, tmp_path: Path) -> None:
    """Installed from PyPI, pinned, in an environment of its own: in CI a peer that does not
    install fails here, as a missing Chromium fails the browser tests."""
    requirement, script = PINNED[peer]
    environment = tmp_path / peer
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", requirement], capture_output=True, text=True
    )
    if installed.returncode:
        message = f"{requirement} did not install: {installed.stderr.strip()[-500:]}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    out = tmp_path / "out"
    subprocess.run(
        [str(python), str(PEERS / script)],
        env={**os.environ, "PEERS_OUT": str(out)},
        check=True,
        capture_output=True,
    )
    again = json.loads((out / "results.json").read_text("utf-8"))
    recorded = json.loads((PEERS / "results.json").read_text("utf-8"))
    tool = again[0]["tool"]
    expected = sorted(((_key(r), r["seconds"]) for r in recorded if r["tool"] == tool), key=str)
    assert sorted(((_key(r), r["seconds"]) for r in again), key=str) == expected
