"""Entries that `kb check` accepts and that each push one cost to the schema's limits: the
hostile contributor's cards of the adversarial benchmark (and of a test that holds them to
`kb check`).

Each attack is a whole entry as data: the minimal entry with one dimension taken to its
limit (50 symbols, 50 derived values of formulas near 1,000 characters, 50 workarounds that
replace every formula, 50 checks on every device, a verdict that flips at every sample of
every range, prose of pathological Markdown up to the file's size limit, 100 claims and
references, 20 aliases).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml

from bottleneck_kb.rules.examples import MINIMAL_ENTRY
from bottleneck_kb.rules.markup import TEXT_BUDGET

#: The most items the schema allows in the lists it bounds.
MOST = 50
#: Characters of text an attack on prose writes: just within the text budget.
TEXT = TEXT_BUDGET - 5_000
SYMBOLS = [f"s{i}" for i in range(MOST)]


def _base(slug: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(MINIMAL_ENTRY)
    data["id"] = f"gemm/attack-{slug}"
    data["title"] = f"Attack: {slug}"
    return data


def _symbols(count: int = MOST, low: float = 1, high: float = 4) -> list[dict[str, Any]]:
    return [
        {
            "name": f"symbol_{i}",
            "symbol": SYMBOLS[i],
            "description": f"Symbol {i}.",
            "typical": 2,
            "range": [low, high],
        }
        for i in range(count)
    ]


def long_sum(offset: int, limit: int = 760) -> str:
    """A sum of products of the 50 symbols, in groups of eight (the language nests at most 64
    deep), up to about `limit` characters: the most work a formula of the schema can ask."""
    terms: list[str] = []
    while len(" + ".join(terms)) < limit:
        i = len(terms)
        terms.append(f"{SYMBOLS[(i * 7 + offset) % MOST]} * {SYMBOLS[(i * 3 + offset + 1) % MOST]}")
    return " + ".join(f"({' + '.join(terms[g : g + 8])})" for g in range(0, len(terms), 8))


def widest() -> dict[str, Any]:
    """The red team's card: 50 symbols and 50 derived values, each a long formula that reads
    a device figure, and a latency formula of every symbol."""
    data = _base("widest")
    data["bound_by"] = "latency"
    data["arithmetic_intensity"].update(
        flops="s0 * s1 + s2 * s3",
        bytes="1.0e+6 * (s4 + s5 + s6)",
        latency=f"({long_sum(300)}) * 1.0e-6",
    )
    data["scales_with"] = _symbols()
    data["derived"] = [
        {
            "name": f"v{j}",
            "formula": f"{long_sum(j)} + memory_bandwidth / 1.0e+9",
            "unit": "x",
            "description": "A long derived value.",
        }
        for j in range(MOST)
    ]
    return data


def workarounds() -> dict[str, Any]:
    """50 workarounds, each replacing FLOPs, bytes and a long latency formula, beside 50
    derived values: every workaround is evaluated on every device."""
    data = widest()
    data["id"], data["title"] = "gemm/attack-workarounds", "Attack: workarounds"
    data["workarounds"] = [
        {
            "title": f"Workaround {k}",
            "description": "Replaces every formula.",
            "model": {
                "set": {SYMBOLS[k]: 1},
                "flops": f"{SYMBOLS[k]} * {SYMBOLS[(k + 1) % MOST]}",
                "bytes": f"1.0e+6 * ({SYMBOLS[(k + 2) % MOST]} + {SYMBOLS[(k + 3) % MOST]})",
                "latency": f"({long_sum(k + 3, 600)}) * 1.0e-6",
            },
        }
        for k in range(MOST)
    ]
    return data


def checks() -> dict[str, Any]:
    """50 checks on every device of the catalog, each bounding every derived value."""
    data = widest()
    data["id"], data["title"] = "gemm/attack-checks", "Attack: checks"
    return data


def flips() -> dict[str, Any]:
    """A verdict that flips between memory and compute at every integer of every symbol's
    range: every sample of every sweep is a crossover to bisect, on every device."""
    data = _base("flips")
    count = 30  # as many sawtooth terms as fit in a formula of 1,000 characters
    terms = [f"{s} - 2 * floor({s} / 2)" for s in SYMBOLS[:count]]
    saw = " + ".join(f"({' + '.join(terms[g : g + 6])})" for g in range(0, count, 6))
    data["arithmetic_intensity"].update(
        flops=f"1.0e+8 * (1 + 1.0e+5 * max(0, {saw}))", bytes="1.0e+7"
    )
    data["scales_with"] = _symbols(count, 2, 65)
    return data


#: Markdown that made Python-Markdown take minutes, each near the file's size limit once
#: repeated: unclosed brackets and links, setext headings, paragraphs, lists, entities.
PATHOLOGICAL = [
    "[a ",
    "[a](",
    "a\n=\n",
    "x\n\n",
    "- x\n  ",
    "&amp;",
    "[a](https://example.org/) ",
    "*_",
    "`a`` ",
    "\\",
]


def prose(index: int) -> Callable[[], dict[str, Any]]:
    """Notes of one pathological Markdown pattern, repeated to near the text budget (KB504)."""

    def attack() -> dict[str, Any]:
        data = _base(f"prose-{index}")
        unit = PATHOLOGICAL[index]
        data["notes"] = (unit * (TEXT // len(unit))).strip() or "x"
        return data

    attack.__name__ = f"prose_{index}"
    return attack


def claims() -> dict[str, Any]:
    """100 references and 100 claims of Markdown, to near the text budget."""
    data = _base("claims")
    data["references"] = [
        {
            "title": f"Reference {i} *with* [markup](https://example.org/{i})",
            "first_author": "Author",
            "year": 2020,
            "url": f"https://example.org/{i}",
        }
        for i in range(100)
    ]
    text = ("A *claim* with a [link](https://example.org/) and `code` " * 40)[:420]
    data["claims"] = [
        {
            "card": text,
            "source": text,
            "reference": f"https://example.org/{i}",
            "verdict": "agrees",
        }
        for i in range(100)
    ]
    return data


def aliases() -> dict[str, Any]:
    """20 former ids, each a redirect page."""
    data = _base("aliases")
    data["aliases"] = [f"gemm/former-{i:03d}-" + "x" * 100 for i in range(20)]
    return data


ATTACKS: list[Callable[[], dict[str, Any]]] = [
    widest,
    workarounds,
    checks,
    flips,
    *(prose(i) for i in range(len(PATHOLOGICAL))),
    claims,
    aliases,
]


def with_checks(data: dict[str, Any], devices: list[str]) -> dict[str, Any]:
    """`checks()` made whole: 50 checks naming every device of the catalog."""
    data["checks"] = [
        {
            "claim": f"Check {i}.",
            "devices": devices[:MOST],
            "expect": {"bound_by": "latency", "time": {"min": 0}},
        }
        for i in range(MOST)
    ]
    return data


def entry_text(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
