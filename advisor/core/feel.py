"""How a decode speed feels to a person watching it stream."""

from __future__ import annotations

from enum import StrEnum

import numpy as np
from numpy.typing import ArrayLike, NDArray


class Feel(StrEnum):
    BROKEN = "broken"
    PAINFUL = "painful"
    CHAT = "chat"
    SNAPPY = "snappy"
    INSTANT = "instant"


FEELS: tuple[Feel, ...] = tuple(Feel)

FEEL_TEXT: dict[Feel, str] = {
    Feel.BROKEN: "feels broken: people give up on the stream",
    Feel.PAINFUL: "usable but painful; long answers are a wait",
    Feel.CHAT: "fine for chat, about reading speed",
    Feel.SNAPPY: "snappy; no longer feels mechanical",
    Feel.INSTANT: "instant, code-assistant grade",
}


def feel(tok_s: float, thresholds: tuple[float, float, float, float]) -> Feel:
    """Class of one speed: below thresholds[0] broken, then painful, chat, snappy, instant."""
    return FEELS[int(np.searchsorted(np.asarray(thresholds), tok_s, side="right"))]


def feel_index(tok_s: ArrayLike, thresholds: tuple[float, float, float, float]) -> NDArray[np.intp]:
    """Vectorized class index into FEELS."""
    return np.searchsorted(np.asarray(thresholds), np.asarray(tok_s, dtype=float), side="right")
