"""Every rule documents itself in fixed sections, and its examples do what they say when run
through that rule alone; one table lists every code with its owning module."""

from __future__ import annotations

from pathlib import Path

import pytest

from bottleneck_kb.check import check
from bottleneck_kb.diagnostics import INTERNAL
from bottleneck_kb.rules import REGISTRY, SECTIONS, codes

from .conftest import write_example

DOCUMENTED = sorted(code for code in REGISTRY if code != INTERNAL)


def test_every_rule_has_every_section() -> None:
    for code in DOCUMENTED:
        doc = REGISTRY[code].doc
        assert doc.summary and "\n" not in doc.summary, code
        assert [s for s in SECTIONS if s not in doc.sections] == [], code
        assert doc.examples("Fails") and doc.examples("Passes"), code


@pytest.mark.parametrize("code", DOCUMENTED)
def test_failing_examples_fail_on_that_rule_alone(code: str, kb_root: Path) -> None:
    rule = REGISTRY[code]
    for example in rule.doc.examples("Fails"):
        write_example(kb_root, rule, example)
        found = check(kb_root, select=frozenset({code})).diagnostics
        assert found and {d.code for d in found} == {code}, example


@pytest.mark.parametrize("code", DOCUMENTED)
def test_passing_examples_pass(code: str, kb_root: Path) -> None:
    """They pass that rule; those that are patches pass every rule (they are full examples
    a reader can copy)."""
    rule = REGISTRY[code]
    for example in rule.doc.examples("Passes"):
        write_example(kb_root, rule, example)
        assert check(kb_root, select=frozenset({code})).diagnostics == [], example
        if rule.module != "source":
            assert check(kb_root).errors == 0, example


def test_the_codes_table_lists_every_registered_code_with_its_module() -> None:
    assert codes.table() == {code: (r.name, r.module) for code, r in REGISTRY.items()}
