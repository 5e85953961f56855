"""Run mlsysim==0.3.0 (MLSysBook MLSys-im) ServingModel: ttft = prefill, itl = one decode step.
Usage: PYTHON benchmarks/peers/run_mlsysim.py (PYTHON: an environment with mlsysim==0.3.0)
own: registry Hardware.Cloud.H100 / Hardware.Cloud.A100, registry models Llama2_7B / Llama3_8B / Llama3_70B,
     solver default efficiency=0.5 (compute only), default dispatch_tax (0.01 ms) and FRAMEWORK_LAYER_TAX_MS (0.01 ms/layer).
datasheet: hardware copied with datasheet peak/bandwidth/capacity, efficiency=1.0, and the two fixed overheads zeroed
     (hardware.dispatch_tax=0; calibration.FRAMEWORK_LAYER_TAX_MS=0, read at call time). Value with the overheads kept
     is stored in breakdown.seconds_with_tool_fixed_overheads.
Extra variant 'exact-params': registry models replaced by exact HF parameter counts (tool's registry uses size-class counts)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib.metadata import version

import mlsysim.engine.calibration as cal
from common import *
from mlsysim import Q_, Hardware, Models
from mlsysim.solvers import ServingModel

VER = "mlsysim==" + version("mlsysim")
OWN = {"H100-SXM": Hardware.Cloud.H100, "A100-SXM-80GB": Hardware.Cloud.A100}
REG = {
    "llama2-7b": Models.Language.Llama2_7B,
    "llama3-8b": Models.Language.Llama3_8B,
    "llama3-70b": Models.Language.Llama3_70B,
}
EXACT = {"llama2-7b": 6738415616, "llama3-8b": 8030261248, "llama3-70b": 70553706496}
TAX0 = cal.FRAMEWORK_LAYER_TAX_MS
sm = ServingModel()
records = []


def ds_hw(dev):
    h = OWN[dev]
    ds = DATASHEET[dev]
    pf = dict(h.compute.precision_flops)
    for k in ("fp16_dense", "bf16", "fp16"):
        pf[k] = Q_(ds["flops"], "flop/s")
    comp = h.compute.model_copy(
        update=dict(peak_flops=Q_(ds["flops"], "flop/s"), precision_flops=pf)
    )
    mem = h.memory.model_copy(
        update=dict(bandwidth=Q_(ds["bw"], "B/s"), capacity=Q_(ds["cap"], "B"))
    )
    return h.model_copy(
        update=dict(
            compute=comp, memory=mem, dispatch_tax=Q_(0, "ms"), name=h.name + " (datasheet)"
        )
    )


def solve(model, hw, L, B, eff, tax):
    cal.FRAMEWORK_LAYER_TAX_MS = tax
    try:
        return sm.solve(
            model=model, hardware=hw, seq_len=L, batch_size=B, precision="bf16", efficiency=eff
        )
    finally:
        cal.FRAMEWORK_LAYER_TAX_MS = TAX0


for variant in ("registry", "exact-params"):
    for run in ("own", "datasheet"):
        for dev in OWN:
            hw = OWN[dev] if run == "own" else ds_hw(dev)
            eff = 0.5 if run == "own" else 1.0
            tax = TAX0 if run == "own" else 0.0
            for mname, m in REG.items():
                if variant == "exact-params":
                    m = m.model_copy(update=dict(parameters=Q_(EXACT[mname], "param")))
                for phase, cases in (("decode", DECODE_CASES), ("prefill", PREFILL_CASES)):
                    for B, L in cases:
                        r = solve(m, hw, L, B, eff, tax)
                        t = (r.itl if phase == "decode" else r.ttft).to("s").magnitude
                        # same with tool's fixed overheads kept (datasheet only)
                        if run == "datasheet":
                            hw_tax = hw.model_copy(update=dict(dispatch_tax=OWN[dev].dispatch_tax))
                            r2 = solve(m, hw_tax, L, B, eff, TAX0)
                            t2 = (r2.itl if phase == "decode" else r2.ttft).to("s").magnitude
                        else:
                            t2 = t
                        pf = (
                            hw.compute.precision_flops.get("bf16", hw.compute.peak_flops)
                            .to("flop/s")
                            .magnitude
                        )
                        bd = dict(
                            variant=variant,
                            parameters=m.parameters.to("param").magnitude,
                            peak_flops_used=pf,
                            efficiency=eff,
                            bandwidth_Bps=hw.memory.bandwidth.to("B/s").magnitude,
                            capacity_bytes=hw.memory.capacity.to("B").magnitude,
                            weights_bytes=r.model_weights_size.to("B").magnitude,
                            kv_cache_bytes=r.kv_cache_size.to("B").magnitude,
                            feasible=r.feasible,
                            dispatch_tax_ms=hw.dispatch_tax.to("ms").magnitude,
                            layer_tax_ms_per_layer=tax,
                            seconds_with_tool_fixed_overheads=t2,
                            includes=(
                                "decode = (params*2B + KV(seq_len,batch))/BW + layers*FRAMEWORK_LAYER_TAX_MS; no compute term. "
                                "prefill = (2*params*L*B + 4*layers*heads*head_dim*L^2*B)/(peak*efficiency) + dispatch_tax; no memory term. "
                                "params = total count incl. embeddings+LM head (registry size class)"
                            ),
                        )
                        note = (
                            f"{hw.name}: peak {pf:.4g} FLOP/s x efficiency {eff}, BW {bd['bandwidth_Bps']:.4g} B/s, capacity {bd['capacity_bytes']:.4g} B; "
                            f"fixed overheads: dispatch_tax {bd['dispatch_tax_ms']} ms (prefill), layer tax {tax} ms/layer (decode)"
                            + (
                                ""
                                if r.feasible
                                else "; tool flags feasible=False (does not fit) but still returns a time"
                            )
                            + (f"; variant {variant}")
                        )
                        model_label = mname if variant == "registry" else mname + "[exact-params]"
                        records.append(
                            rec("mlsysim", VER, model_label, dev, run, phase, B, L, t, note, **bd)
                        )
                        print(
                            variant,
                            run,
                            dev,
                            mname,
                            phase,
                            B,
                            L,
                            f"{t * 1e3:.3f} ms (with overheads {t2 * 1e3:.3f})",
                        )
save("mlsysim", records)
