"""The scalar rules and the builder's fast path (`bottleneck_kb.source.scalars`).

The builder takes a plain value as text, without asking the rules, whenever `certainly_text` accepts
it (and a key whenever `certainly_key_text` does). These tests hold that the fast path can only take
what the rules would have returned unchanged and without a warning, so that no rule, present
or added later, is skipped by it.
"""

from __future__ import annotations

import re
import sys
from re import _constants as constants  # type: ignore[attr-defined]
from re import _parser as parser  # type: ignore[attr-defined]
from typing import Any

import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bottleneck_kb.core.codes import BAD_NUMBER, PORTABLE_NUMBER, SYNTAX, YAML11_BOOLEAN
from bottleneck_kb.core.diagnostics import Severity
from bottleneck_kb.source import load
from bottleneck_kb.source.problems import MAX_KEY_LENGTH, MAX_NUMBER_DIGITS
from bottleneck_kb.source.scalars import (
    KNOWN_KEYS,
    KNOWN_VALUES,
    YAML11_NUMBER_CHARACTERS,
    certainly_float,
    certainly_key_text,
    certainly_text,
    number_by_the_rules,
    plain_key_is_text,
    plain_value,
    remember_value,
)

SETTINGS = settings(max_examples=500, deadline=None)

# Every word YAML 1.2 gives a meaning (null, booleans) and every YAML 1.1 boolean, which the
# rules keep as text but warn about.
WORDS = [
    *("", "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE"),
    *(w for word in ("yes", "no", "on", "off") for w in (word, word.title(), word.upper())),
]
# Pieces from which the rules' cases are made: words, digits, signs, dots, exponents, the
# prefixes of octal and hexadecimal numbers, infinity and NaN, and characters at the edges of
# what a letter is ('_', a superscript digit, a Roman numeral, a combining accent).
PIECES = [
    *WORDS,
    *"0123456789",
    *"+-._eExoXO ",
    "inf",
    "Inf",
    ".nan",
    "0x",
    "0o",
    "1e9",
    "a",
    "\u00b2",
    "\u216b",
    "\u0301",
    "\u00e9",
]
scalar_texts = st.one_of(
    st.sampled_from(WORDS),
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join),
    st.text(min_size=1, max_size=12),
)


@SETTINGS
@given(scalar_texts)
def test_a_value_the_fast_path_takes_is_one_the_rules_leave_unchanged(text: str) -> None:
    if certainly_text(text):
        assert plain_value(text) == (text, None)


@SETTINGS
@given(scalar_texts)
def test_a_key_the_fast_path_takes_is_one_the_rules_read_as_text(text: str) -> None:
    if certainly_key_text(text):
        assert plain_key_is_text(text)


def test_the_fast_path_takes_no_character_that_a_rule_reads() -> None:
    """Every character, alone and followed by what would make a number of it."""
    for point in range(sys.maxunicode + 1):
        char = chr(point)
        if not (certainly_text(char) or certainly_key_text(char)):
            continue  # neither path takes a text that begins with it
        for text in (char, char + "0", char + "e9"):
            if certainly_text(text):
                assert plain_value(text) == (text, None), text
            if certainly_key_text(text):
                assert plain_key_is_text(text), text


# Floats as entries write them, and texts next to them: no exponent sign, no digits before the
# dot, an underscore, a leading zero, past the digit limit, past the largest float.
float_texts = st.one_of(
    scalar_texts,
    st.from_regex(r"[-+]?[0-9]{1,40}\.[0-9]{0,20}(?:[eE][-+][0-9]{1,4})?", fullmatch=True),
    st.lists(
        st.sampled_from([*"0123456789", ".", "e", "E", "+", "-", "_", "e+", "e-"]),
        min_size=1,
        max_size=34,
    ).map("".join),
)


@SETTINGS
@given(float_texts)
def test_a_float_the_fast_path_takes_is_what_the_rules_make_of_it(text: str) -> None:
    if certainly_float(text):
        value, problem = number_by_the_rules(text)
        assert (type(value), value, problem) == (float, float(text), None)
        assert plain_value(text) == (value, None)


