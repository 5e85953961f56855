"""The layout reader (`bottleneck_kb.source.layout`): whatever it reads, libyaml and the builder
read the same, without a warning, and where it gives up the loader reads the file as before.

The reader is a fast path in front of libyaml, so its one duty is never to differ: a file it
reads wrongly would be checked as data its author did not write. Generated documents in the
layout, with every construct it must give up on mixed in, hold that duty; the files of the
repository and the fixtures hold it on what people write.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bottleneck_kb.source import MAX_DEPTH, Document, Pointer, load
from bottleneck_kb.source.characters import decode
from bottleneck_kb.source.layout import KNOWN_FLOW_LISTS, Layout, read_layout
from bottleneck_kb.source.loader import read_with_libyaml
from bottleneck_kb.source.problems import Stop

from ..conftest import REPOSITORY, imported_by_check

sys.path.insert(0, str(REPOSITORY / "benchmarks"))
from synthetic import make_knowledge_base

DISPLAY = "entries/fixtures/layout.yaml"
SETTINGS = settings(max_examples=600, deadline=None)


def _by_libyaml(text: str) -> tuple[Any, list[tuple[str, int, int, str]]]:
    """The data libyaml and the builder read from `text` (None if refused), and what they
    said about it."""
    document, diagnostics = read_with_libyaml(text, DISPLAY)
    said = [(d.code, d.line, d.col, d.message) for d in diagnostics]
    return (None if document is None else document.data), said


def _same(text: str) -> None:
    """The property: the layout reader gives up, or reads what libyaml reads, without a word,
    and says where each part stands as libyaml's nodes do."""
    layout = read_layout(text)
    if layout is None:
        return
    expected, said = _by_libyaml(text)
    assert said == [], text
    # repr tells 1 from 1.0 and True, which == does not.
    assert repr(layout.data) == repr(expected), text
    _same_positions(text, layout)


def _at(data: Any, pointer: Pointer) -> Any:
    for part in pointer:
        data = data[part]
    return data


def _pointers(value: Any, at: Pointer = ()) -> list[Pointer]:
    """Every pointer into `value`, block collections' before flow collections'."""
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    return [at, *(p for key, item in items for p in _pointers(item, (*at, key)))]


