"""Hypothesis strategies read from the core's own schema: every field over its whole allowed range,
bounds included, so a bound that is too loose for the solver shows up as a failing example."""

from __future__ import annotations

import enum
import types
import typing
from typing import Any

import annotated_types as at
from hypothesis import strategies as st
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from advisor.core.hardware import HardwareClass
from advisor.core.scenario import Scenario


def _bounds(info: FieldInfo) -> tuple[float | None, float | None, bool, bool]:
    lo = hi = None
    lo_open = hi_open = False
    for m in info.metadata:
        if isinstance(m, at.Ge):
            lo = m.ge
        elif isinstance(m, at.Gt):
            lo, lo_open = m.gt, True
        elif isinstance(m, at.Le):
            hi = m.le
        elif isinstance(m, at.Lt):
            hi, hi_open = m.lt, True
    return lo, hi, lo_open, hi_open  # type: ignore[return-value]


def _for_type(tp: Any, info: FieldInfo) -> st.SearchStrategy[Any]:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*[st.none() if a is type(None) else _for_type(a, info) for a in typing.get_args(tp)])
    if origin is typing.Literal:
        return st.sampled_from(typing.get_args(tp))
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return st.sampled_from(list(tp))
    if tp is bool:
        return st.booleans()
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return model_dicts(tp)
    lo, hi, lo_open, hi_open = _bounds(info)
    if tp is int:
        return st.integers(
            int(lo) + lo_open if lo is not None else -(2**31), int(hi) - hi_open if hi is not None else 2**31
        )
    if tp is float:
        return st.floats(lo, hi, exclude_min=lo_open, exclude_max=hi_open, allow_nan=False, allow_infinity=False)
    if tp is str:
        return st.just("x")
    return st.nothing()


def model_dicts(model: type[BaseModel]) -> st.SearchStrategy[dict[str, Any]]:
    fields = {
        name: _for_type(info.annotation, info) for name, info in model.model_fields.items() if name != "feel_thresholds"
    }
    return st.fixed_dictionaries(fields)


def _fix(data: dict[str, Any]) -> dict[str, Any]:
    """Bring the draw inside the cross-field rules the validators enforce, so most examples are scenarios."""
    hw, m, w = data["hardware"], data["model"], data["workload"]
    if hw["kind"] is not HardwareClass.UNIFIED:
        hw["gpu_memory_fraction"] = 1.0
    if m["active_params_b"] is not None:
        m["active_params_b"] = min(m["active_params_b"], m["total_params_b"])
    if m["attention"] == "sliding":
        m["sliding_window"] = m["sliding_window"] or 4096
        m["sliding_layers"] = m["sliding_layers"] if m["sliding_layers"] is not None else 1
    if m["attention"] == "mla" and m["kv_lora_rank"] is None:
        m["kv_lora_rank"] = 512
    for small, big in (
        ("sliding_layers", "attention_layers"),
        ("attention_layers", "layers"),
        ("sliding_layers", "layers"),
        ("experts_active", "experts"),
        ("kv_heads", "heads"),
    ):
        if m[small] is not None and m[big] is not None and m[small] > m[big]:
            m[small] = m[big]
    if m["heads"] is not None and m["head_dim"] is not None and m["hidden"] is not None:
        m["head_dim"] = None  # heads × head_dim need not equal hidden, but is bounded by the checks on it
    del w  # every workload value is valid on its own
    return data


scenario_dicts = model_dicts(Scenario).map(_fix)
