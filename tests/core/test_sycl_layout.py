"""SYCL's reordered weight layout: the weight types whose decode kernels read it stream at the backend's η; the
others (the i-quants, MXFP4, and in older builds every type) at the fitted plain-layout share of it."""

from __future__ import annotations

import pytest

from advisor.catalog.convert import to_hardware
from advisor.catalog.loader import shipped_catalog
from advisor.core.calibration import CALIBRATION
from advisor.core.evaluate import evaluate
from advisor.core.inputs import build_inputs
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.roofline import solve
from advisor.core.scenario import Scenario, Workload
from advisor.core.sycl_layout import layout_factor, plain_layout, weight_type
from advisor.core.terms import Backend, Engine
from tests.fitted_ranges import SYCL_PLAIN_ETA, within

M27 = ModelArch(name="27B", total_params_b=27.0, layers=64, heads=24, kv_heads=4, head_dim=256)
MOE = ModelArch(
    name="35B-A3B", total_params_b=35.0, active_params_b=3.0, layers=40, heads=16, kv_heads=2, head_dim=256,
    experts=256, experts_active=8,
)  # fmt: skip
IQ4 = Quant(name="IQ4_NL", bits_per_weight=4.5)
Q4K = Quant(name="Q4_K_S", bits_per_weight=4.5)  # the same bytes per weight, a type with a reordered kernel


@pytest.mark.parametrize(
    ("name", "wtype"),
    [
        ("Q4_K_M", "Q4_K"),
        ("q8_0", "Q8_0"),
        ("IQ4_NL", "IQ4_NL"),
        ("MXFP4", "MXFP4"),
        ("UD-Q3_K_XL", "Q3_K"),
        ("Llama 3.1 70B Instruct (IQ3_XS GGUF)", "IQ3_XS"),
        ("F16", None),
        ("BF16", None),
        ("as printed", None),
    ],
)
def test_weight_type_from_a_quant_name(name: str, wtype: str | None) -> None:
    assert weight_type(name) == wtype


def test_which_builds_read_which_types_reordered() -> None:
    sycl, cpp = Backend.SYCL, Engine.LLAMA_CPP
    assert plain_layout(sycl, cpp, "IQ4_NL", moe=False)  # no reordered kernel in any build
    assert plain_layout(sycl, cpp, "MXFP4", moe=True)
    assert not plain_layout(sycl, cpp, "Q4_K", moe=False)  # a current build
    assert plain_layout(sycl, cpp, "Q4_K", moe=False, build_date="2024-08")  # before the first reordered kernels
    assert plain_layout(sycl, cpp, "Q2_K", moe=False, build_date="2026-06")
    assert not plain_layout(sycl, cpp, "Q2_K", moe=False)
    # experts got their own reordered path later, and only for three K-quants
    assert plain_layout(sycl, cpp, "Q4_K", moe=True, build_date="2026-04")
    assert not plain_layout(sycl, cpp, "Q4_K", moe=True)
    assert plain_layout(sycl, cpp, "Q8_0", moe=True)
    assert not plain_layout(sycl, cpp, "Q8_0", moe=False)
    # other backends, other engines, and a type the name does not say: no term
    assert not plain_layout(Backend.VULKAN, cpp, "IQ4_NL", moe=False)
    assert not plain_layout(Backend.CUDA, cpp, "IQ4_NL", moe=False)
    assert not plain_layout(sycl, Engine.VLLM, "IQ4_NL", moe=False)
    assert not plain_layout(sycl, cpp, None, moe=False)


def test_fitted_share_is_physical() -> None:
    assert within(CALIBRATION.sycl_plain_eta, SYCL_PLAIN_ETA)


def _b70(quant: Quant, backend: Backend, model: ModelArch = M27) -> Scenario:
    hw = to_hardware(shipped_catalog().hardware["arc-pro-b70"])
    return Scenario(hardware=hw, model=model, quant=quant, workload=Workload(backend=backend))


def test_plain_layout_decodes_slower_on_sycl_only() -> None:
    plain, reordered = evaluate(_b70(IQ4, Backend.SYCL)), evaluate(_b70(Q4K, Backend.SYCL))
    ratio = plain.decode_tok_s / reordered.decode_tok_s
    # the weights' stream is most of a 27B's step: nearly the share itself, never faster
    assert CALIBRATION.sycl_plain_eta - 0.05 < ratio < 1.0
    vk = evaluate(_b70(IQ4, Backend.VULKAN)).decode_tok_s / evaluate(_b70(Q4K, Backend.VULKAN)).decode_tok_s
    assert vk == pytest.approx(1.0, rel=1e-9)


def test_moe_experts_count_by_their_own_path() -> None:
    q8 = Quant(name="Q8_0", bits_per_weight=8.5)
    assert layout_factor(_b70(q8, Backend.SYCL, MOE), CALIBRATION) == CALIBRATION.sycl_plain_eta
    assert layout_factor(_b70(q8, Backend.SYCL), CALIBRATION) == 1.0
    assert layout_factor(_b70(Quant(name="Q4_K_M", bits_per_weight=4.85), Backend.SYCL, MOE), CALIBRATION) == 1.0


def _worked(s: Scenario) -> str:
    return " ".join(x.text for x in evaluate(s).steps)


def test_worked_arithmetic_names_the_layout() -> None:
    assert f"× {CALIBRATION.sycl_plain_eta:.2f} SYCL plain block layout (no reordered IQ4_NL kernel)" in _worked(
        _b70(IQ4, Backend.SYCL)
    )
    assert "plain block layout" not in _worked(_b70(Q4K, Backend.SYCL))


def test_layout_slows_the_weights_not_the_kv_cache() -> None:
    deep = Workload(context=16384, backend=Backend.SYCL)
    scenarios = (_b70(q, Backend.SYCL).model_copy(update={"workload": deep}) for q in (IQ4, Q4K))
    plain, reordered = (solve(build_inputs(s)) for s in scenarios)
    assert float(plain.t_kv) == pytest.approx(float(reordered.t_kv), rel=1e-9)
    assert float(plain.t_weights) == pytest.approx(float(reordered.t_weights) / CALIBRATION.sycl_plain_eta, rel=1e-9)
