"""docs/accuracy.md's headline: the cross-validation by source (catalogs/published/loso.json, written by
benchmarks/loso.py), as a Markdown section."""

from __future__ import annotations

from collections.abc import Sequence

from advisor.core.accuracy import ErrorFigure, SourceValidation


def _cell(e: ErrorFigure) -> str:
    return "–" if e.median_pct is None or e.p90_pct is None else f"{e.median_pct:.1f} / {e.p90_pct:.1f}"


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)] + [
        "| " + " | ".join(r) + " |" for r in rows
    ]


def source_section(sv: SourceValidation | None, why_not: str | None = None) -> list[str]:
    lines = ["### On sources the fit never saw", ""]
    if sv is None:
        return [*lines, f"Not available: {why_not or 'not computed'}.", ""]
    folds = f"{sv.folds} folds of whole sources" if sv.folds and sv.folds < sv.sources else "one fold per source"
    lines += [
        f"Each of the {sv.sources} sources (a llama.cpp thread, one author's result set, a contributor's pull "
        f"request) is predicted by a fit on the others' rows ({folds}; {sv.rows} usable rows). This is the "
        "figure to expect on a machine, build or method the data has not seen. Beside it, the best simple "
        "formula fitted the same way (decode: a share of the bandwidth ceiling plus a fixed time per token; "
        "prefill: a share of the FLOP ceiling). Absolute error, median / 90th percentile, %; the band "
        "claims 80 %.",
        "",
    ]
    rows = [
        [
            ("decode, " if k.test == "tg" else "prefill, ") + k.group,
            str(k.n),
            str(k.sources),
            _cell(k),
            "–" if k.band_held_pct is None else f"{k.band_held_pct:.0f} %",
            _cell(k.simple),
        ]
        for k in sv.kinds
    ]
    lines += _table(("runs", "n", "sources", "model", "band held", "simple formula"), rows)
    lines += ["", "Decode by vendor:", ""]
    rows = [
        [
            v.vendor,
            str(v.n),
            str(v.sources),
            _cell(v),
            "–" if v.band_held_pct is None else f"{v.band_held_pct:.0f} %",
            _cell(v.simple),
        ]
        for v in sv.vendors
    ]
    return [*lines, *_table(("vendor", "n", "sources", "model", "band held", "simple formula"), rows), ""]