def test_the_fast_path_takes_the_floats_entries_write() -> None:
    for text in ("0.99", "1.0e+9", "-2.5", "+3.", "1.5E-3"):
        assert certainly_float(text), text
    # A warning or an error is the rules' to give.
    for text in ("1e9", "1.0e9", ".5", "1_000.0", "1.0e+400", "1" * 30 + ".0", "0x1", "1"):
        assert not certainly_float(text), text


def test_only_keys_the_fast_path_takes_are_remembered_and_only_so_many() -> None:
    """A knowledge base's keys are looked up once known: a hostile file cannot make the
    set grow past its bound, nor put in it a key that the rules must see each time."""
    long_key = "k" * (MAX_KEY_LENGTH + 1)
    keys = [f"key{i}" for i in range(3000)]
    document, problems = load("\n".join(f"{k}: 1" for k in keys).encode(), "many.yaml")
    assert document is not None and list(document.data) == keys and not problems
    assert 0 < len(KNOWN_KEYS) <= 1024
    assert all(certainly_key_text(k) and len(k) <= MAX_KEY_LENGTH for k in KNOWN_KEYS)
    for _ in range(2):  # refused the second time too
        document, problems = load(f"{long_key}: 1\n".encode(), "long.yaml")
        assert document is None and [p.code for p in problems] == [SYNTAX]
    assert long_key not in KNOWN_KEYS


def test_only_values_read_without_a_problem_are_remembered_and_only_so_many() -> None:
    """Values are looked up once known: a hostile file cannot make the table grow past its
    bound, nor put in it a value the rules must see each time (to warn again) or one longer
    than its bound."""
    for n in map(str, range(10_000, 16_000)):
        assert remember_value(n) == (int(n), None)
    assert 0 < len(KNOWN_VALUES) <= 4096
    long = "2x" * 40  # text, as its first character leaves it to the rules
    assert remember_value(long) == (long, None)
    assert long not in KNOWN_VALUES
    for _ in range(2):  # warned the second time too
        document, problems = load(b"a: 1e9\nb: yes\n", "warn.yaml")
        assert document is not None
        assert [p.code for p in problems] == [PORTABLE_NUMBER, YAML11_BOOLEAN]
    assert not {"1e9", "yes"} & KNOWN_VALUES.keys()
    for text, value in KNOWN_VALUES.items():
        assert plain_value(text) == (value, None), text
        assert not certainly_text(text), text


def test_the_fast_path_leaves_every_word_of_the_rules_to_them() -> None:
    for word in WORDS:
        assert not certainly_text(word), word
        assert not certainly_key_text(word), word
        assert plain_value(word) != (word, None), word


def test_the_fast_path_takes_plain_words() -> None:
    """It is a fast path: the common values and keys of an entry go through it."""
    for text in ("memory", "bf16", "nvidia-h100-sxm", "Notes", "nullable", "yesterday", "é"):
        assert certainly_text(text), text
        assert certainly_key_text(text), text
    assert certainly_key_text("_private")


# Characters the loader refuses before any scalar is read (KB006, KB013).
REFUSED_ANYWHERE = re.compile("[\x85\u200b\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff]")


@SETTINGS
@given(scalar_texts)
def test_a_loaded_value_is_what_the_rules_say(text: str) -> None:
    """Through `load`, in a mapping and in a list, a plain scalar means what `plain_value`
    says, with its warning or its error, whichever path the builder took."""
    assume(not REFUSED_ANYWHERE.search(text))
    value, problem = plain_value(text)
    for raw, in_list in ((f"k: {text}\n", False), (f"k:\n  - {text}\n", True)):
        try:
            root = yaml.compose(raw, Loader=yaml.CSafeLoader)
            node = root.value[0][1] if root is not None else None
        except (yaml.YAMLError, AttributeError, IndexError):
            continue  # not a mapping with one key
        if in_list:
            node = node.value[0] if type(node) is yaml.SequenceNode and node.value else node
        if type(node) is not yaml.ScalarNode or node.style or node.value != text:
            continue  # libyaml read something else than the one plain scalar `text`

        document, diagnostics = load(raw.encode("utf-8"), "generated.yaml")

        codes = [d.code for d in diagnostics]
        assert codes == ([problem.code] if problem else []), (raw, diagnostics)
        if problem and problem.severity is Severity.ERROR:
            assert document is None
            continue
        assert document is not None
        loaded = document.data["k"][0] if in_list else document.data["k"]
        assert (type(loaded), loaded) == (type(value), value), raw


