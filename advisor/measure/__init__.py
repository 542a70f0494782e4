"""Measure your own: llama-bench parsing, fitting the user's η, a host-bandwidth test (no Qt here)."""
