"""The llama.cpp backend: a default per vendor, fitted factors on η, and the explicit-η contract."""

from __future__ import annotations

import pytest

from advisor.catalog.convert import to_hardware, to_model, to_quant
from advisor.catalog.loader import shipped_catalog
from advisor.core.calibration import CALIBRATION
from advisor.core.efficiency import Engine, default_eta
from advisor.core.evaluate import evaluate
from advisor.core.hardware import Hardware, HardwareClass
from advisor.core.hardware_keys import backend_runs_on, default_backend, resolve_backend, vulkan_vendor
from advisor.core.inputs import backend_in_use, backend_terms, build_inputs, decode_eta
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.scenario import Scenario, Workload
from advisor.core.terms import Backend, BackendTerms
from tests.fitted_ranges import VULKAN_PREFILL, within

NV = Hardware(name="NVIDIA GeForce RTX 4090", memory_gb=24, bandwidth_gbps=1008, fp16_tflops=165)
AMD = Hardware(name="AMD Radeon RX 7900 XTX", memory_gb=24, bandwidth_gbps=960, fp16_tflops=122.8)
APPLE = Hardware(
    name="Apple M3 Max (40-core GPU), 128 GB",
    kind=HardwareClass.UNIFIED,
    memory_gb=128,
    bandwidth_gbps=400,
    fp16_tflops=14.1,
    gpu_memory_fraction=0.75,
)
INTEL_MAC = Hardware(
    name="Intel MacBook Pro (Core i9, Radeon Pro 5600M 8 GB)", memory_gb=8, bandwidth_gbps=394, fp16_tflops=10.6
)
ARC = Hardware(name="Intel Arc B580", memory_gb=12, bandwidth_gbps=456, fp16_tflops=116)
CPU = Hardware(name="EPYC 9654", kind=HardwareClass.CPU, memory_gb=384, bandwidth_gbps=460, fp16_tflops=10)
CUSTOM_D = Hardware()  # "Custom hardware", discrete
CUSTOM_U = Hardware(kind=HardwareClass.UNIFIED, memory_gb=64, bandwidth_gbps=273, fp16_tflops=30)
M8 = ModelArch(name="8B", total_params_b=8.03, layers=32, heads=32, kv_heads=8, head_dim=128)


@pytest.mark.parametrize(
    ("hw", "backend"),
    [
        (NV, Backend.CUDA),
        (AMD, Backend.ROCM),
        (APPLE, Backend.METAL),
        (INTEL_MAC, Backend.METAL),
        (ARC, Backend.SYCL),
        (CPU, Backend.CPU),
        (CUSTOM_D, Backend.CUDA),
        (CUSTOM_U, Backend.METAL),
    ],
)
def test_default_backend_by_vendor_and_class(hw: Hardware, backend: Backend) -> None:
    assert default_backend(hw) is backend
    assert backend_in_use(Scenario(hardware=hw, model=M8)) is backend


def test_a_backend_that_cannot_run_falls_back_with_a_note() -> None:
    assert backend_runs_on(Backend.VULKAN, NV) and backend_runs_on(Backend.VULKAN, AMD)
    assert not backend_runs_on(Backend.CUDA, APPLE) and not backend_runs_on(Backend.METAL, NV)
    assert not backend_runs_on(Backend.VULKAN, CPU) and backend_runs_on(Backend.ROCM, CUSTOM_D)
    assert resolve_backend(APPLE, Backend.CUDA) is Backend.METAL
    r = evaluate(
        Scenario(hardware=APPLE, model=M8, quant=Quant(bits_per_weight=4.89), workload=Workload(backend=Backend.CUDA))
    )
    assert any("CUDA does not run" in n for n in r.notes)
    same = evaluate(Scenario(hardware=APPLE, model=M8, quant=Quant(bits_per_weight=4.89)))
    assert r.decode_tok_s == pytest.approx(same.decode_tok_s)


