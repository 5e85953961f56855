"""Every rule documents itself in fixed sections, and its examples do what they say when run
through that rule alone; one table lists every code with its owning module."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bottleneck_kb.checking.run import check
from bottleneck_kb.core import codes
from bottleneck_kb.core.codes import INTERNAL
from bottleneck_kb.rules import REGISTRY, SECTIONS, Documentation

from ..conftest import write_example

DOCUMENTED = sorted(code for code in REGISTRY if code != INTERNAL)


def test_every_rule_has_every_section() -> None:
    for code in DOCUMENTED:
        doc = REGISTRY[code].doc
        assert doc.summary and "\n" not in doc.summary, code
        assert [s for s in SECTIONS if s not in doc.sections] == [], code
        assert doc.examples("Fails") and doc.examples("Passes"), code


def test_every_rule_says_whether_an_editor_shows_it() -> None:
    """What the published schemas hold an editor shows as you type; every other rule says in
    one sentence of what it checks why a JSON Schema cannot (or does not) hold it."""
    said = re.compile(r"An editor (shows|cannot show|does not show)[^.]*[.:]")
    silent = [c for c in REGISTRY if not said.search(REGISTRY[c].doc.sections["What it checks"])]
    assert silent == []


def test_no_summary_is_cut_where_its_source_line_wraps() -> None:
    cut = [code for code in DOCUMENTED if not REGISTRY[code].summary.endswith(".")]
    assert cut == []
    assert REGISTRY["KB009"].summary == (
        "The file is over 1 MiB or holds more than 50,000 keys and values."
    )


def test_the_summary_is_the_whole_first_paragraph() -> None:
    doc = Documentation.parse(
        """
        A summary that wraps
        over two lines.

        ## What it checks
        Something.
        """
    )
    assert doc.summary == "A summary that wraps over two lines."
    assert list(doc.sections) == ["What it checks"]


def test_an_example_too_long_to_read_is_shown_by_its_start_and_run_whole() -> None:
    doc = REGISTRY["KB009"].doc
    assert len(doc.examples("Fails")[0]) == 150_012
    fails = doc.text.split("## Fails\n\n")[1].split("\n\n## Passes")[0]
    assert fails == (
        "```yaml\n"
        "values: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ...\n"
        "# (abbreviated: 150,012 characters in all)\n"
        "```"
    )


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
    assert codes.code_table() == {code: (r.name, r.module) for code, r in REGISTRY.items()}
