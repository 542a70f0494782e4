"""The realistic-speed model: fitted efficiencies and overhead terms per hardware class and engine.

A ceiling is bytes ÷ bandwidth. What engines really deliver was fitted to 300-odd published
llama.cpp, MLX and vLLM measurements (benchmarks/data/measurements.csv; `advisor validate` reports
the errors, `benchmarks/validate.py --write` refits and rewrites the FITTED block below). Every
term is a plain number with a physical reading:

Decode, one step (B streams):

    t_step = max( W ÷ (BW·η) + κ·KV ÷ (BW·η) + H ÷ (BW_host·η_host) + N_q·d ÷ F + (B−1)·t_s ,
                  B·FLOP ÷ (F·η_c) ) + t₀

- η (`eta`): share of datasheet bandwidth realized while streaming weights W from fast memory.
- t₀ (`token_ms`): fixed time per step — kernel launches, synchronization, sampling. It is why a
  small model on a fast GPU realizes a smaller share of its ceiling than a large one.
- κ (`kv_factor`): the KV cache read costs κ times its bytes (attention kernels stream the cache
  less efficiently than a matrix-vector product streams weights), so long contexts slow decode
  more than their bytes alone say.
- d (`dequant_flop`): FLOP-equivalents per quantized weight to unpack it (N_q weights read from fast
  memory, F the device's FP16 peak). It is why a 4-bit model realizes less of its ceiling than the
  same model at 16 bits, and most on GPUs with little compute per byte of bandwidth.
- t_s (`stream_ms`): each stream beyond the first adds this much per-sequence work (sampling,
  bookkeeping, small kernels) to the step, so per-stream speed sags as the batch grows even before
  the step turns compute-bound (at the prefill η_c); 0 where no batched measurements exist.
- η_host (HOST_ETA): share of host-RAM bandwidth realized for offloaded weights (read by the CPU).
- γ (EXPERT_SPREAD): with B streams an MoE step reads the experts of B^γ independent tokens; γ < 1
  because tokens in one batch favour the same experts.

Prefill: prompt × (2·N + α·attention FLOP) ÷ (F · η_c · q · m), plus offloaded weights crossing
the host link once per 512-token micro-batch:

- η_c (`eta`): share of FP16 peak; q (`quant_factor`): extra cost of quantized weights (unpacking);
  α (`attn_factor`): attention FLOP cost α times their count; m (`moe_factor`): MoE experts see
  few tokens each, so their matmuls are less efficient.

An explicit efficiency from the user switches all of this off: the figure is then plain
η × ceiling (and plain compute η for prefill), as in the seeds' worked examples.

Classes and engines the data do not cover keep the previous flat defaults (`fitted = False`).
`band` is the spread the validation found: the 10th and 90th percentile of measured ÷ predicted
decode over that group's rows; realistic figures are drawn and printed with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from advisor.core.hardware import HardwareClass


class Engine(StrEnum):
    """Inference engines (re-exported by advisor.core.efficiency, where callers import it from)."""

    LLAMA_CPP = "llama.cpp"
    VLLM = "vllm"
    MLX = "mlx"


@dataclass(frozen=True)
class DecodeTerms:
    eta: float  # share of datasheet bandwidth realized on weight reads
    token_ms: float = 0.0  # fixed time per decode step, ms
    kv_factor: float = 1.0  # KV bytes cost this many times their size
    dequant_flop: float = 0.0  # FLOP-equivalents per quantized weight read (at the FP16 peak)
    stream_ms: float = 0.0  # ms added to each step per stream beyond the first
    band: tuple[float, float] = (0.85, 1.1)  # measured ÷ predicted, 10th and 90th percentile


@dataclass(frozen=True)
class PrefillTerms:
    eta: float  # share of FP16 peak realized by prefill
    quant_factor: float = 1.0  # multiplies η for quantized weights (< 16 bits)
    attn_factor: float = 1.0  # attention FLOP cost this many times their count
    moe_factor: float = 1.0  # multiplies η for MoE models


@dataclass(frozen=True)
class ClassTerms:
    decode: DecodeTerms
    prefill: PrefillTerms
    fitted: bool = False  # False: the pre-validation flat default, no data for this group
    rows: int = 0  # measurements the decode terms were fitted on


@dataclass(frozen=True)
class Calibration:
    terms: dict[tuple[HardwareClass, Engine], ClassTerms]
    host_eta: float = 0.60
    expert_spread: float = 1.0
    name: str = "fitted"
    notes: tuple[str, ...] = field(default_factory=tuple)

    def get(self, kind: HardwareClass, engine: Engine) -> ClassTerms:
        return self.terms[(kind, engine)]


def _flat(decode: float, low: float, high: float, compute: float) -> ClassTerms:
    return ClassTerms(DecodeTerms(eta=decode, band=(low / decode, high / decode)), PrefillTerms(eta=compute))


D, U, C = HardwareClass.DISCRETE_GPU, HardwareClass.UNIFIED, HardwareClass.CPU
L, V, X = Engine.LLAMA_CPP, Engine.VLLM, Engine.MLX

# The flat η roofline the advisor shipped before validation: one η per class and engine, its band,
# no overhead terms. Kept as the baseline `advisor validate` compares against, and as the fallback
# for groups without measurements.
FLAT = Calibration(
    name="flat η",
    host_eta=0.60,
    expert_spread=1.0,
    terms={
        (D, L): _flat(0.70, 0.60, 0.75, 0.50),
        (D, V): _flat(0.80, 0.70, 0.85, 0.60),
        (D, X): _flat(0.70, 0.60, 0.75, 0.50),
        (U, L): _flat(0.65, 0.55, 0.75, 0.50),
        (U, V): _flat(0.65, 0.55, 0.75, 0.50),
        (U, X): _flat(0.72, 0.60, 0.80, 0.55),
        (C, L): _flat(0.60, 0.45, 0.70, 0.40),
        (C, V): _flat(0.55, 0.40, 0.65, 0.40),
        (C, X): _flat(0.60, 0.45, 0.70, 0.40),
    },
)

# --- FITTED: begin (written by benchmarks/validate.py --write; edit there, not here) ---------------
FITTED_TERMS: dict[tuple[HardwareClass, Engine], ClassTerms] = {
    (D, L): ClassTerms(
        DecodeTerms(eta=0.907, token_ms=2.06, kv_factor=0.776,
                    dequant_flop=8.82, stream_ms=0.0,
                    band=(0.816, 1.14)),
        PrefillTerms(eta=0.875, quant_factor=0.815, attn_factor=0.301, moe_factor=0.295),
        fitted=True, rows=84),
    (U, L): ClassTerms(
        DecodeTerms(eta=0.84, token_ms=3.76, kv_factor=1.16,
                    dequant_flop=4.27, stream_ms=0.503,
                    band=(0.797, 1.153)),
        PrefillTerms(eta=0.74, quant_factor=0.633, attn_factor=1.27, moe_factor=0.295),
        fitted=True, rows=90),
    (U, X): ClassTerms(
        DecodeTerms(eta=0.993, token_ms=0.0903, kv_factor=1.16,
                    dequant_flop=4.27, stream_ms=0.503,
                    band=(0.81, 1.151)),
        PrefillTerms(eta=0.55, quant_factor=1.0, attn_factor=1.0, moe_factor=1.0),
        fitted=True, rows=10),
}
FITTED_HOST_ETA = 0.6
FITTED_EXPERT_SPREAD = 0.715
FITTED_NOTES: tuple[str, ...] = (
    "fitted on 184 decode + 127 prefill rows, the training part of the 442 usable measurements",
    "bands: 10th/90th percentile of measured ÷ predicted decode over the usable rows of the "
    "group (of its class when the group has fewer than 30)",
)
# --- FITTED: end -----------------------------------------------------------------------------------

CALIBRATION = Calibration(
    terms={**FLAT.terms, **FITTED_TERMS},
    host_eta=FITTED_HOST_ETA,
    expert_spread=FITTED_EXPERT_SPREAD,
    name="fitted",
    notes=FITTED_NOTES,
)


def terms_for(kind: HardwareClass, engine: Engine, calibration: Calibration | None = None) -> ClassTerms:
    return (calibration or CALIBRATION).get(kind, engine)