def test_backend_factors_multiply_the_fitted_etas() -> None:
    for backend, t in CALIBRATION.backends.items():
        hw = {Backend.METAL: APPLE, Backend.ROCM: AMD, Backend.VULKAN: AMD, Backend.SYCL: ARC}.get(backend, NV)
        s = Scenario(hardware=hw, model=M8, quant=Quant(bits_per_weight=4.89), workload=Workload(backend=backend))
        cls = CALIBRATION.get(hw.kind, Engine.LLAMA_CPP)
        assert backend_terms(s) == t
        # the architecture's (and its Vulkan one, under Vulkan) and the machine's own factors (1.0 without
        # published runs)
        own = CALIBRATION.generation(hw).decode * CALIBRATION.machine(hw).decode
        own *= CALIBRATION.vulkan_generation(hw, backend).decode
        assert own == pytest.approx(CALIBRATION.hardware_factor(hw, backend))
        # no memory delivers more than its datasheet bandwidth: the product stops at 1
        eta = min(cls.decode.eta * t.decode * own, 1.0)
        assert decode_eta(s) == pytest.approx(eta)
        inp = build_inputs(s)
        assert float(inp.fast_eta) == pytest.approx(eta * hw.scaling_efficiency)
        vulkan = CALIBRATION.vulkan_prefill_factor(hw, backend)
        assert float(inp.compute_eta) == pytest.approx(cls.prefill.eta * t.prefill * vulkan)
        d = default_eta(hw.kind, Engine.LLAMA_CPP, backend=backend)
        assert d.decode == pytest.approx(cls.decode.eta * t.decode)
    assert CALIBRATION.backends.get(Backend.CUDA, BackendTerms()) == BackendTerms()  # the reference


def test_mlx_and_vllm_have_no_backend_factor() -> None:
    for engine in (Engine.MLX, Engine.VLLM):
        s = Scenario(hardware=APPLE, model=M8, workload=Workload(engine=engine, backend=Backend.VULKAN))
        assert backend_terms(s) == BackendTerms()
        # the class's η times the architecture's and the machine's own factors, never above 1
        own = CALIBRATION.generation(APPLE).decode * CALIBRATION.machine(APPLE).decode
        assert decode_eta(s) == pytest.approx(min(CALIBRATION.get(HardwareClass.UNIFIED, engine).decode.eta * own, 1.0))


def test_explicit_eta_ignores_the_backend() -> None:
    """The contract: an explicit η means exactly η × ceiling, whatever the backend."""
    for backend in (None, *Backend):
        s = Scenario(
            hardware=APPLE,
            model=M8,
            quant=Quant(bits_per_weight=4.89),
            workload=Workload(context=4096, efficiency=0.7, compute_efficiency=0.5, backend=backend),
        )
        r = evaluate(s)
        assert r.decode_tok_s == pytest.approx(0.7 * (r.decode_ceiling_tok_s or 0), rel=1e-12)
        assert float(build_inputs(s).compute_eta) == pytest.approx(0.5)


def test_the_step_text_names_the_backend_factor() -> None:
    s = Scenario(hardware=AMD, model=M8, quant=Quant(bits_per_weight=4.89), workload=Workload(backend=Backend.VULKAN))
    t = CALIBRATION.backends.get(Backend.VULKAN)
    if t is None or t.decode == 1.0:
        pytest.skip("no Vulkan factor in the shipped calibration")
    steps = {st.label: st.text for st in evaluate(s).steps}
    assert f"× {t.decode:.2f} Vulkan" in steps["Decode realistic"]
    assert (f"× {t.prefill:.2f} Vulkan" in steps["Prefill"]) == (t.prefill != 1.0)  # a factor of 1 is no factor


def test_vulkan_prefill_goes_by_the_gpu_vendor() -> None:
    """Vulkan's matmuls reach the matrix units through each vendor's own cooperative-matrix extension."""
    for hw in (NV, AMD, ARC):
        f = CALIBRATION.vulkan_prefill_factor(hw, Backend.VULKAN)
        assert f == CALIBRATION.vulkan_prefill.get(vulkan_vendor(hw) or "", 1.0)
        assert within(f, VULKAN_PREFILL)
        assert CALIBRATION.vulkan_prefill_factor(hw, default_backend(hw)) == 1.0  # native backends: none
    assert vulkan_vendor(NV) == "NVIDIA" and vulkan_vendor(ARC) == "Intel" and vulkan_vendor(CUSTOM_D) is None
    assert CALIBRATION.vulkan_prefill_factor(CUSTOM_D, Backend.VULKAN) == 1.0


def test_nvidia_vulkan_prefill_lands_near_its_published_rate() -> None:
    """llama.cpp#21024: an RTX 3090 under Vulkan prefills Llama 3.1 8B Q4_0 at 4,753 tok/s (pp512), near
    its CUDA rate: NVIDIA's cooperative matrix 2 reaches the tensor cores."""
    cat = shipped_catalog()
    s = Scenario(
        hardware=to_hardware(cat.hardware["rtx-3090"]),
        model=to_model(cat.models["llama-3.1-8b"]),
        quant=to_quant(cat.quants["q4_0"]),
        workload=Workload(context=512, prompt_tokens=512, backend=Backend.VULKAN),
    )
    assert 4753 / 2 < (evaluate(s).prefill_tok_s or 0) < 4753 * 2
