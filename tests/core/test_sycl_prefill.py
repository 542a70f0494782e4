"""SYCL's prefill: quantized weights unpacked into a dense copy per micro-batch, multiplied in FP32 on the vector
engines unless the build has GGML_SYCL_F16; flash attention on the vector engines in builds before its XMX paths."""

from __future__ import annotations

import pytest

from advisor.catalog.convert import to_hardware
from advisor.catalog.loader import shipped_catalog
from advisor.core.calibration import CALIBRATION
from advisor.core.evaluate import evaluate
from advisor.core.inputs import build_inputs
from advisor.core.matrix_units import XMX_OVER_VECTOR_FP32
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.roofline import solve
from advisor.core.scenario import Scenario, Workload
from advisor.core.sycl_prefill import attention_share, f32_matmul_share
from advisor.core.terms import Backend
from tests.fitted_ranges import SYCL_F32_ETA, within

M8 = ModelArch(name="8B", total_params_b=8.0, layers=32, heads=32, kv_heads=8, head_dim=128)
Q4 = Quant(name="Q4_K_M", bits_per_weight=4.85)


def _on(hw_id: str, backend: Backend | None, **work: object) -> Scenario:
    hw = to_hardware(shipped_catalog().hardware[hw_id])
    return Scenario(hardware=hw, model=M8, quant=Q4, workload=Workload(backend=backend, **work))


def test_fp32_path_only_on_sycl_without_the_f16_build() -> None:
    assert f32_matmul_share(_on("arc-pro-b70", Backend.SYCL)) == 1 / XMX_OVER_VECTOR_FP32
    assert f32_matmul_share(_on("arc-a770-16gb", None)) == 1 / XMX_OVER_VECTOR_FP32  # SYCL is Intel's default
    assert f32_matmul_share(_on("arc-pro-b70", Backend.SYCL, sycl_f16=True)) == 0.0
    assert f32_matmul_share(_on("arc-pro-b70", Backend.VULKAN)) == 0.0
    assert f32_matmul_share(_on("rtx-4090", Backend.CUDA, sycl_f16=True)) == 0.0


def test_the_f16_build_prefills_faster_within_the_engines_ratio() -> None:
    f32 = evaluate(_on("arc-pro-b70", Backend.SYCL, prompt_tokens=512))
    f16 = evaluate(_on("arc-pro-b70", Backend.SYCL, prompt_tokens=512, sycl_f16=True))
    gain = f16.prefill_tok_s / f32.prefill_tok_s
    # PR #23996 measured 1.5-3.4x on a B70; never more than the XMX engines' multiple of the vector FP32 rate
    assert 1.3 < gain < XMX_OVER_VECTOR_FP32
    assert f16.decode_tok_s == pytest.approx(f32.decode_tok_s, rel=1e-9)  # decode runs neither GEMM


def test_the_dense_copy_is_paid_per_micro_batch() -> None:
    def parts(prompt: int) -> tuple[float, float]:
        out = solve(build_inputs(_on("arc-pro-b70", Backend.SYCL, prompt_tokens=prompt)))
        return float(out.t_prefill_copy), float(out.prefill)

    copy128, rate128 = parts(128)
    copy512, rate512 = parts(512)
    copy2048, _ = parts(2048)
    assert copy128 > 0 and copy128 == pytest.approx(copy512, rel=1e-9)  # one micro-batch either way
    assert copy2048 == pytest.approx(4 * copy512, rel=1e-9)
    assert rate128 < rate512  # a short prompt carries the whole copy on fewer tokens
    # the copy writes 4 bytes per weight (FP32) and reads the packed ones: at least that over the bandwidth
    bw = 608e9
    assert copy512 > 8e9 * (4 + 4.85 / 8) * 0.9 / bw
    vulkan = solve(build_inputs(_on("arc-pro-b70", Backend.VULKAN, prompt_tokens=512)))
    assert float(vulkan.t_prefill_copy) == 0.0  # Vulkan unpacks inside its matmul shader


def test_flash_attention_on_the_tile_kernel_in_builds_before_xmx_attention() -> None:
    s = _on("arc-pro-b70", Backend.SYCL, flash_attention=True)
    assert attention_share(s, "2026-04") == 0.25  # the vector engines' FP16 rate
    assert attention_share(s) == 1.0  # a current build
    assert attention_share(s, "2026-09") == 1.0
    assert attention_share(_on("arc-pro-b70", Backend.SYCL, flash_attention=False), "2026-04") == 1.0
    assert attention_share(_on("arc-pro-b70", Backend.VULKAN, flash_attention=True), "2026-04") == 1.0


def test_worked_arithmetic_names_the_build() -> None:
    text = " ".join(x.text for x in evaluate(_on("arc-pro-b70", Backend.SYCL, prompt_tokens=512)).steps)
    assert "GGML_SYCL_F16" in text and "dense FP32 copy" in text
    f16 = " ".join(x.text for x in evaluate(_on("arc-pro-b70", Backend.SYCL, sycl_f16=True)).steps)
    assert "GGML_SYCL_F16" not in f16 and "dense FP16 copy" in f16


def test_fitted_fp32_share_is_physical() -> None:
    assert within(CALIBRATION.sycl_f32_eta, SYCL_F32_ETA)
