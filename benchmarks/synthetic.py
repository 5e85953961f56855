"""Synthetic, valid, varied entries for benchmarks: a knowledge base of any size.

Entries differ in namespace, symbols, formulas (drawn from templates over the symbols they
declare), workarounds with and without models, references and checks, and carry what the
reviewed cards carry: symbols named and measured as the shared quantities, derived values, a
check on a derived value, claims beside their source and links to related entries, so that
every stage of `kb check` does the work it does on real entries. Deterministic for a given
seed.
"""

from __future__ import annotations

import io
import random
import shutil
from pathlib import Path

import yaml

from bottleneck_kb.authoring.fmt import format_text
from bottleneck_kb.rules.examples import MINIMAL_ENTRY
from bottleneck_kb.schemas import ENTRY, vocabulary

NAMESPACES = [n for n in vocabulary(ENTRY, "namespace") if n != "fixtures"]

# (flops, bytes) templates over symbols a..e; all memory-bound at the typical values below.
TEMPLATES = [
    ("2 * a * b", "2 * b"),
    ("2 * a * b * c", "b * c * (d + 1) / 8 + 2 * a * (b + c)"),
    ("4 * a * b * c", "2 * b * c + 2 * a * b"),
    ("2 * a * (b * c + c * d)", "(b * c + c * d) * 2"),
    ("a * b * log2(c)", "max(b * 4, c)"),
    ("2 * a * b * min(c, d)", "2 * b * min(c, d) + a"),
    ("sqrt(a) * b * c", "b * c + ceil(a / 2) * 64"),
]

SYMBOLS = [
    # name (a shared quantity's where one fits), unit, description, typical, range
    ("tokens", "tokens", "Rows of the GEMM: batch times positions.", 4, (1, 64)),
    ("weights", "parameters", "Parameters streamed per step.", 1.0e9, (1.0e7, 1.0e10)),
    ("hidden_size", "features", "Hidden size.", 4096, (1024, 16384)),
    ("weight_bits", "bits", "Bits per weight.", 16, (4, 16)),
    ("context_length", "tokens", "Tokens of context.", 4096, (128, 131072)),
]


def entry_text(index: int, rng: random.Random) -> tuple[str, str]:
    """(relative path, YAML text) of one synthetic entry."""
    namespace = NAMESPACES[index % len(NAMESPACES)]
    slug = f"synthetic-{index:05d}"
    flops, bytes_ = TEMPLATES[rng.randrange(len(TEMPLATES))]
    symbols = ["a", "b", "c", "d", "e"]
    lines = [
        "# yaml-language-server: $schema=../../schema/entry.schema.json",
        f"id: {namespace}/{slug}",
        f'title: "Synthetic bottleneck {index}: {namespace} kernel variant {rng.randrange(1000)}"',
        f"class: {rng.choice(['decode_gemm', 'speculative_draft', 'attention_decode'])}",
        "bound_by: memory",
        "arithmetic_intensity:",
        "  summary: >-",
        f"    Synthetic entry {index}. The kernel streams its operands once per step and does",
        "    a handful of FLOPs per byte, far below any device's ridge point. This paragraph",
        "    stands in for the Markdown prose a real entry carries: how the FLOPs and bytes",
        "    arise, which operand is re-read and which stays on chip, what the intensity means",
        "    for the verdict and how it moves as the batch, the hidden size or the bit width",
        "    change. Real summaries cite the papers they draw on and name the model sizes and",
        "    vocabularies they assume, so they run to several hundred words of Markdown.",
        f"  flops: {flops}",
        # A term of its own in every entry: no two entries share a formula, so nothing keyed
        # on formula text (a parse cache, a symbolic cache) is flattered.
        f"  bytes: {bytes_} + {64 * (index + 1)}",
        "  dtype: bf16",
        "scales_with:",
    ]
    lines[-1:-1] = [
        "derived:",
        "  - name: bytes_per_row",
        f"    formula: ({bytes_} + {64 * (index + 1)}) / a",
        "    unit: B",
        "    description: Bytes streamed for each row of the step.",
        "  - name: weight_bytes",
        "    formula: b * d / 8",
        "    unit: B",
        "    description: The weights at their bit width.",
    ]
    for symbol, (name, unit, description, typical, (lo, hi)) in zip(symbols, SYMBOLS, strict=True):
        lines += [
            f"  - name: {name if unit != 'parameters' else f'{name}_{symbol}'}",
            f"    symbol: {symbol}",
            f'    description: "{description}"',
            f"    unit: {unit}",
            f"    typical: {_number(typical)}",
            f"    range: [{_number(lo)}, {_number(hi)}]",
        ]
    lines += [
        "hardware_parameters:",
        "  - parameter: memory_bandwidth",
        "    effect: Streaming the operands sets the time at low batch.",
        "    values_for: [nvidia-h100-sxm, amd-instinct-mi300x]",
        "    magnitude: 3.35 TB/s vs 5.3 TB/s",
        "    basis: datasheet",
        "workarounds:",
    ]
    for w in range(rng.randrange(1, 4)):
        lines += [
            f"  - title: Workaround {w} of entry {index}",
            "    description: >-",
            "      Cut the bytes streamed per step, at some cost in accuracy or complexity; the",
            "      description says what is traded, where it pays and where it does not.",
        ]
        if rng.random() < 0.6:
            lines += ["    model:", f"      set: {{d: {rng.choice([4, 8])}}}"]
            lines += [f"    reported: About {rng.randrange(2, 5)}x lower latency."]
        year = rng.randrange(23, 26)
        lines += [
            "    references:",
            f"      - title: Paper {index}-{w}",
            f"        first_author: Author{w}",
            f"        year: 20{year}",
            f'        arxiv: "{year}{rng.randrange(1, 13):02d}.{rng.randrange(10000, 99999)}"',
        ]
    lines += [
        "checks:",
        "  - claim: Memory-bound at the typical values.",
        "    devices: [nvidia-h100-sxm, amd-instinct-mi300x]",
        "    expect:",
        "      bound_by: memory",
        "  - claim: The weights stream 2 GB at 16 bits.",
        "    devices: [nvidia-h100-sxm]",
        "    expect:",
        "      derived:",
        "        weight_bytes: {min: 1.9e+9, max: 2.1e+9}",
    ]
    if index:
        lines += [
            "related:",
            f"  - id: {NAMESPACES[(index - 1) % len(NAMESPACES)]}/synthetic-{index - 1:05d}",
            "    relation: compares_to",
        ]
    lines += [
        "references:",
        f"  - title: Source {index}",
        "    first_author: Example",
        "    year: 2025",
        f"    url: https://example.org/papers/{index}",
        "claims:",
        "  - card: The kernel streams its operands once per step.",
        "    source: >-",
        '      "Each operand is read from device memory once per step" (section 3, the source',
        "      the entry cites).",
        f"    reference: https://example.org/papers/{index}",
        "    verdict: agrees",
        "notes: >-",
        f"  Notes of entry {index}: design consequences and traps, in Markdown. Where the",
        "  roofline and a source disagree the notes say so with the numbers; where a vendor",
        "  publishes only sparse figures they say which dense figure was used instead, and",
        "  where a speedup is quoted without its acceptance rate they say it is incomplete.",
    ]
    text = "\n".join(lines) + "\n"
    return f"entries/{namespace}/{slug}.yaml", text + _required_elsewhere(text)


