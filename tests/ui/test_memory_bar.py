"""The memory bar names every part in its legend and shows the host share when layers are offloaded."""

from __future__ import annotations

import re

import pytest
from PySide6.QtGui import QColor

from advisor.core.fmt import num
from advisor.ui.main_window import MainWindow


def _legend(window: MainWindow) -> str:
    return re.sub(r"<[^>]+>|&nbsp;|&#\d+;", " ", window.numbers_panel.bar.legend.text())


def test_legend_names_each_part_and_the_free_memory(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    r = window.store.snapshot.result
    assert r.fits and r.offloaded_fraction == 0
    text = _legend(window)
    for name, gb in (("weights", r.weights_gb + r.draft_gb), ("KV cache", r.kv_gb), ("overhead", r.overhead_gb)):
        assert f"{name} {num(gb)} GB" in text
    assert r.fast_capacity_gb is not None
    assert f"free {num(r.fast_capacity_gb - r.total_gb)} GB" in text
    assert "host" not in text
    # The free part is drawn white, not in the panel's colour.
    strip = window.numbers_panel.bar.strip
    img = strip.grab().toImage()
    x = int(strip.width() * (r.total_gb + (r.fast_capacity_gb - r.total_gb) / 2) / r.fast_capacity_gb)
    assert QColor(img.pixel(min(x, img.width() - 3), img.height() // 2)).lightness() > 245


def test_offloaded_layers_show_as_a_host_share(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    store = window.store
    cap = store.session.scenario.hardware.memory_gb
    assert cap is not None
    # A model about 1.6 times the card's memory: llama.cpp offloads whole layers to host RAM.
    store.update("model", "Bigger model", total_params_b=2 * cap, active_params_b=2 * cap, layers=80)
    r = store.snapshot.result
    assert r.runs and 0 < r.offloaded_fraction < 1
    bar = window.numbers_panel.bar
    host = r.offloaded_fraction * r.total_gb
    assert bar.strip.host_gb == pytest.approx(host)
    assert f"in host RAM {num(host)} GB" in _legend(window)
    assert "free" not in _legend(window) or r.total_gb - host < r.fast_capacity_gb
