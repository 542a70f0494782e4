"""Realized fractions of peak (η) by hardware class and engine, as the rest of the app sees them.

The numbers live in advisor.core.calibration, fitted to published measurements (see that module for
what each term means and docs/accuracy.md for how well it predicts). This module keeps the small
interface the window and the command line use: the decode η, the band around it and the prefill η
of a class and engine (times the backend's and the machine's factors when given), and the η of host
RAM."""

from __future__ import annotations

from typing import NamedTuple

from advisor.core.calibration import CALIBRATION, Calibration, terms_for
from advisor.core.hardware import Hardware, HardwareClass
from advisor.core.hardware_keys import BACKEND_LABELS, default_backend, resolve_backend
from advisor.core.terms import Backend, Engine

__all__ = [
    "BACKEND_LABELS",
    "HOST_ETA",
    "Backend",
    "Engine",
    "EtaDefault",
    "default_backend",
    "default_eta",
    "resolve_backend",
]


class EtaDefault(NamedTuple):
    decode: float  # share of datasheet bandwidth realized on weight reads (overhead terms come on top)
    low: float  # the band as η: decode η × the 10th / 90th percentile of measured ÷ predicted
    high: float
    compute: float  # share of peak FP16 realized by prefill


# Offloaded layers are read by the CPU from host RAM, which realizes less of its bandwidth than a GPU.
HOST_ETA = CALIBRATION.host_eta


def default_eta(
    kind: HardwareClass,
    engine: Engine,
    calibration: Calibration | None = None,
    *,
    backend: Backend | None = None,
    machine: Hardware | None = None,
) -> EtaDefault:
    """The fitted η of a class and engine; with `backend`, times that backend's factors (llama.cpp only);
    with `machine`, times that machine's own factor where published runs gave it one."""
    cal = calibration or CALIBRATION
    t = terms_for(kind, engine, cal)
    eta = cal.decode_eta(kind, engine, backend, machine)
    compute = t.prefill.eta * (cal.backend(engine, backend).prefill if backend is not None else 1.0)
    lo, hi = t.decode.band
    return EtaDefault(eta, eta * lo, eta * hi, compute)
