"""Coverage-guided fuzzing of the YAML loader and the formula parser (by hand, not in CI).

    .venv/bin/pip install atheris
    .venv/bin/python fuzz/fuzz_source.py -max_total_time=300        # the loader
    .venv/bin/python fuzz/fuzz_source.py formula -max_total_time=300  # the formula language

Each input must give a result or the project's own located error: a Document or
diagnostics from the loader, a Formula (then a float or FormulaError) from the parser. Any
other exception, a hang (-timeout) or runaway memory (-rss_limit_mb) is a finding, saved by
libFuzzer as crash-* in the current folder.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports():
    from bottleneck_kb.formula import FormulaError, evaluate, parse
    from bottleneck_kb.source import load

SYMBOLS = ("k", "N_d", "B", "V", "d", "q", "s")


def fuzz_loader(data: bytes) -> None:
    document, diagnostics = load(data, "fuzz.yaml")
    assert (document is None) == any(d.severity.value == "error" for d in diagnostics)
    for diagnostic in diagnostics:
        assert diagnostic.code.startswith("KB0") and diagnostic.line >= 1 and diagnostic.col >= 1


def fuzz_formula(data: bytes) -> None:
    text = atheris.FuzzedDataProvider(data).ConsumeUnicodeNoSurrogates(2000)
    try:
        formula = parse(text, SYMBOLS)
        evaluate(formula, dict.fromkeys(SYMBOLS, 3.0))
    except FormulaError as exc:
        assert 0 <= exc.offset <= len(text)


def main() -> None:
    target = fuzz_loader
    if len(sys.argv) > 1 and sys.argv[1] == "formula":
        target = fuzz_formula
        del sys.argv[1]
    atheris.Setup(sys.argv, target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
