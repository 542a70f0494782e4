"""One plot as a slide PNG with no window: the same image the window's export writes, drawn offscreen.

The command line's `plot` imports this module only when that command runs, so Qt loads then and
not for the other commands."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from PySide6.QtWidgets import QApplication

from advisor.catalog.loader import Catalog
from advisor.core.curves import Axis
from advisor.session import Session
from advisor.ui import export
from advisor.ui.store import NO_POINTS, Store


def write_plot_png(
    catalog: Catalog, session: Session, axis: Axis, path: Path, size: tuple[int, int], published: bool = True
) -> None:
    """Draw the `axis` plot of `session` at `size` and write it to `path` (export.ExportError if it
    cannot). `published=False` leaves out the squares for published runs on this machine."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # read when the QApplication is made; no screen needed
    _app = QApplication.instance() or QApplication(["advisor-plot"])
    store = Store(catalog, session)
    snap = store.snapshot if published else replace(store.snapshot, published=NO_POINTS)
    export.save_png(export.plot_image(axis, snap, store.extras, size=size), path)
