"""Run LLM-Viewer (hahnyuan/LLM-Viewer at commit 472f71f1a1807e80b573252e9185fd5e8d795e95, its source extracted to LLM_VIEWER_SRC) unmodified. Its numbers are kept as data in results.json, citing that commit; CI does not run it.
transformers.AutoConfig is stubbed (no HF hub access) with the HF Llama config fields.
Usage: python3 scripts/run_llm_viewer.py   (system python3, no deps)"""

import copy
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *

SRC = os.environ["LLM_VIEWER_SRC"]
sys.path.insert(0, SRC)
os.chdir(SRC)

COMMIT = "472f71f1a1807e80b573252e9185fd5e8d795e95"
# stub transformers
tf = types.ModuleType("transformers")


class AutoConfig:
    @staticmethod
    def from_pretrained(model_id, trust_remote_code=True):
        for k, v in MODELS.items():
            if v["hf_id"] == model_id:
                return types.SimpleNamespace(**v)
        raise KeyError(model_id)


tf.AutoConfig = AutoConfig
tf.AutoTokenizer = None
tf.AutoModelForCausalLM = None
sys.modules["transformers"] = tf
from hardwares.hardware_params import hardware_params
from model_analyzer import ModelAnalyzer

OWN = {"H100-SXM": "nvidia_H100_SXM", "A100-SXM-80GB": "nvidia_A100_80G"}
orig = copy.deepcopy(hardware_params)
records = []
for run in ("own", "datasheet"):
    for dev, hwname in OWN.items():
        hardware_params[hwname] = dict(orig[hwname])
        if run == "datasheet":
            hardware_params[hwname]["FP16"] = DATASHEET[dev]["flops"]
            hardware_params[hwname]["bandwidth"] = DATASHEET[dev]["bw"]
        hw = hardware_params[hwname]
        for mname, m in MODELS.items():
            # config file name "Llama" must be a substring of model_id for auto-search; pass explicitly
            an = ModelAnalyzer(m["hf_id"], hwname, config_file="configs/Llama.py")
            for flash in (False, True):
                for phase, cases in (("decode", DECODE_CASES), ("prefill", PREFILL_CASES)):
                    for b, L in cases:
                        r = an.analyze(
                            seqlen=L,
                            batchsize=b,
                            w_bit=16,
                            a_bit=16,
                            kv_bit=16,
                            use_flashattention=flash,
                        )
                        t = r["total_results"][phase]
                        per = r[phase]
                        lm = per["lm_head"]
                        nl = m["num_hidden_layers"]
                        note = (
                            f"hardware entry {hwname}: FP16={hw['FP16']:.4g} FLOP/s, bandwidth={hw['bandwidth']:.4g} B/s, no efficiency factors; "
                            f"per-op roofline max(OPs/peak, bytes/bw) summed over ops x layers + lm_head; use_flashattention={flash}"
                        )
                        records.append(
                            rec(
                                "LLM-Viewer",
                                COMMIT,
                                mname,
                                dev,
                                run,
                                phase,
                                b,
                                L,
                                t["inference_time"],
                                note,
                                variant="flashattention" if flash else "default(no flashattention)",
                                peak_flops=hw["FP16"],
                                bandwidth=hw["bandwidth"],
                                total_OPs=t["OPs"],
                                total_memory_access_bytes=t["memory_access"],
                                weight_bytes=t["load_weight"],
                                kv_load_bytes=t["load_kv_cache"],
                                kv_store_bytes=t["store_kv_cache"],
                                act_load_bytes=t["load_act"],
                                act_store_bytes=t["store_act"],
                                lm_head_OPs=lm["OPs"],
                                lm_head_weight_bytes=lm["load_weight"],
                                lm_head_time=lm["inference_time"],
                                attention_ops_time_per_step=sum(
                                    per[k]["inference_time"]
                                    for k in per
                                    if k in ("qk_matmul", "sv_matmul", "softmax", "fused_attention")
                                )
                                * nl,
                                elementwise_time_per_step=sum(
                                    per[k]["inference_time"]
                                    for k in per
                                    if k
                                    in ("attn_norm", "mlp_norm", "attn_add", "mlp_add", "mlp_act")
                                )
                                * nl,
                                includes="per layer: q,k,v,o,gate,up,down linears; qk/sv matmul + softmax (or fused_attention); 2 RMSNorm; 2 residual adds; mlp_act; once: lm_head. No embeddings, no fixed overhead",
                            )
                        )
save("llm_viewer", records)
for r in records:
    if r["breakdown"]["variant"].startswith("default"):
        print(
            r["run"],
            r["device"],
            r["model"],
            r["phase"],
            r["batch"],
            r["context"],
            f"{r['seconds'] * 1e3:.3f} ms",
        )
