"""Small helpers the plots share: log10 view coordinates, a band's outline, cached item pixmaps."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray
from PySide6.QtWidgets import QGraphicsItem


def log10(x: float) -> float:
    return math.log10(max(x, 1e-12))


def cache_pixmaps(*items: QGraphicsItem) -> None:
    """Repaint these items from a pixmap of their last drawing until they change. Worth it for items
    that Qt repaints on most edits only because something near them changed (a slider drag)."""
    for item in items:
        item.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)


def finite_or_nan(values: NDArray[np.float64], mask: NDArray[np.bool_] | None = None) -> NDArray[np.float64]:
    """Zeros (does not run) become gaps on a log axis."""
    out = np.where(values > 0, values, np.nan)
    if mask is not None:
        out = np.where(mask, out, np.nan)
    return out


def band_outline(
    x: NDArray[np.float64], low: NDArray[np.float64], high: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Closed outline between two curves, in the plot's log10 view coordinates."""
    lx = np.log10(x)
    return np.concatenate([lx, lx[::-1]]), np.concatenate([np.log10(high), np.log10(low)[::-1]])