@SETTINGS
@given(st.text(alphabet="0123456789\u0661\u00b2", min_size=1, max_size=40))
def test_a_string_of_digits_means_what_yaml_12_says(text: str) -> None:
    """Plain decimal integers (most numbers in entries) take a shorter way through the rules;
    it must give what the YAML 1.2 core schema says: an integer for ASCII digits (a warning
    when a leading zero makes it octal to YAML 1.1, an error past the digit limit), text for
    any other digits."""
    value, problem = plain_value(text)
    if not text.isascii():
        assert (value, problem) == (text, None)
    elif len(text) > MAX_NUMBER_DIGITS:
        assert problem is not None and problem.code == BAD_NUMBER
    elif text[0] == "0" and len(text) > 1:
        assert value == int(text) and problem is not None and problem.code == PORTABLE_NUMBER
    else:
        assert (value, problem) == (int(text), None)


def _characters(pattern: Any) -> set[str]:
    """Every character a parsed regular expression can match, for the constructs PyYAML's
    patterns use (any other fails the test, which then needs teaching)."""
    found: set[str] = set()
    for op, argument in pattern:
        if op is constants.LITERAL:
            found.add(chr(argument))
        elif op is constants.IN:
            for kind, item in argument:
                assert kind in (constants.LITERAL, constants.RANGE), kind
                low, high = (item, item) if kind is constants.LITERAL else item
                found.update(map(chr, range(low, high + 1)))
        elif op is constants.BRANCH:
            found.update(c for branch in argument[1] for c in _characters(branch))
        elif op is constants.SUBPATTERN:
            found |= _characters(argument[3])
        elif op in (constants.MAX_REPEAT, constants.MIN_REPEAT):
            found |= _characters(argument[2])
        else:
            assert op is constants.AT, op
    return found


def test_the_characters_of_yaml_11_numbers_are_those_of_pyyaml_patterns() -> None:
    """Text with a character outside YAML11_NUMBER_CHARACTERS is judged no number or date
    to YAML 1.1 without PyYAML's patterns: it must hold every character they can match."""
    tags = {f"tag:yaml.org,2002:{kind}" for kind in ("int", "float", "timestamp")}
    patterns = {
        pattern
        for resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.values()
        for tag, pattern in resolvers
        if tag in tags
    }
    assert len(patterns) == 3
    found = set().union(*(_characters(parser.parse(p.pattern, p.flags)) for p in patterns))
    assert found == YAML11_NUMBER_CHARACTERS


# Pieces of the plain values YAML 1.1 readers type otherwise than YAML 1.2: underscores in
# numbers, binary, base 60, signed hexadecimal, timestamps, YAML 1.1's floats and booleans.
_YAML11_PIECES = [*"0123456789_:.-+eExbo", "0x", "0b", "0o", "1e9", "2001-12-14", " 21:59:43"]


@SETTINGS
@given(st.lists(st.sampled_from([*_YAML11_PIECES, *WORDS]), min_size=1, max_size=8).map("".join))
def test_a_plain_value_yaml_11_reads_otherwise_is_warned_about(text: str) -> None:
    """Whatever PyYAML (YAML 1.1) makes of a plain value, kb reads the same, or says so."""
    raw = f"k: {text}\n"
    try:
        root = yaml.compose(raw, Loader=yaml.CSafeLoader)
        theirs = yaml.safe_load(raw)["k"]
    except (yaml.YAMLError, LookupError, TypeError, ValueError):
        return  # PyYAML cannot read it at all, or not as one key
    node = root.value[0][1] if type(root) is yaml.MappingNode and root.value else None
    if type(node) is not yaml.ScalarNode or node.style or node.value != text:
        return  # not the one plain scalar `text`
    value, problem = plain_value(text)
    if (type(theirs), theirs) != (type(value), value) and theirs == theirs:  # NaN aside
        assert problem is not None, (text, theirs, value)
