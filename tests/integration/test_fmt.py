"""kb fmt: the canonical form, data never changed, comments kept, atomic writes."""

from __future__ import annotations

import copy
import itertools
import json
import os
import re
import stat
import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from bottleneck_kb import schemas
from bottleneck_kb.authoring import fmt
from bottleneck_kb.authoring.fmt import Formatted, format_paths, format_text, same_data
from bottleneck_kb.authoring.folding import WIDTH, fold_positions
from bottleneck_kb.cli import main
from bottleneck_kb.knowledge.files import discover
from bottleneck_kb.rules.examples import MINIMAL_ENTRY
from bottleneck_kb.source import load

from ..conftest import FIXTURES, REPOSITORY, console_script, copy_repository, fixture_kb

ENTRY_LINE = "# yaml-language-server: $schema=../../schema/entry.schema.json"


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), env={"GITHUB_ACTIONS": ""})


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    """A knowledge base that publishes its schemas, as this repository does."""
    return copy_repository(fixture_kb(tmp_path / "kb"), ("schema",))


MESSY = """\
# A leading comment stays.
title: 'Messy: entry'   \n\
id: x/a
bound_by: memory
class: decode_gemm
arithmetic_intensity:
  bytes: 2 * k
  flops: "2 * k"
  summary: >-
    A folded paragraph whose single line is far too long for the hundred columns that folded {}
scales_with:
- symbol: k   # the symbol
  name: k_x
  description: 'yes'
  typical: 1e9
  range: [1e7, 0o20]
workarounds: []
notes: "007"
""".format("prose may take.")

CANONICAL = f"""\
{ENTRY_LINE}
# A leading comment stays.
id: x/a
title: "Messy: entry"
class: decode_gemm
bound_by: memory
arithmetic_intensity:
  summary: >-
    A folded paragraph whose single line is far too long for the hundred columns that folded prose
    may take.
  flops: 2 * k
  bytes: 2 * k
scales_with:
  - name: k_x
    symbol: k # the symbol
    description: "yes"
    typical: 1.0e+9
    range: [1.0e+7, 16]
workarounds: []
notes: "007"
"""


def formatted(text: str, kind: str = schemas.ENTRY, line: str | None = ENTRY_LINE) -> str:
    return format_text(text.encode(), "x.yaml", kind, line)


def data_of(text: str) -> dict[str, Any]:
    document, problems = load(text.encode(), "x.yaml")
    assert document is not None, problems
    return document.data


def test_a_messy_entry_takes_the_canonical_form() -> None:
    assert formatted(MESSY) == CANONICAL
    assert same_data(data_of(CANONICAL), data_of(MESSY))


def test_the_canonical_form_is_a_fixed_point() -> None:
    assert formatted(CANONICAL) == CANONICAL


def test_a_file_keeps_the_line_endings_its_first_line_has() -> None:
    """Checked out with CRLF (git's core.autocrlf on Windows), every file was 'reformatted'
    to LF, and back to CRLF at the next checkout."""
    windows = MESSY.replace("\n", "\r\n")
    assert formatted(windows) == CANONICAL.replace("\n", "\r\n")
    assert formatted(CANONICAL.replace("\n", "\r\n")) == CANONICAL.replace("\n", "\r\n")
    mixed = MESSY.replace("\n", "\r\n", 1)  # the first line decides
    assert formatted(mixed) == CANONICAL.replace("\n", "\r\n")
    assert formatted(windows.replace("\r\n", "\n", 1)) == CANONICAL


def test_a_wrong_schema_line_is_replaced_and_a_missing_one_added() -> None:
    wrong = "# yaml-language-server: $schema=elsewhere.json\nid: x/a\n"
    assert formatted(wrong) == f"{ENTRY_LINE}\nid: x/a\n"
    assert formatted("id: x/a\n") == f"{ENTRY_LINE}\nid: x/a\n"


def test_what_a_schema_line_says_after_the_schema_is_kept() -> None:
    text = "# yaml-language-server: $schema=old.json  # reviewed by A. Author\nid: x/a\n"
    assert formatted(text) == f"{ENTRY_LINE}\n# reviewed by A. Author\nid: x/a\n"


def test_a_schema_line_below_the_first_goes_and_positions_still_count_it() -> None:
    """It stayed, so the file named two schemas, the first of them stale."""
    text = "# hi\n# yaml-language-server: $schema=old.json\nid: x/a\n"
    assert formatted(text) == f"{ENTRY_LINE}\n# hi\nid: x/a\n"

    flow_comment = f"{text}scales_with:\n  - {{name: k_x, range: [1, # why\n    2]}}\n"
    with pytest.raises(fmt._Refused) as refused:
        formatted(flow_comment)
    assert (refused.value.diagnostic.line, refused.value.diagnostic.col) == (5, 28)


