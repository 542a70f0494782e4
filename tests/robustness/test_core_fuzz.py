"""The core over the schema's whole allowed range: a scenario is either refused by validation or
evaluated to finite, non-negative numbers (never an exception, NaN, inf or a negative speed)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from pydantic import ValidationError

from advisor.core.evaluate import evaluate
from advisor.core.result import Result
from advisor.core.scenario import Scenario
from tests.robustness.schema_strategies import scenario_dicts


def _numbers(obj: Any) -> list[float]:
    if isinstance(obj, dict):
        return [x for v in obj.values() for x in _numbers(v)]
    if isinstance(obj, list | tuple):
        return [x for v in obj for x in _numbers(v)]
    return [float(obj)] if isinstance(obj, int | float) and not isinstance(obj, bool) else []


def check(data: dict[str, Any]) -> Result | None:
    try:
        s = Scenario.model_validate(data)
    except ValidationError:
        return None  # refused up front: the one allowed failure
    r = evaluate(s, explain=False)
    for v in _numbers(r.model_dump()):
        assert math.isfinite(v) and v >= 0, (v, s)
    if r.runs:
        assert r.decode_tok_s is not None and r.decode_tok_s > 0
        assert r.prefill_tok_s is not None and r.prefill_tok_s > 0
    return r


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario_dicts)
def test_whole_range_fast(data: dict[str, Any]) -> None:
    check(data)


@pytest.mark.slow
@settings(max_examples=10_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario_dicts)
def test_whole_range_ten_thousand(data: dict[str, Any]) -> None:
    check(data)


@pytest.mark.parametrize(
    "field",
    [
        ("quant", "bits_per_weight", 1e-3),
        ("workload", "prefill_rate", 5e-324),
        ("hardware", "bandwidth_gbps", 1e-300),
        ("workload", "efficiency", 1e-300),
        ("hardware", "fp16_tflops", 1e-300),
        ("model", "total_params_b", 5e-324),
    ],
)
def test_the_reported_tiny_values_are_refused(field: tuple[str, str, float]) -> None:
    section, name, value = field
    with pytest.raises(ValidationError, match=name):
        Scenario.model_validate({section: {name: value}})


def test_the_extremes_together_stay_finite() -> None:
    slowest = {
        "hardware": {"bandwidth_gbps": 0.1, "fp16_tflops": 0.001, "memory_gb": 100_000, "devices": 64},
        "model": {"total_params_b": 10_000},
        "quant": {"bits_per_weight": 64},
        "workload": {
            "efficiency": 0.01,
            "compute_efficiency": 0.01,
            "context": 100_000_000,
            "prompt_tokens": 100_000_000,
            "output_tokens": 10_000_000,
            "prefill_rate": 0.01,
        },
    }
    r = check(slowest)
    assert r is not None and r.runs and r.decode_tok_s is not None and 0 < r.decode_tok_s < 1e-3
    fastest = {
        "hardware": {"bandwidth_gbps": 100_000, "fp16_tflops": 100_000, "memory_gb": 100_000},
        "model": {"total_params_b": 1e-9},
        "quant": {"bits_per_weight": 1},
        "workload": {"efficiency": 1, "context": 0, "prompt_tokens": 0, "output_tokens": 0},
    }
    r = check(fastest)
    assert r is not None and r.runs


def test_a_model_wholly_in_host_memory_has_no_negative_device_share() -> None:
    """A huge MoE on a 1 GB card: every weight goes to the host, and the device's share, a
    difference of two near-equal sums, must come out as 0, not -1.6e-11 GB (a case hypothesis found)."""
    spilled = {
        "hardware": {
            "memory_gb": 1.0,
            "bandwidth_gbps": 1.0,
            "fp16_tflops": 1.0,
            "host_memory_gb": 0.0,
            "host_bandwidth_gbps": 1.0,
            "host_link_gbps": 1.0,
            "host_threads": 1,
            "host_gflops_per_thread": 1.0,
            "disk_read_gbps": 1.0,
            "split": "tensor",
            "tp_scaling": 0.0,
            "peer_link_gbps": 1.0,
        },
        "model": {
            "total_params_b": 69128.0,
            "active_params_b": 44744.0,
            "layers": 1,
            "hidden": 1,
            "heads": 1,
            "kv_heads": 1,
            "max_context": 1,
            "experts": 244,
            "experts_active": 1,
            "attention_layers": 0,
            "kv_bytes_per_token_override": 0.0,
        },
        "quant": {"bits_per_weight": 13.141564476234372, "dense_bits_per_weight": 6.0},
        "workload": {
            "context": 0,
            "prompt_tokens": 0,
            "output_tokens": 0,
            "interactive_tok_s": 1.0,
            "efficiency": 1.0,
            "flash_attention": False,
            "offload": "layers",
            "prefill_rate": 1.0,
            "overhead_gb": 0.0,
            "min_bits": 0.0,
            "speculative": {"enabled": True, "draft_params_b": 0.5, "draft_length": 1, "acceptance": 0.0},
        },
    }
    r = check(spilled)
    assert r is not None and r.placement is not None
    assert r.placement.weights_device_gb == 0.0
    assert r.placement.weights_host_gb + r.placement.weights_disk_gb > 60_000
