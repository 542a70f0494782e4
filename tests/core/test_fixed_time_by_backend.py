"""The fixed time per step follows how the backend launches a token's kernels: llama.cpp's CUDA backend
captures them as one CUDA graph on any NVIDIA GPU, so a DGX Spark under CUDA pays the discrete class's t₀,
not the one unified-memory machines under Metal set; under Vulkan it keeps the unified class's."""

from __future__ import annotations

from advisor.catalog.convert import to_hardware
from advisor.catalog.loader import shipped_catalog
from advisor.core.calibration import CALIBRATION
from advisor.core.hardware import HardwareClass
from advisor.core.inputs import build_inputs
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.scenario import Scenario, Workload
from advisor.core.terms import Backend, Engine

M8 = ModelArch(name="8B", total_params_b=8.03, layers=32, heads=32, kv_heads=8, head_dim=128)
Q4 = Quant(name="Q4_K_M", bits_per_weight=4.85)
DISCRETE = CALIBRATION.get(HardwareClass.DISCRETE_GPU, Engine.LLAMA_CPP).decode.token_ms
UNIFIED = CALIBRATION.get(HardwareClass.UNIFIED, Engine.LLAMA_CPP).decode.token_ms


def _t0_ms(hardware_id: str, backend: Backend | None = None) -> float:
    hw = to_hardware(shipped_catalog().hardware[hardware_id])
    s = Scenario(hardware=hw, model=M8, quant=Q4, workload=Workload(backend=backend))
    return float(build_inputs(s).token_time) * 1000.0


def test_the_classes_differ() -> None:
    assert DISCRETE < UNIFIED  # one CUDA graph per token against Metal's command buffers


def test_cuda_on_unified_memory_takes_the_discrete_t0() -> None:
    assert CALIBRATION.token_ms(HardwareClass.UNIFIED, Engine.LLAMA_CPP, Backend.CUDA) == DISCRETE
    assert _t0_ms("dgx-spark") == DISCRETE  # its default backend is CUDA
    assert _t0_ms("dgx-spark", Backend.VULKAN) == UNIFIED


def test_other_backends_keep_their_class() -> None:
    assert CALIBRATION.token_ms(HardwareClass.UNIFIED, Engine.LLAMA_CPP, Backend.METAL) == UNIFIED
    assert (
        CALIBRATION.token_ms(HardwareClass.UNIFIED, Engine.MLX, Backend.CUDA)
        == CALIBRATION.get(HardwareClass.UNIFIED, Engine.MLX).decode.token_ms
    )
    assert CALIBRATION.token_ms(HardwareClass.DISCRETE_GPU, Engine.LLAMA_CPP, Backend.VULKAN) == DISCRETE
