"""A catalog machine's own fitted factor on η: applied by name, off for custom hardware and explicit η."""

from __future__ import annotations

from dataclasses import replace

import pytest

from advisor.catalog.convert import to_hardware
from advisor.catalog.loader import shipped_catalog
from advisor.core.calibration import CALIBRATION
from advisor.core.evaluate import evaluate
from advisor.core.hardware_keys import machine_key
from advisor.core.inputs import backend_terms, decode_eta, machine_terms, terms_for
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.scenario import Scenario, Workload
from advisor.core.terms import MachineTerms

M8 = ModelArch(name="8B", total_params_b=8.03, layers=32, heads=32, kv_heads=8, head_dim=128)
Q4 = Quant(bits_per_weight=4.89)
NAME = "NVIDIA GeForce RTX 3090"


@pytest.fixture(scope="module")
def rtx3090() -> Scenario:
    hw = to_hardware(shipped_catalog().hardware["rtx-3090"])
    assert hw.name == NAME
    return Scenario(hardware=hw, model=M8, quant=Q4)


def test_every_fitted_machine_is_a_catalog_chip() -> None:
    chips = {machine_key(to_hardware(e)) for e in shipped_catalog().hardware.values()}
    assert CALIBRATION.machines and set(CALIBRATION.machines) <= chips
    for mt in CALIBRATION.machines.values():
        assert 0.5 < mt.decode < 1.5 and mt.rows >= 1


def test_memory_sizes_of_one_chip_share_its_factor() -> None:
    """The M2 Ultra 76-core with 128 or 192 GB is one chip with one bandwidth: one factor, so a model that
    fits in both runs at the same speed on both; a chip of another bandwidth is another key."""
    hw = shipped_catalog().hardware
    big, small = to_hardware(hw["m2-ultra-76c-192gb"]), to_hardware(hw["m2-ultra-76c-128gb"])
    assert machine_key(big) == machine_key(small) == "Apple M2 Ultra (76-core GPU) @ 800 GB/s"
    assert CALIBRATION.machine(big) == CALIBRATION.machine(small)
    # and wherever a chip sold in several memory sizes has a fitted factor, every size carries it
    by_key: dict[str, list[MachineTerms]] = {}
    for e in hw.values():
        h = to_hardware(e)
        by_key.setdefault(machine_key(h), []).append(CALIBRATION.machine(h))
    shared = [terms for key, terms in by_key.items() if len(terms) > 1 and key in CALIBRATION.machines]
    assert shared and all(len(set(t)) == 1 and t[0] != MachineTerms() for t in shared)
    spark = to_hardware(hw["dgx-spark"])
    assert machine_key(spark) == "NVIDIA DGX Spark (GB10) @ 273 GB/s"  # "GB10" is not a memory size
    s = Scenario(hardware=big, model=M8, quant=Q4)
    assert evaluate(s, explain=False).decode_tok_s == pytest.approx(
        evaluate(s.model_copy(update={"hardware": small}), explain=False).decode_tok_s
    )
    # an edited bandwidth is another machine: the factor no longer applies
    assert machine_key(big.model_copy(update={"bandwidth_gbps": 900.0})) != machine_key(big)


def test_the_factor_multiplies_the_class_and_backend_eta(rtx3090: Scenario) -> None:
    s = rtx3090
    own = CALIBRATION.machine(s.hardware)
    assert own != MachineTerms() and own.rows >= 1  # the 3090 has training runs of its own
    klass = terms_for(s.hardware.kind, s.workload.engine).decode.eta * backend_terms(s).decode
    ampere = CALIBRATION.generation(s.hardware).decode  # the architecture's factor comes first
    assert decode_eta(s) == pytest.approx(klass * ampere * own.decode, rel=1e-12)
    # the same machine under another name is custom hardware: no published runs, no architecture, no factor
    custom = s.model_copy(update={"hardware": s.hardware.model_copy(update={"name": "My 3090"})})
    assert machine_terms(custom) == MachineTerms()
    assert decode_eta(custom) == pytest.approx(klass, rel=1e-12)
    # the realistic figure moves with η: the catalog 3090 is as much faster or slower than the custom copy
    # as its architecture's and own factors together say (no fixed term depends on η). 16-bit weights: a
    # quantized file's unpacking runs at the vector rate, which the architecture sets and a custom name lacks
    s, custom = (x.model_copy(update={"quant": Quant(name="F16", bits_per_weight=16.0)}) for x in (s, custom))
    fast, plain = evaluate(s, explain=False).decode_tok_s, evaluate(custom, explain=False).decode_tok_s
    assert (fast > plain) == (ampere * own.decode > 1.0) and (fast == plain) == (ampere * own.decode == 1.0)


def test_an_explicit_eta_switches_it_off(rtx3090: Scenario) -> None:
    s = rtx3090.model_copy(update={"workload": Workload(efficiency=0.7)})
    assert decode_eta(s) == 0.7
    r = evaluate(s)
    assert not any("this machine's own" in st.text for st in r.steps)


def test_the_arithmetic_names_the_factor(rtx3090: Scenario) -> None:
    own = CALIBRATION.machine(rtx3090.hardware)
    text = " ".join(st.text for st in evaluate(rtx3090).steps)
    named = f"× {own.decode:.3g} this machine's own (fitted to {own.rows} decode runs)" in text
    assert named == (own.decode != 1.0) and ("this machine's own" in text) == named  # a factor of 1 is no factor


def test_a_calibration_without_machines_leaves_eta_alone(rtx3090: Scenario) -> None:
    bare = replace(CALIBRATION, machines={})
    s = rtx3090
    assert decode_eta(s, bare) == pytest.approx(decode_eta(s) / CALIBRATION.machine(s.hardware).decode, rel=1e-12)
