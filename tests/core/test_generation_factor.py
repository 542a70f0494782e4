"""The GPU architecture's factor on η: named from the hardware, fitted from the runs of one generation,
borrowed by chips without runs of their own, shown in the arithmetic, and off under an explicit η."""

from __future__ import annotations

from dataclasses import replace

import pytest

from advisor.catalog.convert import to_hardware
from advisor.catalog.loader import shipped_catalog
from advisor.core.calibration import CALIBRATION
from advisor.core.evaluate import evaluate
from advisor.core.hardware import Hardware, HardwareClass
from advisor.core.hardware_keys import generation_key
from advisor.core.inputs import backend_terms, decode_eta, generation_terms, machine_terms, terms_for
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.scenario import Scenario, Workload
from advisor.core.terms import MachineTerms
from tests.fitted_ranges import FACTOR, within

M8 = ModelArch(
    name="Llama 3.1 8B",
    total_params_b=8.03,
    layers=32,
    hidden=4096,
    heads=32,
    kv_heads=8,
    head_dim=128,
    vocab=128256,
    max_context=131072,
)
Q4 = Quant(name="q4_k_m", bits_per_weight=4.89)
HW = shipped_catalog().hardware


def _hw(entry_id: str) -> Hardware:
    return to_hardware(HW[entry_id])


@pytest.mark.parametrize(
    ("name", "kind", "want"),
    [
        ("Apple M3 Pro (18-core GPU), 36 GB", HardwareClass.UNIFIED, "Apple M3"),
        ("Apple M1 Max (32-core GPU), 64 GB", HardwareClass.UNIFIED, "Apple M1"),
        ("NVIDIA GeForce RTX 4070 Ti", HardwareClass.DISCRETE_GPU, "NVIDIA Ada"),
        ("NVIDIA RTX 5000 Ada Generation", HardwareClass.DISCRETE_GPU, "NVIDIA Ada"),  # not an RTX 50 card
        ("NVIDIA GeForce RTX 3090 24GB", HardwareClass.DISCRETE_GPU, "NVIDIA Ampere"),
        ("NVIDIA A100 80 GB SXM4", HardwareClass.DISCRETE_GPU, "NVIDIA Ampere"),
        ("NVIDIA H100 PCIe 80 GB", HardwareClass.DISCRETE_GPU, "NVIDIA Hopper"),
        ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", HardwareClass.DISCRETE_GPU, "NVIDIA Blackwell"),
        ("NVIDIA DGX Spark (GB10, 128 GB)", HardwareClass.UNIFIED, "NVIDIA Blackwell"),
        ("NVIDIA GeForce RTX 2080 Ti 11GB", HardwareClass.DISCRETE_GPU, "NVIDIA Turing"),
        ("AMD Radeon RX 7900 XTX", HardwareClass.DISCRETE_GPU, "AMD RDNA 3"),
        ("AMD Ryzen AI Max+ 395 (Strix Halo), 128 GB", HardwareClass.UNIFIED, "AMD RDNA 3"),
        ("AMD Radeon RX 9070 XT", HardwareClass.DISCRETE_GPU, "AMD RDNA 4"),
        ("AMD Radeon RX 6700 XT 12GB", HardwareClass.DISCRETE_GPU, "AMD RDNA 2"),
        ("AMD Instinct MI300X", HardwareClass.DISCRETE_GPU, "AMD CDNA"),
        ("Intel Arc B580", HardwareClass.DISCRETE_GPU, "Intel Battlemage"),
        ("Intel Arc A770 16 GB", HardwareClass.DISCRETE_GPU, "Intel Alchemist"),
        ("My GPU", HardwareClass.DISCRETE_GPU, None),  # custom hardware says no architecture
    ],
)
def test_the_architecture_comes_from_the_name(name: str, kind: HardwareClass, want: str | None) -> None:
    hw = Hardware(name=name, kind=kind, memory_gb=24, bandwidth_gbps=500, fp16_tflops=50)
    assert generation_key(hw) == want


def test_every_catalog_gpu_has_an_architecture_and_no_cpu_has_one() -> None:
    for entry in HW.values():
        hw = to_hardware(entry)
        assert (generation_key(hw) is None) == (hw.kind is HardwareClass.CPU), hw.name


