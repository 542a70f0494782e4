"""Spin boxes built from pydantic fields: the field's bounds, title, unit and description become the
widget's range, label, suffix and tooltip, so the model stays the single source of each."""

from __future__ import annotations

import math
import types
from typing import Any, Union, cast, get_args, get_origin

import annotated_types as at
from pydantic import BaseModel
from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QAbstractSpinBox, QDoubleSpinBox, QSpinBox

BIG = 1e9


def _bounds(info: Any) -> tuple[float, float, bool]:
    lo, hi, strict_lo = -BIG, BIG, False
    for m in info.metadata:
        if isinstance(m, at.Ge):
            lo = float(cast(float, m.ge))
        elif isinstance(m, at.Gt):
            lo, strict_lo = float(cast(float, m.gt)), True
        elif isinstance(m, at.Le):
            hi = float(cast(float, m.le))
        elif isinstance(m, at.Lt):
            hi = float(cast(float, m.lt))
    return lo, hi, strict_lo


def _base_type(annotation: Any) -> tuple[type, bool]:
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        return args[0], True
    return annotation, False


def field_unit(model: type[BaseModel], name: str) -> str:
    extra = model.model_fields[name].json_schema_extra
    return str(extra.get("unit", "")) if isinstance(extra, dict) else ""


def field_title(model: type[BaseModel], name: str) -> str:
    return model.model_fields[name].title or name


def field_tooltip(model: type[BaseModel], name: str) -> str:
    info = model.model_fields[name]
    unit = field_unit(model, name)
    lo, hi, strict = _bounds(info)
    rng = f"{'>' if strict else '≥'} {lo:g}" if lo > -BIG else ""
    if hi < BIG:
        rng += f"{', ' if rng else ''}≤ {hi:g}"
    parts = [info.description or info.title or name]
    if unit:
        parts.append(f"Unit: {unit}.")
    if rng:
        parts.append(f"Range: {rng}.")
    return " ".join(parts)


def spin_for(
    model: type[BaseModel], name: str, decimals: int = 2, auto_text: str | None = None, maximum: float | None = None
) -> QSpinBox | QDoubleSpinBox:
    """A spin box for one numeric field. Optional fields get an `auto_text` shown at the minimum
    (the value that means "use the default")."""
    info = model.model_fields[name]
    kind, optional = _base_type(info.annotation)
    lo, hi, strict = _bounds(info)
    if maximum is not None:
        hi = min(hi, maximum)
    unit = field_unit(model, name)
    box: QSpinBox | QDoubleSpinBox
    if kind is int:
        box = QSpinBox()
        lo_i = int(lo) + (1 if strict else 0)
        box.setRange(lo_i - (1 if optional else 0), int(min(hi, 2**31 - 1)))
        box.setGroupSeparatorShown(True)
    else:
        box = QDoubleSpinBox()
        box.setDecimals(decimals)
        step = 10**-decimals
        lo_f = lo + step if strict else lo
        box.setRange(lo_f - (step if optional else 0.0), hi)
        box.setGroupSeparatorShown(True)
    if optional and auto_text:
        box.setSpecialValueText(auto_text)
    if unit:
        box.setSuffix(f" {unit}")
    box.setToolTip(field_tooltip(model, name))
    box.setAccessibleName(field_title(model, name))
    box.setKeyboardTracking(False)  # commit on Enter, focus-out or arrows: not on every keystroke
    box.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToNearestValue)
    box.setProperty("optional", optional)
    box.setObjectName(name)
    return box


def show_value(box: QSpinBox | QDoubleSpinBox, value: float | None) -> None:
    """Display a value without emitting a change (the store is the source, not the widget)."""
    target = box.minimum() if value is None or (isinstance(value, float) and math.isnan(value)) else value
    if box.value() == target:
        return  # setValue re-renders the text (and repaints) even when nothing changed
    with QSignalBlocker(box):
        if isinstance(box, QSpinBox):
            box.setValue(round(target))
        else:
            box.setValue(float(target))


def read_value(box: QSpinBox | QDoubleSpinBox) -> float | int | None:
    """The widget's value, or None when an optional field shows its 'auto' text."""
    if box.property("optional") and box.value() == box.minimum():
        return None
    return box.value()
