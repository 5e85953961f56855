"""The public surface: what `bottleneck_kb` says other code may import is importable, documented
in its docstring, and works as documented on the repository."""

from __future__ import annotations

import subprocess
import sys

import pytest

import bottleneck_kb

from ..conftest import REPOSITORY


def test_every_public_name_is_importable_and_documented() -> None:
    doc = bottleneck_kb.__doc__ or ""
    for name in bottleneck_kb.__all__:
        assert getattr(bottleneck_kb, name) is not None, name
        assert f"`{name}" in doc, name


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        bottleneck_kb.nothing_here  # noqa: B018
    except AttributeError as exc:
        assert "nothing_here" in str(exc)
    else:
        raise AssertionError("no AttributeError")


@pytest.mark.slow
def test_the_surface_checks_reads_and_evaluates_the_repository() -> None:
    result = bottleneck_kb.check(REPOSITORY)
    assert result.errors == 0 and result.entries > 0
    kb = bottleneck_kb.KnowledgeBase.load(REPOSITORY)
    entry = kb.entry("gemm/decode-weight-gemm")
    assert entry is not None
    evaluation = bottleneck_kb.evaluate_entry(entry, kb.catalog.devices, ["nvidia-h100-sxm"])
    (result_h100,) = evaluation.results
    assert result_h100.verdict == "memory"
    assert isinstance(bottleneck_kb.__version__, str)


def test_importing_the_package_loads_nothing_else() -> None:
    """The names are looked up on first use: `import bottleneck_kb` stays light."""
    probe = (
        "import sys, bottleneck_kb; "
        "print(sorted(m for m in sys.modules if m.startswith('bottleneck_kb')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['bottleneck_kb']"