#: The minimal entry's top-level keys and values: what every entry carries.
_MINIMAL = yaml.safe_load(MINIMAL_ENTRY)


def _required_elsewhere(text: str) -> str:
    """The minimal entry's top-level keys that `text` lacks, as the minimal entry writes them:
    a key the schema comes to require reaches the synthetic entries with no edit here."""
    missing = {k: v for k, v in _MINIMAL.items() if f"\n{k}:" not in f"\n{text}"}
    return yaml.safe_dump(missing, sort_keys=False) if missing else ""


def _number(value: float) -> str:
    return (
        str(int(value))
        if value == int(value) and value < 1e6
        else f"{value:.1e}".replace("e+0", "e+")
    )


def without_cited_measurements(device: Path) -> None:
    """The device file without the achieved fractions that rest on measurements: those cite
    the repository's cards, which a synthetic knowledge base does not hold."""
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 100
    data = yaml.load(device.read_text("utf-8"))
    fractions = data.get("achieved_fraction") or {}
    changed = False
    for name in list(fractions):
        rows = fractions[name].get("by_class")
        if rows is None:
            continue
        kept = [row for row in rows if "measurements" not in row]
        if len(kept) == len(rows):
            continue
        changed = True
        if kept:
            fractions[name]["by_class"] = kept
        else:
            del fractions[name]["by_class"]
            if "value" not in fractions[name]:
                del fractions[name]
    if not fractions and "achieved_fraction" in data:
        del data["achieved_fraction"]
    if changed:
        buffer = io.StringIO()
        yaml.dump(data, buffer)
        # In kb fmt's layout, as the repository's devices are (the benchmark reads them so).
        first = device.read_text("utf-8").splitlines()[0]
        text = format_text(buffer.getvalue().encode("utf-8"), device.name, "hardware", first)
        device.write_text(text, encoding="utf-8")


def make_knowledge_base(target: Path, count: int, repository: Path, seed: int = 0) -> Path:
    """A knowledge base at `target`: the repository's schema and hardware, `count` entries."""
    rng = random.Random(seed)
    target.mkdir(parents=True, exist_ok=True)
    for folder in ("schema", "hardware"):
        shutil.copytree(repository / folder, target / folder, dirs_exist_ok=True)
    for device in (target / "hardware").glob("*.yaml"):
        without_cited_measurements(device)
    for index in range(count):
        relative, text = entry_text(index, rng)
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return target
