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


def _fail_at(context: int):  # type: ignore[no-untyped-def]
    """An evaluate that cannot finish one scenario, as a solver bug the bounds did not foresee would."""

    def fake(s, explain=True):  # type: ignore[no-untyped-def]
        if s.workload.context == context:
            raise ZeroDivisionError("float division by zero")
        return evaluate(s, explain=explain)

    return fake


def test_an_edit_that_cannot_be_computed_is_refused_without_an_undo_step(  # type: ignore[no-untyped-def]
    qtbot, store: Store, monkeypatch
) -> None:
    import advisor.ui.store as store_module

    store.update("workload", context=8192)
    before, undo_depth = store.session, len(store._undo)
    monkeypatch.setattr(store_module, "evaluate", _fail_at(12345))
    with qtbot.waitSignal(store.rejected) as blocker:
        assert not store.update("workload", context=12345)
    assert "cannot compute" in blocker.args[0] and "division by zero" in blocker.args[0]
    assert store.session == before and len(store._undo) == undo_depth and store.undo_text() == "Edit workload"
    store.undo()
    assert store.session.scenario.workload.context == 4096  # the one real step, not a phantom one


def test_a_session_that_cannot_be_computed_starts_on_the_default(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import advisor.ui.store as store_module
    from advisor.catalog.loader import load_catalog
    from advisor.core.scenario import Scenario, Workload
    from advisor.session import Session

    monkeypatch.setattr(store_module, "evaluate", _fail_at(777))
    bad = Session(scenario=Scenario(workload=Workload(context=777)))
    s = Store(load_catalog(None), bad)
    assert s.session == Session() and s.problem is not None and "default scenario" in s.problem
