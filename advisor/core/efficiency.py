"""Realized fractions of peak (η) by hardware class and engine, as the rest of the app sees them.

The numbers live in advisor.core.calibration, fitted to published measurements (see that module for
what each term means and docs/accuracy.md for how well it predicts). This module keeps the small
interface the window and the command line use: the decode η, the band around it and the prefill η
of a class and engine, and the η of host RAM."""

from __future__ import annotations

from typing import NamedTuple

from advisor.core.calibration import CALIBRATION, Calibration, Engine, terms_for
from advisor.core.hardware import HardwareClass

__all__ = ["HOST_ETA", "Engine", "EtaDefault", "default_eta"]


class EtaDefault(NamedTuple):
    decode: float  # share of datasheet bandwidth realized on weight reads (overhead terms come on top)
    low: float  # the band as η: decode η × the 10th / 90th percentile of measured ÷ predicted
    high: float
    compute: float  # share of peak FP16 realized by prefill


# Offloaded layers are read by the CPU from host RAM, which realizes less of its bandwidth than a GPU.
HOST_ETA = CALIBRATION.host_eta


def default_eta(kind: HardwareClass, engine: Engine, calibration: Calibration | None = None) -> EtaDefault:
    t = terms_for(kind, engine, calibration)
    lo, hi = t.decode.band
    return EtaDefault(t.decode.eta, t.decode.eta * lo, t.decode.eta * hi, t.prefill.eta)
