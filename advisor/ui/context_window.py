"""A context longer than the model's window cannot be run: on a model pick, an import or an applied
recommendation the context (and prompt) are cut to the window, and the note says so."""

from __future__ import annotations

from typing import Any


def clamp_to_window(data: dict[str, Any], model_name: str) -> str | None:
    """Cut the session dump's context and prompt to its model's max_context; the note, or None."""
    w = data["scenario"]["workload"]
    window = data["scenario"]["model"].get("max_context")
    if not window or w["context"] <= window:
        w["prompt_tokens"] = min(w["prompt_tokens"], w["context"])
        return None
    note = f"Context {w['context']:,} cut to {model_name}'s window of {window:,} tokens"
    w["context"] = window
    w["prompt_tokens"] = min(w["prompt_tokens"], window)
    return note
