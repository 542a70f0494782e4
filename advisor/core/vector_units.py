"""The vector ALUs' FP32 rate, where decode unpacks quantized weights.

A decode step multiplies every weight matrix by one vector (a few, batched): llama.cpp's matrix-vector
kernels (CUDA's mmvq, Vulkan's mul_mat_vec, Metal's kernel_mul_mv, SYCL's dmmv) run on the shader ALUs,
not on the tensor, matrix or XMX units a datasheet's FP16 figure counts. Unpacking a quantized weight is
integer and FP32 work there. So it is measured against the vector FP32 rate, a fixed fraction of the
catalog's FP16 figure per architecture: the two are both per-clock figures of the same cores.

How many times the vector FP32 rate the catalog's FP16 figure is (FLOP per clock per SM, CU or Xe-core,
from the vendors' architecture whitepapers; the catalog holds dense FP16 with FP32 accumulation):

- NVIDIA GeForce Ampere, Ada, Blackwell: 512 on tensor cores (FP32 accumulate at half the FP16-accumulate
  rate) over 256 FP32 → 2; the same chips on workstation and pro cards run FP32 accumulate at the full
  1,024 → 4 (the catalog's `fp16_acc_speedup` of 1 tells them apart). Turing: 512 or 1,024 over 128 → 4
  (GeForce) or 8 (Quadro, T4). Volta: 1,024 over 128 → 8. A100: 2,048 over 128 → 16; Hopper: 4,096
  over 256 → 16 (datacenter Blackwell, about 30, states its own figure). Pascal has no tensor cores:
  P100 runs FP16 at twice FP32 (2); the P40's catalog figure is its FP32 rate (1).
- AMD RDNA 2, RDNA 3 and GCN 5: packed FP16 at twice FP32 → 2; RDNA 4's WMMA units 4; CDNA's matrix
  cores 8 (MI300X: 1,307 against 163 TFLOPS).
- Intel Xe-HPG and Xe2: 2,048 on XMX over 256 FP32 on the vector engines → 8.
- Apple's GPUs (M1-M4) and CPUs: the catalog's figure is the vector rate → 1.

A chip whose ratio is not its generation's (Jetson modules, whose tensor cores run at the datacenter
rate beside few CUDA cores; an L40, whose catalog figure is FP32-accumulate on GeForce-rate tensor
cores) states its datasheet FP32 figure (`fp32_tflops`), which takes the ratio's place.
"""

from __future__ import annotations

import re

from advisor.core.hardware import Hardware, HardwareClass
from advisor.core.hardware_keys import generation_key
from advisor.core.matrix_units import XMX_GENERATIONS, XMX_OVER_VECTOR_FP32

# by architecture (hardware_keys.generation_key); NVIDIA's depends on the card's market as well
_BY_GENERATION: dict[str, float] = {
    "AMD RDNA 2": 2.0,
    "AMD RDNA 3": 2.0,
    "AMD GCN 5": 2.0,
    "AMD RDNA 4": 4.0,
    "AMD CDNA": 8.0,
    "NVIDIA Volta": 8.0,
    "NVIDIA Hopper": 16.0,
}
_NVIDIA_DATACENTER = re.compile(r"\ba100\b|\ba30\b|\bb[23]00\b|\bgb[23]00\b")
_NVIDIA_TURING_DATACENTER = re.compile(r"\bt4\b|quadro|titan rtx")
# the generations whose tensor cores run FP32 accumulate at half rate on GeForce cards
_GEFORCE_HALVED = {"NVIDIA Ampere", "NVIDIA Ada", "NVIDIA Blackwell"}


def matrix_over_vector(hw: Hardware) -> float:
    """How many times the vector FP32 rate the hardware's FP16 figure is (1 where the architecture is
    unknown: a custom entry's figure is taken as its vector rate)."""
    gen = generation_key(hw)
    if hw.kind is HardwareClass.CPU or gen is None:
        return 1.0
    name = hw.name.lower()
    if gen in _GEFORCE_HALVED:
        if _NVIDIA_DATACENTER.search(name):
            return 16.0
        return 2.0 if hw.fp16_acc_speedup >= 2.0 else 4.0
    if gen == "NVIDIA Turing":
        return 8.0 if _NVIDIA_TURING_DATACENTER.search(name) else 4.0
    if gen == "NVIDIA Pascal":
        return 2.0 if "p100" in name else 1.0
    if gen in XMX_GENERATIONS:
        return XMX_OVER_VECTOR_FP32
    return _BY_GENERATION.get(gen, 1.0)


def vector_tflops(hw: Hardware) -> float:
    """The vector ALUs' FP32 TFLOPS (summed over a tensor split, as the FP16 figure is): the hardware's
    own figure where it states one, else the FP16 figure over the architecture's ratio."""
    stated = hw.compute_fp32_tflops
    return stated if stated is not None else hw.compute_tflops / matrix_over_vector(hw)
