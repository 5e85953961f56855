"""The minimal valid entry, device and model that rule examples and one-rule fixtures patch.

One copy of each: a key the schema starts to require is added here once, and every example
and fixture that patches these documents carries it.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from ..source.scalars import plain_value

if TYPE_CHECKING:
    import yaml

#: The smallest entry every rule passes, against the catalog of tests/fixtures/kb.
MINIMAL_ENTRY = """\
id: fixtures/minimal
title: A minimal valid entry
class: decode_gemm
bound_by: memory
arithmetic_intensity:
  summary: Batch-B decode GEMM over N bf16 weights.
  flops: 2 * B * N
  bytes: 2 * N
scales_with:
  - name: batch_rows
    symbol: B
    description: Rows of the GEMM.
    typical: 8
    range: [1, 1024]
  - name: weights
    symbol: N
    description: Weights streamed.
    typical: 1.0e+9
workarounds: []
references:
  - title: "Roofline: An Insightful Visual Performance Model for Multicore Architectures"
    first_author: Williams
    year: 2009
    url: https://doi.org/10.1145/1498765.1498785
"""

#: The smallest device every rule passes.
MINIMAL_DEVICE = """\
id: fixture-device
name: Fixture device
vendor: Nobody
memory_capacity: {value: 80 GB, source: sheet}
memory_bandwidth: {value: 3.35 TB/s, source: sheet}
scale_up_domain: {value: 8, source: sheet}
peak_flops:
  bf16: {value: 989.4 TFLOP/s, source: sheet}
  fp8: {value: 1978.9 TFLOP/s, source: sheet}
sources:
  - id: sheet
    title: Fixture device datasheet
    url: https://example.com/fixture-device
    publisher: Nobody
    kind: vendor
    read: "2026-11-29"
"""

#: The smallest model every rule passes, against the repository's cards and catalog (a model's
#: recipe binds real cards): Llama 3 8B's config, offered at tp 1 only.
MINIMAL_MODEL = """\
id: fixture-model
title: Fixture model
publisher: Nobody
architecture: dense-decoder
config:
  hidden_size: 4096
  intermediate_size: 14336
  num_hidden_layers: 32
  num_attention_heads: 32
  num_key_value_heads: 8
  vocab_size: 128256
  tie_word_embeddings: false
config_source: hf-config
parameters: {value: 8.03e+9, tolerance: 0.01, source: hf-config}
typical: {batch: 1, context: 4096}
offered:
  batch: [1, 64]
  prompt: [16, 8192]
  context: [128, 8192]
sources:
  - id: hf-config
    title: Fixture model config.json
    url: https://example.com/fixture-model/config.json
    publisher: Nobody
    kind: vendor
    read: "2026-12-02"
"""


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386: mappings merge key by key, null removes a key, anything else replaces."""
    if not isinstance(patch, dict):
        return patch
    merged = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = merge_patch(merged.get(key), value)
    return merged


def patched(base: str, patch: str) -> str:
    """`base` with the YAML merge patch `patch` applied, as YAML text in `base`'s key order
    (numbers written as `1.0e+9`, which reads the same in YAML 1.1 and 1.2)."""
    import yaml  # loaded when an example is written, not with the rules

    data = merge_patch(yaml.safe_load(base), yaml.safe_load(patch) or {})
    return yaml.dump(data, Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=100)


@functools.cache
def _dumper() -> type[yaml.SafeDumper]:
    """PyYAML's safe dumper, writing floats and text as entries are read."""
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    Dumper.add_representer(float, _float)
    Dumper.add_representer(str, _text)
    return Dumper


def _float(dumper: yaml.SafeDumper, value: float) -> yaml.Node:
    text = repr(value)
    if "e" in text and "." not in text.split("e")[0]:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{'+' if not exponent.startswith('-') else ''}{exponent.lstrip('+')}"
    return dumper.represent_scalar("tag:yaml.org,2002:float", text)


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    # PyYAML quotes what YAML 1.1 reads as another type; entries are read as YAML 1.2, where
    # `2e9` is a number too: quoted wherever the loader's rules would read something else.
    shown, problem = plain_value(value) if value else (None, None)
    style = '"' if shown != value or problem is not None else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)
