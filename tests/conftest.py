"""Shared test helpers: a throwaway copy of the fixture knowledge base, expected diagnostics."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from bottleneck_kb.rules import Rule, Scope
from bottleneck_kb.rules.examples import MINIMAL_DEVICE, MINIMAL_ENTRY, patched

FIXTURES = Path(__file__).parent / "fixtures"
REPOSITORY = Path(__file__).resolve().parents[1]


@pytest.fixture
def kb_root(tmp_path: Path) -> Path:
    """A fresh copy of tests/fixtures/kb: two devices and one minimal entry."""
    root = tmp_path / "kb"
    shutil.copytree(FIXTURES / "kb", root)
    return root


def read_expected(path: Path) -> list[tuple[int, int, str, str | None]]:
    """`line:col CODE [fragment of the message]` per line of a .expected file."""
    expected = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        position, code, *rest = raw.split(maxsplit=2)
        line, col = position.split(":")
        expected.append((int(line), int(col), code, rest[0] if rest else None))
    return expected


def write_example(root: Path, rule: Rule, example: str) -> list[str]:
    """Write `example` into the knowledge base at `root` as rule documentation and one-rule
    fixtures are written: raw text for codes found while reading YAML (module `source`), else
    merge patches onto the minimal entry (or device), one file per `---`-separated document,
    a first line `# file: PATH` naming the path (`PATH -> TARGET` makes a symlink) and
    `# encoding: NAME` the bytes' encoding. Returns the paths written, relative to `root`."""
    (root / "entries" / "fixtures" / "minimal.yaml").unlink()
    written = []
    for document in example.split("\n---\n"):
        lines = document.splitlines()
        path, target, encoding = None, None, "utf-8"
        while lines and lines[0].startswith(("# file: ", "# encoding: ")):
            key, _, value = lines.pop(0)[2:].partition(": ")
            if key == "file":
                path, _, target = value.partition(" -> ")
            else:
                encoding = value
        device = (path or "").startswith("hardware/") or rule.scope is Scope.DEVICE
        text = "\n".join(lines) + "\n"
        if rule.module != "source":
            text = patched(MINIMAL_DEVICE if device else MINIMAL_ENTRY, text)
        default = "hardware/fixture-device.yaml" if device else "entries/fixtures/minimal.yaml"
        file = root / (path or default)
        file.parent.mkdir(parents=True, exist_ok=True)
        if target:
            os.symlink(target, file)
        else:
            file.write_bytes(text.encode(encoding))
        written.append(path or default)
    return written
