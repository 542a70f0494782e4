"""The memory bar names every part in its legend and shows the host share when layers are offloaded, and the
disk share when weights exceed host RAM."""

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
    assert r.placement is not None and r.placement.weights_disk_gb == 0
    host = r.placement.weights_host_gb + r.placement.kv_host_gb  # the solver's own placement
    assert host == pytest.approx(r.offloaded_fraction * r.total_gb, rel=0.1)
    assert bar.strip.host_gb == pytest.approx(host) and bar.strip.disk_gb == 0
    assert f"in host RAM {num(host)} GB" in _legend(window)
    assert r.fast_capacity_gb is not None
    assert "free" not in _legend(window) or r.total_gb - host < r.fast_capacity_gb


def test_weights_beyond_host_ram_show_as_a_disk_share(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    from advisor.catalog.convert import to_hardware, to_model, to_quant
    from advisor.core.scenario import Scenario, Workload
    from advisor.session import Session

    cat = window.store.catalog
    hw = to_hardware(cat.hardware["rtx-3090"])  # 24 GB
    s = Scenario(
        hardware=hw.model_copy(update={"host_memory_gb": 64.0}),
        model=to_model(cat.models["deepseek-v3"]),
        quant=to_quant(cat.quants["q4_k_m"]),
        workload=Workload(context=8192),
    )
    assert window.store.set_session(Session(scenario=Scenario.model_validate(s.model_dump())), "DeepSeek")
    r = window.store.snapshot.result
    assert r.runs and r.placement is not None
    disk, host = r.placement.weights_disk_gb, r.placement.weights_host_gb + r.placement.kv_host_gb
    assert disk > 100 and 0 < host <= 64.0 * 1.001  # RAM holds what it can; the rest is read from disk
    bar = window.numbers_panel.bar
    assert bar.strip.disk_gb == pytest.approx(disk) and bar.strip.host_gb == pytest.approx(host)
    text = _legend(window)
    assert f"streams from disk {num(disk)} GB" in text and f"in host RAM {num(host)} GB" in text
    assert "more than fast and host memory hold" not in text
    # the disk part is drawn past the host part, in its own deeper shade
    strip = bar.strip
    img = strip.grab().toImage()
    scale = strip.width() / max(r.total_gb, r.fast_capacity_gb + host + disk)  # type: ignore[operator]
    x_disk = int((r.fast_capacity_gb + host + disk / 2) * scale)  # type: ignore[operator]
    x_host = int((r.fast_capacity_gb + host / 2) * scale)  # type: ignore[operator]

    def lightness(x: int) -> float:  # the mean over a patch: the hatching's lines and gaps alike
        pts = [(x + dx, img.height() // 2 + dy) for dx in range(-4, 5) for dy in range(-3, 4)]
        return sum(QColor(img.pixel(px, py)).lightness() for px, py in pts) / len(pts)

    assert lightness(min(x_disk, img.width() - 8)) < lightness(x_host) - 10
