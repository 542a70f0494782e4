"""Picking a model with a shorter window cuts the context to it, and the status bar says so."""

from __future__ import annotations

from advisor.ui.main_window import MainWindow


def test_pick_cuts_the_context_to_the_window_with_a_note(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    store = window.store
    store.update("workload", "Edit context", context=16384, prompt_tokens=12000)
    gemma = store.catalog.models["gemma-2-9b"]
    assert gemma.max_context < 16384
    notes: list[str] = []
    store.noted.connect(notes.append)
    window.model_panel._picked("gemma-2-9b")
    w = store.session.scenario.workload
    assert w.context == gemma.max_context and w.prompt_tokens <= w.context
    assert notes and f"window of {gemma.max_context:,} tokens" in notes[0] and "16,384" in notes[0]
    assert notes[0] in window.statusBar().currentMessage()
    # A model whose window holds the context keeps it, with no note.
    store.update("workload", "Edit context", context=4096)
    window.model_panel._picked("llama-3.1-8b")
    assert store.session.scenario.workload.context == 4096 and len(notes) == 1