def test_a_chip_without_runs_borrows_its_architectures_factor() -> None:
    # the RTX 4070 Ti Super has no training runs of its own; the Ada cards' runs (4090, 4080, 4070 Ti ...) set
    # the architecture's factor on the class's η
    s = Scenario(hardware=_hw("rtx-4070-ti-super"), model=M8, quant=Q4)
    ada = generation_terms(s)
    assert machine_terms(s) == MachineTerms() and ada == CALIBRATION.generations["NVIDIA Ada"]
    assert ada.rows > 1 and within(ada.decode, FACTOR)
    klass = terms_for(s.hardware.kind, s.workload.engine).decode.eta * backend_terms(s).decode
    assert decode_eta(s) == pytest.approx(klass * ada.decode, rel=1e-12)
    # the same card under a custom name is the class's
    custom = s.model_copy(update={"hardware": s.hardware.model_copy(update={"name": "My card"})})
    assert decode_eta(custom) == pytest.approx(klass, rel=1e-12)
    fast, plain = evaluate(s, explain=False).decode_tok_s, evaluate(custom, explain=False).decode_tok_s
    assert fast is not None and plain is not None and (fast > plain) == (ada.decode > 1.0)


def test_the_arithmetic_names_the_architecture_then_the_machine() -> None:
    s = Scenario(hardware=_hw("m3-max-40c-128gb"), model=M8, quant=Q4)
    gen, own = generation_terms(s), machine_terms(s)
    text = next(st.text for st in evaluate(s).steps if st.label == "Decode realistic")
    # each factor other than 1 (a factor of 1 is no factor), the architecture's first
    parts = [
        f"× {t.decode:.3g} {what} (fitted to {t.rows} decode runs)"
        for t, what in ((gen, "Apple M3 architecture"), (own, "this machine's own"))
        if t.decode != 1.0
    ]
    assert " ".join(parts) in text
    assert ("architecture" in text) == (gen.decode != 1.0) and ("machine's own" in text) == (own.decode != 1.0)
    # the class's η shown first is what is left when the factors are taken off
    klass = terms_for(s.hardware.kind, s.workload.engine).decode.eta
    assert f"η {klass:.2f}{' × ' if parts else ''}" in text


def test_an_explicit_eta_switches_it_off() -> None:
    s = Scenario(hardware=_hw("rtx-4070-ti-super"), model=M8, quant=Q4, workload=Workload(efficiency=0.7))
    assert decode_eta(s) == 0.7
    assert not any("architecture" in st.text for st in evaluate(s).steps)


def test_a_calibration_without_generations_leaves_eta_alone() -> None:
    s = Scenario(hardware=_hw("rtx-4090"), model=M8, quant=Q4)
    bare = replace(CALIBRATION, generations={})
    assert decode_eta(s, bare) == pytest.approx(decode_eta(s) / generation_terms(s).decode, rel=1e-12)


def test_an_architecture_under_vulkan_carries_its_own_factor() -> None:
    from advisor.core.hardware_keys import VULKAN_SUFFIX, vulkan_generation_key
    from advisor.core.terms import Backend

    fitted = [k for k in CALIBRATION.generations if k.endswith(VULKAN_SUFFIX)]
    assert fitted  # architectures whose Vulkan runs two or more sources published
    assert all(within(CALIBRATION.generations[k].decode, FACTOR) for k in fitted)
    b70 = _hw("arc-pro-b70")
    key = vulkan_generation_key(b70)
    assert key == "Intel Battlemage" + VULKAN_SUFFIX and key in CALIBRATION.generations
    vulkan = CALIBRATION.generations[key].decode
    # on the B70 the same builds decode about half as fast under Vulkan as under SYCL (two sources)
    assert vulkan < 0.8
    on = {b: Scenario(hardware=b70, model=M8, quant=Q4, workload=Workload(backend=b)) for b in Backend}
    sycl, vk = decode_eta(on[Backend.SYCL]), decode_eta(on[Backend.VULKAN])
    back = backend_terms(on[Backend.VULKAN]).decode / backend_terms(on[Backend.SYCL]).decode
    assert vk / sycl == pytest.approx(vulkan * back)
    # other backends do not carry it, and the worked line names it under Vulkan only
    assert CALIBRATION.vulkan_generation(b70, Backend.SYCL).decode == 1.0
    realistic = next(s.text for s in evaluate(on[Backend.VULKAN]).steps if s.label == "Decode realistic")
    assert "Intel Battlemage architecture under Vulkan (fitted to" in realistic
    assert "under Vulkan" not in next(s.text for s in evaluate(on[Backend.SYCL]).steps if s.label == "Decode realistic")
