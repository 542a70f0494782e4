"""Field relations the model schema enforces, and importers reading flags as meant."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from advisor.catalog.hf_import import HFImportError, import_hf_config
from advisor.core.evaluate import evaluate
from advisor.core.model import ModelArch
from advisor.core.scenario import Scenario, Workload
from tests.catalog.test_hf_import import LLAMA_31_8B

GEMMA3_27B = {
    "name": "Gemma 3 27B",
    "total_params_b": 27.4,
    "layers": 62,
    "hidden": 5376,
    "heads": 32,
    "kv_heads": 16,
    "head_dim": 128,
    "attention": "sliding",
    "sliding_window": 1024,
    "sliding_layers": 52,
}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"attention_layers": 10}, "sliding_layers cannot exceed attention_layers"),
        ({"kv_heads": 64}, "kv_heads cannot exceed heads"),
        ({"head_dim": 100_000}, "heads × head_dim"),
        ({"head_dim": None, "heads": 6000}, "heads cannot exceed hidden"),
    ],
)
def test_inconsistent_shapes_are_refused(change: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError, match=field):
        ModelArch.model_validate({**GEMMA3_27B, **change})


def test_every_valid_sliding_model_reads_no_negative_speed() -> None:
    for attending in (52, 62):
        s = Scenario(
            model=ModelArch.model_validate({**GEMMA3_27B, "attention_layers": attending}),
            workload=Workload(context=100_000, flash_attention=False),
        )
        r = evaluate(s, explain=False)
        assert r.decode_tok_s is None or r.decode_tok_s > 0


@pytest.mark.parametrize(
    ("value", "tied"),
    [("false", False), ("False", False), ("true", True), (0, False), (1, True), (False, False), (True, True)],
)
def test_tie_word_embeddings_strings_read_as_meant(tmp_path: Path, value: Any, tied: bool) -> None:
    (tmp_path / "config.json").write_text(json.dumps({**LLAMA_31_8B, "tie_word_embeddings": value}))
    assert import_hf_config(tmp_path).entry.tied_embeddings is tied


@pytest.mark.parametrize("value", ["no", 2, [True], {"x": 1}])
def test_tie_word_embeddings_nonsense_is_one_message(tmp_path: Path, value: Any) -> None:
    (tmp_path / "config.json").write_text(json.dumps({**LLAMA_31_8B, "tie_word_embeddings": value}))
    with pytest.raises(HFImportError, match=r"^config\.json: field 'tie_word_embeddings': expected true or false"):
        import_hf_config(tmp_path)
