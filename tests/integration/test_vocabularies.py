"""A knowledge base's own words: kb.yaml's `namespaces:` and `classes:` add families and kinds
kb does not have, read by `kb check`, `kb new`, `kb schema` and the site alike; kb's own words
cannot be redefined, `fixtures` stays reserved, and `--catalog` never brings another
repository's words."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from bottleneck_kb import schemas
from bottleneck_kb.checking.run import check
from bottleneck_kb.cli import main
from bottleneck_kb.knowledge.addresses import ENTRIES_BY_CLASS
from bottleneck_kb.knowledge.config import CONFIG_FILE
from bottleneck_kb.rules.examples import MINIMAL_ENTRY
from bottleneck_kb.site.pages.build import build_site
from bottleneck_kb.site.pages.html import Options

from ..conftest import MINIMAL_PATH

WORDS = """\
namespaces:
  - name: bench
    title: Benchmarks
    description: Whole-system benchmark harnesses.
classes:
  - name: fused_kernel
    title: Fused kernel
    description: Hand-fused kernels.
"""
ENTRY = "entries/bench/fused.yaml"


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), env={"GITHUB_ACTIONS": ""})


def said(root: Path) -> list[str]:
    return [f"{d.path}:{d.line}:{d.col}: {d.code} {d.message}" for d in check(root).diagnostics]


@pytest.fixture
def own(kb_root: Path) -> Path:
    """The fixture knowledge base with an entry of its own namespace and class."""
    (kb_root / MINIMAL_PATH).unlink()
    entry = kb_root / ENTRY
    entry.parent.mkdir(parents=True)
    entry.write_text(
        MINIMAL_ENTRY.replace("fixtures/minimal", "bench/fused").replace(
            "class: decode_gemm", "class: fused_kernel"
        )
    )
    return kb_root


def test_without_the_words_the_entry_is_refused(own: Path) -> None:
    assert said(own) == [
        f"{ENTRY}:3:8: KB103 'fused_kernel' is not an allowed class",
    ]
    (own / ENTRY).write_text((own / ENTRY).read_text().replace("fused_kernel", "decode_gemm"))
    assert said(own) == [f"{ENTRY}:1:5: KB211 'bench' is not a namespace"]


def test_a_configuration_that_adds_them_checks_clean(own: Path) -> None:
    (own / CONFIG_FILE).write_text(WORDS)
    assert said(own) == []


def test_the_published_schema_holds_the_words_and_kb020_holds_schema_to_it(own: Path) -> None:
    (own / CONFIG_FILE).write_text(WORDS)
    result = run("schema", "entry", "--root", str(own))
    assert result.exit_code == 0
    published = json.loads(result.output)
    namespaces = published["$defs"]["namespace"]["oneOf"]
    assert namespaces[-1] == {
        "const": "bench",
        "title": "Benchmarks",
        "description": "Whole-system benchmark harnesses.",
    }
    assert published["properties"]["class"]["enum"][-1] == "fused_kernel"
    assert published["properties"]["class"]["markdownEnumDescriptions"][-1] == (
        "Fused kernel. Hand-fused kernels."
    )
    # Editors complete an id's namespace from the id's examples: the new one is offered.
    assert published["properties"]["id"]["examples"][-1] == "bench/"
    assert "fixtures/" not in published["properties"]["id"]["examples"]
    # The package's own schema is unchanged by a knowledge base's words.
    assert schemas.schema(schemas.ENTRY)["properties"]["class"]["enum"][-1] != "fused_kernel"
    # A schema/ folder holding kb's own entry schema is stale for this knowledge base.
    (own / "schema").mkdir()
    for kind in ("entry", "hardware"):
        (own / f"schema/{kind}.schema.json").write_text(schemas.schema_text(kind))
    assert [d.code for d in check(own).diagnostics if d.path == "schema/entry.schema.json"] == [
        "KB020"
    ]
    (own / "schema/entry.schema.json").write_text(result.output)
    assert [d for d in check(own).diagnostics if d.code == "KB020"] == []


def test_outside_a_knowledge_base_kb_schema_prints_kbs_own_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("schema", "entry")
    assert result.exit_code == 0
    assert result.output == schemas.schema_text(schemas.ENTRY)


def test_kb_new_offers_and_takes_the_words(own: Path) -> None:
    (own / CONFIG_FILE).write_text(WORDS)
    result = run("new", "bench/second", "--class", "fused_kernel", "--root", str(own))
    assert result.exit_code == 0, result.output
    assert "class: fused_kernel\n" in (own / "entries/bench/second.yaml").read_text()
    refused = run("new", "benc/third", "--root", str(own))
    assert refused.exit_code == 1
    assert "did you mean 'bench'?" in refused.output


def test_the_site_titles_the_new_class(own: Path) -> None:
    (own / CONFIG_FILE).write_text(WORDS)
    site = build_site(own, Options())
    assert 'href="../#fused_kernel">class: Fused kernel</a>' in site.pages["entries/bench/fused.md"]
    assert "Fused kernel" in site.pages[ENTRIES_BY_CLASS]


def test_kbs_own_words_cannot_be_redefined_and_the_others_still_count(own: Path) -> None:
    (own / CONFIG_FILE).write_text(
        WORDS.replace(
            "classes:\n",
            "  - name: gemm\n    title: Ours\n    description: Our GEMMs.\n"
            "  - name: fixtures\n    title: Ours\n    description: Our fixtures.\nclasses:\n",
        )
    )
    assert said(own) == [
        "kb.yaml:5:11: KB107 'gemm' is one of kb's own namespaces, which a knowledge base "
        "cannot redefine",
        "kb.yaml:8:11: KB107 'fixtures' is reserved for kb's own test fixtures",
    ]


def test_a_word_of_the_wrong_form_is_located(own: Path) -> None:
    (own / CONFIG_FILE).write_text(WORDS.replace("name: bench", "name: Bench Marks"))
    # The word is not added: the entry in it is refused too.
    assert "kb.yaml:2:11: KB105 'Bench Marks' is not a valid namespaces[0].name" in said(own)


def test_another_repositorys_catalog_brings_no_words(own: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    shutil.copytree(own / "hardware", other / "hardware")
    (other / CONFIG_FILE).write_text(WORDS)
    result = run("check", "--root", str(own), "--catalog", str(other))
    assert result.exit_code == 1
    assert "KB103 'fused_kernel' is not an allowed class" in result.output
