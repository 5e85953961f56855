"""Properties of the YAML loader, `bottleneck_kb.source.load`, on generated input.

Whatever bytes arrive, `load` returns -- a Document with warnings, or None with located
diagnostics -- and never raises. And data that PyYAML's `safe_dump` writes comes back equal,
and each character of a block scalar is placed where it was written.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bottleneck_kb.core.diagnostics import Diagnostic, Severity
from bottleneck_kb.source import MAX_KEY_LENGTH, MAX_NUMBER_DIGITS, Document, Pointer, load
from bottleneck_kb.source.positions import read_block_scalar

DISPLAY = "entries/fixtures/generated.yaml"
SETTINGS = settings(max_examples=200, deadline=None)

# Pieces of YAML syntax and words YAML gives meanings to, so that generated text is often
# almost-YAML: indicators, anchors and aliases, tags, block scalars, quotes, comments, every
# kind of line break, and scalars that are numbers, NaN, null or a YAML 1.1 boolean.
YAML_PIECES = [
    ":",
    ": ",
    "-",
    "- ",
    "[",
    "]",
    "{",
    "}",
    ",",
    "&a",
    "*a",
    "&a ",
    "*a ",
    "!!",
    "!!str ",
    "!foo ",
    "?",
    "|",
    ">",
    "'",
    '"',
    "#",
    "\t",
    "\n",
    "\r",
    "\r\n",
    " ",
    "  ",
    "---",
    "...",
    "yes",
    "1e9",
    ".nan",
    "~",
    "key",
]
yaml_ish = st.lists(st.sampled_from(YAML_PIECES), max_size=80).map("".join)
# The same, with characters whose width in bytes or whose reading as a line break differs
# between UTF-8, libyaml and an editor, and control characters raw and escaped.
yaml_ish_wide = st.lists(
    st.sampled_from(
        [*YAML_PIECES, "é", "😀", "\x07", "\\x07", "\\e", "\x85", "\u2028", "\u202e", "\ufeff"]
    ),
    max_size=80,
).map("".join)

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# What a diagnostic of these codes must point at: the anchor or alias, the tag, the byte-order
# mark, the control character (raw, or the backslash of its escape) or the invisible character
# (a line or paragraph separator, a bidirectional override or isolate).
_CONTROLS = [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]
_INVISIBLES = [0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_CULPRITS = {
    "KB003": "&*",
    "KB004": "!",
    "KB006": "\ufeff",
    "KB013": "\\" + "".join(map(chr, _CONTROLS + _INVISIBLES)),
}


def assert_well_formed(raw: bytes) -> tuple[Document | None, list[Diagnostic]]:
    """`load` returned one of its two shapes, with located KB0xx diagnostics."""
    document, diagnostics = load(raw, DISPLAY)
    assert isinstance(diagnostics, list)
    for diagnostic in diagnostics:
        assert isinstance(diagnostic, Diagnostic)
        assert diagnostic.code.startswith("KB0"), diagnostic
        assert diagnostic.path == DISPLAY
        assert diagnostic.line >= 1, diagnostic
        assert diagnostic.col >= 1, diagnostic
    if document is None:
        assert diagnostics, "no document and no reason why"
        assert any(d.severity is Severity.ERROR for d in diagnostics)
    else:
        assert isinstance(document, Document)
        assert isinstance(document.data, dict)
        assert all(d.severity is Severity.WARNING for d in diagnostics)
    return document, diagnostics


@SETTINGS
@given(st.binary(max_size=2000))
def test_any_bytes_give_a_document_or_located_diagnostics(raw: bytes) -> None:
    assert_well_formed(raw)


@SETTINGS
@given(st.text())
def test_any_text_gives_a_document_or_located_diagnostics(text: str) -> None:
    assert_well_formed(text.encode("utf-8"))


@SETTINGS
@given(yaml_ish)
def test_yaml_ish_text_gives_a_document_or_located_diagnostics(text: str) -> None:
    assert_well_formed(text.encode("utf-8"))


@SETTINGS
@given(yaml_ish_wide)
def test_diagnostics_point_at_what_they_report(text: str) -> None:
    """Lines counted as editors count them (CRLF, CR, LF), columns in characters; the end of
    the input, where libyaml reports what is missing, is the first column after the last line."""
    _, diagnostics = assert_well_formed(text.encode("utf-8"))
    lines = _LINE_BREAK.split(text.removeprefix("\ufeff"))
    for diagnostic in diagnostics:
        if (diagnostic.line, diagnostic.col) == (len(lines) + 1, 1):
            continue
        assert diagnostic.line <= len(lines), (diagnostic, lines)
        line = lines[diagnostic.line - 1]
        assert diagnostic.col <= len(line) + 1, (diagnostic, lines)
        if diagnostic.code in _CULPRITS:
            at = line[diagnostic.col - 1 : diagnostic.col]
            assert at and at in _CULPRITS[diagnostic.code], (diagnostic, lines)


# --- what safe_dump writes comes back --------------------------------------------------------

keys = st.from_regex(r"[a-z][a-z0-9_]{0,15}", fullmatch=True)
# Text the loader accepts: no control characters and no invisible separators or direction
# overrides (refused, KB013), no byte-order mark (KB006), no lone surrogates (not encodable).
texts = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cc", "Cs"),
        blacklist_characters="".join(map(chr, [0xFEFF, *_INVISIBLES])),
    ),
    max_size=30,
)
# Numbers within the loader's limits: at most MAX_NUMBER_DIGITS digits, finite floats.
integers = st.integers(min_value=-(10**MAX_NUMBER_DIGITS) + 1, max_value=10**MAX_NUMBER_DIGITS - 1)
floats = st.floats(allow_nan=False, allow_infinity=False)

# Strings that YAML 1.1 (PyYAML's resolver, hence safe_dump) sees as text and writes unquoted,
# but that YAML 1.2 (the loader) reads as numbers: exponents without a dot or sign ('1e9'),
# decimals with a leading zero ('08'), 0o octals, and a signed leading dot ('+.5').
_YAML12_NUMBER = re.compile(
    r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
    r"|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)


def _yaml12_reads_as_number(text: str) -> bool:
    return _YAML12_NUMBER.fullmatch(text) is not None


def simple_data() -> st.SearchStrategy[dict[str, Any]]:
    scalars = st.one_of(texts.filter(lambda t: not _yaml12_reads_as_number(t)), integers, floats)
    values = st.recursive(
        scalars,
        lambda children: (
            st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4)
        ),
        max_leaves=15,
    )
    return st.dictionaries(keys, values, max_size=6)


@pytest.mark.slow
@SETTINGS
@given(simple_data())
def test_what_safe_dump_writes_loads_back_equal(data: dict[str, Any]) -> None:
    raw = yaml.safe_dump(data, allow_unicode=True).encode("utf-8")

    document, diagnostics = load(raw, DISPLAY)

    assert document is not None, (raw, diagnostics)
    assert diagnostics == [] or all(d.code == "KB005" for d in diagnostics)
    assert document.data == data, raw


number_like_texts = st.text(alphabet="0123456789eE+-.ox", min_size=1, max_size=6)


@SETTINGS
@given(st.dictionaries(keys, number_like_texts, min_size=1, max_size=3))
def test_safe_dump_of_number_like_text_never_changes_silently(data: dict[str, str]) -> None:
    """The strings left out above: safe_dump writes YAML 1.1, which quotes only some of them.
    Where YAML 1.2 reads one as a number, the loader says so (KB014), or refuses it (KB012)."""
    raw = yaml.safe_dump(data, allow_unicode=True).encode("utf-8")

    document, diagnostics = load(raw, DISPLAY)

    if document is None:
        assert [d.code for d in diagnostics] == ["KB012"], raw
        return
    changed = [key for key, text in data.items() if document.data[key] != text]
    warned = [d for d in diagnostics if d.code == "KB014"]
    assert len(warned) == len(changed), (raw, diagnostics)


@pytest.mark.parametrize(
    ("text", "value", "hint"),
    [
        ("1e9", 1.0e9, "write 1.0e+9"),
        ("1.0e9", 1.0e9, "write 1.0e+9"),
        ("-1e5", -1.0e5, "write -1.0e+5"),
        ("08", 8, "drop the leading zeros"),
        ("0o17", 15, "quote it, or write it in decimal"),
        ("+.5", 0.5, "write +0.5"),
    ],
)
def test_yaml12_numbers_that_yaml11_reads_otherwise_are_numbers_with_a_warning(
    text: str, value: float, hint: str
) -> None:
    """YAML 1.2 reads these as numbers (as the issue asks for 1e9); PyYAML reads them as text
    or as octal, so the loader warns where they are written."""
    raw = yaml.safe_dump({"title": text}).encode("utf-8")

    document, diagnostics = load(raw, DISPLAY)

    assert document is not None
    assert document.data == {"title": value}, raw
    ((code, line, col, given),) = [(d.code, d.line, d.col, d.hint) for d in diagnostics]
    assert (code, line, col, given) == ("KB014", 1, 8, hint)


def test_the_longest_allowed_key_round_trips() -> None:
    data = {"k" * MAX_KEY_LENGTH: 1}

    document, diagnostics = load(yaml.safe_dump(data).encode("utf-8"), DISPLAY)

    assert document is not None, diagnostics
    assert document.data == data


# --- where each character of a block scalar was written ---------------------------------------

# Where a block scalar stands: the text before its indicator, the pointer to it, the 0-based
# column of the block collection holding it (an indentation indicator counts from it), and a
# sibling that may follow it in that collection.
_BLOCK_PLACES = [
    ("key: ", ("key",), 0, "next: 1"),
    ("outer:\n  key: ", ("outer", "key"), 2, "  next: 1"),
    ("items:\n  - ", ("items", 0), 2, "  - 1"),
    ("items:\n- key: ", ("items", 0, "key"), 2, "  next: 1"),
]
_LINE_BREAKS = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def block_scalars(draw: st.DrawFn) -> tuple[str, str, Pointer, int]:
    """(text, the text before the indicator, pointer, parent column): a block scalar, literal or
    folded, with or without chomping and an indentation indicator (in either order) and a
    comment, over lines of content (some more indented, some starting with a tab, some only
    spaces) and empty lines (indented or not), ending the file with or without a line break,
    or followed by a sibling or a key of the top level."""
    prefix, pointer, parent, sibling = draw(st.sampled_from(_BLOCK_PLACES))
    increment = draw(st.sampled_from([0, 1, 2, 3]))
    indent = parent + (increment or draw(st.integers(1, 3)))
    header = [draw(st.sampled_from(["", "-", "+"])), str(increment) if increment else ""]
    if draw(st.booleans()):
        header.reverse()
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            lines.append(" " * draw(st.integers(0, indent)))  # empty
        else:
            words = draw(st.text(alphabet="ab :#\t", min_size=1, max_size=8))
            lines.append(" " * (indent + draw(st.sampled_from([0, 0, 0, 1, 2]))) + words)
    text = prefix + draw(st.sampled_from("|>")) + "".join(header)
    text += draw(st.sampled_from(["", "  ", " # note"]))
    for line in lines:
        text += draw(_LINE_BREAKS) + line
    following = draw(st.sampled_from([None, "", sibling, "after: 1"]))
    if following is not None:
        text += draw(_LINE_BREAKS) + following
    return text, prefix, pointer, parent


@settings(max_examples=500, deadline=None)
@given(block_scalars())
def test_each_character_of_a_block_scalar_is_placed_where_it_was_written(
    case: tuple[str, str, Pointer, int],
) -> None:
    """The walk over the block scalar reads the value libyaml read, and every character of
    it is placed on the character that wrote it, in order: a line break on the end of a line,
    and a break that `>` folds into a space too (it is written there); any other character on
    itself."""
    text, prefix, pointer, parent = case
    document, _ = load(text.encode("utf-8"), DISPLAY)
    assume(document is not None)
    assert document is not None
    value: Any = document.data
    for part in pointer:
        value = value[part]
    assert read_block_scalar(text, len(prefix), parent)[0] == value, text

    lines = _LINE_BREAK.split(text)
    places = [document.offset_at(pointer, offset) for offset in range(len(value))]
    assert places == sorted(set(places)), text  # each from its own source character, in order
    for char, (line, col) in zip(value, places, strict=True):
        written = lines[line - 1]
        if col == len(written) + 1:
            assert char == "\n" or (char == " " and text[len(prefix)] == ">"), (text, line)
        else:
            assert written[col - 1] == char, (text, line, col)


@pytest.mark.parametrize(
    ("text", "pointer", "offset", "place"),
    [
        # A break that `>` folds into a space: at the end of the preceding line's content.
        ("key: >-\n  a b\n  c\n", ("key",), 3, (2, 6)),
        ("key: >-\n  a b\n  c\n", ("key",), 4, (3, 3)),
        # An empty line between folded lines is the break: at that line.
        ("key: >\n  a\n\n  b\n", ("key",), 1, (3, 1)),
        # A literal line break, CRLF too: at the end of the line it ends.
        ("key: |\r\n  a\r\n  b\r\n", ("key",), 3, (3, 4)),
        # |1 counts from the indentation of the mapping holding it (2): the value is "  x".
        ("outer:\n  key: |1-\n     x\n", ("outer", "key"), 0, (3, 4)),
        ("outer:\n  key: |1-\n     x\n", ("outer", "key"), 2, (3, 6)),
        # Kept final breaks are the empty lines'; past the end is after the last content.
        ("key: |+\n  ab\n\n", ("key",), 3, (3, 1)),
        ("key: |+\n  ab\n\n", ("key",), 4, (2, 5)),
    ],
)
def test_a_block_scalar_character_is_placed_at_its_line_and_column(
    text: str, pointer: Pointer, offset: int, place: tuple[int, int]
) -> None:
    document, diagnostics = load(text.encode("utf-8"), DISPLAY)

    assert document is not None, diagnostics
    assert document.offset_at(pointer, offset) == place


@pytest.mark.parametrize(
    ("text", "line", "col"),
    [
        ('title: "ab"# c\n', 1, 12),
        ("notes: 'x'#y\n", 1, 11),
        ("x: [a]#c\n", 1, 7),
        ("x: {a: b}#c\n", 1, 10),
        ('x:\n  - "a"#c\n', 2, 8),
        ('"k"#c: v\n', 1, 4),
        ("x: |#c\n  t\n", 1, 5),
        ("x: >-2#c\n  t\n", 1, 7),
    ],
)
def test_a_comment_glued_to_the_value_before_it_is_refused_where_it_starts(
    text: str, line: int, col: int
) -> None:
    """libyaml reads `"ab"# c` as "ab" and a comment; YAML asks for a space first, and other
    readers (kb fmt's among them) refuse the file or read more into the value."""
    document, problems = load(text.encode(), "x.yaml")
    assert document is None
    assert [(p.code, p.line, p.col, p.message) for p in problems] == [
        ("KB001", line, col, "a comment must be separated from the value before it by a space")
    ]


@pytest.mark.parametrize("text", ["x: a #c\n", "x: 'a'   #c\n", "x: ok#c\n", "x: |  # c\n  t\n"])
def test_a_comment_after_a_space_and_a_hash_inside_a_plain_value_are_read(text: str) -> None:
    document, problems = load(text.encode(), "x.yaml")
    assert document is not None, problems
