"""Coverage-guided fuzzing of the YAML loader and the formula parser (by hand, not in CI).

    .venv/bin/pip install atheris
    .venv/bin/python fuzz/fuzz_source.py -max_total_time=300        # the loader
    .venv/bin/python fuzz/fuzz_source.py formula -max_total_time=300  # the formula language
    cp -r entries /tmp/corpus  # libFuzzer adds to a corpus folder: give it a copy
    .venv/bin/python fuzz/fuzz_source.py layout /tmp/corpus -max_total_time=300

Each input must give a result or the project's own located error: a Document or
diagnostics from the loader, a Formula (then a float or FormulaError) from the parser. The
layout reader must give up, or read the data libyaml reads, without a word, every key and
value where libyaml places it. Any other exception, a hang (-timeout) or runaway memory
(-rss_limit_mb) is a finding, saved by libFuzzer as crash-* in the current folder.
"""

from __future__ import annotations

import sys
from typing import Any

import atheris

with atheris.instrument_imports():
    from bottleneck_kb.maths.formula import FormulaError, evaluate, parse
    from bottleneck_kb.source import Document, load
    from bottleneck_kb.source.layout import read_layout
    from bottleneck_kb.source.loader import read_with_libyaml

SYMBOLS = ("k", "N_d", "B", "V", "d", "q", "s")


def fuzz_loader(data: bytes) -> None:
    document, diagnostics = load(data, "fuzz.yaml")
    assert (document is None) == any(d.severity.value == "error" for d in diagnostics)
    for diagnostic in diagnostics:
        assert diagnostic.code.startswith("KB0") and diagnostic.line >= 1 and diagnostic.col >= 1


def fuzz_layout(data: bytes) -> None:
    text = data.decode("utf-8", "replace")
    layout = read_layout(text)
    if layout is None:
        return
    slow, diagnostics = read_with_libyaml(text, "fuzz.yaml")
    assert slow is not None and not diagnostics, diagnostics
    assert repr(layout.data) == repr(slow.data)
    fast = Document("fuzz.yaml", layout.data, None, text, layout)
    pending: list[tuple[str | int, ...]] = [()]
    while pending:
        pointer = pending.pop()
        assert fast.value_at(pointer) == slow.value_at(pointer), pointer
        assert fast.key_at(pointer) == slow.key_at(pointer), pointer
        value: Any = layout.data
        for part in pointer:
            value = value[part]
        if isinstance(value, dict):
            pending += [(*pointer, key) for key in value]
        elif isinstance(value, list):
            pending += [(*pointer, index) for index in range(len(value))]


def fuzz_formula(data: bytes) -> None:
    text = atheris.FuzzedDataProvider(data).ConsumeUnicodeNoSurrogates(2000)
    try:
        formula = parse(text, SYMBOLS)
        evaluate(formula, dict.fromkeys(SYMBOLS, 3.0))
    except FormulaError as exc:
        assert 0 <= exc.offset <= len(text)


def main() -> None:
    targets = {"formula": fuzz_formula, "layout": fuzz_layout}
    target = fuzz_loader
    if len(sys.argv) > 1 and sys.argv[1] in targets:
        target = targets[sys.argv.pop(1)]
    atheris.Setup(sys.argv, target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
