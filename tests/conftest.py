"""Shared test helpers: a throwaway copy of the fixture knowledge base, expected diagnostics."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import NamedTuple

import pytest

from bottleneck_kb.rules import Rule, Scope
from bottleneck_kb.rules.examples import MINIMAL_DEVICE, MINIMAL_ENTRY, patched

FIXTURES = Path(__file__).parent / "fixtures"
REPOSITORY = Path(__file__).resolve().parents[1]


#: Where the fixture knowledge base holds the minimal entry.
MINIMAL_PATH = "entries/fixtures/minimal.yaml"


def fixture_kb(root: Path) -> Path:
    """A knowledge base at `root`: the devices of tests/fixtures/kb and the minimal entry of
    rules/examples.py (written from there, so that a key the schema starts to require is
    one edit)."""
    shutil.copytree(FIXTURES / "kb", root)
    (root / MINIMAL_PATH).parent.mkdir(parents=True, exist_ok=True)
    (root / MINIMAL_PATH).write_text(MINIMAL_ENTRY, encoding="utf-8")
    return root


@pytest.fixture
def kb_root(tmp_path: Path) -> Path:
    """A fresh fixture knowledge base: two devices and the minimal entry."""
    return fixture_kb(tmp_path / "kb")


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


class ExampleFile(NamedTuple):
    """One file of a rule example or one-rule fixture: its path relative to the knowledge
    base's root, and its bytes, or the target it is a symlink to."""

    path: str
    data: bytes
    link_to: str | None


def example_files(rule: Rule, example: str) -> list[ExampleFile]:
    """The files `example` stands for, as rule documentation and one-rule fixtures are read:
    raw text for codes found while reading YAML (module `source`), else merge patches onto the
    minimal entry (or device), one file per `---`-separated document, a first line
    `# file: PATH` naming the path (`PATH -> TARGET` makes a symlink) and `# encoding: NAME`
    the bytes' encoding."""
    files = []
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
        text = "\n".join(lines) + "\n" if lines else ""  # an empty file stays empty
        if rule.module != "source":
            text = patched(MINIMAL_DEVICE if device else MINIMAL_ENTRY, text)
        default = "hardware/fixture-device.yaml" if device else MINIMAL_PATH
        files.append(ExampleFile(path or default, text.encode(encoding), target or None))
    return files


def write_example(root: Path, rule: Rule, example: str) -> list[str]:
    """Write `example` (see `example_files`) into the knowledge base at `root`, in place of
    its minimal entry. Returns the paths written, relative to `root`."""
    (root / MINIMAL_PATH).unlink()
    files = example_files(rule, example)
    for written in files:
        file = root / written.path
        file.parent.mkdir(parents=True, exist_ok=True)
        if written.link_to:
            os.symlink(written.link_to, file)
        else:
            file.write_bytes(written.data)
    return [written.path for written in files]
