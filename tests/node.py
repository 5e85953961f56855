"""A node process for the tests that hold the site's JavaScript to the library: it runs a
harness on one of the site's scripts and answers each JSON line it is sent with one."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest


class Node:
    def __init__(self, harness: str, script: Path) -> None:
        node = shutil.which("node")
        if node is None:
            pytest.skip("node is not installed")
        self.process = subprocess.Popen(
            [node, "-e", harness, str(script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, line: str) -> Any:
        """The harness's answer to one line (JSON, without its line break)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())


@contextmanager
def running(harness: str, script: Path) -> Iterator[Node]:
    """A Node for the duration of the block, ended when it leaves."""
    runner = Node(harness, script)
    try:
        yield runner
    finally:
        assert runner.process.stdin is not None
        runner.process.stdin.close()
        runner.process.wait(timeout=10)
