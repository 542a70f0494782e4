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
from advisor.core.terms import CUDA_BATCHED_GRAPHS_SINCE, CURRENT_ERA, Backend, BuildEra, Engine
from advisor.validation.data import load_dataset
from advisor.validation.fit_params import graphless

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


def test_batched_cuda_steps_ran_without_graphs_before_february_2026() -> None:
    """Until llama.cpp PR #19645 a CUDA step of more than one token per sequence set ran kernel by kernel: a
    batched row of such a build pays what builds before CUDA graphs paid; a single stream, a later build, or
    another backend pays the row's own era's t₀."""
    early = CALIBRATION.era_token.get((BuildEra.BEFORE_2024_05, Backend.CUDA), 1.0)
    cpp, cuda, now = Engine.LLAMA_CPP, Backend.CUDA, CURRENT_ERA
    assert early > 1.0  # the fit found CUDA graphs saving time
    assert CALIBRATION.token_factor(cpp, now, cuda, graphless=True) == early
    assert CALIBRATION.token_factor(cpp, now, cuda) == 1.0
    assert CALIBRATION.token_factor(cpp, now, Backend.METAL, graphless=True) == 1.0
    assert CALIBRATION.token_factor(Engine.VLLM, now, cuda, graphless=True) == 1.0


def test_which_rows_ran_graphless() -> None:
    cases = load_dataset(shipped_catalog()).cases
    marked = [c for c in cases if graphless(c)]
    assert marked  # the DGX Spark's batched-bench rows of a November 2025 build
    for c in marked:
        assert c.row.batch > 1 and c.row.build_date < CUDA_BATCHED_GRAPHS_SINCE and c.row.backend is Backend.CUDA
    assert not any(graphless(c) for c in cases if c.row.batch == 1 or c.row.build_date >= CUDA_BATCHED_GRAPHS_SINCE)
