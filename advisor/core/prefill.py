"""Prefill: compute-bound, the prompt's tokens through the weights and attention in micro-batches,
with host-resident weights copied over the link per micro-batch (or computed by the host CPU for a
short prompt) and a tensor split's all-reduces."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from advisor.core.placement import _a, attention_flops
from advisor.core.roofline_inputs import Inputs
from advisor.core.roofline_inputs import quantized as is_quantized

Arr = NDArray[np.float64]

# llama.cpp prefills in micro-batches of this many tokens; with layers left in host memory it
# copies those weights over the host link once per micro-batch.
PREFILL_UBATCH = 512
# llama.cpp copies host-resident weights to the GPU for a batch of at least this many tokens and
# computes smaller batches on the host CPU (ggml's op-offload threshold, GGML_OP_OFFLOAD_MIN_BATCH).
OFFLOAD_MIN_BATCH = 32
# On CPU cores quantized weights multiply at about the FP32 vector rate, not the 4x an int8 dot product
# (AVX-512 VNNI vpdpbusd, NEON sdot) packs in a lane: each 32-weight block is unpacked (masks, shifts) and
# its scales applied in FP32, which costs about what the multiply-adds save. On benchmarks/data/own-cpu.md's
# AVX-512 VNNI core, pp512 of Q8_0 and Q4_K_M ran 0.96-1.1x F16 and repacked Q4_0 1.6x. So no gain is
# applied: the class's fitted quant_factor is the realized ratio.


def on_int8_units(inp: Inputs) -> NDArray[np.bool_]:
    """Where the weight matmuls run on INT8 matrix units: quantized weights, an INT8 peak in use and a
    fitted share of it (advisor.core.matrix_units.int8_tops_in_use says where the kernels can)."""
    return is_quantized(inp.bytes_per_weight) & (_a(inp.prefill_int8_eta) > 0) & (_a(inp.int8_flops) > 0)


def prefill_terms(
    inp: Inputs,
    link_bytes: Arr,
    disk_bytes: Arr,
    host_attn: Arr,
    quantized: NDArray[np.bool_],
    host_weight_flops: Arr,
) -> tuple[Arr, Arr, Arr, Arr, Arr]:
    """Compute-bound: weight matmuls realize η_c (less for quantized weights and for MoE experts, which
    see few tokens each); attention realizes η_c at α times its FLOP count; the prompt's tokens sit on
    average halfway into it. Weights left in host memory cross the link once per micro-batch (those on
    disk are read from it each time too), unless a micro-batch is below OFFLOAD_MIN_BATCH tokens: then the
    host CPU computes them (`host_weight_flops` per token). Attention over a KV cache held on the host
    (-nkvo) runs on the host CPU (`host_attn`: its share of the attention FLOP)."""
    prompt = _a(inp.prompt)
    start = np.maximum(_a(inp.context) - prompt, 0)
    compute_eta = _a(inp.compute_eta)
    on_cores = _a(inp.on_cores) > 0
    # quantized weights on INT8 matrix units: their share of the INT8 peak, expressed against `flops`
    int8_eta = _a(inp.prefill_int8_eta)
    quant_eta = np.where(on_int8_units(inp), int8_eta * _a(inp.int8_flops) / _a(inp.flops), _a(inp.prefill_quant_eta))
    matmul_eta = (
        compute_eta
        * np.where(quantized, quant_eta, 1.0)
        * np.where(_a(inp.expert_bytes) > 0, _a(inp.prefill_moe_eta), 1.0)
    )
    attn_eta = compute_eta * np.where(on_cores, _a(inp.cpu_attn_share), 1.0)
    matmul = 2.0 * _a(inp.active_params)
    attn = attention_flops(inp, start + prompt / 2)
    t_prefill = prompt * (matmul / matmul_eta + _a(inp.prefill_attn_factor) * attn / attn_eta) / _a(inp.flops)
    batches = np.ceil(np.maximum(prompt, 1) / PREFILL_UBATCH)
    disk_bw = _a(inp.disk_bw)
    t_link = batches * (
        link_bytes / _a(inp.link_bw) + np.where(disk_bw > 0, disk_bytes / np.where(disk_bw > 0, disk_bw, 1.0), 0.0)
    )
    on_host = (np.minimum(np.maximum(prompt, 1), PREFILL_UBATCH) < OFFLOAD_MIN_BATCH) & np.isfinite(_a(inp.host_flops))
    t_link = np.where(on_host, prompt * host_weight_flops / _a(inp.host_flops), t_link)
    t_prefill = t_prefill + prompt * host_attn * attn / (_a(inp.host_flops) * _a(inp.cpu_attn_share))
    # tensor split: each micro-batch's all-reduces, and every prompt token's activations through them
    t_link = t_link + _a(inp.allreduces) * (
        batches * _a(inp.allreduce_time) + prompt * 2.0 * _a(inp.hidden) * _a(inp.allreduce_share) / _a(inp.peer_bw)
    )
    estimate = np.maximum(prompt, 1) / np.maximum(t_prefill + t_link, 1e-30)
    measured = _a(inp.prefill_rate)
    rate = np.where(np.isnan(measured), estimate, measured)
    return rate, matmul * np.ones_like(rate), attn * np.ones_like(rate), matmul_eta * np.ones_like(rate), t_link
