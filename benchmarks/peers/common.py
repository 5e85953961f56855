"""Shared definitions for peer-tool comparison runs."""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
#: Where each tool's records go (PEERS_OUT, by default out/ here), merged into results.json there.
OUT = os.environ.get("PEERS_OUT", os.path.join(HERE, "out"))
MODELS = {
    "llama2-7b": dict(
        hidden_size=4096,
        num_hidden_layers=32,
        num_attention_heads=32,
        num_key_value_heads=32,
        intermediate_size=11008,
        vocab_size=32000,
        max_position_embeddings=4096,
        tie_word_embeddings=False,
        model_type="llama",
        hf_id="meta-llama/Llama-2-7b-hf",
    ),
    "llama3-8b": dict(
        hidden_size=4096,
        num_hidden_layers=32,
        num_attention_heads=32,
        num_key_value_heads=8,
        intermediate_size=14336,
        vocab_size=128256,
        max_position_embeddings=8192,
        tie_word_embeddings=False,
        model_type="llama",
        hf_id="meta-llama/Meta-Llama-3-8B",
    ),
    "llama3-70b": dict(
        hidden_size=8192,
        num_hidden_layers=80,
        num_attention_heads=64,
        num_key_value_heads=8,
        intermediate_size=28672,
        vocab_size=128256,
        max_position_embeddings=8192,
        tie_word_embeddings=False,
        model_type="llama",
        hf_id="meta-llama/Meta-Llama-3-70B",
    ),
}
DATASHEET = {
    "H100-SXM": dict(flops=989.4e12, bw=3.35e12, cap=80e9),
    "A100-SXM-80GB": dict(flops=312e12, bw=2.039e12, cap=80e9),
}
DECODE_CASES = [(b, l) for b in (1, 16) for l in (1024, 4096)]
PREFILL_CASES = [(1, 1024), (1, 4096)]


def rec(tool, ver, model, device, run, phase, batch, context, seconds, notes="", **breakdown):
    d = dict(
        tool=tool,
        version_or_commit=ver,
        model=model,
        device=device,
        run=run,
        phase=phase,
        batch=batch,
        context=context,
        seconds=seconds,
        notes=notes,
    )
    if breakdown:
        d["breakdown"] = breakdown
    return d


def save(name, records):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, f"results_{name}.json"), "w") as f:
        json.dump(records, f, indent=1, default=float)
    merge()


def merge():
    allr = []
    for fn in sorted(os.listdir(OUT)):
        if fn.startswith("results_") and fn.endswith(".json"):
            with open(os.path.join(OUT, fn)) as f:
                allr += json.load(f)
    with open(os.path.join(OUT, "results.json"), "w") as f:
        json.dump(allr, f, indent=1, default=float)
