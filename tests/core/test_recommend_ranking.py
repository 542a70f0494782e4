"""The recommender ranks by capability where two models both have a score, then by size, and never
picks a model superseded by a newer one of its family at the same or smaller size."""

from __future__ import annotations

import numpy as np

from advisor.catalog.convert import standings, to_hardware, to_model, to_quant
from advisor.catalog.loader import shipped_catalog
from advisor.core.model import ModelArch
from advisor.core.recommend import Standing, rank_order, recommend, superseded_by
from advisor.core.scenario import Scenario
from advisor.present.recommend_text import ranking_text

CAT = shipped_catalog()
MODELS = [(k, to_model(m)) for k, m in CAT.models.items()]
QUANTS = [(k, to_quant(q)) for k, q in CAT.quants.items() if q.format == "gguf"]
STANDING = standings(CAT.models)


def on(hw_id: str, context: int = 4096) -> Scenario:
    s = Scenario(hardware=to_hardware(CAT.hardware[hw_id]), model=MODELS[0][1], quant=QUANTS[0][1])
    return s.model_copy(update={"workload": s.workload.model_copy(update={"context": context})})


def test_rtx_5090_is_not_told_to_run_a_superseded_2023_model() -> None:
    rec = recommend(on("rtx-5090"), MODELS, QUANTS, standing=STANDING)
    assert rec.pick is not None
    pick = CAT.models[rec.pick.model_key]
    assert rec.pick.model_key != "mixtral-8x7b"
    assert pick.released is not None and pick.released >= "2025-01"
    assert ("Mixtral 8x7B", "Mistral Small 3.2 24B") in rec.left_out or any(
        old == CAT.models["mixtral-8x7b"].name for old, _ in rec.left_out
    )
    # without the catalog's standing, the old literal ranking still holds (largest that passes)
    plain = recommend(on("rtx-5090"), MODELS, QUANTS)
    assert plain.pick is not None and plain.pick.total_params_b >= rec.pick.total_params_b


def test_no_pick_or_runner_up_is_superseded_anywhere() -> None:
    keys = [k for k, _ in MODELS]
    params = np.array([m.total_params_b for _, m in MODELS])
    newer = superseded_by([STANDING[k] for k in keys], params)
    superseded = {keys[i] for i in range(len(keys)) if newer[i] >= 0}
    assert {"mixtral-8x7b", "llama-3.1-70b", "mistral-small-3.1-24b", "gemma-2-27b"} <= superseded
    for hw in ("rtx-3060-12gb", "rtx-3090", "rtx-4090", "rtx-5090"):
        for ctx in (4096, 32768):
            rec = recommend(on(hw, ctx), MODELS, QUANTS, standing=STANDING)
            shown = ([rec.pick] if rec.pick else []) + list(rec.runner_ups)
            assert not {c.model_key for c in shown} & superseded, (hw, ctx)


def test_superseding_needs_same_family_newer_and_not_larger() -> None:
    def st(fam: str, rel: str, score: float | None = None) -> Standing:
        return Standing(family=fam, released=rel, score=score, metric="MMLU-Pro" if score is not None else None)

    stand = [st("A", "2024-01"), st("A", "2025-01"), st("B", "2026-01"), st("A", "2026-01")]
    params = np.array([40.0, 24.0, 20.0, 3.0])
    newer = superseded_by(stand, params)
    assert newer[0] == 1  # newer, same family, smaller but at least half the size
    assert newer[1] == -1  # the 3 B one is too small to replace it without scores that say so
    assert newer[2] == -1  # another family never supersedes
    # with both scores, the score decides whether the smaller newer one replaces the older
    scored = [st("A", "2024-01", 70.0), st("A", "2025-01", 60.0)]
    assert superseded_by(scored, np.array([40.0, 24.0]))[0] == -1
    scored = [st("A", "2024-01", 60.0), st("A", "2025-01", 70.0)]
    assert superseded_by(scored, np.array([40.0, 8.0]))[0] == 1


def test_scores_reorder_only_the_places_scored_models_hold() -> None:
    stand: list[Standing | None] = [
        Standing(family="A", score=60.0, metric="MMLU-Pro"),
        None,
        Standing(family="B", score=80.0, metric="MMLU-Pro"),
        Standing(family="C"),
    ]
    params = np.array([70.0, 35.0, 24.0, 8.0])
    assert rank_order([0, 1, 2, 3], stand, params) == [2, 1, 0, 3]


def test_ranking_is_said_in_words() -> None:
    rec = recommend(on("rtx-5090"), MODELS, QUANTS, standing=STANDING)
    text = ranking_text(rec)
    assert "size" in text and "MMLU-Pro" in text and "superseded" in text
    assert CAT.models["mixtral-8x7b"].name in text or len(rec.left_out) > 3


def test_catalog_scores_are_one_metric_sourced_and_dated() -> None:
    scored = [e for e in CAT.models.values() if e.capability is not None]
    assert len(scored) >= 5
    assert {e.capability.metric for e in scored if e.capability} == {"MMLU-Pro"}
    for e in scored:
        assert e.capability is not None and e.capability.source.startswith("http")
        assert e.released is not None and e.capability.seen >= e.released
    # the ranking needs a release month to tell a superseded model: nearly every model has one (a model
    # whose month no source gave ranks by size alone)
    assert sum(1 for e in CAT.models.values() if e.released) >= 0.9 * len(CAT.models)


def test_a_custom_model_without_standing_still_ranks() -> None:
    models = [*MODELS, ("mine", ModelArch(name="Mine", total_params_b=30.0))]
    rec = recommend(on("rtx-4090"), models, QUANTS, standing=STANDING)
    assert rec.pick is not None
