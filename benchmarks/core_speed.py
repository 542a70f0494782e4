"""Core speed: a 500-point curve on each axis, and a recommendation over 100 models × 20 quants.

Prints medians (ms) and the ratio to the targets (1 ms per curve, 20 ms per recommendation);
ends with `curve_ms_median=<n> recommend_ms_median=<n>`. Timing is not a test: shared machines are noisy.

    .venv/bin/python benchmarks/core_speed.py
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

from advisor.core.curves import AXES, axis_inputs, curve, default_range
from advisor.core.hardware import Hardware
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.core.recommend import recommend
from advisor.core.roofline import solve
from advisor.core.scenario import Scenario

REPEATS = 200
CURVE_TARGET_MS, RECOMMEND_TARGET_MS = 1.0, 20.0


def median_ms(fn: Callable[[], object], repeats: int = REPEATS) -> float:
    fn()  # warm caches
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    scenario = Scenario(
        hardware=Hardware(name="RTX 4090", memory_gb=24, bandwidth_gbps=1008, fp16_tflops=165.2),
        model=ModelArch(name="Llama 3.1 8B", total_params_b=8.03, layers=32, heads=32, kv_heads=8, head_dim=128),
        quant=Quant(name="Q4_K_M", bits_per_weight=4.89),
    )
    per_axis = {}
    for axis in AXES:
        x = np.geomspace(1, 1000, 500) if axis != "context" else default_range(scenario, axis, 500)
        inp = axis_inputs(scenario, axis, x)
        solve_ms = median_ms(lambda inp=inp: solve(inp))
        full_ms = median_ms(lambda axis=axis, x=x: curve(scenario, axis, x=x))
        per_axis[axis] = full_ms
        print(
            f"{axis:8s} 500 points: solve {solve_ms:.3f} ms, curve with η band {full_ms:.3f} ms "
            f"({full_ms / CURVE_TARGET_MS:.2f}× target)"
        )
    models = [
        (f"m{i}", ModelArch(name=f"m{i}", total_params_b=float(p), layers=40, heads=32, kv_heads=8, head_dim=128))
        for i, p in enumerate(np.geomspace(0.5, 700, 100))
    ]
    quants = [(f"q{j}", Quant(name=f"q{j}", bits_per_weight=float(b))) for j, b in enumerate(np.linspace(3.5, 16, 20))]
    rec_ms = median_ms(lambda: recommend(scenario, models, quants), repeats=50)
    print(f"recommend 100 models × 20 quants: {rec_ms:.2f} ms ({rec_ms / RECOMMEND_TARGET_MS:.2f}× target)")
    curve_ms = statistics.median(per_axis.values())
    print(f"curve_ms_median={curve_ms:.3f} recommend_ms_median={rec_ms:.2f}")


if __name__ == "__main__":
    main()
