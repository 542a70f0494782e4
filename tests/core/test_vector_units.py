"""Decode unpacks quantized weights on the vector ALUs: their FP32 rate, a per-architecture fraction of the
catalog's FP16 figure, sets the unpacking time."""

from __future__ import annotations

import pytest

from advisor.catalog.convert import to_hardware
from advisor.catalog.loader import shipped_catalog
from advisor.core.evaluate import evaluate
from advisor.core.hardware import Hardware
from advisor.core.inputs import build_inputs
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.roofline import solve
from advisor.core.scenario import Scenario, Workload
from advisor.core.vector_units import matrix_over_vector, vector_tflops

M8 = ModelArch(name="8B", total_params_b=8.0, layers=32, heads=32, kv_heads=8, head_dim=128)
Q4 = Quant(name="Q4_K_M", bits_per_weight=4.85)
F16 = Quant(name="F16", bits_per_weight=16.0)


def _hw(hw_id: str) -> Hardware:
    return to_hardware(shipped_catalog().hardware[hw_id])


def _dequant_ms(hw: Hardware, quant: Quant = Q4) -> float:
    out = solve(build_inputs(Scenario(hardware=hw, model=M8, quant=quant, workload=Workload())))
    return float(out.t_dequant) * 1e3


@pytest.mark.parametrize(
    ("hw_id", "fp32_tflops"),
    [
        ("rtx-4090", 82.6),  # NVIDIA: 16,384 CUDA cores × 2 × 2.52 GHz
        ("rtx-3090", 35.6),
        ("a100-80gb-sxm", 19.5),  # A100 datasheet, FP32 (non-tensor)
        ("rtx-a6000", 38.7),
        ("mi300x", 163.4),  # AMD Instinct MI300X datasheet, peak FP32 vector
        ("rx-7900-xtx", 61.4),
        ("t4", 8.1),
        # chips that state their own figure: the generation's ratio does not hold for them
        ("l40", 90.5),  # L40 datasheet: FP32 90.5 beside FP16 tensor 181 (an L40S: 91.6 beside 362)
        ("b200", 75.0),  # HGX B200, per GPU
        ("jetson-agx-orin-64gb", 5.3),  # Jetson AGX Orin technical brief: 2048 CUDA cores at 1.3 GHz
    ],
)
def test_vector_rate_matches_the_datasheets_fp32_figure(hw_id: str, fp32_tflops: float) -> None:
    assert vector_tflops(_hw(hw_id)) == pytest.approx(fp32_tflops, rel=0.03)


def test_geforce_and_workstation_cards_of_one_generation_differ_by_fp32_accumulate() -> None:
    geforce, pro = _hw("rtx-4090"), _hw("rtx-6000-ada")
    assert geforce.fp16_acc_speedup == 2.0 and pro.fp16_acc_speedup == 1.0
    assert matrix_over_vector(pro) == 2 * matrix_over_vector(geforce)


def test_apple_cpus_and_unknown_architectures_take_the_fp16_figure_itself() -> None:
    for hw_id in ("m2-ultra-60c-64gb", "epyc-9654-genoa-12ch-384gb"):
        assert matrix_over_vector(_hw(hw_id)) == 1.0
    custom = _hw("rtx-4090").model_copy(update={"name": "My accelerator"})
    assert matrix_over_vector(custom) == 1.0


def test_unpacking_time_follows_the_vector_rate_and_leaves_16_bit_weights_alone() -> None:
    card = _hw("rtx-4090")
    same_figure_unknown_arch = card.model_copy(update={"name": "My accelerator"})
    # the same FP16 figure: the GeForce card unpacks on vector units of half that rate, so twice as long
    assert _dequant_ms(card) == pytest.approx(2 * _dequant_ms(same_figure_unknown_arch), rel=1e-9)
    assert _dequant_ms(card) > 0
    assert _dequant_ms(card, F16) == 0.0


def test_a_datacenter_card_pays_more_unpacking_per_weight_than_a_geforce_card_of_twice_its_vector_rate() -> None:
    a100, r4090 = _hw("a100-80gb-sxm"), _hw("rtx-4090")
    # the A100's FP16 figure is ~1.9× the 4090's, its vector rate less than a quarter of it
    assert a100.compute_tflops > r4090.compute_tflops
    assert _dequant_ms(a100) > 3 * _dequant_ms(r4090)


def test_worked_text_names_the_vector_rate() -> None:
    s = Scenario(hardware=_hw("rtx-4090"), model=M8, quant=Q4, workload=Workload())
    text = next(step.text for step in evaluate(s).steps if step.label == "Decode realistic")
    assert "on the vector units" in text
    assert "82.6 TFLOPS" in text


def test_a_stated_fp32_figure_replaces_the_architecture_ratio_and_sums_over_a_tensor_split() -> None:
    card = _hw("rtx-4090")
    stated = card.model_copy(update={"fp32_tflops": 50.0})
    assert vector_tflops(stated) == pytest.approx(50.0)
    assert _dequant_ms(stated) == pytest.approx(_dequant_ms(card) * vector_tflops(card) / 50.0, rel=1e-9)
    pair = stated.model_copy(update={"devices": 2, "split": "tensor"})
    assert vector_tflops(pair) == pytest.approx(50.0 * pair.compute_tflops / stated.compute_tflops)
    custom = Hardware(name="My accelerator", fp16_tflops=100.0, fp32_tflops=12.5)
    assert vector_tflops(custom) == pytest.approx(12.5)
