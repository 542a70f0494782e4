"""Default realized fractions of peak (η) by hardware class and engine.

These are starting points, not measurements of the user's machine: the seeds put single-stream
decode at 60–75 % of the bandwidth ceiling on GPUs and serving stacks near 85 %. Each default
carries the band the UI draws around the realistic line."""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from advisor.core.hardware import HardwareClass


class Engine(StrEnum):
    LLAMA_CPP = "llama.cpp"
    VLLM = "vllm"
    MLX = "mlx"


class EtaDefault(NamedTuple):
    decode: float  # share of datasheet bandwidth realized by single-stream decode
    low: float  # band drawn around it
    high: float
    compute: float  # share of peak FP16 realized by prefill


_DEFAULTS: dict[tuple[HardwareClass, Engine], EtaDefault] = {
    (HardwareClass.DISCRETE_GPU, Engine.LLAMA_CPP): EtaDefault(0.70, 0.60, 0.75, 0.50),
    (HardwareClass.DISCRETE_GPU, Engine.VLLM): EtaDefault(0.80, 0.70, 0.85, 0.60),
    (HardwareClass.DISCRETE_GPU, Engine.MLX): EtaDefault(0.70, 0.60, 0.75, 0.50),
    (HardwareClass.UNIFIED, Engine.LLAMA_CPP): EtaDefault(0.65, 0.55, 0.75, 0.50),
    (HardwareClass.UNIFIED, Engine.VLLM): EtaDefault(0.65, 0.55, 0.75, 0.50),
    (HardwareClass.UNIFIED, Engine.MLX): EtaDefault(0.72, 0.60, 0.80, 0.55),
    (HardwareClass.CPU, Engine.LLAMA_CPP): EtaDefault(0.60, 0.45, 0.70, 0.40),
    (HardwareClass.CPU, Engine.VLLM): EtaDefault(0.55, 0.40, 0.65, 0.40),
    (HardwareClass.CPU, Engine.MLX): EtaDefault(0.60, 0.45, 0.70, 0.40),
}

# Layers left in system RAM are read by the CPU, which realizes less of its bandwidth than a GPU.
HOST_ETA = 0.60


def default_eta(kind: HardwareClass, engine: Engine) -> EtaDefault:
    return _DEFAULTS[(kind, engine)]