def test_without_a_schema_folder_the_first_line_is_left_alone() -> None:
    text = "# yaml-language-server: $schema=https://example.com/entry.json\nid: x/a\n"
    assert formatted(text, line=None) == text


def test_key_order_is_read_from_the_schema_whatever_its_shape(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A device figure written as a mapping (value and source) is ordered by the schema's
    properties for that shape: nothing in fmt names a key."""
    schema = copy.deepcopy(schemas.schema(schemas.HARDWARE))
    schema["properties"]["memory_bandwidth"] = {
        "oneOf": [
            {"type": "string"},
            {"type": "object", "properties": {"value": {}, "source": {}, "note": {}}},
        ]
    }
    monkeypatch.setattr(schemas, "schema", lambda kind: schema)
    text = "memory_bandwidth:\n  note: n\n  source: x\n  value: 3.35 TB/s\nid: d\n"
    assert formatted(text, schemas.HARDWARE, None) == (
        "id: d\nmemory_bandwidth:\n  value: 3.35 TB/s\n  source: x\n  note: n\n"
    )


REORDERED = """\
# top of file
title: t
# before id
id: x/a
scales_with:
- symbol: k   # the symbol
  # before name
  name: k_x
  range: [1, 2]  # eol range

  # before unit
  unit: u  # eol unit

# before workarounds
workarounds: []
arithmetic_intensity:
  bytes: 2 * k
  flops: 2 * k  # eol flops
  # before summary
  summary: >-
    x
# before notes
notes: n
# at the end
"""


def test_comments_stay_before_the_key_they_were_written_before() -> None:
    """Those before what becomes the first key of a list item go above its `- `: between the
    two they would split the item. The file's first comment stays at the top."""
    assert formatted(REORDERED) == (
        f"{ENTRY_LINE}\n"
        "# top of file\n"
        "# before id\n"
        "id: x/a\n"
        "title: t\n"
        "arithmetic_intensity:\n"
        "  # before summary\n"
        "  summary: >-\n"
        "    x\n"
        "  flops: 2 * k  # eol flops\n"
        "  bytes: 2 * k\n"
        "scales_with:\n"
        "  # before name\n"
        "  - name: k_x\n"
        "    symbol: k # the symbol\n"
        "\n"
        "    # before unit\n"
        "    unit: u # eol unit\n"
        "    range: [1, 2] # eol range\n"
        "\n"
        "# before workarounds\n"
        "workarounds: []\n"
        "# before notes\n"
        "notes: n\n"
        "# at the end\n"
    )


def test_comments_above_a_first_key_that_moves_go_with_it() -> None:
    """In a nested mapping and in a list item, where the comment was on the item's `- ` line
    or on a line of its own."""
    text = (
        "id: x/a\n"
        "arithmetic_intensity:\n"
        "  # about bytes\n"
        "  bytes: 2 * k\n"
        "  summary: s\n"
        "scales_with:\n"
        "  - # about symbol k\n"
        "    symbol: k\n"
        "    name: k_x\n"
        "  -\n"
        "    # about symbol j\n"
        "    symbol: j\n"
        "    # about name j_x\n"
        "    name: j_x\n"
    )
    assert formatted(text) == (
        f"{ENTRY_LINE}\n"
        "id: x/a\n"
        "arithmetic_intensity:\n"
        "  summary: s\n"
        "  # about bytes\n"
        "  bytes: 2 * k\n"
        "scales_with:\n"
        "  - name: k_x\n"
        "    # about symbol k\n"
        "    symbol: k\n"
        "  # about name j_x\n"
        "  - name: j_x\n"
        "    # about symbol j\n"
        "    symbol: j\n"
    )


def test_keys_the_schema_does_not_know_follow_the_known_ones_in_written_order() -> None:
    text = "zeta: 1\nid: x/a\nalpha: 2\ntitle: t\n"
    assert formatted(text) == f"{ENTRY_LINE}\nid: x/a\ntitle: t\nzeta: 1\nalpha: 2\n"


def test_folded_prose_keeps_the_authors_lines_when_they_fit() -> None:
    text = "notes: >-\n  Short line.\n  Another short line.\n"
    assert formatted(text) == f"{ENTRY_LINE}\n{text}"


def test_fold_positions_fill_greedily_and_leave_a_long_word_alone() -> None:
    assert fold_positions("aa bb cc dd", 5) == [5]
    assert fold_positions("aaaaaaaa bb", 5) == [8]
    assert fold_positions("aa bb\nccc dd ee", 5) == [9]
    assert fold_positions("aa  bb cc", 4) == [6]  # never at a double space


def test_folded_prose_with_a_line_that_ends_in_a_space_is_refilled_within_the_width() -> None:
    """The author's break after a space was kept, but the emitter cannot break beside another
    space, so it wrote one line of 177 columns, which the next run refilled."""
    words = " ".join(["word"] * 18)
    text = f"id: x/a\nnotes: >-\n  {words} \n  {words}\n"
    assert fold_positions(f"{words}  {words}", 100, [len(words) + 1]) == [100]

    once = formatted(text)

    assert data_of(once) == data_of(text)
    assert max(len(line) for line in once.splitlines()) <= WIDTH
    assert formatted(once) == once


class _CountedReads(list[int]):
    """A list that counts the items read from it."""

    reads = 0

    def __iter__(self) -> Iterator[int]:
        for item in super().__iter__():
            self.reads += 1
            yield item


def test_fold_positions_read_each_written_break_a_bounded_number_of_times() -> None:
    """Every written break was read for every line: notes of 60,000 short paragraphs (within
    the file size limit) took minutes."""
    paragraphs = 2000
    text = "\n".join(f"w{n} x" for n in range(paragraphs))
    breaks = [space.start() for space in re.finditer(" ", text)]
    written = _CountedReads(breaks)

    assert fold_positions(text, 100, written) == breaks
    assert written.reads <= 2 * paragraphs


def _repository_files() -> list[tuple[str, Path]]:
    files = [(schemas.ENTRY, p) for p in discover(REPOSITORY, "entries")]
    files += [(schemas.HARDWARE, p) for p in discover(REPOSITORY, "hardware")]
    files += [(schemas.ENTRY, p) for p in sorted((FIXTURES / "valid").glob("*.yaml"))]
    files += [(schemas.ENTRY, p) for p in discover(FIXTURES / "kb", "entries")]
    files += [(schemas.HARDWARE, p) for p in discover(FIXTURES / "kb", "hardware")]
    return files


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "path"),
    _repository_files(),
    ids=[p.relative_to(REPOSITORY).as_posix() for _, p in _repository_files()],
)
def test_every_repository_file_keeps_its_data_and_formats_idempotently(
    kind: str, path: Path
) -> None:
    raw = path.read_bytes()
    once = format_text(raw, "x.yaml", kind, ENTRY_LINE)
    assert format_text(once.encode(), "x.yaml", kind, ENTRY_LINE) == once
    before, _ = load(raw, "x.yaml")
    assert before is not None
    assert same_data(data_of(once), before.data)
    comments = [line.strip() for line in raw.decode("utf-8-sig").splitlines() if "# " in line]
    for comment in comments:
        if not comment.startswith("# yaml-language-server"):
            assert comment in once


