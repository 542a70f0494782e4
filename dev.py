#!/usr/bin/env python3
"""Set up .venv at the repo root if needed, then launch the app or run the tests.

    python3 dev.py          # launch the advisor window
    python3 dev.py test     # run every test (extra args go to pytest)
    python3 dev.py cli ...  # the command line, e.g. python3 dev.py cli estimate --hardware rtx-4090
    python3 dev.py bundle   # build the standalone app into dist/ (see packaging/build.py)

Only python3 >= 3.11 is needed; everything else is installed into .venv from pyproject.toml,
again whenever pyproject.toml changes.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PY = VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
STAMP = VENV / ".advisor-installed"


def ensure_venv(extras: str) -> None:
    """Install the advisor with `extras` (e.g. "[test,dev]") unless this pyproject.toml was already
    installed with at least those extras: `bundle` adds [build] without undoing it for `test`."""
    if sys.version_info < (3, 11):  # noqa: UP036 - dev.py itself runs under any python3
        sys.exit(f"Python 3.11 or newer is needed; this is {sys.version.split()[0]}")
    if not PY.exists():
        print("Creating .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    wanted = {e.strip() for e in extras.strip("[]").split(",") if e.strip()}
    have_digest, _, have_extras = (STAMP.read_text().strip() if STAMP.exists() else "").partition(" ")
    installed = set(filter(None, have_extras.split(","))) if have_digest == digest else set()
    if wanted <= installed and have_digest == digest:
        return
    wanted |= installed
    spec = f".[{','.join(sorted(wanted))}]" if wanted else "."
    print(f"Installing the advisor{spec[1:]} into .venv ...", flush=True)
    subprocess.check_call([str(PY), "-m", "pip", "install", "-q", "--upgrade", "pip"])
    subprocess.check_call([str(PY), "-m", "pip", "install", "-q", "-e", spec], cwd=ROOT)
    STAMP.write_text(f"{digest} {','.join(sorted(wanted))}")


def main(argv: list[str]) -> int:
    cmd, rest = (argv[0], argv[1:]) if argv else ("app", [])
    if cmd == "test":
        ensure_venv("[test,dev]")
        return subprocess.call([str(PY), "-m", "pytest", *rest], cwd=ROOT)
    if cmd == "cli":
        ensure_venv("[test,dev]")
        return subprocess.call([str(PY), "-m", "advisor.cli", *rest], cwd=ROOT)
    if cmd == "app":
        ensure_venv("[test,dev]")
        return subprocess.call([str(PY), "-m", "advisor", *rest], cwd=ROOT)
    if cmd == "bundle":
        ensure_venv("[test,dev,build]")
        return subprocess.call([str(PY), str(ROOT / "packaging" / "build.py"), *rest], cwd=ROOT)
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
