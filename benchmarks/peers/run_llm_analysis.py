"""Run llm-analysis==0.2.2 (cli99/llm-analysis) through its Python API.
Usage: PYTHON benchmarks/peers/run_llm_analysis.py (PYTHON: an environment with llm-analysis==0.2.2)
Model configs: llm-analysis's MLP is a 2-matrix (non-gated) MLP, so the Llama SwiGLU MLP (3 x h x I) is passed as
ffn_embed_dim = 1.5*I (parameter-equivalent); expansion_ratio must be passed explicitly because ModelConfig asserts
ffn_embed_dim % hidden_dim == 0 otherwise. Also runs the shipped config NousResearch_Llama-2-7b-hf (ffn_embed_dim=16384=4h)."""

import dataclasses
import logging
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *
from llm_analysis.analysis import LLMAnalysis
from llm_analysis.config import (
    ModelConfig,
    ParallelismConfig,
    get_dtype_config_by_name,
    get_gpu_config_by_name,
    get_model_config_by_name,
)
from llm_analysis.logger import logger

logger.setLevel(logging.ERROR)
from importlib.metadata import version

VER = "llm-analysis==" + version("llm-analysis")
OWN = {"H100-SXM": "h100-sxm-80gb", "A100-SXM-80GB": "a100-sxm-80gb"}
dtype = get_dtype_config_by_name("w16a16e16")


def mcfg(name, m):
    ffn = int(1.5 * m["intermediate_size"])
    return ModelConfig(
        name=name,
        num_layers=m["num_hidden_layers"],
        n_head=m["num_attention_heads"],
        hidden_dim=m["hidden_size"],
        vocab_size=m["vocab_size"],
        max_seq_len=m["max_position_embeddings"],
        num_key_value_heads=m["num_key_value_heads"],
        ffn_embed_dim=ffn,
        expansion_ratio=ffn / m["hidden_size"],
        model_type="llama",
    )


models = {
    k: (mcfg(k, v), "param-equivalent config: ffn_embed_dim=1.5*intermediate_size")
    for k, v in MODELS.items()
}
models["llama2-7b[shipped NousResearch_Llama-2-7b-hf]"] = (
    get_model_config_by_name("NousResearch_Llama-2-7b-hf"),
    "tool's shipped model config NousResearch_Llama-2-7b-hf (ffn_embed_dim=16384)",
)
records = []


def one(run, dev, gcfg, mname, mc, mnote, phase, B, L, cap_override=False):
    g = gcfg
    if cap_override:
        g = dataclasses.replace(gcfg, mem_per_GPU_in_GB=10000)
    a = LLMAnalysis(
        mc, g, dtype, ParallelismConfig(tp_size=1), flops_efficiency=1.0, hbm_memory_efficiency=1.0
    )
    seq = (
        L - 1 if phase == "decode" else L
    )  # decode: KV cache sized seq_len+num_tokens_to_generate = L
    s = a.inference(
        batch_size_per_gpu=B,
        seq_len=seq,
        num_tokens_to_generate=1,
        use_kv_cache=True,
        layernorm_dtype_bytes=2,
        kv_cache_dtype_bytes=2,
    )
    p = phase + "_"
    bd = dict(
        model_config=mnote,
        peak_TFLOPS=g.peak_fp16_TFLOPS,
        hbm_GBps=g.hbm_bandwidth_in_GB_per_sec,
        flops_efficiency=a.flops_efficiency,
        hbm_memory_efficiency=a.hbm_memory_efficiency,
        weight_memory_bytes=s["weight_memory_per_gpu"],
        weight_memory_embedding_bytes=s["weight_memory_embedding_per_gpu"],
        num_flops=s[p + "num_flops_fwd_total"],
        latency_attn=s[p + "latency_fwd_attn"],
        latency_mlp=s[p + "latency_fwd_mlp"],
        latency_layernorm=s[p + "latency_fwd_layernorm"],
        latency_input_embedding=s[p + "latency_fwd_input_embedding"],
        latency_output_embedding=s[p + "latency_fwd_output_embedding_loss"],
        capacity_override=cap_override,
    )
    if phase == "decode":
        bd.update(
            kv_cache_bytes=s["kv_cache_memory_per_gpu"],
            kv_cache_latency=s["kv_cache_latency"],
            kv_tokens=seq + 1,
        )
        t = s["decode_latency"]
    else:
        t = s["prefill_latency"]
    bd["includes"] = (
        "per layer max(compute, weight+activation bytes) for attn and mlp + 2 layernorm reads; input embedding = read FULL VxH table; "
        "output embedding (lm head) = compute only; decode adds 2x KV cache bytes (load+store); no fixed overhead"
    )
    note = (
        f"gpu {g.name}: {g.peak_fp16_TFLOPS} TFLOPS x1e12, {g.hbm_bandwidth_in_GB_per_sec} GB/s x1e9, efficiencies 1.0 (defaults in 0.2.2 are 1.0)"
        + (
            "; capacity check bypassed by mem_per_GPU_in_GB=10000 (70B bf16 does not fit 80 GiB at tp1)"
            if cap_override
            else ""
        )
    )
    records.append(rec("llm-analysis", VER, mname, dev, run, phase, B, L, t, note, **bd))
    return t


for run in ("own", "datasheet"):
    for dev, gname in OWN.items():
        g = get_gpu_config_by_name(gname)
        if run == "datasheet":
            ds = DATASHEET[dev]
            g = dataclasses.replace(
                g,
                name=g.name + "-datasheet",
                peak_fp16_TFLOPS=ds["flops"] / 1e12,
                hbm_bandwidth_in_GB_per_sec=ds["bw"] / 1e9,
                mem_per_GPU_in_GB=ds["cap"] / 1e9,
            )
        for mname, (mc, mnote) in models.items():
            for phase, cases in (("decode", DECODE_CASES), ("prefill", PREFILL_CASES)):
                for B, L in cases:
                    try:
                        t = one(run, dev, g, mname, mc, mnote, phase, B, L)
                    except AssertionError as e:
                        err = str(e)
                        records.append(
                            rec(
                                "llm-analysis",
                                VER,
                                mname,
                                dev,
                                run,
                                phase,
                                B,
                                L,
                                None,
                                "ERROR at tp1 with tool capacity: AssertionError: " + err,
                            )
                        )
                        t = one(run, dev, g, mname, mc, mnote, phase, B, L, cap_override=True)
                    print(run, dev, mname, phase, B, L, f"{t * 1e3:.3f} ms")
save("llm_analysis", records)