@pytest.mark.slow
def test_the_repository_is_already_formatted() -> None:
    run_ = format_paths(REPOSITORY)
    assert run_.diagnostics == []
    assert [f.display for f in run_.changed] == []
    assert len(run_.formatted) == sum(
        len(discover(REPOSITORY, folder)) for folder in ("entries", "hardware", "models")
    )


# Entries written many ways: keys shuffled, quoting and number forms varied, comments between
# keys, prose folded at random widths.
words = st.text(
    st.characters(whitelist_categories=("Lu", "Ll", "Nd"), max_codepoint=0x17F),
    min_size=1,
    max_size=12,
)
# Punctuation that YAML gives meaning to, so that quoting is exercised.
marks = st.text(st.sampled_from(list(":#'\"-?[]{},&*!|>%@`~=<. ")), min_size=1, max_size=4)
prose = st.lists(st.one_of(words, words, marks), min_size=1, max_size=40).map(" ".join)
numbers = st.one_of(
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False, width=64, min_value=-1e300, max_value=1e300),
)
number_forms = st.sampled_from(["{!r}", "{:e}", "{:g}", "{:.3E}"])
string_forms = st.sampled_from(["plain", "single", "double", "folded"])


@st.composite
def written_entries(draw: st.DrawFn) -> str:
    def scalar(text: str, indent: int) -> str:
        form = draw(string_forms)
        if form == "single":
            return "'" + text.replace("'", "''") + "'"
        if form == "double" or form == "plain":
            dumped = yaml.safe_dump(text, allow_unicode=True, width=10**6)
            return dumped.removesuffix("...\n").strip() if form == "plain" else f'"{text}"'
        width = draw(st.integers(10, 120))
        pad = " " * indent
        lines = textwrap.wrap(text, width) or [text]
        return ">-\n" + "\n".join(pad + line for line in lines)

    def number() -> str:
        value = draw(numbers)
        text = draw(number_forms).format(value)
        return text if isinstance(value, float) or "." not in text else str(value)

    written = itertools.count()

    def block(fields: list[str], indent: int, item: bool = False) -> str:
        """`fields` shuffled, some with a comment above; a list item's first one after `- `,
        its comment on the dash's line."""
        lines = []
        pad = " " * indent
        for index, field in enumerate(draw(st.permutations(fields))):
            comment = f"# comment {next(written)}" if draw(st.booleans()) else ""
            if item and index == 0:
                dash = f"{pad[:-2]}- "
                lines += [dash + comment, pad + field] if comment else [dash + field]
                continue
            if comment:
                lines.append(pad + comment)
            lines.append(pad + field)
        return "\n".join(lines)

    intensity = [f"summary: {scalar(draw(prose), 4)}", "flops: 2 * k", "bytes: 2 * k"]
    symbol = [
        "name: k_x",
        "symbol: k",
        f"description: {scalar(draw(prose), 6)}",
        f"typical: {number()}",
        f"range: [{number()}, {number()}]",
    ]
    fields = [
        "id: x/a",
        f"title: {scalar(draw(prose), 2)}",
        "class: decode_gemm",
        "bound_by: memory",
        f"arithmetic_intensity:\n{block(intensity, 2)}",
        f"scales_with:\n{block(symbol, 4, item=True)}",
        f"notes: {scalar(draw(prose), 2)}",
    ]
    return block(fields, 0) + "\n"


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(written_entries())
def test_generated_entries_keep_their_data_and_comments_and_format_idempotently(
    text: str,
) -> None:
    before, _ = load(text.encode(), "x.yaml")
    if before is None:  # the generator wrote something the loader refuses: not our case
        return
    once = formatted(text)
    assert same_data(data_of(once), before.data)
    assert formatted(once) == once
    lines = once.splitlines()
    written = text.splitlines()
    for index, line in enumerate(written):
        comment = line.strip(" -")
        if comment.startswith("# comment") and index > 0:
            # A comment stays right before the key it was written before (or above the `- ` of
            # the list item that key begins); the file's first comment stays at the top.
            at = next(i for i, said in enumerate(lines) if said.strip(" -") == comment)
            key = written[index + 1].strip(" -").split(":")[0]
            assert lines[at + 1].strip(" -").startswith(f"{key}:"), (comment, text, once)
    assert all(line == line.rstrip() for line in lines)