def _offsets(text: str) -> range:
    """The offsets of `text` to place: all of a short one, about 100 of a long one (each is
    placed by reading the file from the start)."""
    return range(0, len(text), max(1, len(text) // 100))


def _same_positions(text: str, layout: Layout) -> None:
    """Every key, value and character of a document read in its layout is placed where
    libyaml's nodes place it; a pointer that goes past the data stops where the node tree's
    walk stops. Only a pointer into a flow collection composes the tree."""
    fast = Document(DISPLAY, layout.data, None, text, layout)
    slow, _ = read_with_libyaml(text, DISPLAY)
    assert slow is not None
    every = _pointers(layout.data)
    probes = [(p, q) for p in every for q in (p, (*p, "missing"), (*p, 99))]
    # The walk below a flow collection is libyaml's: probe those last.
    probes.sort(key=lambda probe: layout.marks(probe[1]) is None)
    composed = False
    for pointer, probe in probes:
        composed = composed or layout.marks(probe) is None
        assert fast.value_at(probe) == slow.value_at(probe), (text, probe)
        assert fast.key_at(probe) == slow.key_at(probe), (text, probe)
        assert (fast.root is not None) == composed, (text, probe)
        value = _at(layout.data, pointer)
        for offset in _offsets(value) if probe == pointer and isinstance(value, str) else ():
            assert fast.offset_at(pointer, offset) == slow.offset_at(pointer, offset), (
                text,
                pointer,
                offset,
            )


def _repository_yaml() -> list[Path]:
    return sorted(
        path
        for folder in ("entries", "hardware", "tests/fixtures", "site")
        for path in (REPOSITORY / folder).rglob("*.yaml")
    )


@pytest.mark.slow
@pytest.mark.parametrize("path", _repository_yaml(), ids=lambda p: str(p.relative_to(REPOSITORY)))
def test_reads_every_file_of_the_repository_as_libyaml_does(path: Path) -> None:
    try:
        text = decode(path.read_bytes(), DISPLAY)
    except Stop:
        return  # not text: the layout reader never sees it
    _same(text)


def _synthetic_entries(folder: Path, count: int) -> list[Path]:
    root = make_knowledge_base(folder, count, REPOSITORY)
    return sorted((root / "entries").rglob("*.yaml"))


def test_reads_the_benchmark_entries(tmp_path: Path) -> None:
    """The synthetic entries keep the layout `kb fmt` writes, so `kb check` reads them on the
    fast path: the benchmark would measure the slow one if the reader gave up on them."""
    for path in _synthetic_entries(tmp_path, 12):
        text = path.read_text()
        assert read_layout(text) is not None, path
        _same(text)


def test_a_check_of_files_in_the_layout_never_loads_pyyaml(tmp_path: Path) -> None:
    """PyYAML is loaded only for a file the reader gives up on (its import is a tenth of a
    large check's start). The benchmark's entries keep the layout throughout, and so do its
    devices' figures ("3.35 TB/s", judged no YAML 1.1 number without PyYAML); a device whose
    notes quote a source outside ASCII (a Chinese datasheet's words) is read by libyaml."""
    root = make_knowledge_base(tmp_path / "kb", 12, REPOSITORY)
    outside = [p for p in (root / "hardware").glob("*.yaml") if not p.read_text("utf-8").isascii()]
    for path in outside:
        path.rename(tmp_path / path.name)
    assert imported_by_check(root, ["yaml"]) == (0, [])
    if outside:
        (tmp_path / outside[0].name).rename(outside[0])
        assert imported_by_check(root, ["yaml"]) == (0, ["yaml"])


# Scalars are made of pieces that mean something to YAML, to the scalar rules or to the reader:
# indicators at the start and inside, comment and value markers, quotes and escapes, words that
# are null, booleans or YAML 1.1 booleans, numbers of every form the rules know, spaces, tabs,
# and characters outside ASCII. Half the documents are drawn from harmless pieces alone, so that
# the reader has something to read; the other half mix in the rest, and edits anywhere.
_HARMLESS = [*"abcxyz019-_.+ ", "1.0e+9", "-3", "2026-11", "x12:30", "http://x.org/a#b"]
_TRICKY = [
    *":#'\"\\[]{},&*!%@`|>?~",
    *(": ", " #", "- ", "''", "  ", "\t", "é", "\x07", "\r"),
    *("yes", "No", "null", "true", "1e9", "0o17", "012", "0x1F", ".inf", ".5", "1_000", "inf"),
]
_GOOD_KEYS = ["a", "b", "key", "name", "x_1", "k-2", "_u", "A9"]
_BAD_KEYS = ["yes", "null", "1a", "a b", "é", "a:", "-a"]
_GOOD_HEADERS = ["|", "|-", ">", ">-"]
_BAD_HEADERS = ["|+", ">2", "|-#c", ">- # c", "| "]
_STYLES = ["plain", "single", "double", "block"]


class _Alphabet:
    """What a document is drawn from: harmless pieces, or every piece."""

    def __init__(self, tricky: bool) -> None:
        pieces = [*_HARMLESS, *_TRICKY] if tricky else _HARMLESS
        text = st.lists(st.sampled_from(pieces), max_size=6).map("".join)
        self.text = text if tricky else text.map(lambda t: t.strip(" -") or "x")
        keys = [*_GOOD_KEYS, *_BAD_KEYS] if tricky else _GOOD_KEYS
        self.key = st.one_of(st.sampled_from(keys), self.text) if tricky else st.sampled_from(keys)
        self.flow_key = st.sampled_from(keys)
        self.header = st.sampled_from([*_GOOD_HEADERS, *_BAD_HEADERS] if tricky else _GOOD_HEADERS)
        self.more = st.sampled_from([0, 1, 2] if tricky else [0, 0, 0, 0, 2])
        self.between = st.sampled_from(["", "# c", "  # c", "     #", *(["---"] * tricky)])
        self.edits = st.integers(0, 2 if tricky else 0)


@st.composite
def _scalar(draw: st.DrawFn, abc: _Alphabet, parent: int) -> list[str]:
    """A scalar written in some style: its first line (after `key: ` or `- `) and the lines
    below it."""
    style = draw(st.sampled_from(_STYLES))
    if style == "plain":
        return [draw(abc.text)]
    if style == "single":
        return ["'" + draw(abc.text).replace("'", draw(st.sampled_from(["''", "'"]))) + "'"]
    if style == "double":
        return ['"' + draw(abc.text) + '"']
    indent = parent + draw(st.integers(0, 3))
    more = draw(abc.more)
    lines = draw(st.lists(abc.text, min_size=1, max_size=4))
    body = [" " * (indent + more * draw(st.booleans())) + line if line else "" for line in lines]
    return [draw(abc.header), *body]


@st.composite
def _flow(draw: st.DrawFn, abc: _Alphabet) -> str:
    items = draw(st.lists(abc.text, max_size=4))
    if draw(st.booleans()):
        return "[" + draw(st.sampled_from([", ", ",", " , "])).join(items) + "]"
    keys = draw(st.lists(abc.flow_key, min_size=len(items), max_size=len(items)))
    return "{" + ", ".join(f"{k}: {v}" for k, v in zip(keys, items, strict=True)) + "}"


@st.composite
def _value(draw: st.DrawFn, abc: _Alphabet, indent: int, depth: int) -> list[str]:
    """A value below a key or dash at `indent`: its first line's text, then its lines."""
    kind = draw(st.sampled_from(["scalar", "scalar", "flow", "mapping", "sequence"]))
    if kind == "scalar" or depth > 3:
        return draw(_scalar(abc, indent))
    if kind == "flow":
        return [draw(_flow(abc))]
    if kind == "mapping":
        return ["", *draw(_mapping(abc, indent + draw(st.sampled_from([1, 2, 4])), depth + 1))]
    return ["", *draw(_sequence(abc, indent + draw(st.sampled_from([0, 1, 2, 4])), depth + 1))]


@st.composite
def _mapping(draw: st.DrawFn, abc: _Alphabet, indent: int, depth: int) -> list[str]:
    lines: list[str] = []
    for key in draw(st.lists(abc.key, min_size=1, max_size=3)):
        first, *rest = draw(_value(abc, indent, depth))
        lines.append(" " * indent + key + ":" + (" " + first if first else ""))
        lines.extend(rest)
        lines.extend(draw(st.lists(abc.between, max_size=1)))
    return lines


@st.composite
def _sequence(draw: st.DrawFn, abc: _Alphabet, indent: int, depth: int) -> list[str]:
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        gap = draw(st.sampled_from([" ", "  "]))
        if draw(st.booleans()):
            first, *rest = draw(_mapping(abc, indent + 1 + len(gap), depth + 1))
            lines.append(" " * indent + "-" + gap + first.lstrip(" "))
        else:
            first, *rest = draw(_value(abc, indent, depth))
            lines.append(" " * indent + "-" + (gap + first if first else ""))
        lines.extend(rest)
        lines.extend(draw(st.lists(abc.between, max_size=1)))
    return lines


@st.composite
def _document(draw: st.DrawFn) -> str:
    abc = _Alphabet(tricky=draw(st.booleans()))
    lines = draw(_mapping(abc, 0, 0))
    text = "\n".join(lines) + draw(st.sampled_from(["\n", "", "", "\n\n", "\n# end\n"]))
    # A piece of YAML put anywhere: what a hand edit or a hostile file adds.
    for _ in range(draw(abc.edits)):
        at = draw(st.integers(0, len(text)))
        edit = draw(st.sampled_from([*_TRICKY, "\n", "\n  ", "&a ", "!t ", "---\n"]))
        text = text[:at] + edit + text[at:]
    return text


@pytest.mark.slow
@SETTINGS
@given(_document())
def test_reads_generated_documents_as_libyaml_does(text: str) -> None:
    _same(text)


@pytest.mark.slow
def test_the_generator_reaches_the_reader() -> None:
    """Of documents drawn as the tests above draw them, a fair share is read on the fast
    path: otherwise the property tests would hold of a reader that gives up on everything."""
    read = 0
    drawn = 0

    @settings(max_examples=300, deadline=None, database=None)
    @given(_document())
    def count(text: str) -> None:
        nonlocal read, drawn
        drawn += 1
        read += read_layout(text) is not None

    count()
    assert read >= drawn // 10, (read, drawn)


# What the reader gives up on, one of each: libyaml and the builder read these files (and
# report or warn), so that every diagnostic comes from the one place that locates it.
GIVES_UP = {
    "a tab": "a:\tb\n",
    "a carriage return": "a: b\r\nc: d\r\n",
    "a space ending a line": "a: b \n",
    "text outside ASCII": "a: é\n",
    "a control character": "a: b\x07\n",
    "a comment after a value": "a: b # c\n",
    "a comment after a quoted value": "a: 'b' # c\n",
    "an anchor": "a: &x b\n",
    "an alias": "a: *x\n",
    "a tag": "a: !t b\n",
    "a directive": "%YAML 1.2\n---\na: b\n",
    "a document marker": "---\na: b\n",
    "an empty value (null)": "a:\nb: c\n",
    "a YAML 1.1 boolean": "a: yes\n",
    "a number YAML 1.1 reads otherwise": "a: 1e9\n",
    "a date to YAML 1.1": "a: 2026-11-29\n",
    "a number to YAML 1.1": "a: 12:30\n",
    "a duplicate key": "a: b\na: c\n",
    "a quoted key": "'a': b\n",
    "a key of other characters": "a b: c\n",
    "an escape": 'a: "b\\n"\n',
    "a plain scalar on two lines": "a: b\n  c\n",
    "a flow list on two lines": "a: [b,\n  c]\n",
    "a quoted item in a flow list": "a: ['b']\n",
    "a nested flow list": "a: [[b]]\n",
    "keep chomping": "a: |+\n  b\n",
    "an indentation indicator": "a: |2\n  b\n",
    "a more-indented folded line": "a: >\n  b\n    c\n",
    "a block scalar's leading blank line": "a: |\n\n  b\n",
    "a value after a key and two spaces": "a:  b\n",
    "a value that ends with a colon": "a: b:\n",
    "a mapping value in a plain scalar": "a: b: c\n",
    "a top level that is a list": "- a\n",
    "an empty file": "",
    "only comments": "# a\n",
    "a sequence entry with nothing after it": "a:\n  -\n",
    "a less-indented line after a nested mapping": "a:\n    b: c\n  d: e\n",
}


@pytest.mark.parametrize("text", GIVES_UP.values(), ids=GIVES_UP.keys())
def test_gives_up_outside_the_layout(text: str) -> None:
    assert read_layout(text) is None
    assert load(text.encode(), DISPLAY) == read_with_libyaml(text, DISPLAY)


def test_gives_up_past_the_depth_limit_and_the_builder_says_where() -> None:
    deep = (
        "".join(" " * level + f"k{level}:\n" for level in range(MAX_DEPTH))
        + " " * MAX_DEPTH
        + "v: 1\n"
    )
    assert read_layout(deep) is None
    assert _by_libyaml(deep) == (
        None,
        [("KB010", MAX_DEPTH + 1, MAX_DEPTH + 1, f"nesting deeper than {MAX_DEPTH} levels")],
    )


@pytest.mark.parametrize("levels", [MAX_DEPTH - 2, MAX_DEPTH - 1])
def test_a_flow_list_counts_as_a_level(levels: int) -> None:
    """A flow list below `levels` nested mappings is one level more, as the builder counts."""
    text = "".join(" " * level + f"k{level}:\n" for level in range(levels))
    text += " " * levels + "v: [1]\n"
    layout, (_, said) = read_layout(text), _by_libyaml(text)
    too_deep = levels == MAX_DEPTH - 1
    assert (layout is None, said != []) == (too_deep, too_deep)
    _same(text)


# Each construct the reader does read, with the data it must give.
READS = {
    "folded, blank lines kept as breaks": ("a: >-\n  b\n  c\n\n  d\n", {"a": "b c\nd"}),
    "folded, clipped": ("a: >\n  b\n  c\n\n\nz: 1\n", {"a": "b c\n", "z": 1}),
    "literal, clipped, more-indented kept": ("a: |\n  b\n    c\n", {"a": "b\n  c\n"}),
    "literal, stripped, inner blank": ("a: |-\n  b\n\n  c\n", {"a": "b\n\nc"}),
    "clipped at the end of a file without a line break": ("a: |\n  b", {"a": "b"}),
    "clipped at the end of a file, blank lines after": ("a: >\n  b\n\n", {"a": "b\n"}),
    "a comment line inside a block is text": ("a: |-\n  # b\n", {"a": "# b"}),
    "a sequence at its key's indentation": ("a:\n- 1\n- b\nc: d\n", {"a": [1, "b"], "c": "d"}),
    "mappings in a sequence": (
        "a:\n  - b: 1\n    c: x\n  -   d: 2\n",
        {"a": [{"b": 1, "c": "x"}, {"d": 2}]},
    ),
    "flow list and mapping": (
        "a: [1, 2.5, x-y]\nb: {c: 8, d: e}\nf: []\ng: {}\n",
        {"a": [1, 2.5, "x-y"], "b": {"c": 8, "d": "e"}, "f": [], "g": {}},
    ),
    "quotes": ("a: 'it''s'\nb: \"x: #y\"\nc: ''\n", {"a": "it's", "b": "x: #y", "c": ""}),
    "plain text with indicators inside": (
        "a: 2 * k [b] {c}, d&e\nb: http://x.org/a#b\n",
        {"a": "2 * k [b] {c}, d&e", "b": "http://x.org/a#b"},
    ),
    "numbers and words": (
        "a: -3\nb: 1.0e+9\nc: true\nd: 2026-11\ne: 0x1F\n",
        {"a": -3, "b": 1.0e9, "c": True, "d": "2026-11", "e": 31},
    ),
    "null words": (
        "a: ~\nb: null\nc: [~, Null]\n",
        {"a": None, "b": None, "c": [None, None]},
    ),
}


@pytest.mark.parametrize("text, data", READS.values(), ids=READS.keys())
def test_reads_the_layout(text: str, data: dict[str, Any]) -> None:
    layout = read_layout(text)
    assert layout is not None
    assert repr(layout.data) == repr(data)
    _same(text)


# Values the rules type or leave as text, other than those that begin with a letter: the
# reader remembers each from the first file and looks it up in the next (KNOWN_VALUES).
REMEMBERED = ["-5x", "0.5", "2026-11", "+3", "1.0e+9", "0x1F", "~", "3 GB", "1_0x", "-.5x"]
PLACES = ["k: {}\n", "k: [{}]\n", "k:\n- {}\n", "k:\n  - {}\n", "k: {{a: {}}}\n"]


@pytest.mark.parametrize("taught", PLACES)
def test_a_value_remembered_in_one_place_reads_the_same_in_every_place(taught: str) -> None:
    for value in REMEMBERED:
        _same(taught.format(value))
        for place in PLACES:
            text = place.format(value)
            assert read_layout(text) is not None, text
            _same(text)


def test_only_so_many_flow_lists_are_remembered() -> None:
    """A hostile file cannot make the table of flow lists grow past its bound, nor put a
    long list in it."""
    for start in range(0, 6_000, 1_000):
        text = "".join(f"k{n}: [{n}, x]\n" for n in range(start, start + 1_000))
        assert read_layout(text) is not None
    assert 0 < len(KNOWN_FLOW_LISTS) <= 4096
    long = "[" + ", ".join(["abc"] * 80) + "]"
    layout = read_layout(f"k: {long}\n")
    assert layout is not None and layout.data == {"k": ["abc"] * 80}
    assert long not in KNOWN_FLOW_LISTS


def test_a_remembered_flow_list_is_a_new_list_each_time() -> None:
    first, second = read_layout("k: [1, a]\n"), read_layout("j: [1, a]\n")
    assert first is not None and second is not None
    first.data["k"].append(2)
    assert second.data["j"] == [1, "a"]


def test_positions_are_those_libyaml_gives(tmp_path: Path) -> None:
    """A benchmark entry read on the fast path: every key, value and character is where the
    slow path puts it, and the tree is composed only for a pointer into a flow list."""
    text = _synthetic_entries(tmp_path, 1)[0].read_text()
    layout = read_layout(text)
    assert layout is not None
    assert len(_pointers(layout.data)) > 60
    _same_positions(text, layout)


@pytest.mark.parametrize("newline", ["\r", "\r\n"])
def test_a_block_scalar_of_a_file_read_by_libyaml_is_placed_by_its_node(newline: str) -> None:
    """A file the layout reader gives up on (carriage returns) places a block scalar's
    characters from the node's own offset, not from lines counted at line feeds."""
    text = newline.join(["a: 1", "b: |", "  xy", "  zw", "c: 2", ""])
    document, _ = load(text.encode(), DISPLAY)
    assert document is not None and document.layout is None
    placed = [document.offset_at(("b",), offset) for offset in range(5)]
    assert placed == [(3, 3), (3, 4), (3, 5), (4, 3), (4, 4)]
