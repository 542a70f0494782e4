"""UI latency: one context-slider edit (recompute + redraw of three plots and every panel), and a
cold start to a painted window.

Offscreen; prints medians and ratios to the targets (16 ms per edit, 2 s to start); ends
with `edit_ms_median=<n> start_s_median=<n>`. A start is timed from just before the process is
spawned to the window painted (`python -m advisor --screenshot` reports that moment), and is also
shown to the PNG written and the process gone.

    .venv/bin/python benchmarks/ui_latency.py [--edits 200] [--starts 5]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

EDIT_TARGET_MS, START_TARGET_S = 16.0, 2.0


def edit_latency(edits: int) -> list[float]:
    from PySide6.QtWidgets import QApplication

    from advisor.catalog.loader import load_catalog
    from advisor.defaults import default_session
    from advisor.ui.main_window import MainWindow
    from advisor.ui.store import Store

    app = QApplication.instance() or QApplication([])
    catalog = load_catalog(None)
    window = MainWindow(Store(catalog, default_session(catalog)))
    window.resize(1600, 1000)
    window.show()
    app.processEvents()
    slider = window.workload_panel.slider
    times = []
    for i in range(edits):
        pos = (i * 37) % slider.maximum()  # sweep back and forth like a drag
        t0 = time.perf_counter()
        slider.setValue(pos)  # -> store.update -> evaluate, curves, recommendation -> every view
        app.processEvents()  # deliver the paint events: every widget the edit dirtied repaints
        times.append((time.perf_counter() - t0) * 1000)
    window.close()
    return times


def start_latency(starts: int) -> tuple[list[float], list[float]]:
    """(to a painted window, to the screenshot written and the process gone), seconds per start.
    The app reports when it has painted (see advisor.app.report_painted)."""
    painted, whole = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(starts):
            out = Path(tmp) / f"shot{i}.png"
            env = dict(os.environ, ADVISOR_HOME=tmp, QT_QPA_PLATFORM="offscreen", ADVISOR_START_T0=repr(time.time()))
            t0 = time.perf_counter()
            run = subprocess.run(
                [sys.executable, "-m", "advisor", "--screenshot", str(out)],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            )
            whole.append(time.perf_counter() - t0)
            assert out.exists()
            painted.append(float(re.search(r"painted_s=([0-9.]+)", run.stderr).group(1)))  # type: ignore[union-attr]
    return painted, whole


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--edits", type=int, default=200)
    p.add_argument("--starts", type=int, default=5)
    args = p.parse_args()
    edits = edit_latency(args.edits)
    edit_ms = statistics.median(edits[5:])  # the first few include lazy imports and font caches
    p90 = statistics.quantiles(edits[5:], n=10)[-1]
    print(f"context-slider edit: median {edit_ms:.1f} ms, p90 {p90:.1f} ms ({edit_ms / EDIT_TARGET_MS:.2f}× target)")
    painted, whole = start_latency(args.starts)
    start_s = statistics.median(painted)
    print(
        f"cold start to painted window: median {start_s:.2f} s ({start_s / START_TARGET_S:.2f}× target); "
        f"with the PNG written and the process gone: {statistics.median(whole):.2f} s"
    )
    print(f"edit_ms_median={edit_ms:.1f} start_s_median={start_s:.2f}")


if __name__ == "__main__":
    main()
