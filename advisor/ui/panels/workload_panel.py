"""Workload: context (a log slider), prompt and output, streams, threshold, η, engine, offload,
speculative decoding, and presets."""

from __future__ import annotations

import math
from typing import get_args

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from advisor.core.efficiency import BACKEND_LABELS, Backend, Engine, default_backend, default_eta, resolve_backend
from advisor.core.inputs import hardware_factors
from advisor.core.presets import PRESETS, preset_changes
from advisor.core.scenario import Speculative, Workload
from advisor.ui.fields import read_value, show_value, spin_for
from advisor.ui.store import Snapshot, Store

MIN_CONTEXT = 512
SLIDER_STEPS = 1000  # slider positions between 512 and the model's maximum, on a log scale

OFFLOAD_LABELS = {
    "layers": "whole layers to host RAM (-ngl)",
    "experts": "MoE experts to host RAM first",
    "kv": "KV cache in host RAM (-nkvo)",
    "auto": "auto: the fastest that fits",
}


def slider_to_context(pos: int, max_context: int) -> int:
    hi = max(max_context, MIN_CONTEXT + 1)
    value = math.exp(math.log(MIN_CONTEXT) + (math.log(hi) - math.log(MIN_CONTEXT)) * pos / SLIDER_STEPS)
    # Round to a friendly multiple so dragging lands on numbers people type.
    step = 256 if value < 16_384 else 1024
    return int(min(max(round(value / step) * step, MIN_CONTEXT), hi))


def context_to_slider(context: int, max_context: int) -> int:
    hi = max(max_context, MIN_CONTEXT + 1)
    c = min(max(context, MIN_CONTEXT), hi)
    return round(SLIDER_STEPS * (math.log(c) - math.log(MIN_CONTEXT)) / (math.log(hi) - math.log(MIN_CONTEXT)))


