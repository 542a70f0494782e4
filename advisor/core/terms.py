"""The realistic-speed model's vocabulary: engines, llama.cpp backends and build eras, and the
dataclasses that hold one group's fitted terms (advisor.core.calibration says what each term means;
advisor.core.fitted holds the fitted values)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Engine(StrEnum):
    """Inference engines."""

    LLAMA_CPP = "llama.cpp"
    VLLM = "vllm"
    MLX = "mlx"


class Backend(StrEnum):
    """llama.cpp's compute backends (the `backend` column llama-bench prints)."""

    CUDA = "cuda"
    ROCM = "rocm"
    VULKAN = "vulkan"
    METAL = "metal"
    SYCL = "sycl"
    CPU = "cpu"


class BuildEra(StrEnum):
    """llama.cpp build eras, by the month of the build (measurements.csv's `build_date`). Their fixed
    time per token differs: builds before May 2024 launched every kernel of a token one by one (CUDA
    graphs, llama.cpp PR #6766, merged 2024-05-08, capture a token's kernels as one launch on NVIDIA
    GPUs), and later builds kept trimming launches and synchronizations."""

    BEFORE_2024_05 = "before 2024-05"
    MAY_TO_DEC_2024 = "2024-05 to 2024-12"
    FROM_2025 = "2025 onward"


# llama.cpp's CUDA backend captured a step as a CUDA graph only for one token per step until PR #19645
# (merged 2026-02-17) dropped the "batch size > 1" check: batched decode in earlier builds launched every
# kernel one by one.
CUDA_BATCHED_GRAPHS_SINCE = "2026-02"

# The era the app predicts for (a current build); its factor on t₀ is 1 by definition.
CURRENT_ERA = BuildEra.FROM_2025


def build_era(build_date: str) -> BuildEra | None:
    """The era of a build month ("YYYY-MM"); None when the month is unknown (empty)."""
    if not build_date:
        return None
    if build_date < "2024-05":
        return BuildEra.BEFORE_2024_05
    if build_date < "2025-01":
        return BuildEra.MAY_TO_DEC_2024
    return BuildEra.FROM_2025


@dataclass(frozen=True)
class DecodeTerms:
    eta: float  # share of datasheet bandwidth realized on weight reads
    token_ms: float = 0.0  # fixed time per decode step, ms
    kv_factor: float = 1.0  # KV bytes cost this many times their size
    dequant_flop: float = 0.0  # FLOP-equivalents per quantized weight read (at the vector FP32 rate)
    # each stream beyond the first adds its weight matmuls at this many times their time at the FP16 peak
    stream_cost: float = 0.0
    band: tuple[float, float] = (0.85, 1.1)  # measured ÷ predicted, 10th and 90th percentile


@dataclass(frozen=True)
class PrefillTerms:
    eta: float  # share of FP16 peak realized by prefill
    quant_factor: float = 1.0  # multiplies η for quantized weights (< 16 bits)
    attn_factor: float = 1.0  # attention FLOP cost this many times their count
    moe_factor: float = 1.0  # multiplies η for MoE models
    # multiplies η for quantized weights on INT8 matrix units, of their INT8 peak (0: none fitted, so
    # quantized weights prefill at the FP16 figure × quant_factor)
    int8_factor: float = 0.0


@dataclass(frozen=True)
class ClassTerms:
    decode: DecodeTerms
    prefill: PrefillTerms
    fitted: bool = False  # False: the flat default, no measurements for this group
    rows: int = 0  # measurements the decode terms were fitted on


@dataclass(frozen=True)
class BackendTerms:
    decode: float = 1.0  # multiplies the decode η
    prefill: float = 1.0  # multiplies the prefill η_c
    rows: int = 0  # training measurements that named this backend (decode + prefill)


NO_BACKEND_TERMS = BackendTerms()


@dataclass(frozen=True)
class MachineTerms:
    decode: float = 1.0  # multiplies the decode η of this one machine
    rows: int = 0  # training decode measurements on it


NO_MACHINE_TERMS = MachineTerms()
