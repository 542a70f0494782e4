"""Where each fitted constant may plausibly lie. Tests assert these ranges (and relations), never the
digits one fit happened to produce, so a refit on more or fewer rows needs no test edits; only
tests/validation/test_fit.py checks that the committed constants are today's fit, exactly."""

from __future__ import annotations

ETA = (0.3, 1.0)  # share of the bandwidth ceiling a decode step realizes
PREFILL_ETA = (0.1, 1.0)  # share of the FP16 peak a prefill realizes
TOKEN_MS = (0.05, 10.0)  # t₀: fixed time per step (kernel launches, sampling), ms
KV_FACTOR = (0.3, 3.0)  # the cache's read cost over its bytes at the weights' rate
STREAM_COST_MAX = 30.0  # an extra stream's matmuls over their time at the FP16 peak (0 allowed: batching free)
DEQUANT_FLOP_MAX = 50.0  # FLOP per weight to unpack a quantized weight (0 allowed)
# a backend's, GPU architecture's or machine's factor on η; as low as about half: llama.cpp under Vulkan on
# Intel's Battlemage cards realizes a little over half of what its class's η says of the other vendors'
FACTOR = (0.25, 1.5)
PREFILL_FACTOR = (0.05, 5.0)  # prefill's factors on quantized weights and experts
# Vulkan's prefill factor for a GPU vendor over the Vulkan backend's own: the vendors' cooperative-matrix
# paths differ by a few times (NVIDIA's reaches the tensor cores, Intel's Alchemist none)
VULKAN_PREFILL = (0.1, 10.0)
# prefill attention's time over its FLOP at the matmul rate: on CPU cores flash attention does an exp and
# the online softmax's rescaling for every query, head and cached token, far from a GEMM's rate
ATTN_FACTOR = (0.05, 20.0)
ERA_TOKEN = (0.95, 3.0)  # an older llama.cpp build's t₀ over a current build's: not less
MOE_TOKEN = (0.95, 4.0)  # a mixture of experts' t₀ over a dense model's: more kernels, not fewer
HOST_ETA = (0.1, 1.0)  # share of host-RAM bandwidth offloaded weights are read at
EXPERT_SPREAD = (0.2, 1.0)  # how far a batch's tokens spread over the experts
UNFUSED_ATTN_ETA = (0.003, 0.2)  # share of the FP16 peak attention realizes as separate kernels
# share of the FP16 peak a fused decode attention kernel's arithmetic realizes: above the separate
# kernels' (no scores through memory), far below a GEMM's (one query row per head and step)
FUSED_ATTN_ETA = (0.02, 0.5)
# decode η's share where SYCL reads weights from the plain block layout, no reordered kernel: a reordered
# kernel decoded Q2_K 1.5-1.9x faster (llama.cpp PR #26336), so well below 1, not a tenth
SYCL_PLAIN_ETA = (0.2, 0.9)
# share of the vector engines' FP32 rate SYCL's FP32 prefill GEMMs (oneDNN/oneMKL) realize: a tuned dense GEMM
SYCL_F32_ETA = (0.3, 1.0)
CPU_ATTN_GBPS = (0.2, 10.0)  # GB/s of KV cache one CPU thread attends over: far below its DRAM read
# the 10th / 90th percentile of measured ÷ model, by source: a class whose rows come from two sources
# (CPU only) meets a wide spread
BAND_LOW, BAND_HIGH = (0.25, 1.0), (1.0, 2.0)


def within(value: float, bounds: tuple[float, float]) -> bool:
    """lo < value ≤ hi: every range above is open below, closed above (η = 1 is possible, 0 is not)."""
    lo, hi = bounds
    return lo < value <= hi
