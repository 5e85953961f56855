"""No output can be turned against its reader: a hostile value in any field of an entry or a
device, through every command and format, never starts a line that a CI runner would run as a
workflow command, and never reaches the output as a raw control character, line separator or
direction override. One-line fields refuse line breaks outright; what a field may hold is
escaped wherever it is shown."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import NamedTuple

import pytest
from click.testing import CliRunner, Result

from bottleneck_kb.cli import main
from bottleneck_kb.core.diagnostics import inert_json, one_line
from bottleneck_kb.report import CHECK, EVALUATION, HARDWARE, formats

from ..conftest import FIXTURES

FULL = FIXTURES / "valid" / "full.yaml"
ENTRY = "entries/fixtures/full.yaml"
DEVICE = "hardware/nvidia-h100-sxm.yaml"

#: Values a hostile contributor might write, each as its YAML double-quoted escape would give it.
HOSTILE = {
    "newline": "x\n::error::pwned",
    "carriage-return": "x\r::error::pwned",
    "escape-sequence": "x\x1b]0;pwned\x07\x1b[31m",
    "line-separator": "x\u2028::error::pwned",
    "paragraph-separator": "x\u2029::error::pwned",
    "bidi-override": "x\u202e::error::pwned",
    # Shown at the start of a line of its own (a check's claim in the table) it is a command.
    "workflow-command": "::error::pwned",
    # The runner's older form, taken anywhere in a line.
    "old-workflow-command": "x ##[error]pwned",
}
#: Control and invisible characters the loader refuses in any text (KB013), written raw or
#: as an escape in a double-quoted string (as `plant` writes them).
REFUSED_BY_THE_LOADER = {
    "carriage-return",
    "escape-sequence",
    "line-separator",
    "paragraph-separator",
    "bidi-override",
}
#: Line breaks the loader lets through and one-line fields refuse (KB105).
LINE_BREAKS = {"newline"}

# Written independently of kb's own pattern: C0 and C1 controls but tab and line feed, Unicode
# line and paragraph separators, bidirectional marks and overrides, zero-width characters.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
ANNOTATION = re.compile(r"::(error|warning) file=[^,:]*,line=\d+,col=\d+,title=KB\d{3}::")


class Field(NamedTuple):
    file: str
    written: str  # a pattern of the lines of the file that the hostile value replaces
    template: str  # how the value is written instead; {} is the double-quoted value
    one_line: bool  # the schema refuses line breaks here
    subject: str  # how kb names the field in a message


ENTRY_FIELDS = {
    "title": Field(ENTRY, 'title: "Every field, once"', "title: {}", True, "title"),
    "summary": Field(
        ENTRY,
        r"  summary: \|\n    Multi-line .*",
        "  summary: {}",
        False,
        "arithmetic_intensity.summary",
    ),
    "symbol description": Field(
        ENTRY, "    description: Positions.", "    description: {}", False, ""
    ),
    "unit": Field(ENTRY, "    unit: tokens", "    unit: {}", True, "scales_with[0].unit"),
    "effect": Field(ENTRY, "    effect: Sets the ridge point.", "    effect: {}", False, ""),
    "magnitude": Field(
        ENTRY,
        "    magnitude: 192 GB",
        "    magnitude: {}",
        True,
        "hardware_parameters[1].magnitude",
    ),
    "workaround title": Field(
        ENTRY, "  - title: Fewer positions", "  - title: {}", True, "workarounds[0].title"
    ),
    "workaround description": Field(
        ENTRY, "    description: Draft fewer.", "    description: {}", False, ""
    ),
    "reported": Field(
        ENTRY, "    reported: Less work.", "    reported: {}", True, "workarounds[0].reported"
    ),
    "workaround reference title": Field(
        ENTRY,
        "      - title: A page",
        "      - title: {}",
        True,
        "workarounds[0].references[0].title",
    ),
    "claim": Field(ENTRY, "  - claim: .*", "  - claim: {}", True, "checks[0].claim"),
    "reference title": Field(
        ENTRY, "  - title: A paper", "  - title: {}", True, "references[0].title"
    ),
    "notes": Field(ENTRY, "notes: Plain text.", "notes: {}", False, ""),
    "first author": Field(
        ENTRY,
        "        first_author: Example",
        "        first_author: {}",
        True,
        "workarounds[0].references[0].first_author",
    ),
    "claim card": Field(ENTRY, "  - card: The draft costs.*", "  - card: {}", False, ""),
    "derived unit": Field(
        ENTRY,
        "    unit: tokens\n    description: The k at",
        "    unit: {}\n    description: The k at",
        True,
        "derived[0].unit",
    ),
    # Fields whose own rules refuse any of these values, and quote some of them.
    "name": Field(ENTRY, "  - name: draft_k", "  - name: {}", True, "scales_with[0].name"),
    "symbol": Field(ENTRY, "    symbol: k$", "    symbol: {}", True, "scales_with[0].symbol"),
    "device named": Field(
        ENTRY,
        r"    values_for: \[nvidia-h100-sxm, ",
        "    values_for: [{}, ",
        True,
        "hardware_parameters[0].values_for[0]",
    ),
    "flops": Field(ENTRY, "  flops: .*", "  flops: {}", False, ""),
    "claim reference": Field(
        ENTRY, '    reference: "2302.01318"', "    reference: {}", True, "claims[0].reference"
    ),
    "bound_by": Field(ENTRY, "bound_by: memory", "bound_by: {}", False, ""),
    "key": Field(ENTRY, "notes: Plain text.", "notes: Plain text.\n{}: 1", False, ""),
}
ALWAYS_REFUSED = {"name", "symbol", "device named", "flops", "claim reference", "bound_by", "key"}
DEVICE_FIELDS = {
    "device name": Field(DEVICE, "name: NVIDIA H100 SXM5 80GB", "name: {}", True, "name"),
    "device vendor": Field(DEVICE, "vendor: NVIDIA", "vendor: {}", True, "vendor"),
    "device notes": Field(DEVICE, r"notes: >-\n(  .*\n)+", "notes: {}\n", False, ""),
    "device source": Field(DEVICE, r"    title: .*", "    title: {}", True, "sources[0].title"),
    "device publisher": Field(
        DEVICE, r"    publisher: .*", "    publisher: {}", True, "sources[0].publisher"
    ),
}
FIELDS = {**ENTRY_FIELDS, **DEVICE_FIELDS}
#: Where a value that the schema lets through is shown by kb, escaped: field -> commands.
SHOWN = {
    "title": {"eval table"},
    "workaround title": {"eval table", "eval json"},
    "reported": {"eval table", "eval json"},
    "claim": {"eval table", "eval json"},
    "bound_by": {"check text", "check json", "check github", "check sarif"},
    "key": {"check text", "check json", "check github", "check sarif"},
    "magnitude": {"check text", "check json", "check github", "check sarif"},
    "claim reference": {"check text", "check json", "check github", "check sarif"},
    "device name": {"hardware json"},
}
#: Every format of every command that shows what files say, from the reporter registry: a
#: format added there is tried here with every hostile value, unasked.
COMMANDS = {
    **{f"check {name}": ["check", "--format", name] for name in formats(CHECK)},
    **{f"eval {name}": ["eval", "fixtures/full", "--format", name] for name in formats(EVALUATION)},
    **{f"hardware {name}": ["hardware", "--format", name] for name in formats(HARDWARE)},
}


def plant(root: Path, field: Field, value: str) -> None:
    path = root / field.file
    quoted = json.dumps(value)  # ASCII with \n, \u001b, \u2028 escapes: a YAML double-quoted string
    text, found = re.subn(
        f"^{field.written}",
        lambda _: field.template.format(quoted),
        path.read_text("utf-8"),
        count=1,
        flags=re.M,
    )
    assert found, f"{field.file} no longer holds {field.written!r}"
    path.write_text(text, encoding="utf-8")


def run(root: Path, arguments: list[str]) -> Result:
    # color=True: Click would otherwise strip ANSI sequences itself and hide a leak.
    return CliRunner().invoke(
        main, [*arguments, "--root", str(root)], env={"GITHUB_ACTIONS": ""}, color=True
    )


def assert_harmless(result: Result, command: str) -> None:
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert not RAW.search(result.output), repr(result.output)
    for line in result.output.splitlines():
        if line.lstrip().startswith("::"):
            assert command == "check github" and ANNOTATION.match(line), repr(line)
        assert "##[" not in line, repr(line)


@pytest.fixture
def full_root(kb_root: Path) -> Path:
    """The fixture knowledge base with the entry that has every field (which links to the
    minimal entry beside it)."""
    shutil.copyfile(FULL, kb_root / ENTRY)
    return kb_root


def test_the_unchanged_files_are_valid_and_shown_everywhere(full_root: Path) -> None:
    for command, arguments in COMMANDS.items():
        result = run(full_root, arguments)
        assert result.exit_code == 0, (command, result.output)
        assert_harmless(result, command)


@pytest.mark.slow
@pytest.mark.parametrize("value", list(HOSTILE))
@pytest.mark.parametrize("field", list(FIELDS))
def test_a_hostile_value_in_any_field_is_harmless_in_every_output(
    field: str, value: str, full_root: Path
) -> None:
    where = FIELDS[field]
    hostile = HOSTILE[value]
    plant(full_root, where, hostile)

    results = {command: run(full_root, arguments) for command, arguments in COMMANDS.items()}

    for command, result in results.items():
        assert_harmless(result, command)
    check = json.loads(results["check json"].output)["diagnostics"]
    if value in REFUSED_BY_THE_LOADER:
        assert [(d["path"], d["code"]) for d in check][:1] == [(where.file, "KB013")]
    elif value in LINE_BREAKS and where.one_line:
        assert (where.file, "KB105", f"{where.subject} must be one line") in {
            (d["path"], d["code"], d["message"]) for d in check
        }
    elif field not in ALWAYS_REFUSED | {"magnitude"}:
        assert check == [], check  # a text field may hold this: the schema lets it through
    if value in REFUSED_BY_THE_LOADER or (value in LINE_BREAKS and where.one_line):
        return  # refused: the value is not shown, the diagnostic is
    for command in SHOWN.get(field, ()):
        output = results[command].output
        json_text = inert_json(json.dumps(hostile))[1:-1]
        escaped = json_text if command.endswith(("json", "sarif")) else None
        # In the text formats, as one_line shows it at the start of a line or within one.
        shown = {escaped} if escaped else {one_line(hostile), one_line(f"x{hostile}")[1:]}
        assert any(text in output for text in shown), (command, output)


def test_a_line_break_in_a_one_line_field_is_reported_where_it_is(full_root: Path) -> None:
    plant(full_root, ENTRY_FIELDS["title"], "Every field,\n::error::pwned")

    result = run(full_root, ["check", "--format", "text"])

    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"{ENTRY}:3:21: KB105 title must be one line",
        "    hint: Text of one line, without LF, CR, NEL, U+2028 or U+2029: write it on one "
        "line, or fold it with >- and no blank line.",
        "Found 1 error in 1 file; checked 2 entries against 2 devices.",
    ]


def test_a_folded_paragraph_is_one_line_and_passes(full_root: Path) -> None:
    path = full_root / ENTRY
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace(
            "  - claim: Memory-bound at k = 8.",
            "  - claim: >-\n      Memory-bound\n      at k = 8.",
        ),
        encoding="utf-8",
    )

    result = run(full_root, ["check"])

    assert result.exit_code == 0, result.output


def test_a_quoted_value_keeps_its_escapes_visible_in_the_text_and_github_formats(
    full_root: Path,
) -> None:
    # A right-to-left mark: text may hold one (overrides are refused), and it is escaped.
    plant(full_root, ENTRY_FIELDS["bound_by"], "memory\n::error::pwned\u200f")

    text = run(full_root, ["check", "--format", "text"])
    github = run(full_root, ["check", "--format", "github"])

    line = FULL.read_text("utf-8").splitlines().index("bound_by: memory") + 1
    assert text.output.splitlines()[0] == (
        f"{ENTRY}:{line}:12: KB103 'memory\\n::error::pwned\\u200f' is not an allowed bound_by"
    )
    assert github.output.splitlines()[0] == (
        f"::error file={ENTRY},line={line},col=12,title=KB103::"
        "'memory\\n::error::pwned\\u200f' is not an allowed bound_by"
        "%0Aallowed values: compute, memory, interconnect, host_link, network, latency, capacity"
    )


def test_a_final_line_break_the_regex_dialects_disagree_on_is_refused(kb_root: Path) -> None:
    # Python's `$` matches before a final line break and Rust's does not: the reference
    # validator finds nothing wrong where the fast one refuses, and the file is still refused.
    device = kb_root / DEVICE
    written = "memory_capacity: {value: 80 GB,"
    text = device.read_text(encoding="utf-8")
    assert written in text
    device.write_text(text.replace(written, 'memory_capacity: {value: "80 GB\\n",'), "utf-8")

    result = run(kb_root, ["check", "--format", "json"])

    assert result.exit_code == 1
    (diagnostic,) = json.loads(result.output)["diagnostics"]
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row.startswith(written))
    assert (diagnostic["path"], diagnostic["line"], diagnostic["col"], diagnostic["code"]) == (
        DEVICE,
        line,
        len("memory_capacity: {value: ") + 2,
        "KB105",
    )
    assert diagnostic["message"].startswith('memory_capacity.value: "80 GB\\n" does not match')


def test_one_line_escapes_what_would_break_or_reorder_a_line() -> None:
    assert one_line("a\nb\r\x1b[31m\x85\u2028\u2029\u202e\u2066\u200b\tc") == (
        "a\\nb\\r\\x1b[31m\\x85\\u2028\\u2029\\u202e\\u2066\\u200b\tc"
    )
    assert one_line("Plain text: 3.35 TB/s, µs, 2:4 sparsity") == (
        "Plain text: 3.35 TB/s, µs, 2:4 sparsity"
    )
