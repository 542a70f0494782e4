"""The store: validation keeps the old state, one change signal per edit, undo and redo."""

from __future__ import annotations

from advisor.core.evaluate import evaluate
from advisor.ui.store import Store


def test_update_validates_and_rejects(qtbot, store: Store) -> None:  # type: ignore[no-untyped-def]
    before = store.session
    with qtbot.waitSignal(store.rejected) as blocker:
        assert not store.update("workload", streams=-5)
    assert "streams" in blocker.args[0]
    assert store.session == before


def test_one_changed_signal_and_result_matches_core(qtbot, store: Store) -> None:  # type: ignore[no-untyped-def]
    seen = []
    store.changed.connect(seen.append)
    store.update("workload", context=16384)
    assert len(seen) == 1
    assert seen[0].result == evaluate(store.session.scenario, explain=False)  # the numbers; no worked text


def test_undo_redo(store: Store) -> None:
    store.update("workload", context=8192)
    store.update("hardware", bandwidth_gbps=500)
    assert store.session.scenario.hardware.bandwidth_gbps == 500
    store.undo()
    assert store.session.scenario.hardware.bandwidth_gbps == 1008
    store.undo()
    assert store.session.scenario.workload.context == 4096
    store.redo()
    assert store.session.scenario.workload.context == 8192
    assert store.can_redo()
