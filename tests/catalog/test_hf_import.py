"""Hugging Face config.json import: published configs (trimmed to the keys that matter) against published totals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from advisor.catalog.hf_import import HFImportError, import_hf_config

LLAMA_31_8B: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "rope_scaling": {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    },
}
QWEN3_30B_A3B: dict[str, Any] = {
    "architectures": ["Qwen3MoeForCausalLM"],
    "model_type": "qwen3_moe",
    "hidden_size": 2048,
    "head_dim": 128,
    "intermediate_size": 6144,
    "moe_intermediate_size": 768,
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 48,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
    "vocab_size": 151936,
    "max_position_embeddings": 40960,
    "tie_word_embeddings": False,
    "decoder_sparse_step": 1,
    "mlp_only_layers": [],
    "sliding_window": None,
    "use_sliding_window": False,
    "max_window_layers": 48,
    "torch_dtype": "bfloat16",
}
GEMMA3_12B: dict[str, Any] = {  # the multimodal config: the LM under text_config, most keys left at defaults
    "architectures": ["Gemma3ForConditionalGeneration"],
    "model_type": "gemma3",
    "torch_dtype": "bfloat16",
    "text_config": {
        "hidden_size": 3840,
        "intermediate_size": 15360,
        "model_type": "gemma3_text",
        "num_attention_heads": 16,
        "num_hidden_layers": 48,
        "num_key_value_heads": 8,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
        "sliding_window": 1024,
    },
    "vision_config": {"hidden_size": 1152, "model_type": "siglip_vision_model", "num_hidden_layers": 27},
}
DEEPSEEK_V3: dict[str, Any] = {
    "architectures": ["DeepseekV3ForCausalLM"],
    "model_type": "deepseek_v3",
    "hidden_size": 7168,
    "intermediate_size": 18432,
    "moe_intermediate_size": 2048,
    "n_routed_experts": 256,
    "n_shared_experts": 1,
    "num_experts_per_tok": 8,
    "first_k_dense_replace": 3,
    "moe_layer_freq": 1,
    "num_hidden_layers": 61,
    "num_attention_heads": 128,
    "num_key_value_heads": 128,
    "kv_lora_rank": 512,
    "q_lora_rank": 1536,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "v_head_dim": 128,
    "vocab_size": 129280,
    "max_position_embeddings": 163840,
    "tie_word_embeddings": False,
    "num_nextn_predict_layers": 1,
    "torch_dtype": "bfloat16",
    "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]},
}
GPT_OSS_20B: dict[str, Any] = {
    "architectures": ["GptOssForCausalLM"],
    "model_type": "gpt_oss",
    "hidden_size": 2880,
    "intermediate_size": 2880,
    "head_dim": 64,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "num_hidden_layers": 24,
    "num_local_experts": 32,
    "num_experts_per_tok": 4,
    "experts_per_token": 4,
    "vocab_size": 201088,
    "max_position_embeddings": 131072,
    "sliding_window": 128,
    "tie_word_embeddings": False,
    "layer_types": ["sliding_attention", "full_attention"] * 12,
    "attention_bias": True,
    "quantization_config": {"quant_method": "mxfp4"},
}
MIXTRAL_8X7B: dict[str, Any] = {
    "model_type": "mixtral",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "num_local_experts": 8,
    "num_experts_per_tok": 2,
    "vocab_size": 32000,
    "max_position_embeddings": 32768,
    "sliding_window": None,
    "tie_word_embeddings": False,
}


def _write(folder: Path, config: dict[str, Any], name: str = "config.json") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(config))
    return path


@pytest.mark.parametrize(
    ("config", "folder", "total", "active"),
    [
        (LLAMA_31_8B, "Llama-3.1-8B", 8.03, None),
        (QWEN3_30B_A3B, "Qwen3-30B-A3B", 30.5, 3.3),
        (GEMMA3_12B, "gemma-3-12b-it", 12.2, None),  # published total includes the 0.4B vision tower
        (DEEPSEEK_V3, "DeepSeek-V3", 671, 37),
        (GPT_OSS_20B, "gpt-oss-20b", 20.9, 3.6 + 0.58),  # OpenAI's 3.6B active leaves out the 0.58B embedding
        (MIXTRAL_8X7B, "Mixtral-8x7B-v0.1", 46.7, 12.9),
    ],
)
def test_published_totals(
    tmp_path: Path, config: dict[str, Any], folder: str, total: float, active: float | None
) -> None:
    got = import_hf_config(_write(tmp_path / folder, config))
    e = got.entry
    assert e.total_params_b == pytest.approx(total, rel=0.05)
    if active is None:
        assert e.active_params_b is None
    else:
        assert e.active_params_b == pytest.approx(active, rel=0.05)
    assert e.name == folder and got.params_from == "architecture"


def test_llama_shape(tmp_path: Path) -> None:
    e = import_hf_config(_write(tmp_path / "m", LLAMA_31_8B)).entry
    assert (e.layers, e.hidden, e.heads, e.kv_heads, e.head_dim, e.vocab) == (32, 4096, 32, 8, 128, 128256)
    assert e.max_context == 131072 and e.attention == "full" and e.id == "m"


def test_gemma3_text_config_and_defaults(tmp_path: Path) -> None:
    got = import_hf_config(_write(tmp_path / "g", GEMMA3_12B))
    e = got.entry
    assert (e.layers, e.hidden, e.heads, e.kv_heads, e.head_dim, e.vocab) == (48, 3840, 16, 8, 256, 262208)
    assert (e.attention, e.sliding_window, e.sliding_layers) == ("sliding", 1024, 40)
    assert e.total_params_b == pytest.approx(11.77, rel=0.01)  # the text decoder alone
    assert any("defaults" in n and "head_dim" in n for n in got.notes)


def test_deepseek_mla(tmp_path: Path) -> None:
    got = import_hf_config(_write(tmp_path / "d", DEEPSEEK_V3))
    e = got.entry
    assert (e.attention, e.kv_lora_rank, e.rope_dim, e.head_dim) == ("mla", 512, 64, 128)
    assert (e.experts, e.experts_active) == (256, 8)
    assert any("multi-token-prediction" in n for n in got.notes)


def test_gpt_oss_layer_types(tmp_path: Path) -> None:
    e = import_hf_config(_write(tmp_path / "o", GPT_OSS_20B)).entry
    assert (e.attention, e.sliding_window, e.sliding_layers) == ("sliding", 128, 12)


def test_qwen_sliding_window_off(tmp_path: Path) -> None:
    cfg = {**QWEN3_30B_A3B, "sliding_window": 4096}
    assert import_hf_config(_write(tmp_path / "q", cfg)).entry.attention == "full"


def test_index_gives_params_at_the_dtype(tmp_path: Path) -> None:
    folder = tmp_path / "Llama-3.1-8B"
    path = _write(folder, LLAMA_31_8B)
    _write(folder, {"metadata": {"total_size": 16_060_522_496}, "weight_map": {}}, "model.safetensors.index.json")
    got = import_hf_config(folder)  # a folder works too
    assert got.params_from == "index"
    assert got.entry.total_params_b == pytest.approx(8.030261248)
    assert "total_params_b" in got.entry.estimates
    explicit = tmp_path / "elsewhere.json"
    explicit.write_text(json.dumps({"metadata": {"total_size": 16_000_000_000}}))
    assert import_hf_config(path, explicit).entry.total_params_b == pytest.approx(8.0)


def test_index_ignored_for_quantized_checkpoint(tmp_path: Path) -> None:
    folder = tmp_path / "DeepSeek-V3"
    _write(folder, DEEPSEEK_V3)
    _write(folder, {"metadata": {"total_size": 688_586_727_753}}, "model.safetensors.index.json")
    got = import_hf_config(folder / "config.json")
    assert got.params_from == "architecture"
    assert got.entry.total_params_b == pytest.approx(671, rel=0.01)
    assert any("quantized checkpoint" in n for n in got.notes)


def test_hub_cache_path_names_the_repo(tmp_path: Path) -> None:
    folder = tmp_path / "models--Qwen--Qwen3-30B-A3B" / "snapshots" / ("a" * 40)
    assert import_hf_config(_write(folder, QWEN3_30B_A3B)).entry.name == "Qwen3-30B-A3B"


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("{not json", "config.json: not valid JSON (line 1, column 2)"),
        ("[1, 2]", "config.json: expected a JSON object"),
        (json.dumps({k: v for k, v in LLAMA_31_8B.items() if k != "hidden_size"}), "missing 'hidden_size'"),
        (json.dumps({**LLAMA_31_8B, "num_hidden_layers": "32"}), "field 'num_hidden_layers': expected a non-negative"),
        (json.dumps({**LLAMA_31_8B, "num_key_value_heads": True}), "field 'num_key_value_heads'"),
        (json.dumps({k: v for k, v in LLAMA_31_8B.items() if k != "intermediate_size"}), "missing 'intermediate_size'"),
        (json.dumps({**LLAMA_31_8B, "max_position_embeddings": 10**10}), "invalid max_context"),
    ],
)
def test_bad_configs(tmp_path: Path, content: str, match: str) -> None:
    path = tmp_path / "config.json"
    path.write_text(content)
    with pytest.raises(HFImportError) as info:
        import_hf_config(path)
    assert match in str(info.value) and "\n" not in str(info.value)


def test_bad_index_and_missing_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "m", LLAMA_31_8B)
    _write(tmp_path / "m", {"metadata": {}}, "model.safetensors.index.json")
    with pytest.raises(HFImportError, match="model.safetensors.index.json: field 'metadata.total_size'"):
        import_hf_config(path)
    with pytest.raises(HFImportError, match="no such file"):
        import_hf_config(tmp_path / "absent" / "config.json")


# Qwen3.6-35B-A3B's text config (the keys that matter): one layer in four attends, the rest are Gated DeltaNet
# linear-attention layers with a fixed-size state (full_attention_interval 4).
QWEN36_35B_A3B: dict[str, Any] = {
    "architectures": ["Qwen3_5MoeForConditionalGeneration"],
    "model_type": "qwen3_5_moe",
    "text_config": {
        "model_type": "qwen3_5_moe_text",
        "hidden_size": 2048,
        "num_hidden_layers": 40,
        "num_attention_heads": 16,
        "num_key_value_heads": 2,
        "head_dim": 256,
        "linear_num_value_heads": 32,
        "linear_num_key_heads": 16,
        "linear_key_head_dim": 128,
        "linear_value_head_dim": 128,
        "vocab_size": 248320,
        "num_experts": 256,
        "num_experts_per_tok": 8,
        "moe_intermediate_size": 512,
        "shared_expert_intermediate_size": 512,
        "full_attention_interval": 4,
        "max_position_embeddings": 262144,
        "tie_word_embeddings": False,
    },
}


def test_hybrid_linear_attention_counts_only_the_attention_layers_cache(tmp_path: Path) -> None:
    e = import_hf_config(_write(tmp_path / "q36", QWEN36_35B_A3B)).entry
    # 10 attention layers × K and V × 2 KV heads × 256 × 2 bytes, not all 40 layers' 81,920
    assert e.kv_bytes_per_token_override == 2 * 10 * 2 * 256 * 2 == 20_480
    assert e.attention == "full" and e.sliding_window is None
    assert "hybrid: 10 of 40 layers keep a KV cache" in e.notes and e.attention_layers == 10
    # the 30 Gated DeltaNet layers' f32 state: 128 × 4,096 plus 3 × (4,096 + 2 × 16 × 128) conv inputs each
    assert e.state_bytes_per_sequence == 4 * 30 * (128 * 4096 + 3 * (4096 + 2 * 16 * 128)) == 65_863_680
    assert "65.9 MB of state per sequence" in e.notes
    # the same split written out as layer_types (Qwen3.5/3.8 configs carry both)
    listed = {
        **QWEN36_35B_A3B,
        "text_config": {
            **QWEN36_35B_A3B["text_config"],
            "full_attention_interval": None,
            "layer_types": ["full_attention" if i % 4 == 3 else "linear_attention" for i in range(40)],
        },
    }
    assert import_hf_config(_write(tmp_path / "listed", listed)).entry.kv_bytes_per_token_override == 20_480
    # a state-space hybrid (Nemotron-H): '*' marks the attention layers in hybrid_override_pattern
    nemotron = {
        **LLAMA_31_8B,
        "model_type": "nemotron_h",
        "hybrid_override_pattern": "M*MM" * 8,
        "mamba_num_heads": 64,
        "mamba_head_dim": 64,
        "ssm_state_size": 128,
        "n_groups": 8,
        "conv_kernel": 4,
    }
    nemo = import_hf_config(_write(tmp_path / "nemo", nemotron)).entry
    assert nemo.kv_bytes_per_token_override == 2 * 8 * 8 * 128 * 2 and nemo.attention_layers == 8
    assert nemo.state_bytes_per_sequence == 4 * 24 * (128 * 4096 + 3 * (4096 + 2 * 8 * 128))
    # and a model whose every layer attends keeps the cache its shape gives
    llama = import_hf_config(_write(tmp_path / "llama", LLAMA_31_8B)).entry
    assert llama.kv_bytes_per_token_override is None and llama.attention_layers is None


def test_hybrid_cache_is_what_the_estimate_holds(tmp_path: Path) -> None:
    from advisor.catalog.convert import to_model
    from advisor.core.kv import kv_shape
    from advisor.core.quant import KVPrecision

    e = import_hf_config(_write(tmp_path / "q36", QWEN36_35B_A3B)).entry
    shape = kv_shape(to_model(e), KVPrecision.F16)
    assert shape.full_bytes_per_token == 20_480 and shape.known
    assert kv_shape(to_model(e), KVPrecision.Q8_0).full_bytes_per_token == pytest.approx(20_480 / 2 * 34 / 32)


def test_tied_embeddings_as_the_config_says(tmp_path: Path) -> None:
    assert import_hf_config(_write(tmp_path / "l", LLAMA_31_8B)).entry.tied_embeddings is False
    assert import_hf_config(_write(tmp_path / "g", GEMMA3_12B)).entry.tied_embeddings is True  # the family default
    absent = {k: v for k, v in MIXTRAL_8X7B.items() if k != "tie_word_embeddings"}
    got = import_hf_config(_write(tmp_path / "x", absent))
    assert got.entry.tied_embeddings is None  # unknown: the estimate reads every weight
    assert any("tie_word_embeddings absent" in n for n in got.notes)