flow_strings = st.text(st.sampled_from(list(":?-,[]{}#&*!|>'\"%@`~ x")), min_size=1, max_size=5)


@settings(max_examples=300, deadline=None)
@given(flow_strings, st.sampled_from(["[{}]", "[a, {}]", "{{b: {}}}", "{{{}: b}}", "{{b: [{}]}}"]))
def test_strings_in_flow_collections_keep_their_data(text: str, collection: str) -> None:
    """A string that starts with `:` or `?` was written plain in a flow collection, where the
    loader does not read it: "a bug in kb fmt" on a file kb check accepts."""
    written = f"id: x/a\nnotes: {collection.format(json.dumps(text))}\n"
    before, _ = load(written.encode(), "x.yaml")
    if before is None:
        return

    assert same_data(data_of(formatted(written)), before.data)


@pytest.mark.slow
def test_several_processes_format_and_refuse_as_one_does(tmp_path: Path, forked: list[int]) -> None:
    kb = copy_repository(tmp_path / "kb", ("entries", "hardware", "schema"))
    (kb / "entries" / "gemm" / "broken.yaml").write_text("title: [unclosed\n", encoding="utf-8")
    messy = MESSY.replace("x/a", "gemm/messy")
    (kb / "entries" / "gemm" / "messy.yaml").write_text(messy, encoding="utf-8")
    one = format_paths(kb, jobs=1)
    assert forked == []

    shared = format_paths(kb)  # more files than the threshold: one process a core

    assert len(forked) == min(len(os.sched_getaffinity(0)), 8) - 1
    assert len(one.formatted) > fmt.PARALLEL_THRESHOLD
    assert [(f.display, f.after) for f in shared.formatted] == [
        (f.display, f.after) for f in one.formatted
    ]
    assert shared.diagnostics == one.diagnostics
    assert [d.path for d in one.diagnostics] == ["entries/gemm/broken.yaml"]
    assert [f.display for f in one.changed] == ["entries/gemm/messy.yaml"]
    serial, parallel = (run("fmt", "--root", str(kb), "--check", "--jobs", n) for n in "12")
    assert serial.stdout == parallel.stdout == "would reformat entries/gemm/messy.yaml\n"
    assert serial.stderr == parallel.stderr != ""


