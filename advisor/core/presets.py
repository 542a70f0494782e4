"""Workload presets: the situations people size hardware for."""

from __future__ import annotations

from typing import Any

PRESETS: dict[str, dict[str, Any]] = {
    "Chat": dict(context=4096, prompt_tokens=512, output_tokens=400, streams=1, interactive_tok_s=10.0),
    "Coding assistant": dict(context=32768, prompt_tokens=8000, output_tokens=600, streams=1, interactive_tok_s=20.0),
    "Long-document RAG": dict(context=65536, prompt_tokens=60000, output_tokens=800, streams=1, interactive_tok_s=10.0),
    "Agent at 128k": dict(context=131072, prompt_tokens=4000, output_tokens=1000, streams=1, interactive_tok_s=10.0),
    "Serving 16 users": dict(context=8192, prompt_tokens=2000, output_tokens=500, streams=16, interactive_tok_s=10.0),
}


def preset_changes(name: str, max_context: int) -> dict[str, Any]:
    """A preset's workload fields, its context clipped to what the model supports."""
    changes = dict(PRESETS[name])
    changes["context"] = min(changes["context"], max_context)
    changes["prompt_tokens"] = min(changes["prompt_tokens"], changes["context"])
    return changes
