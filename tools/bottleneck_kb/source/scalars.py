"""The scalar rules, in one place: what a plain (unquoted) scalar means, read as YAML 1.2
reads it, with a warning where YAML 1.1 readers (PyYAML and the CI tools built on it) read it
otherwise. A quoted scalar is text, always.

`certainly_text` and `certainly_key_text` are the fast path: the builder takes the text they
accept as written, without calling the rules (a key once accepted is remembered, in
KNOWN_KEYS). They read the rules' own word table: a text that begins with a letter means
something other than itself only if it is one of those words, and a text that begins with
anything else is left to the rules. `certainly_float` is the same for the commonest floats. The
layout reader also looks up the values the rules have read before (KNOWN_VALUES).
tests/unit/test_source_scalars.py holds that whatever the fast path accepts, the rules return
unchanged (a float, as the float it writes) and without a problem.
"""

from __future__ import annotations

import re
from typing import Any

from ..core.codes import BAD_NUMBER, PORTABLE_NUMBER, YAML11_BOOLEAN
from ..core.diagnostics import Diagnostic, Severity
from .problems import MAX_NUMBER_DIGITS

#: The words YAML 1.2 (core schema) reads as null and the booleans.
_WORDS: dict[str, bool | None] = {
    **dict.fromkeys(("", "~", "null", "Null", "NULL")),
    **dict.fromkeys(("true", "True", "TRUE"), True),
    **dict.fromkeys(("false", "False", "FALSE"), False),
}
# YAML 1.1 read these as booleans. Single letters (y, n) are left out: they are real symbols.
_YAML11_BOOLEANS = frozenset(
    w for word in ("yes", "no", "on", "off") for w in (word, word.title(), word.upper())
)
_RESERVED = frozenset(_WORDS) | _YAML11_BOOLEANS
_INT = re.compile(r"[-+]?[0-9]+")
OCTAL = re.compile(r"0o[0-7]+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
# What YAML 1.1 readers (PyYAML, many CI tools) take for a float: a dot, and a signed exponent.
YAML11_FLOAT = re.compile(
    r"[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
)
# A float as both YAML 1.1 and 1.2 read it: digits, a dot, a signed exponent (`certainly_float`).
_PORTABLE_FLOAT = re.compile(r"[-+]?[0-9]+\.[0-9]*(?:[eE][-+][0-9]+)?")
_INFINITIES = (float("inf"), float("-inf"))
LEADING_ZERO = re.compile(r"[-+]?0[0-9]+")
_SPECIAL_FLOAT = re.compile(r"[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)")


def certainly_text(text: str) -> bool:
    """True when the plain value `text` is certainly text as written: it begins with a letter
    and is not one of the rules' words. The builder takes it without calling `plain_value`."""
    return text[:1].isalpha() and text not in _RESERVED


def certainly_key_text(text: str) -> bool:
    """The same for a plain key, which may also begin with an underscore."""
    return (text[:1].isalpha() or text[:1] == "_") and text not in _RESERVED


#: Plain keys already found to be text within the length limit. Every file of a knowledge base
#: uses the same few dozen keys, so the builder looks them up here instead of calling the
#: rules for each one. Bounded: a hostile file's keys cannot grow it past this.
KNOWN_KEYS: set[str] = set()
_MOST_KNOWN_KEYS = 1024


def remember_key(text: str, longest: int) -> bool:
    """Whether the plain key `text` is certainly text of at most `longest` characters; if
    so, it is remembered in KNOWN_KEYS (while there is room)."""
    if not certainly_key_text(text) or len(text) > longest:
        return False
    if len(KNOWN_KEYS) < _MOST_KNOWN_KEYS:
        KNOWN_KEYS.add(text)
    return True


#: Plain values the rules read without a problem, other than those `certainly_text` takes:
#: text -> what it means. A knowledge base writes the same numbers again and again (years,
#: typical values, the ends of ranges), so readers look them up here instead of calling the
#: rules. Bounded in count and length: a hostile file cannot grow it past this.
KNOWN_VALUES: dict[str, Any] = {}
_MOST_KNOWN_VALUES = 4096
_LONGEST_KNOWN_VALUE = 64


def remember_value(text: str) -> tuple[Any, Problem | None]:
    """`plain_value(text)`; a value read without a problem is remembered in KNOWN_VALUES
    (while there is room)."""
    value, problem = plain_value(text)
    if (
        problem is None
        and len(KNOWN_VALUES) < _MOST_KNOWN_VALUES
        and len(text) <= _LONGEST_KNOWN_VALUE
    ):
        KNOWN_VALUES[text] = value
    return value, problem


class Problem:
    """What a rule found in a scalar. The builder says where: an error stops reading, a
    warning is reported beside the value. (A plain class: made a dataclass, it cost more
    instructions at start-up than the rest of the loader's modules together.)"""

    __slots__ = ("code", "fixable", "hint", "message", "severity")

    def __init__(
        self, code: str, severity: Severity, message: str, hint: str, fixable: bool = False
    ) -> None:
        self.code = code
        self.severity = severity
        self.message = message
        self.hint = hint
        self.fixable = fixable

    def at(self, display: str, line: int, col: int) -> Diagnostic:
        return Diagnostic(
            self.code, self.severity, display, line, col, self.message, self.hint, self.fixable
        )


def plain_value(text: str) -> tuple[Any, Problem | None]:
    """What the plain scalar `text` means (null, a boolean, a number or the text itself), and
    what a rule found wrong with it, if anything."""
    if text in _WORDS:
        return _WORDS[text], None
    if text in _YAML11_BOOLEANS:
        return text, Problem(
            YAML11_BOOLEAN,
            Severity.WARNING,
            f"'{text}' is read as the string \"{text}\", not a boolean (YAML 1.2)",
            "write true or false for a boolean, or quote the word if you mean text",
        )
    first = text[0]
    if first.isdigit() or first in "+-.":
        return _number(text)
    return text, None


def plain_key_is_text(text: str) -> bool:
    """True when a plain key reads as a string: not null, a boolean or a decimal number."""
    if text in _WORDS:
        return False
    if text[0].isalpha() or text[0] == "_":
        return True
    return not (_INT.fullmatch(text) or _FLOAT.fullmatch(text))


def _number(text: str) -> tuple[Any, Problem | None]:
    if (
        text.isdigit()
        and text.isascii()
        and (text[0] != "0" or len(text) == 1)
        and len(text) <= MAX_NUMBER_DIGITS
    ):
        return int(text), None  # most numbers: what the rules below make of them, sooner
    if certainly_float(text):
        return float(text), None  # most other numbers (0.5, 1.0e+9): the same, sooner
    return number_by_the_rules(text)


def certainly_float(text: str) -> bool:
    """True when the plain value `text` is certainly a float, read alike by YAML 1.1 and 1.2
    and without a problem: digits, a dot, a signed exponent, no more characters than
    MAX_NUMBER_DIGITS and short of infinity. `_number` takes it without calling the rules."""
    return (
        len(text) <= MAX_NUMBER_DIGITS
        and _PORTABLE_FLOAT.fullmatch(text) is not None
        and float(text) not in _INFINITIES
    )


def number_by_the_rules(text: str) -> tuple[Any, Problem | None]:
    """What the rules make of `text`, a plain value that begins as a number may."""
    if _SPECIAL_FLOAT.fullmatch(text):
        return text, _bad_number(
            f"'{text}' is not a finite number", "infinity and NaN are not allowed"
        )
    octal, hexadecimal = OCTAL.fullmatch(text), _HEX.fullmatch(text)
    is_number = _INT.fullmatch(text) or octal or hexadecimal
    is_float = not is_number and _FLOAT.fullmatch(text)
    if not (is_number or is_float):
        what = _YAML11_TAGS.get(_yaml11_tag(text) or "")
        if what is not None:
            return text, Problem(
                PORTABLE_NUMBER,
                Severity.WARNING,
                f"'{text}' is the string \"{text}\" here (YAML 1.2) but {what} to YAML 1.1 "
                "readers such as PyYAML",
                "quote it if you mean text; write a number with digits alone (1000, not 1_000)",
            )
        return text, None
    digits = len(text) if len(text) <= MAX_NUMBER_DIGITS else sum(c.isdigit() for c in text)
    if digits > MAX_NUMBER_DIGITS:
        return text, _bad_number(
            f"number with {digits} digits; the limit is {MAX_NUMBER_DIGITS}",
            "use scientific notation such as 1.28e5",
        )
    if octal:
        value = int(text[2:], 8)
        return value, _not_portable(text, value, "a string", "quote it, or write it in decimal")
    if hexadecimal:
        return int(text[2:], 16), None
    if is_number:
        value = int(text)
        if not LEADING_ZERO.fullmatch(text):
            return value, None
        elsewhere = (
            f"the octal number {int(text, 8)}" if set(text) <= set("+-01234567") else "a string"
        )
        return value, _not_portable(text, value, elsewhere, "drop the leading zeros")
    real = float(text)
    if real in (float("inf"), float("-inf")):
        return text, _bad_number(
            f"'{text}' is too large to be a number",
            "no quantity in this knowledge base is beyond 1e308",
        )
    if YAML11_FLOAT.fullmatch(text):
        return real, None
    return real, _not_portable(text, real, "a string", f"write {portable_number(text)}")


#: What the tags PyYAML's resolver gives numbers and dates are, in a message.
_YAML11_TAGS = {
    "tag:yaml.org,2002:int": "a number",
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:timestamp": "a date",
}


#: Every character that PyYAML's patterns for numbers and dates can match (a test derives it
#: from them): a text with any other character is neither to YAML 1.1.
YAML11_NUMBER_CHARACTERS = frozenset("\t +-.0123456789:ABCDEFINTZ_abcdefintx")


def _yaml11_tag(text: str) -> str | None:
    """The tag a YAML 1.1 reader gives the plain scalar `text`: PyYAML's resolver, whose
    patterns (digits with underscores, binary, base 60 as in `1:30`, timestamps) are what the
    tools built on it read."""
    if not YAML11_NUMBER_CHARACTERS.issuperset(text):
        return None  # most such text ("3.35 TB/s"): told without loading PyYAML
    from yaml.resolver import Resolver

    for tag, pattern in Resolver.yaml_implicit_resolvers.get(text[:1], ()):
        if pattern.match(text):
            return str(tag)
    return None


def _bad_number(message: str, hint: str) -> Problem:
    return Problem(BAD_NUMBER, Severity.ERROR, message, hint)


def _not_portable(text: str, value: float, elsewhere: str, hint: str) -> Problem:
    """A number that YAML 1.1 readers (PyYAML and the tools built on it) read differently:
    the entry would mean one thing here and another to them."""
    return Problem(
        PORTABLE_NUMBER,
        Severity.WARNING,
        f"'{text}' is the number {value:g} here (YAML 1.2) but {elsewhere} to YAML 1.1 "
        "readers such as PyYAML",
        hint,
        fixable=True,
    )


def portable_number(text: str) -> str:
    """`1e9` -> `1.0e+9`, `+.5` -> `+0.5`: the same float in a form YAML 1.1 and 1.2 both
    read as a number (digits before the dot, a dot, a signed exponent)."""
    mantissa, _, exponent = text.lower().partition("e")
    sign = mantissa[:1] if mantissa[:1] in ("+", "-") else ""
    digits = mantissa[len(sign) :]
    if digits.startswith("."):
        digits = "0" + digits
    if "." not in digits:
        digits += ".0"
    if exponent and exponent[0] not in "+-":
        exponent = "+" + exponent
    return f"{sign}{digits}e{exponent}" if exponent else f"{sign}{digits}"
