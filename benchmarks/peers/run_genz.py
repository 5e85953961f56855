"""Run genz-llm==0.0.16 (GenZ, abhibambhaniya/GenZ-LLM-Analyzer) through GenZ.LLM_inference.{decode,prefill}_moddeling.
Usage: PYTHON benchmarks/peers/run_genz.py (PYTHON: an environment with genz-llm==0.0.16)
Decode: input_tokens=L (prefix KV), output_tokens=0 (suffix KV), Bb=1 (the default Bb=4 models 4 beams), batch_size=B.
Own devices: system_configs 'H100_GPU' and 'A100_80GB_GPU'. Datasheet: dict system with Memory_BW expressed in GenZ's
'GB/s' unit, which is 2**30 B/s (GenZ/unit.py binary_dicts), so Memory_BW = 3.35e12/2**30 to obtain 3.35e12 B/s."""

import os
import sys
import warnings

warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib.metadata import version

from common import *
from GenZ.LLM_inference import decode_moddeling, prefill_moddeling
from GenZ.unit import Unit
from Systems.system_configs import system_configs

VER = "genz-llm==" + version("genz-llm")
GENZ_MODEL = {
    "llama2-7b": "meta-llama/llama-2-7b",
    "llama3-8b": "meta-llama/meta-llama-3.1-8b",
    "llama3-70b": "meta-llama/llama-3.1-70b",
}
OWN = {"H100-SXM": "H100_GPU", "A100-SXM-80GB": "A100_80GB_GPU"}
unit = Unit()
records = []


def sysdict(run, dev, big_mem=False):
    d = dict(system_configs[OWN[dev]])
    if run == "datasheet":
        ds = DATASHEET[dev]
        d.update(
            Flops=ds["flops"] / 1e12, Memory_BW=ds["bw"] / 2**30, Memory_size=ds["cap"] / 2**30
        )
    if big_mem:
        d["Memory_size"] = 100000
    return d


def run_one(run, dev, mname, phase, B, L, Bb=1, big_mem=False):
    sd = sysdict(run, dev, big_mem)
    if phase == "decode":
        out = decode_moddeling(
            model=GENZ_MODEL[mname],
            batch_size=B,
            input_tokens=L,
            output_tokens=0,
            Bb=Bb,
            system_name=sd,
            system_eff=1,
            bits="bf16",
            tensor_parallel=1,
        )
    else:
        out = prefill_moddeling(
            model=GENZ_MODEL[mname],
            batch_size=B,
            input_tokens=L,
            system_name=sd,
            system_eff=1,
            bits="bf16",
            tensor_parallel=1,
        )
    st = (
        out["summary_table"]
        if isinstance(out, dict) and "summary_table" in out
        else out.summary_table
    )
    lat_ms = out["Latency"] if isinstance(out, dict) else out.Latency
    df = out["model_df"] if isinstance(out, dict) else out.model_df
    rb = out["Runtime_breakdown"] if isinstance(out, dict) else out.Runtime_breakdown
    row = {c: float(st[c].values[0]) for c in st.columns}
    # per-op rows for lm head / embedding
    ops = {}
    for i in range(len(df)):
        n = df.loc[i, "Layer Name"]
        if n in ("classifier", "embeddings"):
            ops[n] = dict(
                latency_ms=float(df.loc[i, "Latency (msec)"]),
                num_ops_MFLOP=float(df.loc[i, "Num ops (MFLOP)"]),
                weight_MiB=float(df.loc[i, "Input_w (MB)"]),
            )
    bd = dict(
        system=dict((k, v) for k, v in sd.items()),
        effective_peak_flops=sd["Flops"] * 1e12,
        effective_bw_Bps=sd["Memory_BW"] * 2**30,
        weights_bytes=row["Total Weights (MB)"] * 2**20,
        kv_cache_bytes=row["KV Cache (MB)"] * 2**20,
        flops=row["MACs (MFLOP)"] * 1e6,
        linear_latency_ms=row.get("Linear Latency (msec)"),
        attn_latency_ms=row.get("Attn Latency (msec)"),
        runtime_breakdown_ms=rb.to_dict() if hasattr(rb, "to_dict") else str(rb),
        lm_head_and_embedding_ops=ops,
        Bb=Bb if phase == "decode" else None,
        capacity_override=big_mem,
        includes=(
            "per op max(compute, memory): QKV, Logit, Attend, Out Proj, up+gate, down per layer; classifier (lm head, 1 token for decode, "
            "L tokens for prefill); prefill also 'embeddings' modelled as a GEMM over V. No norms, softmax, residual adds, or fixed overhead. "
            "Decode: activations pinned on-chip (AC_onchip); only weights + KV from HBM"
        ),
    )
    note = (
        f"GenZ system Flops={sd['Flops']} TFLOPS(x1e12), Memory_BW={sd['Memory_BW']:.6g} 'GB/s'(x2^30 B/s => {sd['Memory_BW'] * 2**30:.4g} B/s), "
        f"system_eff=1 (ceff=meff=1 default)"
        + ("; capacity bypassed with Memory_size=100000" if big_mem else "")
        + (f"; Bb={Bb}" if phase == "decode" else "")
    )
    records.append(rec("GenZ", VER, mname, dev, run, phase, B, L, lat_ms / 1e3, note, **bd))
    return lat_ms


for run in ("own", "datasheet"):
    for dev in OWN:
        for mname in GENZ_MODEL:
            for phase, cases in (("decode", DECODE_CASES), ("prefill", PREFILL_CASES)):
                for B, L in cases:
                    try:
                        t = run_one(run, dev, mname, phase, B, L)
                    except ValueError as e:
                        records.append(
                            rec(
                                "GenZ",
                                VER,
                                mname,
                                dev,
                                run,
                                phase,
                                B,
                                L,
                                None,
                                "ERROR at tp1 with tool capacity: ValueError: "
                                + str(e).replace("\n", " "),
                            )
                        )
                        t = run_one(run, dev, mname, phase, B, L, big_mem=True)
                    print(run, dev, mname, phase, B, L, f"{t:.3f} ms", flush=True)
# default-beam illustration (Bb=4 default) for decode batch 1
for dev in OWN:
    for mname in ("llama2-7b", "llama3-8b"):
        t = run_one("own", dev, mname, "decode", 1, 1024, Bb=4)
        records[-1]["notes"] += (
            " [VARIANT: tool default Bb=4 beams, i.e. 4 sequences; not the requested config]"
        )
        records[-1]["run"] = "own"
        records[-1]["breakdown"]["variant"] = "default_Bb4"
        print("Bb=4", dev, mname, f"{t:.3f} ms")
save("genz", records)
