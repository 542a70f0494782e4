"""Prefill as llama.cpp's kernels reach the matrix units: quantized weights on INT8 units (the MMQ kernels under
CUDA and ROCm), F16 weights with FP16 accumulation under CUDA, an Arc A-series card under Vulkan on its vector
engines only. A card's datasheet FP16-with-FP32-accumulate figure alone sets none of these."""

from __future__ import annotations

import pytest

from advisor.catalog.loader import shipped_catalog
from advisor.core.calibration import CALIBRATION
from advisor.core.evaluate import evaluate
from advisor.core.hardware import Hardware, HardwareClass
from advisor.core.inputs import build_inputs
from advisor.core.matrix_units import (
    XMX_OVER_VECTOR_FP16,
    f16_accumulate_gain,
    int8_tops_in_use,
    matrix_tflops_in_use,
    vector_only,
)
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.scenario import Scenario, Workload
from advisor.core.terms import Backend

M8 = ModelArch(name="8B", total_params_b=8.03, layers=32, heads=32, kv_heads=8, head_dim=128)
Q4 = Quant(name="Q4_K_M", bits_per_weight=4.85)
F16 = Quant(name="F16", bits_per_weight=16.0)
# the same FP16 figure: a GeForce card lists FP32-accumulate at half rate, so its INT8 is 4x that figure;
# a pro card accumulates FP32 at full rate, so its INT8 is 2x
GEFORCE = Hardware(name="NVIDIA GeForce RTX 4090", memory_gb=24, bandwidth_gbps=1008, fp16_tflops=165, int8_tops=660)
PRO = Hardware(name="NVIDIA RTX 6000 Ada Generation", memory_gb=48, bandwidth_gbps=960, fp16_tflops=165, int8_tops=330)


def _prefill(hw: Hardware, quant: Quant = Q4, backend: Backend | None = None) -> float:
    s = Scenario(hardware=hw, model=M8, quant=quant, workload=Workload(context=512, prompt_tokens=512, backend=backend))
    rate = evaluate(s).prefill_tok_s
    assert rate is not None
    return rate


def _int8_fitted() -> bool:
    return CALIBRATION.get(HardwareClass.DISCRETE_GPU, Workload().engine).prefill.int8_factor > 0


def test_int8_rate_is_used_only_where_the_kernels_run() -> None:
    base = Scenario(hardware=GEFORCE, model=M8, quant=Q4, workload=Workload())
    assert int8_tops_in_use(base) == 660
    assert int8_tops_in_use(base.model_copy(update={"workload": Workload(backend=Backend.VULKAN)})) == 0
    assert int8_tops_in_use(base.model_copy(update={"hardware": GEFORCE.model_copy(update={"int8_tops": None})})) == 0
    two = GEFORCE.model_copy(update={"devices": 2, "split": "tensor"})
    assert int8_tops_in_use(base.model_copy(update={"hardware": two})) == 1320


@pytest.mark.skipif(not _int8_fitted(), reason="the shipped fit has no INT8 term for discrete GPUs")
def test_more_int8_throughput_prefills_quantized_weights_faster() -> None:
    fast, slow = _prefill(GEFORCE), _prefill(PRO)
    assert fast > slow
    # the matmuls are most of an 8B model's prefill at 512 tokens: nearly the INT8 ratio of 2
    assert 1.4 < fast / slow <= 2.0 + 1e-9


def test_full_precision_weights_do_not_use_int8() -> None:
    assert _prefill(GEFORCE, F16) == pytest.approx(_prefill(PRO, F16), rel=1e-9)


def test_vulkan_ignores_the_int8_figure() -> None:
    no_int8 = GEFORCE.model_copy(update={"int8_tops": None})
    assert _prefill(GEFORCE, backend=Backend.VULKAN) == pytest.approx(_prefill(no_int8, backend=Backend.VULKAN))


def test_a_given_compute_efficiency_is_plain_eta_times_the_fp16_figure() -> None:
    s = Scenario(hardware=GEFORCE, model=M8, quant=Q4, workload=Workload(compute_efficiency=0.5))
    assert float(build_inputs(s).prefill_int8_eta) == 0.0


ARC_A = Hardware(name="Intel Arc A770 16 GB", memory_gb=16, bandwidth_gbps=560, fp16_tflops=138)
ARC_B = Hardware(name="Intel Arc B580", memory_gb=12, bandwidth_gbps=456, fp16_tflops=116)


