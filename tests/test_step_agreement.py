"""The worked arithmetic, the JSON and the bound say the same thing, for every scenario the core accepts:
each is a reading of the solver's own terms."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings

from advisor.cli.estimate import result_json
from advisor.core.evaluate import evaluate
from advisor.core.fmt import num
from advisor.core.hardware import HardwareClass
from advisor.core.result import Result
from advisor.core.scenario import Scenario, Speculative
from tests.core.test_properties import scenarios

MEMORY_TERMS = ("weights", "kv", "host", "dequant", "streams", "attention")


def _step(r: Result, label: str) -> str | None:
    return next((s.text for s in r.steps if s.label == label), None)


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_terms_add_up_and_the_bound_is_the_longer_side(s: Scenario) -> None:
    r = evaluate(s)
    if not r.runs:
        assert r.step_ms is None and r.bound is None
        return
    t = r.step_ms
    assert t is not None
    assert t.memory == pytest.approx(sum(getattr(t, k) for k in MEMORY_TERMS), rel=1e-9, abs=1e-12)
    # a GPU overlaps streaming and arithmetic; on CPU cores the same threads do both, so they add
    on_cores = s.hardware.kind is HardwareClass.CPU
    longer = t.memory + t.compute if on_cores else max(t.memory, t.compute)
    assert t.total == pytest.approx(longer + t.fixed, rel=1e-9)
    assert r.bound == ("compute" if t.compute > t.memory else "memory")
    assert r.compute_bound == (r.bound == "compute")
    assert (_step(r, "Compute") is not None) == (r.bound == "compute")
    assert any("Compute-bound" in n for n in r.notes) == (r.bound == "compute")


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_decode_is_one_over_the_step_held_at_the_ceiling(s: Scenario) -> None:
    s = s.model_copy(update={"workload": s.workload.model_copy(update={"speculative": Speculative(enabled=False)})})
    r = evaluate(s)
    if not r.runs:
        return
    assert r.step_ms is not None and r.decode_tok_s is not None and r.decode_ceiling_tok_s is not None
    assert r.decode_tok_s == pytest.approx(min(1000 / r.step_ms.total, r.decode_ceiling_tok_s), rel=1e-9)


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_the_worked_text_shows_the_solver_terms(s: Scenario) -> None:
    r = evaluate(s)
    if not r.runs:
        return
    t = r.step_ms
    text = _step(r, "Decode realistic")
    assert t is not None and text is not None
    assert f"{num(t.total)} ms" in text
    if s.hardware.kind is HardwareClass.CPU:
        assert f"the cores' multiply-adds {num(t.compute)} ms" in text
    elif r.bound == "compute":
        assert text.startswith(f"compute {num(t.compute)} ms per step (longer than memory {num(t.memory)} ms)")
    else:
        for k in MEMORY_TERMS:
            if getattr(t, k) > 0:
                assert f"= {num(getattr(t, k))} ms" in text, k
    if t.fixed > 0:
        assert f"+ {num(t.fixed)} ms fixed per step" in text


@settings(max_examples=200, deadline=None)
@given(scenarios())
def test_the_json_carries_the_same_step_and_bound(s: Scenario) -> None:
    r = evaluate(s)
    out = json.loads(json.dumps(result_json(s, r)))
    assert out["bound"] == r.bound and out["compute_bound"] == r.compute_bound
    if r.step_ms is None:
        assert out["step_ms"] is None
        return
    assert set(out["step_ms"]) >= {"memory", "compute", "total", *MEMORY_TERMS, "fixed"}
    for key, value in r.step_ms.model_dump().items():
        assert math.isclose(out["step_ms"][key], value, rel_tol=1e-12)
    assert (out["step_ms"]["compute"] > out["step_ms"]["memory"]) == (out["bound"] == "compute")
