"""Windows on a laptop screen: the main window at 1366×768 keeps every panel reachable and the
Workload panel usable; restored geometry and every dialog stay inside the available screen."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, Qt
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget

from advisor.ui.feel_dialog import FeelDialog
from advisor.ui.main_window import MainWindow
from advisor.ui.screen import FRAME_ALLOWANCE, ScreenFit, available_rect, clamp_to
from advisor.ui.store import Store

LAPTOP = QRect(0, 0, 1366, 768)


def _inside(widget: QWidget, avail: QRect) -> bool:
    g = widget.frameGeometry()
    return avail.contains(g.topLeft()) and g.right() <= avail.right() and g.bottom() <= avail.bottom()


def test_main_window_fits_a_laptop_screen(qtbot, store: Store) -> None:  # type: ignore[no-untyped-def]
    w = MainWindow(store)
    qtbot.addWidget(w)
    w.fit_to_screen((1600, 1000), avail=LAPTOP)
    w.show()
    qtbot.waitExposed(w)
    assert w.width() + FRAME_ALLOWANCE.width() <= LAPTOP.width()
    assert w.height() + FRAME_ALLOWANCE.height() <= LAPTOP.height()
    # The window can shrink to the screen: its minimum is well inside it, and each panel scrolls,
    # so a panel's full height never pins the splitters.
    assert w.minimumSizeHint().height() < LAPTOP.height() * 0.6
    for key, dock in w.docks.items():
        assert isinstance(dock.widget(), QScrollArea), key
        assert dock.minimumSizeHint().height() < 200, key
    workload = w.docks["workload"]
    rows = workload.widget().widget().findChildren(QWidget)  # type: ignore[attr-defined]
    assert workload.height() > 0.4 * w.height(), "the Workload panel gets about half the left column"
    assert len(rows) > 10
    # Its splitter moves: giving the Workload more room grows it, and less shrinks it.
    before = workload.height()
    w.resizeDocks([w.docks["hardware"], workload], [150, before + 150], Qt.Orientation.Vertical)
    qtbot.waitUntil(lambda: workload.height() > before + 60)
    w.resizeDocks([w.docks["hardware"], workload], [before + 150, 150], Qt.Orientation.Vertical)
    qtbot.waitUntil(lambda: workload.height() < before - 60)


def test_restored_geometry_is_pulled_inside_the_screen(qtbot, store: Store) -> None:  # type: ignore[no-untyped-def]
    big = MainWindow(store)
    qtbot.addWidget(big)
    avail = available_rect(big)
    big.setGeometry(avail.right() - 100, avail.bottom() - 100, avail.width() * 2, avail.height() * 2)
    geometry = bytes(big.saveGeometry().toBase64().data()).decode()
    w = MainWindow(store)
    qtbot.addWidget(w)
    w.restore_layout(geometry, None)
    w.show()
    qtbot.waitExposed(w)
    assert w.width() <= avail.width() and w.height() <= avail.height()
    assert avail.contains(w.geometry().topLeft())
    assert w.geometry().right() <= avail.right() and w.geometry().bottom() <= avail.bottom()
    _ = QByteArray  # restoreGeometry's input type, for readers


def test_clamp_keeps_a_window_that_fits_where_it_is(qtbot) -> None:  # type: ignore[no-untyped-def]
    w = QWidget()
    qtbot.addWidget(w)
    w.setGeometry(100, 80, 400, 300)
    clamp_to(w, LAPTOP)
    assert (w.x(), w.y(), w.width(), w.height()) == (100, 80, 400, 300)
    w.setGeometry(1200, 700, 2000, 900)
    clamp_to(w, LAPTOP)
    assert w.width() <= LAPTOP.width() and w.height() <= LAPTOP.height()
    assert w.x() >= 0 and w.y() >= 0
    assert w.x() + w.width() <= LAPTOP.width() and w.y() + w.height() <= LAPTOP.height()


def _shown_with_the_filter(qtbot, monkeypatch, open_them) -> list[QWidget]:  # type: ignore[no-untyped-def]
    """Windows opened with the app's ScreenFit filter on a 1366×768 screen."""
    from advisor.ui import screen

    monkeypatch.setattr(screen, "available_rect", lambda _widget=None: LAPTOP)  # the screen they open on
    app = QApplication.instance()
    fit = ScreenFit()
    app.installEventFilter(fit)
    try:
        shown = open_them()
        for d in shown:
            qtbot.waitExposed(d)
        return shown
    finally:
        app.removeEventFilter(fit)


def _assert_inside(widgets: list[QWidget]) -> None:
    for d in widgets:
        assert d.width() <= LAPTOP.width() and d.height() <= LAPTOP.height(), (type(d).__name__, d.size())
        assert _inside(d, LAPTOP), (type(d).__name__, d.frameGeometry())


def test_every_dialog_opens_inside_a_laptop_screen(qtbot, window: MainWindow, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from advisor.ui.accuracy_dialog import AccuracyDialog

    def open_them() -> list[QWidget]:
        dialogs: list[QWidget] = [AccuracyDialog(window.store.catalog, window), FeelDialog(100.0, 0.5, window)]
        for d in dialogs:
            qtbot.addWidget(d)
            d.show()
        return dialogs

    _assert_inside(_shown_with_the_filter(qtbot, monkeypatch, open_them))


def test_the_compare_window_opens_inside_a_laptop_screen(qtbot, window: MainWindow, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The filter clamps it; its own minimum width (its widest tab's) must leave that possible."""
    from advisor.ui.compare import open_compare_window

    shown = _shown_with_the_filter(qtbot, monkeypatch, lambda: [open_compare_window(window)])
    try:
        _assert_inside(shown)
    finally:
        shown[0].close()


def test_compare_table_keeps_the_machine_names_when_scrolled_sideways(  # type: ignore[no-untyped-def]
    qtbot, window: MainWindow, monkeypatch
) -> None:
    """At 1366×768 the table shows five machine rows, and after scrolling it to its right end the
    machine names are still on screen, each beside its own row."""
    from advisor.core.machines import machine_from_entry
    from advisor.ui.compare import open_compare_window

    shown = _shown_with_the_filter(qtbot, monkeypatch, lambda: [open_compare_window(window)])
    cw = shown[0]
    try:
        hw = cw.store.catalog.hardware
        for hid, n in (("rtx-3090", 1), ("rtx-3090", 2), ("rtx-5090", 1), ("rx-7900-xtx", 1)):
            assert cw.store.add_machine(machine_from_entry(hw[hid], n))
        table = cw.table
        labels = [m.label for m in cw.store.setup.machines]
        assert len(labels) == 5
        qtbot.waitUntil(lambda: table.rowCount() == 5)
        assert table.viewport().height() >= 5 * table.rowHeight(0), "five machine rows without scrolling"
        bar = table.horizontalScrollBar()
        assert bar.maximum() > 0, "the columns are wider than a laptop window: the table scrolls sideways"
        bar.setValue(bar.maximum())
        qtbot.waitUntil(lambda: table.columnViewportPosition(1) < 0)  # the first data columns left the view
        head = table.verticalHeader()
        assert head.isVisible() and head.width() >= 100
        # the names sit left of the scrolled cells and inside the window, one per row, in row order
        left = head.mapTo(cw, head.rect().topLeft()).x()
        assert 0 <= left and left + head.width() <= table.mapTo(cw, table.viewport().geometry().topLeft()).x()
        assert [table.verticalHeaderItem(r).text() for r in range(5)] == labels
        assert all(head.sectionViewportPosition(r) >= 0 for r in range(5))
    finally:
        cw.close()
