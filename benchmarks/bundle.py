#!/usr/bin/env python3
"""Size and cold-start time of the standalone app (packaging/).

    .venv/bin/python benchmarks/bundle.py              # use dist/ if built, else build it first
    .venv/bin/python benchmarks/bundle.py --build      # rebuild first (and report the build time)
    .venv/bin/python benchmarks/bundle.py --runs 9 --warm

Start time: wall clock of `<bundle> --screenshot out.png` (start the process, load Python, Qt and the
catalogs, lay out and draw the main window, write the PNG, exit), offscreen, with a fresh ADVISOR_HOME,
median over --runs. "Cold" means the kernel's page cache is dropped before every run (needs root:
/proc/sys/vm/drop_caches), so the bundle's files are read from disk as on a first double-click; without
root, or with --warm, the runs are warm-cache and the output says so.

The last line is machine-readable: bundle_mb=<n> start_s_median=<n>
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DROP_CACHES = Path("/proc/sys/vm/drop_caches")


def load_build():  # packaging/build.py, by path: packaging/ is deliberately not a package
    spec = spec_from_file_location("advisor_bundle_build", ROOT / "packaging" / "build.py")
    assert spec is not None and spec.loader is not None
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def can_drop_caches() -> bool:
    return sys.platform.startswith("linux") and os.access(DROP_CACHES, os.W_OK)


def drop_caches() -> None:
    os.sync()
    DROP_CACHES.write_text("3\n")


def one_start(exe: Path, cold: bool) -> float:
    with tempfile.TemporaryDirectory(prefix="advisor-bench-") as tmp:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", ADVISOR_HOME=str(Path(tmp) / "home"))
        if cold:
            drop_caches()
        start = time.perf_counter()
        run = subprocess.run(
            [str(exe), "--screenshot", str(Path(tmp) / "out.png")], env=env, capture_output=True, text=True, timeout=300
        )
        took = time.perf_counter() - start
        if run.returncode != 0 or not (Path(tmp) / "out.png").is_file():
            raise SystemExit(f"{exe} --screenshot failed (exit {run.returncode}):\n{run.stderr[-2000:]}")
        return took


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--build", action="store_true", help="rebuild the bundle first (python3 packaging/build.py)")
    p.add_argument("--warm", action="store_true", help="do not drop the page cache between runs")
    args = p.parse_args(argv)

    build = load_build()
    exe = build.executable()
    if args.build or not exe.is_file():
        start = time.perf_counter()
        subprocess.check_call([sys.executable, str(ROOT / "packaging" / "build.py"), "--no-smoke"], cwd=ROOT)
        print(f"build_s={time.perf_counter() - start:.1f}  (PyInstaller, clean, {os.cpu_count()} cores)")
    bundle = build.bundle_dir()
    mb = build.size_mb(bundle)

    cold = can_drop_caches() and not args.warm
    times = [one_start(exe, cold) for _ in range(args.runs)]
    median = statistics.median(times)
    print(
        f"bundle: {bundle.relative_to(ROOT)} ({platform.system()} {platform.machine()}, "
        f"{sum(1 for f in bundle.rglob('*') if f.is_file())} files)"
    )
    print(
        f"start to screenshot, {'cold' if cold else 'warm'} cache, {args.runs} runs: "
        + " ".join(f"{t:.2f}" for t in times)
        + " s"
    )
    print(f"bundle_mb={mb:.1f} start_s_median={median:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