def test_vulkan_on_an_arc_a_series_card_prefills_on_its_vector_engines() -> None:
    def at(hw: Hardware, backend: Backend) -> Scenario:
        return Scenario(hardware=hw, model=M8, quant=Q4, workload=Workload(backend=backend))

    assert vector_only(at(ARC_A, Backend.VULKAN)) and not vector_only(at(ARC_A, Backend.SYCL))
    assert not vector_only(at(ARC_B, Backend.VULKAN))  # Xe2 gets cooperative matrices
    assert matrix_tflops_in_use(at(ARC_A, Backend.VULKAN)) == pytest.approx(138 / XMX_OVER_VECTOR_FP16)
    # the same card and kernels' η (the Intel Vulkan factor taken out): a quarter of the compute, so prefill
    # drops by nearly that
    vulkan, xmx = (
        _prefill(ARC_A, backend=Backend.VULKAN) / CALIBRATION.vulkan_prefill_factor(ARC_A, Backend.VULKAN),
        _prefill(ARC_A.model_copy(update={"name": "X"}), backend=Backend.VULKAN),
    )
    assert 1 / XMX_OVER_VECTOR_FP16 - 1e-9 <= vulkan / xmx < 0.5


# F16 weights go to cuBLAS with FP16 accumulation under CUDA, which a GeForce card runs at twice its
# FP32-accumulate figure
GEFORCE_FP16 = GEFORCE.model_copy(update={"fp16_acc_speedup": 2.0})
BF16 = Quant(name="BF16", bits_per_weight=16.0)


def _scenario(hw: Hardware, quant: Quant, backend: Backend | None = None) -> Scenario:
    return Scenario(hardware=hw, model=M8, quant=quant, workload=Workload(backend=backend))


def test_fp16_accumulation_applies_where_the_kernels_accumulate_in_fp16() -> None:
    # CUDA: F16 weights through cuBLAS; quantized ones on the INT8 units, or through cuBLAS without them
    assert f16_accumulate_gain(_scenario(GEFORCE_FP16, F16)) == 2.0
    assert f16_accumulate_gain(_scenario(GEFORCE_FP16, BF16)) == 1.0  # cuBLAS accumulates BF16 in FP32
    assert f16_accumulate_gain(_scenario(GEFORCE_FP16, Q4)) == 1.0
    assert f16_accumulate_gain(_scenario(GEFORCE_FP16.model_copy(update={"int8_tops": None}), Q4)) == 2.0
    # Vulkan: F16 and dequantized tiles on FP16 accumulators
    assert f16_accumulate_gain(_scenario(GEFORCE_FP16, F16, Backend.VULKAN)) == 2.0
    assert f16_accumulate_gain(_scenario(GEFORCE_FP16, Q4, Backend.VULKAN)) == 2.0
    assert f16_accumulate_gain(_scenario(GEFORCE_FP16, BF16, Backend.VULKAN)) == 1.0
    assert f16_accumulate_gain(_scenario(GEFORCE, F16)) == 1.0  # a card without the faster path
    assert f16_accumulate_gain(_scenario(GEFORCE, Q4, Backend.VULKAN)) == 1.0


def test_fp16_accumulation_speeds_f16_prefill_by_nearly_its_ratio() -> None:
    fast, slow = _prefill(GEFORCE_FP16, F16), _prefill(GEFORCE, F16)
    # the weight matmuls are most of an 8B model's prefill at 512 tokens; attention keeps its rate
    assert 1.6 < fast / slow < 2.0
    assert _prefill(GEFORCE_FP16, BF16) == pytest.approx(_prefill(GEFORCE, BF16), rel=1e-9)
    assert _prefill(GEFORCE_FP16, Q4) == pytest.approx(_prefill(GEFORCE, Q4), rel=1e-9)
    vk_fast, vk_slow = _prefill(GEFORCE_FP16, Q4, Backend.VULKAN), _prefill(GEFORCE, Q4, Backend.VULKAN)
    assert 1.6 < vk_fast / vk_slow < 2.0
    s = _scenario(GEFORCE_FP16, F16)
    assert "× 2 (FP16 accumulate)" in next(x.text for x in evaluate(s).steps if x.label == "Prefill")


def test_the_catalog_marks_geforce_cards_and_only_them() -> None:
    for hw in shipped_catalog().hardware.values():
        assert hw.fp16_acc_speedup == (2.0 if "GeForce RTX" in hw.name else 1.0), hw.name
