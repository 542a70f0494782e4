"""How llama.cpp's SYCL backend runs prefill's weight matmuls: in FP32 on the vector engines unless it
was built with GGML_SYCL_F16=ON.

SYCL has no quantized matrix-matrix kernel in use (`ggml_sycl_supports_mmq` returns false), so a batch of
prompt tokens goes through `ggml_sycl_op_mul_mat_sycl`: each weight matrix is first dequantized into a
dense buffer, then multiplied by oneDNN/oneMKL. With GGML_SYCL_F16 (off by default; the Windows release is
built without it, the Ubuntu release ships both) the buffer is FP16 and the GEMM runs on the XMX matrix
engines the catalog's FP16 figure counts; without it the buffer is FP32 and the GEMM runs on the vector
engines, whose FP32 rate is an eighth of that figure on Arc (Xe-HPG and Xe2: per Xe-core 256 FP32 FLOP
per clock against 2,048 FP16 on XMX). Either way the dequantizing pass writes the dense copy through
memory once per micro-batch before the GEMM reads it.

Flash attention on SYCL (PR #20190, March 2026) first ran on a tile kernel on the vector engines; prompt
processing reached the XMX engines through oneDNN's fused SDPA (#25222, July 2026, Battlemage) and oneMKL
GEMMs (#25025, merged 2026-07-31; Alchemist through #26635, August 2026). A build before that computes
prefill's attention at the vector engines' FP16 rate, a quarter of the XMX figure (`attn_flops_share`).

The solver takes the FP32 path as a share of the FP16 figure (`f32_matmul_share`) realized at the fitted
`Calibration.sycl_f32_eta`, and the copy as bytes per weight through fast memory per micro-batch
(`dense_copy_bytes`). The app predicts for the build the workload names (`Workload.sycl_f16`); the
validation passes each row's own build flags."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from advisor.core.hardware import HardwareClass
from advisor.core.hardware_keys import generation_key, resolve_backend
from advisor.core.matrix_units import (
    VECTOR_FP16_OVER_FP32,
    XMX_GENERATIONS,
    XMX_OVER_VECTOR_FP16,
    XMX_OVER_VECTOR_FP32,
)
from advisor.core.roofline_inputs import quantized
from advisor.core.sycl_layout import layout_factor
from advisor.core.terms import Backend, Engine

if TYPE_CHECKING:
    from advisor.core.calibration import Calibration
    from advisor.core.scenario import Scenario

# first build month whose flash attention prefills on the XMX engines (both Arc generations)
XMX_ATTENTION_SINCE = "2026-08"
F32_BYTES = 4.0
F16_BYTES = 2.0


def dequantizes_to_buffer(scenario: Scenario) -> bool:
    """Whether prefill's weight matmuls first unpack the weights into a dense buffer: SYCL under llama.cpp on a
    GPU, for quantized weights and (without GGML_SYCL_F16) F16 ones converted to FP32. BF16 weights take
    oneDNN's BF16 path as they are."""
    hw, w, q = scenario.hardware, scenario.workload, scenario.quant
    if w.engine is not Engine.LLAMA_CPP or hw.kind is HardwareClass.CPU:
        return False
    if resolve_backend(hw, w.backend) is not Backend.SYCL or "BF16" in q.name.upper():
        return False
    return bool(quantized(q.bytes_per_weight)) or not w.sycl_f16


def f32_matmul_share(scenario: Scenario) -> float:
    """The FP32 vector rate as a share of the FP16 figure where prefill's matmuls run in FP32 (SYCL without
    GGML_SYCL_F16); 0 where they run on the FP16 figure's units."""
    if not dequantizes_to_buffer(scenario) or scenario.workload.sycl_f16:
        return 0.0
    xmx = generation_key(scenario.hardware) in XMX_GENERATIONS
    return 1.0 / (XMX_OVER_VECTOR_FP32 if xmx else VECTOR_FP16_OVER_FP32)


def attention_share(scenario: Scenario, build_date: str = "") -> float:
    """Prefill attention's rate as a share of the FP16 figure: a quarter (the vector engines' FP16 rate) where a
    SYCL build of `build_date` (empty: current) runs flash attention on its tile kernel on an XMX GPU, else 1."""
    hw, w = scenario.hardware, scenario.workload
    tile = (
        w.engine is Engine.LLAMA_CPP
        and w.flash_attention
        and resolve_backend(hw, w.backend) is Backend.SYCL
        and generation_key(hw) in XMX_GENERATIONS
        and bool(build_date)
        and build_date < XMX_ATTENTION_SINCE
    )
    return 1.0 / XMX_OVER_VECTOR_FP16 if tile else 1.0


def sycl_fields(scenario: Scenario, calibration: Calibration) -> dict[str, Any]:
    """The solver's SYCL terms for a scenario in a current build: the weights' decode layout share, prefill's
    FP32 share, its η, the dense copy's bytes per weight and attention's share of the FP16 figure (the
    validation replaces the build-dated ones per row). An explicit decode η drops the layout share, an explicit
    compute η the prefill terms (the user's figure then stands alone)."""
    w = scenario.workload
    share = 0.0 if w.compute_efficiency is not None else f32_matmul_share(scenario)
    copy = dequantizes_to_buffer(scenario) and w.compute_efficiency is None
    return {
        "layout_eta": 1.0 if w.efficiency is not None else layout_factor(scenario, calibration),
        "f32_matmul_share": share,
        "f32_matmul_eta": calibration.sycl_f32_eta,
        "dense_copy_bytes": (F16_BYTES if w.sycl_f16 else F32_BYTES) if copy else 0.0,
        "attn_flops_share": 1.0 if w.compute_efficiency is not None else attention_share(scenario),
    }
