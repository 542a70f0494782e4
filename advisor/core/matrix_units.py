"""Which compute units a backend's kernels reach: the FP16 matrix units a datasheet's figure counts, the
INT8 ones llama.cpp's quantized matmul kernels use, or only the vector ALUs."""

from __future__ import annotations

from advisor.core.efficiency import Engine
from advisor.core.hardware import HardwareClass
from advisor.core.hardware_keys import generation_key, resolve_backend
from advisor.core.scenario import Scenario
from advisor.core.terms import Backend

# llama.cpp's quantized matmul kernels (MMQ) run on INT8 matrix units under these backends
INT8_BACKENDS = frozenset({Backend.CUDA, Backend.ROCM})
# llama.cpp's Vulkan backend leaves cooperative matrices off on Arc A-series (Xe-HPG) GPUs, "since older
# hardware (ex. Arc A770) has performance regressions" (ggml-vulkan.cpp,
# ggml_vk_khr_cooperative_matrix_support), so its matmuls run on the vector engines. Their FP16 rate is a
# quarter of the XMX figure the catalog holds: an A770's 32 Xe-cores do 19.7 TFLOPS FP32 (39.3 FP16) on
# vector engines against 157.3 FP16 on XMX (Intel Arc A770 specifications).
VECTOR_ONLY = frozenset({(Backend.VULKAN, "Intel Alchemist")})
XMX_OVER_VECTOR_FP16 = 4.0
# GPUs whose FP16 figure is their XMX matrix engines' rate: eight times the vector engines' FP32 rate
XMX_GENERATIONS = frozenset({"Intel Alchemist", "Intel Battlemage"})
# elsewhere the FP16 figure is the vector units' packed FP16 rate, twice their FP32 rate
VECTOR_FP16_OVER_FP32 = 2.0
XMX_OVER_VECTOR_FP32 = XMX_OVER_VECTOR_FP16 * VECTOR_FP16_OVER_FP32


def vector_only(scenario: Scenario) -> bool:
    """True where the scenario's backend cannot use the GPU's matrix units (llama.cpp only)."""
    hw = scenario.hardware
    if scenario.workload.engine is not Engine.LLAMA_CPP or hw.kind is HardwareClass.CPU:
        return False
    return (resolve_backend(hw, scenario.workload.backend), generation_key(hw)) in VECTOR_ONLY


def matrix_tflops_in_use(scenario: Scenario) -> float:
    """The FP16 TFLOPS the kernels reach: the datasheet's matrix figure (summed over a tensor split), or
    its vector share where the backend runs without the matrix units."""
    tflops = scenario.hardware.compute_tflops
    return tflops / XMX_OVER_VECTOR_FP16 if vector_only(scenario) else tflops


def int8_tops_in_use(scenario: Scenario) -> float:
    """Peak INT8 TOPS quantized prefill runs on (summed over a tensor split), or 0 where it does not:
    no INT8 figure, another engine, or a backend without the MMQ kernels."""
    hw, w = scenario.hardware, scenario.workload
    tops = hw.compute_int8_tops
    if (
        tops is None
        or hw.kind is HardwareClass.CPU
        or w.engine is not Engine.LLAMA_CPP
        or resolve_backend(hw, w.backend) not in INT8_BACKENDS
    ):
        return 0.0
    return tops


def f16_accumulate_gain(scenario: Scenario) -> float:
    """How many times the FP16 figure the weight matmuls of prefill run at where they accumulate in FP16,
    which GeForce cards run at twice their FP32-accumulate rate (1 elsewhere). llama.cpp's CUDA backend hands
    F16 weights to cuBLAS with FP16 accumulation (CUBLAS_COMPUTE_16F; ggml-cuda.cu, ggml_cuda_mul_mat_cublas),
    and quantized ones too where they cannot run on INT8 units; its Vulkan backend multiplies F16 and
    dequantized tiles with FP16 accumulators wherever the device has them (ggml-vulkan.cpp,
    ggml_vk_get_mul_mat_mat_f16acc). BF16 and F32 weights accumulate in FP32."""
    hw, w, q = scenario.hardware, scenario.workload, scenario.quant
    backend = resolve_backend(hw, w.backend)
    if (
        hw.kind is HardwareClass.CPU
        or w.engine is not Engine.LLAMA_CPP
        or backend not in (Backend.CUDA, Backend.VULKAN)
        or q.bits_per_weight > 16.0
        or "BF16" in q.name.upper()
    ):
        return 1.0
    if backend is Backend.CUDA and q.bits_per_weight < 16.0 and int8_tops_in_use(scenario) > 0:
        return 1.0  # the MMQ kernels on INT8 units
    return hw.fp16_acc_speedup
