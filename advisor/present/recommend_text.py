"""How the recommender ranked its candidates, in words for the panel and the CLI."""

from __future__ import annotations

from advisor.core.recommend import Recommendation

MAX_NAMED = 3


def ranking_text(rec: Recommendation) -> str:
    """One sentence: size order, where scores decided, and which models were left out as superseded."""
    out = "Ranked by size (newest first at a size)"
    if rec.metric:
        out += (
            f"; where two models both have a published {rec.metric} score, the higher score ranks first "
            f"({rec.scored} of the candidates have one)"
        )
    out += "."
    if rec.left_out:
        named = ", ".join(f"{old} (by {new})" for old, new in rec.left_out[:MAX_NAMED])
        more = len(rec.left_out) - MAX_NAMED
        out += (
            f" Left out as superseded by a newer model of the family at the same or smaller size: {named}"
            f"{f' and {more} more' if more > 0 else ''}."
        )
    return out