class WorkloadPanel(QWidget):
    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.preset = QComboBox()
        self.preset.addItem("Preset…", None)
        for name in PRESETS:
            self.preset.addItem(name, name)
        self.preset.setToolTip("Fill context, prompt, output, streams and threshold for a common situation")

        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, SLIDER_STEPS)
        self.slider.setToolTip("Tokens in the KV cache during generation, 512 to the model's maximum (log scale)")
        self.slider.setAccessibleName("Context length")
        self.spins = {
            "context": spin_for(Workload, "context"),
            "prompt_tokens": spin_for(Workload, "prompt_tokens"),
            "output_tokens": spin_for(Workload, "output_tokens"),
            "streams": spin_for(Workload, "streams"),
            "interactive_tok_s": spin_for(Workload, "interactive_tok_s", decimals=1),
            "efficiency": spin_for(Workload, "efficiency", decimals=2, auto_text="auto"),
            "gpu_layers": spin_for(Workload, "gpu_layers", auto_text="as many as fit"),
            "threads": spin_for(Workload, "threads", auto_text="auto"),
            "prefill_rate": spin_for(Workload, "prefill_rate", decimals=0, auto_text="estimate"),
            "overhead_gb": spin_for(Workload, "overhead_gb", decimals=1),
            "min_bits": spin_for(Workload, "min_bits", decimals=1),
        }
        self.engine = QComboBox()
        for e in Engine:
            self.engine.addItem(e.value, e.value)
        self.engine.setToolTip("Inference engine: sets the default η and how offloaded weights are read")
        self.backend = QComboBox()
        self.backend.addItem("auto", None)
        for b, label in BACKEND_LABELS.items():
            self.backend.addItem(label, b.value)
        self.backend.setToolTip(Workload.model_fields["backend"].description or "")
        self.flash = QCheckBox("Flash attention")
        self.flash.setToolTip(Workload.model_fields["flash_attention"].description or "")
        # shown only where the backend is SYCL, beside flash attention (no row of its own)
        self.sycl_f16 = QCheckBox("SYCL FP16 build")
        self.sycl_f16.setToolTip(Workload.model_fields["sycl_f16"].description or "")
        self.sycl_f16.setAccessibleName("SYCL FP16 build")
        self.offload = QComboBox()
        for key in get_args(Workload.model_fields["offload"].annotation):  # the field's values, in its order
            self.offload.addItem(OFFLOAD_LABELS.get(key, key), key)
        self.offload.setToolTip(Workload.model_fields["offload"].description or "")

        self.spec_on = QCheckBox("Speculative decoding")
        self.spec_on.setToolTip("A small draft model proposes tokens; the big model verifies them in one pass")
        self.spec = {
            "draft_params_b": spin_for(Speculative, "draft_params_b", decimals=2),
            "draft_length": spin_for(Speculative, "draft_length"),
            "acceptance": spin_for(Speculative, "acceptance", decimals=2),
        }

        form = QFormLayout()
        form.addRow("Preset", self.preset)
        form.addRow("Context", self.spins["context"])
        form.addRow(self.slider)  # the whole panel's width: a drag moves the context a few steps per pixel
        for name in ("prompt_tokens", "output_tokens", "streams", "interactive_tok_s", "efficiency"):
            form.addRow(Workload.model_fields[name].title or name, self.spins[name])
        form.addRow("Engine", self.engine)
        form.addRow("Backend", self.backend)
        build_row = QHBoxLayout()
        build_row.addWidget(self.flash)
        build_row.addWidget(self.sycl_f16)
        build_row.addStretch(1)
        form.addRow("", build_row)
        form.addRow("Offload", self.offload)
        for name in ("gpu_layers", "threads", "prefill_rate", "overhead_gb", "min_bits"):
            form.addRow(Workload.model_fields[name].title or name, self.spins[name])
        spec_box = QGroupBox()
        spec_form = QFormLayout(spec_box)
        spec_form.addRow(self.spec_on)
        for name, box in self.spec.items():
            spec_form.addRow(Speculative.model_fields[name].title or name, box)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(spec_box)
        lay.addStretch(1)

        self.preset.activated.connect(self._preset)
        self._drag_started = False  # the slider is held down and its drag has made its first edit
        self.slider.sliderPressed.connect(lambda: setattr(self, "_drag_started", False))
        self.slider.valueChanged.connect(self._slid)
        for name, box in self.spins.items():
            box.valueChanged.connect(lambda _v, n=name: self._edited(n))
        self.engine.currentIndexChanged.connect(
            lambda _i: store.update("workload", "Change engine", engine=self.engine.currentData())
        )
        self.backend.currentIndexChanged.connect(
            lambda _i: store.update("workload", "Change backend", backend=self.backend.currentData())
        )
        self.flash.toggled.connect(
            lambda on: store.update("workload", "Turn flash attention " + ("on" if on else "off"), flash_attention=on)
        )
        self.sycl_f16.toggled.connect(
            lambda on: store.update("workload", "SYCL FP16 build " + ("on" if on else "off"), sycl_f16=on)
        )
        self.offload.currentIndexChanged.connect(
            lambda _i: store.update("workload", "Change offload", offload=self.offload.currentData())
        )
        self.spec_on.toggled.connect(lambda on: store.update_speculative(enabled=on))
        for name, box in self.spec.items():
            box.valueChanged.connect(lambda _v, n=name: store.update_speculative(**{n: read_value(self.spec[n])}))
        self._shown_rest: tuple[object, ...] = ()  # what the fields other than the context last showed
        store.changed.connect(self.show_snapshot)
        self.show_snapshot(store.snapshot)

    def _preset(self, _index: int) -> None:
        name = self.preset.currentData()
        if name:
            max_ctx = self.store.session.scenario.model.max_context
            self.store.update("workload", f"Preset: {name}", **preset_changes(name, max_ctx))
        with QSignalBlocker(self.preset):
            self.preset.setCurrentIndex(0)

    def _slid(self, pos: int) -> None:
        ctx = slider_to_context(pos, self.store.session.scenario.model.max_context)
        # One drag is one undo step: every move after the first carries on the drag's edit.
        continues = self.slider.isSliderDown() and self._drag_started
        self._drag_started = self.slider.isSliderDown()
        (self.store.continue_update if continues else self.store.update)("workload", "Drag context", context=ctx)

    def _edited(self, name: str) -> None:
        self.store.update(
            "workload", f"Edit {Workload.model_fields[name].title}", **{name: read_value(self.spins[name])}
        )

    def _show_threads(self, cores: int) -> None:
        """Empty threads means the machine's physical cores: the auto text says how many."""
        box = self.spins["threads"]
        auto = f"auto ({cores} core{'s' if cores != 1 else ''})"
        if box.specialValueText() != auto:
            box.setSpecialValueText(auto)
            box.setToolTip(
                f"CPU threads (llama.cpp -t), in threads; auto: the host's {cores} physical cores. They do "
                "the host-side work: weights or KV cache placed in host RAM are computed by the CPU, and a "
                "CPU-only machine computes everything with them. Fewer threads make that work slower; "
                "more than the physical cores add nothing."
            )

    def show_snapshot(self, snap: Snapshot) -> None:
        s = snap.session.scenario
        w = s.workload
        with QSignalBlocker(self.slider):
            self.slider.setValue(context_to_slider(w.context, s.model.max_context))
        show_value(self.spins["context"], w.context)
        rest = (s.hardware, s.model, w.model_copy(update={"context": 0}))
        if rest == self._shown_rest:  # a context drag: the other fields stand as they are
            return
        self._shown_rest = rest
        for name, box in self.spins.items():
            show_value(box, getattr(w, name))
        backend = resolve_backend(s.hardware, w.backend)
        d = default_eta(s.hardware.kind, w.engine, backend=backend, machine=s.hardware)
        auto_backend = f"auto ({BACKEND_LABELS[default_backend(s.hardware)]})"
        if self.backend.itemText(0) != auto_backend:
            self.backend.setItemText(0, auto_backend)
        self.backend.setEnabled(w.engine is Engine.LLAMA_CPP)
        self.flash.setEnabled(w.engine is Engine.LLAMA_CPP and w.efficiency is None)
        with QSignalBlocker(self.flash):
            self.flash.setChecked(w.flash_attention)
        self.sycl_f16.setVisible(w.engine is Engine.LLAMA_CPP and backend is Backend.SYCL)
        with QSignalBlocker(self.sycl_f16):
            self.sycl_f16.setChecked(w.sycl_f16)
        auto = f"auto ({d.decode:.2f})"
        factors = [
            ("the " + key + " architecture's" if key else "this machine's own")
            + f" factor {t.decode:.3f} from {t.rows} published decode runs"
            for key, t in hardware_factors(s)
        ]
        own_text = f", with {' and '.join(factors)}" if factors else ""
        tip = (
            f"{Workload.model_fields['efficiency'].description}. Now: fitted η {d.decode:.2f} for this class, "
            f"engine and backend{own_text}; realistic band {d.low / d.decode - 1:+.0%} to "
            f"{d.high / d.decode - 1:+.0%} of the line."
        )
        box = self.spins["efficiency"]
        if box.specialValueText() != auto or box.toolTip() != tip:
            box.setSpecialValueText(auto)
            box.setToolTip(tip)
        self._show_threads(s.hardware.host_threads)
        if self.spins["gpu_layers"].maximum() != (s.model.layers or 1000):
            with QSignalBlocker(self.spins["gpu_layers"]):
                self.spins["gpu_layers"].setMaximum(s.model.layers or 1000)
        backend_value = w.backend.value if w.backend is not None else None
        for combo, value in ((self.engine, w.engine.value), (self.offload, w.offload), (self.backend, backend_value)):
            with QSignalBlocker(combo):
                combo.setCurrentIndex(combo.findData(value))
        with QSignalBlocker(self.spec_on):
            self.spec_on.setChecked(w.speculative.enabled)
        for name, box in self.spec.items():
            show_value(box, getattr(w.speculative, name))
            box.setEnabled(w.speculative.enabled)