def test_named_paths_are_read_as_kb_check_reads_them(kb: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.yaml"
    outside.write_text(MESSY, encoding="utf-8")
    folder = kb / "entries" / "fixtures"
    (folder / ".hidden.yaml").write_text(MESSY, encoding="utf-8")
    messy = folder / "messy.yaml"
    messy.write_text(MESSY.replace("x/a", "fixtures/messy"), encoding="utf-8")
    spelled_otherwise = Path(os.path.relpath(messy))
    # Named one by one, as pre-commit names them: files kb does not read as entries or
    # devices are said, and left as they are.
    config = kb / "mkdocs.yml"
    config.write_text(MESSY, encoding="utf-8")
    other_ending = folder / "draft.yml"
    other_ending.write_text(MESSY, encoding="utf-8")
    hidden = folder / ".hidden.yaml"

    result = run(
        "fmt",
        "--root",
        str(kb),
        str(folder),
        str(spelled_otherwise),
        str(outside),
        str(config),
        str(other_ending),
        str(hidden),
    )

    assert result.exit_code == 1
    assert result.stdout == (
        "reformatted entries/fixtures/messy.yaml\nreformatted entries/fixtures/minimal.yaml\n"
    )
    hidden_said = (
        "entries/fixtures/.hidden.yaml:1:1: KB019 is hidden, and kb does not read hidden files\n"
        "    hint: rename it to hidden.yaml\n"
    )
    other_ending_said = (
        "entries/fixtures/draft.yml:1:1: KB019 is not read: kb reads files ending in .yaml\n"
        "    hint: rename it to draft.yaml\n"
    )
    # Each said once, though named twice (alone and in its folder), in kb check's order.
    assert result.stderr == (
        f"{outside.as_posix()}:1:1: KB011 is outside the repository\n"
        "    hint: run kb with --root set to its own repository, or copy it into entries/\n"
        + hidden_said
        + other_ending_said
        + "mkdocs.yml:1:1: KB019 is not read: kb reads the files in entries/, hardware/ or "
        "models/\n"
    )
    for untouched in (outside, config, other_ending, hidden):
        assert untouched.read_text(encoding="utf-8") == MESSY
    # A folder outside entries/ and hardware/ (the test fixtures) is not formatted either.
    (kb / "tests").mkdir()
    (kb / "tests" / "fixture.yaml").write_text(MESSY, encoding="utf-8")
    fixtures = run("fmt", "--root", str(kb), "--check", str(kb / "tests"))
    assert (fixtures.exit_code, fixtures.stdout) == (1, "")
    assert fixtures.stderr == (
        "tests:1:1: KB019 is not read: kb reads the files in entries/, hardware/ or models/\n"
    )


def test_a_file_fmt_cannot_replace_whole_is_left_as_it_is(kb: Path) -> None:
    """Replaced by a rename, a hard-linked file parted from its other names, and a file
    its owner made read-only was rewritten anyway (kb ran as root)."""
    folder = kb / "entries" / "fixtures"
    linked, read_only = folder / "linked.yaml", folder / "read-only.yaml"
    for path in (linked, read_only):
        path.write_text(MESSY.replace("x/a", f"fixtures/{path.stem}"), encoding="utf-8")
    os.link(linked, kb / "elsewhere.yaml")
    read_only.chmod(0o444)

    result = run("fmt", "--root", str(kb), str(linked), str(read_only))

    assert result.exit_code == 1
    assert result.stderr == (
        "entries/fixtures/linked.yaml: left as it was: has 1 other hard link(s), which would "
        "keep the old text\nentries/fixtures/read-only.yaml: left as it was: is read-only\n"
    )
    assert (kb / "elsewhere.yaml").read_text(encoding="utf-8") == linked.read_text("utf-8")
    assert read_only.read_text(encoding="utf-8") != CANONICAL


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may give a file to another owner")
def test_kb_fmt_keeps_the_owner(kb: Path) -> None:
    entry = kb / "entries" / "fixtures" / "owned.yaml"
    entry.write_text(MESSY.replace("x/a", "fixtures/owned"), encoding="utf-8")
    os.chown(entry, 1234, 5678)
    assert run("fmt", "--root", str(kb), str(entry)).exit_code == 0
    assert (entry.stat().st_uid, entry.stat().st_gid) == (1234, 5678)


def test_kb_fmt_keeps_extended_attributes_or_says_it_cannot(
    kb: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = kb / "entries" / "fixtures" / "labelled.yaml"
    entry.write_text(MESSY.replace("x/a", "fixtures/labelled"), encoding="utf-8")
    try:
        os.setxattr(entry, "user.reviewed", b"yes")
    except OSError:
        pytest.skip("this file system keeps no extended attributes")
    assert run("fmt", "--root", str(kb), str(entry)).exit_code == 0
    assert os.getxattr(entry, "user.reviewed") == b"yes"
    assert entry.read_text("utf-8") == CANONICAL.replace("x/a", "fixtures/labelled")

    entry.write_text(MESSY.replace("x/a", "fixtures/labelled"), encoding="utf-8")
    os.setxattr(entry, "user.reviewed", b"yes")

    def refuse(*args: object) -> None:
        raise PermissionError("not allowed")

    monkeypatch.setattr(os, "setxattr", refuse)  # a label the user may read but not set
    result = run("fmt", "--root", str(kb), str(entry))
    assert result.exit_code == 1
    assert result.stderr == (
        "entries/fixtures/labelled.yaml: left as it was: has the extended attribute "
        "user.reviewed, which a rewritten file cannot keep\n"
    )
    assert entry.read_text("utf-8") == MESSY.replace("x/a", "fixtures/labelled")


def test_a_link_is_not_rewritten_and_not_refused(kb: Path) -> None:
    """kb check reads through a link inside the repository; kb fmt failed on it every run."""
    folder = kb / "entries" / "fixtures"
    (folder / "linked.yaml").symlink_to("minimal.yaml")
    for args in (["--check"], []):
        result = run("fmt", "--root", str(kb), *args, str(folder / "linked.yaml"))
        assert (result.exit_code, result.output) == (0, "")
    assert (folder / "linked.yaml").is_symlink()


def test_kb_fmt_writes_the_canonical_form_and_keeps_the_mode(kb: Path) -> None:
    entry = kb / "entries" / "fixtures" / "messy.yaml"
    entry.write_text(MESSY.replace("x/a", "fixtures/messy"), encoding="utf-8")
    entry.chmod(0o640)

    result = run("fmt", "--root", str(kb), str(entry))

    assert result.exit_code == 0, result.output
    assert result.output == "reformatted entries/fixtures/messy.yaml\n"
    assert entry.read_text(encoding="utf-8") == CANONICAL.replace("x/a", "fixtures/messy")
    assert stat.S_IMODE(entry.stat().st_mode) == 0o640
    assert run("fmt", "--root", str(kb), "--check", str(entry)).exit_code == 0
    assert sorted(p.name for p in entry.parent.iterdir()) == ["messy.yaml", "minimal.yaml"]


def test_check_lists_what_would_change_and_writes_nothing(kb: Path) -> None:
    before = {p: p.read_bytes() for p in (kb / "hardware").iterdir()}

    result = run("fmt", "--root", str(kb), "--check")

    assert result.exit_code == 1
    assert result.output == (
        "would reformat entries/fixtures/minimal.yaml\n"
        "would reformat hardware/amd-instinct-mi300x.yaml\n"
        "would reformat hardware/nvidia-h100-sxm.yaml\n"
    )
    assert {p: p.read_bytes() for p in (kb / "hardware").iterdir()} == before


def test_diff_shows_a_unified_diff(kb: Path) -> None:
    result = run("fmt", "--root", str(kb), "--diff", str(kb / "entries"))

    assert result.exit_code == 1
    assert (
        result.output
        == (
            "--- a/entries/fixtures/minimal.yaml\n"
            "+++ b/entries/fixtures/minimal.yaml\n"
            "@@ -1,3 +1,4 @@\n"
            f"+{ENTRY_LINE}\n"
            # The minimal entry's first lines, as context.
            + "".join(f" {line}\n" for line in MINIMAL_ENTRY.splitlines()[:3])
        )
    )


@pytest.mark.parametrize(("ending", "last"), [("\r\n", "\n"), ("\n", "")])
def test_the_diff_applies_to_a_crlf_file_and_one_without_a_last_line_feed(
    ending: str, last: str, kb: Path
) -> None:
    """The diff of a CRLF file showed each carriage return as `\\r`, and one of a file whose
    last line had no line feed ran that line into the next: `git apply` took neither."""
    entry = kb / "entries" / "fixtures" / "minimal.yaml"
    text = entry.read_text(encoding="utf-8") + "notes:   n" + last
    entry.write_bytes(text.replace("\n", ending).encode())

    result = run("fmt", "--root", str(kb), "--diff", str(entry))

    assert result.exit_code == 1
    patch = kb / "fmt.patch"
    patch.write_bytes(result.stdout_bytes)
    subprocess.run(["git", "apply", "--check", patch.name], cwd=kb, check=True)
    subprocess.run(["git", "apply", patch.name], cwd=kb, check=True)
    assert run("fmt", "--root", str(kb), "--check", str(entry)).exit_code == 0


def test_diff_lines_quoting_a_file_are_never_workflow_commands(kb: Path) -> None:
    """A diff shows the file's own lines as context, after a space that GitHub's runner
    strips before it looks for `::`; its older `##[` it takes anywhere in a line."""
    entry = kb / "entries" / "fixtures" / "minimal.yaml"
    with entry.open("a", encoding="utf-8") as out:
        out.write("notes:   >-\n  ::error file=README.md,line=1::pwned\n  ##[warning]pwned\n")

    result = run("fmt", "--root", str(kb), "--diff", str(entry))

    assert result.exit_code == 1
    assert "   \\x3a:error file=README.md,line=1::pwned\n" in result.output
    assert "   \\x23#[warning]pwned\n" in result.output
    for line in result.output.splitlines():
        assert not line.lstrip().startswith("::") and "##[" not in line, line


def test_a_file_that_does_not_load_is_refused_and_left_alone(kb: Path) -> None:
    broken = kb / "entries" / "fixtures" / "broken.yaml"
    broken.write_text("id: fixtures/broken\ntitle: [unclosed\n", encoding="utf-8")

    result = run("fmt", "--root", str(kb), str(broken))

    assert result.exit_code == 1
    assert result.stderr == (
        "entries/fixtures/broken.yaml:3:1: KB001 YAML syntax error: did not find expected ',' "
        "or ']'\n"
    )
    assert broken.read_text(encoding="utf-8") == "id: fixtures/broken\ntitle: [unclosed\n"


def test_an_edit_saved_while_kb_fmt_runs_is_not_overwritten(
    kb: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = kb / "entries" / "fixtures" / "minimal.yaml"
    edited = entry.read_text(encoding="utf-8").replace("A minimal valid entry", "Edited")
    format_now = fmt.format_text

    def someone_saves_meanwhile(*args: Any) -> str:
        formatted_text = format_now(*args)
        entry.write_text(edited, encoding="utf-8")  # after kb fmt read it, before it writes
        return formatted_text

    monkeypatch.setattr(fmt, "format_text", someone_saves_meanwhile)
    result = run("fmt", "--root", str(kb), str(entry))

    assert result.exit_code == 1
    assert result.stderr == (
        "entries/fixtures/minimal.yaml: left as it was: changed after kb fmt read it; "
        "run kb fmt again\n"
    )
    assert entry.read_text(encoding="utf-8") == edited
    assert sorted(p.name for p in entry.parent.iterdir()) == ["minimal.yaml"]


def test_a_reader_that_stops_early_stops_the_report_not_the_writing(kb: Path) -> None:
    """`kb fmt | head -1`: every file is still written."""
    assert run("fmt", "--root", str(kb), "--check").exit_code == 1  # three files to write
    done = console_script("fmt", cwd=kb, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert done.stdout is not None
    done.stdout.close()  # before kb writes anything: it is still importing
    err = done.communicate(timeout=120)[1]

    assert (done.returncode, err) == (1, b"")
    assert run("fmt", "--root", str(kb), "--check").exit_code == 0


def test_a_failure_before_the_rename_leaves_the_old_file_whole(
    kb: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = kb / "entries" / "fixtures" / "minimal.yaml"
    before = entry.read_bytes()

    def interrupted(source: str, target: str) -> None:
        raise OSError("interrupted before the rename")

    monkeypatch.setattr(os, "replace", interrupted)
    result = run("fmt", "--root", str(kb), str(entry))

    assert result.exit_code == 1
    assert result.stderr == (
        "entries/fixtures/minimal.yaml: left as it was: interrupted before the rename\n"
    )
    assert entry.read_bytes() == before
    assert sorted(p.name for p in entry.parent.iterdir()) == ["minimal.yaml"]


@pytest.mark.parametrize(
    "notes",
    [
        "notes: >-\n  A note that ends in a space. \n",  # the space is the value's own
        "notes: |\n  Two spaces end this line.  \n  Then another.\n",
        # Direction marks text may hold (overrides and isolates are refused, escaped or raw).
        'notes: "Escaped: \\u200f, \\u061c and \\t, beside \\u00e9."\n',
    ],
)
def test_what_check_accepts_fmt_formats_without_changing_it(notes: str, kb: Path) -> None:
    entry = kb / "entries" / "fixtures" / "minimal.yaml"
    entry.write_text(entry.read_text(encoding="utf-8") + notes, encoding="utf-8")
    before, _ = load(entry.read_bytes(), "minimal.yaml")
    assert before is not None

    assert run("fmt", "--root", str(kb), str(entry)).exit_code == 0

    after, problems = load(entry.read_bytes(), "minimal.yaml")
    assert after is not None, problems
    assert after.data == before.data
    assert run("fmt", "--root", str(kb), "--check", str(entry)).exit_code == 0


def test_a_comment_after_folded_prose_that_ends_in_spaces_stays_a_comment() -> None:
    """ruamel wrote the comment onto the prose's last line, into its text, and kb fmt refused
    the file as "a bug in kb fmt"."""
    text = "id: x/a\nnotes: >-\n  Text.   \n# a comment\n"
    reordered = "notes: >-\n  Text.   \n# before id\nid: x/a\n"

    assert formatted(text) == f"{ENTRY_LINE}\n{text}"
    assert formatted(reordered) == f"{ENTRY_LINE}\n# before id\nid: x/a\nnotes: >-\n  Text.   \n"


def test_file_names_are_shown_escaped(kb: Path) -> None:
    """A file name may hold any byte but `/`: a pull request can name a file with a terminal
    escape sequence."""
    name = "evil\x1b]0;pwned\x07.yaml"
    source = kb / "entries" / "fixtures" / "minimal.yaml"
    (source.parent / name).write_text(source.read_text(encoding="utf-8"), encoding="utf-8")

    for mode in (["--check"], []):
        result = run("fmt", "--root", str(kb), *mode)
        assert "\x1b" not in result.output and "\x07" not in result.output, result.output
        assert "evil\\x1b]0;pwned\\x07.yaml" in result.output


def test_a_comment_fmt_would_lose_is_said_and_the_file_left_alone(kb: Path) -> None:
    """ruamel drops a comment inside a flow list; what a user wrote is not lost."""
    entry = kb / "entries" / "fixtures" / "minimal.yaml"
    text = entry.read_text(encoding="utf-8")
    flow = "    range: [1, # why 1\n      1024]  # max batch"
    written = text.replace("    range: [1, 1024]", flow)
    assert written != text
    entry.write_text(written, encoding="utf-8")

    result = run("fmt", "--root", str(kb), str(entry))

    assert result.exit_code == 1
    line = written.splitlines().index("    range: [1, # why 1") + 1
    assert result.output == (
        f"entries/fixtures/minimal.yaml:{line}:16: KB001 cannot be formatted without losing "
        "the comment '# why 1'\n"
        "    hint: move the comment to a line of its own, above the key it explains\n"
    )
    assert entry.read_text(encoding="utf-8") == written


def test_tabs_between_tokens_become_spaces_and_tabs_in_text_stay() -> None:
    """libyaml, and so kb check, takes a tab after `key:` or `,`; ruamel refuses it."""
    text = (
        "id:\tx/a\n"
        'title: "a\tb"\t# why\tthis\n'
        "notes: >-\n"
        "  tab\there\n"
        "scales_with:\n"
        "  - {name:\tk_x, symbol: k,\trange: [1,\t2]}\n"
    )
    assert formatted(text) == (
        f"{ENTRY_LINE}\n"
        "id: x/a\n"
        'title: "a\\tb" # why\tthis\n'
        "scales_with:\n"
        "  - {name: k_x, symbol: k, range: [1, 2]}\n"
        "notes: >-\n"
        "  tab\there\n"
    )


def test_comment_lines_after_block_scalars_stay_out_of_their_text() -> None:
    """Lines moved to the end of the mapping after a reordering, or written deeper than the
    prose's new indentation, were read as the prose's text: "a bug in kb fmt"."""
    moved = "notes: >-\n  Text.\nid: x/a\n  # last\n"
    deeper = (
        "id: x/a\narithmetic_intensity:\n    summary: >-\n      Text.\n     # one\n     # two\n"
    )

    assert formatted(moved) == f"{ENTRY_LINE}\nid: x/a\nnotes: >-\n  Text.\n# last\n"
    assert formatted(deeper) == (
        f"{ENTRY_LINE}\nid: x/a\narithmetic_intensity:\n"
        "  summary: >-\n    Text.\n  # one\n  # two\n"
    )


def test_a_comment_after_a_list_items_block_indicator_is_kept() -> None:
    """ruamel dropped it, and with it every other comment of the list; the lost-comment guard
    took it for the scalar's text."""
    text = "id: x/a\nworkarounds:\n  - |- # keep me\n    x\n  - >- # and me\n    y\n  - z # eol\n"

    assert formatted(text) == f"{ENTRY_LINE}\n{text}"


def test_a_tab_between_a_block_indicator_and_its_comment_becomes_a_space() -> None:
    """libyaml's span of a block scalar starts at its indicator, so the tab after it was taken
    for the scalar's text and kept, and ruamel refused the file."""
    text = "id: x/a\nnotes: >-\t# from the datasheet\n  Text.\n"

    assert formatted(text) == f"{ENTRY_LINE}\nid: x/a\nnotes: >- # from the datasheet\n  Text.\n"


def test_folded_prose_with_a_line_that_starts_with_a_tab_is_kept_literally() -> None:
    """ruamel wrote it back with a line break more, so kb fmt refused ("a bug in kb fmt") a
    file kb check accepts."""
    text = "id: x/a\nnotes: >-\n  Test.\n  \tTabbed.\n"

    assert formatted(text) == f"{ENTRY_LINE}\nid: x/a\nnotes: |-\n  Test.\n  \tTabbed.\n"
    assert data_of(formatted(text))["notes"] == "Test.\n\tTabbed."


def test_a_diffs_header_names_the_file_on_one_line() -> None:
    """A line break in a file's name ended the header, and started a line of its own."""
    changed = Formatted(Path("x"), "entries/gemm/a\n::error::x.yaml", "a: 1\n", "a: 2\n")
    header = changed.diff().splitlines()[:2]
    assert header == [
        "--- a/entries/gemm/a\\n::error::x.yaml",
        "+++ b/entries/gemm/a\\n::error::x.yaml",
    ]
