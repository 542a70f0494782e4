"""The Workload panel's Threads box: empty means the machine's physical cores and says how many; an edit
sets workload.threads through the store as one undo step, and fewer threads slow host-side work."""

from __future__ import annotations

from advisor.ui.main_window import MainWindow
from advisor.ui.panels.workload_panel import WorkloadPanel
from advisor.ui.store import Store


def test_threads_auto_names_the_physical_cores(qtbot, store: Store) -> None:  # type: ignore[no-untyped-def]
    panel = WorkloadPanel(store)
    qtbot.addWidget(panel)
    box = panel.spins["threads"]
    cores = store.session.scenario.hardware.host_threads
    assert store.session.scenario.workload.threads is None
    assert box.value() == box.minimum()
    assert box.text() == f"auto ({cores} core{'s' if cores != 1 else ''})"
    assert "-t" in box.toolTip() and "host RAM" in box.toolTip() and "CPU-only" in box.toolTip()
    # Another machine with other cores: the auto text follows.
    store.update("hardware", "More cores", host_threads=cores + 8)
    assert box.text() == f"auto ({cores + 8} cores)"


def test_threads_edit_is_one_undo_step(qtbot, store: Store) -> None:  # type: ignore[no-untyped-def]
    panel = WorkloadPanel(store)
    qtbot.addWidget(panel)
    box = panel.spins["threads"]
    steps = len(store._undo)
    box.setValue(4)
    assert store.session.scenario.workload.threads == 4
    assert len(store._undo) == steps + 1
    assert store.undo_text() == "Edit Threads"
    store.undo()
    assert store.session.scenario.workload.threads is None
    assert box.value() == box.minimum()  # the box shows the restored auto
    store.redo()
    assert box.value() == 4
    box.setValue(box.minimum())  # back to auto from the box itself
    assert store.session.scenario.workload.threads is None


def test_fewer_threads_slow_a_spilled_model(qtbot, store: Store) -> None:  # type: ignore[no-untyped-def]
    panel = WorkloadPanel(store)
    qtbot.addWidget(panel)
    # A model that spills to host RAM on the default card: its host layers are computed by the CPU.
    store.update("hardware", "Small card", memory_gb=8.0)
    store.update("workload", "Long context", context=32768)
    r = store.snapshot.result
    assert r.placement is not None and r.placement.weights_host_gb + r.placement.kv_host_gb > 0
    auto_speed = r.decode_tok_s
    assert auto_speed is not None
    panel.spins["threads"].setValue(1)
    one = store.snapshot.result.decode_tok_s
    assert one is not None and one < auto_speed


def test_threads_row_is_in_the_window_panel(window: MainWindow) -> None:
    box = window.workload_panel.spins["threads"]
    assert box.isVisibleTo(window.workload_panel)
    assert box.accessibleName() == "Threads"
