"""LLM speed advisor: will it fit, how fast will it type, and where does it fall off a cliff."""

from __future__ import annotations


def __getattr__(name: str) -> str:
    """`advisor.__version__`, looked up on first use: importlib.metadata and the package scan cost
    about 0.1 s of every start, and only the About box and `--version` ask."""
    if name != "__version__":
        raise AttributeError(f"module 'advisor' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("llm-speed-advisor")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0.0.0+source"
