"""INT8 rates in the shipped catalog obey the tensor-core physics: llama.cpp's quantized matmul kernels
(MMQ) prefill on int8_tops, so a missing or implausible figure changes quantized prefill directly."""

from __future__ import annotations

import pytest

from advisor.catalog.loader import Catalog, load_shipped
from advisor.catalog.schema import HardwareEntry
from advisor.core.hardware_keys import generation_key

# NVIDIA generations with INT8 tensor cores (Volta's tensor cores have no INT8 mode, Pascal none at all)
_INT8_TENSOR_NVIDIA = {"NVIDIA Turing", "NVIDIA Ampere", "NVIDIA Ada", "NVIDIA Hopper", "NVIDIA Blackwell"}
# Generations whose INT8 runs on matrix units (tensor cores, WMMA/matrix cores, XMX)
_MATRIX_GENERATIONS = _INT8_TENSOR_NVIDIA | {
    "AMD RDNA 3",
    "AMD RDNA 4",
    "AMD CDNA",
    "Intel Alchemist",
    "Intel Battlemage",
}
# Turing-or-later NVIDIA entries left without int8_tops, each with why
_NO_VENDOR_INT8 = {
    # NVIDIA states FP4/FP8 only; its SMs are of the datacenter Blackwell class, whose INT8 rate
    # differs between parts, so no whitepaper ratio carries over
    "jetson-agx-thor-128gb",
}


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_shipped()


def _gpus(cat: Catalog) -> list[HardwareEntry]:
    return [hw for hw in cat.hardware.values() if generation_key(hw) is not None]


def test_every_int8_tensor_nvidia_entry_has_int8_tops(cat: Catalog) -> None:
    nvidia = [hw for hw in _gpus(cat) if generation_key(hw) in _INT8_TENSOR_NVIDIA]
    assert len(nvidia) >= 50
    missing = sorted(hw.id for hw in nvidia if hw.int8_tops is None and hw.id not in _NO_VENDOR_INT8)
    assert missing == []


def test_exemptions_are_still_needed(cat: Catalog) -> None:
    """An exempt entry that gains a figure (or leaves the catalog) should leave the exemption list."""
    for hw_id in _NO_VENDOR_INT8:
        assert hw_id in cat.hardware and cat.hardware[hw_id].int8_tops is None


def test_matrix_int8_to_fp16_ratio(cat: Catalog) -> None:
    """Matrix units run INT8 at 1x (CDNA 1/2) to 2x (pro/datacenter NVIDIA, RDNA 4, XMX) the dense FP16
    rate, and 4x on GeForce, whose FP16 figure is the half-rate FP32-accumulate one."""
    checked = 0
    for hw in _gpus(cat):
        if hw.int8_tops is None or generation_key(hw) not in _MATRIX_GENERATIONS:
            continue
        ratio = hw.int8_tops / hw.fp16_tflops
        assert 1.0 <= ratio <= 4.2, (hw.id, ratio)
        checked += 1
    assert checked >= 60


def test_geforce_runs_int8_at_four_times_fp16(cat: Catalog) -> None:
    """GeForce Turing to Blackwell (the 5090's whitepaper row: 838 INT8 / 209.5 FP16) versus the pro
    cards at twice (RTX 6000 Ada: 728.5 / 364.2)."""
    geforce = cat.hardware["rtx-5090"], cat.hardware["rtx-3090"], cat.hardware["rtx-2080-ti"]
    pro = cat.hardware["rtx-6000-ada"], cat.hardware["a100-40gb-pcie"], cat.hardware["h100-sxm"]
    for hw in geforce:
        assert hw.int8_tops is not None and 3.9 <= hw.int8_tops / hw.fp16_tflops <= 4.1, hw.id
    for hw in pro:
        assert hw.int8_tops is not None and 1.9 <= hw.int8_tops / hw.fp16_tflops <= 2.1, hw.id


def test_no_int8_figure_is_absurd(cat: Catalog) -> None:
    for hw in cat.hardware.values():
        if hw.int8_tops is not None:
            assert 1.0 <= hw.int8_tops <= 10_000, hw.id


def test_int8_figures_cite_themselves(cat: Catalog) -> None:
    """Each figure says where it came from in its notes; a computed one is listed as an estimate."""
    for hw in cat.hardware.values():
        if hw.int8_tops is None:
            continue
        assert "int8_tops" in hw.notes, hw.id
        if "estimate" in hw.notes.split("int8_tops", 1)[1]:
            assert "int8_tops" in hw.estimates, hw.id
