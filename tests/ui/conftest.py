from __future__ import annotations

import pytest

from advisor.catalog.loader import load_catalog
from advisor.defaults import default_session
from advisor.ui.main_window import MainWindow
from advisor.ui.store import Store


@pytest.fixture
def store() -> Store:
    catalog = load_catalog(None)
    return Store(catalog, default_session(catalog))


@pytest.fixture
def window(qtbot, store: Store) -> MainWindow:  # type: ignore[no-untyped-def]
    w = MainWindow(store)
    qtbot.addWidget(w)
    w.resize(1600, 1000)
    w.show()
    qtbot.waitExposed(w)
    return w
