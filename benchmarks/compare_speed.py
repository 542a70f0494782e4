"""Compare-mode speed: adding a machine to the comparison (its row, three curves, and the repaint
of the plots, table and list), and ranking the whole catalog, with 2× and 4× GPU sets, under a budget.

Offscreen; prints medians and p90 against the targets (50 ms per added machine, 100 ms per
ranking); ends with `add_machine_ms_median=<n> budget_ms_median=<n>`.

    .venv/bin/python benchmarks/compare_speed.py [--adds 60] [--rankings 40]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("ADVISOR_HOME", tempfile.mkdtemp(prefix="advisor-bench-"))

ADD_TARGET_MS, BUDGET_TARGET_MS = 50.0, 100.0
# Added one at a time to a comparison already holding the user's machine and two others.
ADDED = (
    "rtx-5090",
    "m4-max-40c-128gb",
    "strix-halo-395-128gb",
    "rx-7900-xtx",
    "rtx-pro-6000-blackwell",
    "dgx-spark",
    "m3-ultra-80c-512gb",
    "rtx-4060-ti-16gb",
)


def p90(xs: list[float]) -> float:
    return sorted(xs)[max(int(len(xs) * 0.9) - 1, 0)]


def add_machine_latency(adds: int) -> list[float]:
    from PySide6.QtWidgets import QApplication

    from advisor.catalog.loader import load_catalog
    from advisor.core.machines import machine_from_entry
    from advisor.defaults import default_session
    from advisor.ui.compare import open_compare_window
    from advisor.ui.main_window import MainWindow
    from advisor.ui.store import Store

    app = QApplication.instance() or QApplication([])
    catalog = load_catalog(None)
    main = MainWindow(Store(catalog, default_session(catalog)))
    window = open_compare_window(main)
    window.resize(1500, 950)
    window.store.set_model("llama-3.3-70b")
    for hid, n in (("rtx-3090", 2), ("m4-pro-20c-64gb", 1)):
        window.store.add_machine(machine_from_entry(catalog.hardware[hid], n))
    window.repaint()
    app.processEvents()
    times = []
    for i in range(adds):
        machine = machine_from_entry(catalog.hardware[ADDED[i % len(ADDED)]])
        t0 = time.perf_counter()
        window.machines.store.add_machine(machine)  # row, curves, plots, table, list
        app.processEvents()  # paint what changed, as the event loop would
        times.append((time.perf_counter() - t0) * 1000)
        window.store.remove_machine(window.store.setup.machines[-1].label)
        app.processEvents()
    window.close()
    main.close()
    return times


def budget_latency(rankings: int) -> tuple[list[float], int]:
    from advisor.catalog.convert import to_model, to_quant
    from advisor.catalog.loader import load_catalog
    from advisor.core.budget import rank_budget
    from advisor.core.machines import catalog_machines
    from advisor.core.presets import PRESETS
    from advisor.core.scenario import Scenario

    catalog = load_catalog(None)
    models = [(k, to_model(m)) for k, m in catalog.models.items()]
    quants = [(k, to_quant(q)) for k, q in catalog.quants.items() if q.format == "gguf"]
    presets = list(PRESETS.values())
    times, n = [], 0
    for i in range(rankings):
        s = Scenario()
        s = s.model_copy(update={"workload": s.workload.model_copy(update=presets[i % len(presets)])})
        t0 = time.perf_counter()
        machines = catalog_machines(catalog.hardware.values())
        r = rank_budget(machines, s, models, quants, max_price_usd=1e12)  # no cap: every priced machine ranked
        times.append((time.perf_counter() - t0) * 1000)
        n = len(r.ranked)
    return times, n


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--adds", type=int, default=60)
    p.add_argument("--rankings", type=int, default=40)
    args = p.parse_args(argv)
    adds = add_machine_latency(args.adds)
    ranks, n = budget_latency(args.rankings)
    add_med, rank_med = statistics.median(adds), statistics.median(ranks)
    print(
        f"add a machine (3 → 4 machines, row + 3 curves + repaint): median {add_med:.1f} ms, "
        f"p90 {p90(adds):.1f} ms ({add_med / ADD_TARGET_MS:.2f}× target)"
    )
    print(
        f"rank the whole catalog ({n} machines with 2×/4× sets, 5 presets): median {rank_med:.1f} ms, "
        f"p90 {p90(ranks):.1f} ms ({rank_med / BUDGET_TARGET_MS:.2f}× target)"
    )
    print(f"add_machine_ms_median={add_med:.1f} budget_ms_median={rank_med:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
