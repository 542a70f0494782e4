"""Compare mode: machines side by side, the catalog under a budget, and what it would take.

The main window opens it with `open_compare_window(main_window)`."""

from __future__ import annotations

from typing import Any


def open_compare_window(parent_window: Any) -> Any:
    """Open (or raise) the compare window for `parent_window` (a MainWindow with a `.store`)."""
    from advisor.ui.compare.window import open_compare_window as _open

    return _open(parent_window)
