"""A model entry from a Hugging Face config.json (and its safetensors index, when there is one).

Plain JSON reading: no remote code, no network. Parameters come from the index's byte total at the
checkpoint's dtype when that is trustworthy (an unquantized checkpoint), otherwise from the
architecture via advisor.catalog.params. Keys follow transformers' config classes for llama, mistral,
qwen2/3(+moe), gemma2/3, mixtral, deepseek_v3, gpt_oss, glm4_moe and phi3."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from advisor.catalog.params import ArchCounts, count_params
from advisor.catalog.schema import ModelEntry
from advisor.catalog.user_store import slugify
from advisor.core.kv import attention_kv_bytes, recurrent_state_bytes
from advisor.json_files import JSONProblem, load_json_file

MAX_JSON_BYTES = 32 << 20  # a config is a few KB; an index lists every tensor, a few MB at most
MAX_INT = 1 << 50  # larger than any count or size a config holds (the biggest, a byte total, is ~1e13)
MAX_LAYERS = 1000  # the schema's bound; loops over layers are sized by it
INDEX_NAME = "model.safetensors.index.json"

# transformers' class defaults that real configs leave out (Gemma 3's text_config omits most of them)
_DEFAULTS: dict[str, dict[str, Any]] = {
    "gemma3_text": {
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "head_dim": 256,
        "vocab_size": 262_208,
        "max_position_embeddings": 131_072,
        "sliding_window": 4096,
        "sliding_window_pattern": 6,
        "tie_word_embeddings": True,
    },
    "gemma2": {"head_dim": 256, "vocab_size": 256_000, "sliding_window": 4096, "tie_word_embeddings": True},
    "gemma": {"tie_word_embeddings": True},
}
_DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "float8_e4m3fn": 1, "float8_e5m2": 1}
_EXPERT_KEYS = ("num_local_experts", "n_routed_experts", "num_experts")


class HFImportError(ValueError):
    """The config cannot be read as a transformer LM; the message names the file and field."""


@dataclass(frozen=True)
class ImportedConfig:
    entry: ModelEntry
    params_from: str  # "index" or "architecture"
    notes: tuple[str, ...] = field(default=())


class _Config:
    """Typed access to the merged config, with errors that name the file and key."""

    def __init__(self, data: dict[str, Any], label: str) -> None:
        self.data, self.label = data, label
        self.defaulted: list[str] = []

    def fail(self, message: str) -> HFImportError:
        return HFImportError(f"{self.label}: {message}")

    def int(self, *keys: str, required: bool = False) -> int | None:
        for k in keys:
            v = self.data.get(k)
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, int | float) or v < 0 or v > MAX_INT or v != int(v):
                raise self.fail(f"field '{k}': expected a non-negative integer up to {MAX_INT:.2g}, got {str(v)[:40]}")
            return int(v)
        if required:
            raise self.fail(f"missing '{keys[0]}' (not a transformer language-model config?)")
        return None

    def bool(self, key: str) -> bool | None:
        """A flag as JSON true/false; the strings "true"/"false" and 0/1 are read as meant (bool("false")
        would be True), anything else is an error naming the field."""
        v = self.data.get(key)
        if v is None or isinstance(v, bool):
            return v
        if isinstance(v, str) and v.strip().lower() in ("true", "false"):
            return v.strip().lower() == "true"
        if isinstance(v, int | float) and v in (0, 1):
            return bool(v)
        raise self.fail(f"field '{key}': expected true or false, got {str(v)[:40]!r}")

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)


def _read_json(path: Path) -> Any:
    try:
        return load_json_file(path, label=path.name, max_bytes=MAX_JSON_BYTES)
    except JSONProblem as err:
        raise HFImportError(f"{path}: no such file" if str(err).endswith(": no such file") else str(err)) from None


def _merged(raw: dict[str, Any], label: str) -> tuple[_Config, str]:
    """The language model's own keys: a multimodal config nests them under text_config."""
    text = raw.get("text_config")
    data = dict(raw)
    if isinstance(text, dict):
        data = {**{k: v for k, v in raw.items() if k != "text_config"}, **text}
    model_type = str(data.get("model_type") or "")
    cfg = _Config(data, label)
    for k, v in _DEFAULTS.get(model_type, {}).items():
        if data.get(k) is None:
            data[k] = v
            cfg.defaulted.append(k)
    return cfg, model_type


def _sliding(cfg: _Config, model_type: str, layers: int, max_ctx: int | None) -> tuple[int, int] | None:
    """(window, sliding layers), or None for full attention everywhere."""
    window = cfg.int("sliding_window")
    types = cfg.get("layer_types")
    if isinstance(types, list) and types:
        n = sum(1 for t in types if t == "sliding_attention")
        return (window, n) if window and n else None
    if not window or cfg.bool("use_sliding_window") is False:
        return None
    if model_type.startswith("gemma3"):
        period = cfg.int("sliding_window_pattern") or 6
        return window, layers - layers // period
    if model_type == "gemma2":
        return window, (layers + 1) // 2  # even layers slide
    if cfg.bool("use_sliding_window") is True:  # qwen2: layers from max_window_layers on slide
        n = max(layers - (cfg.int("max_window_layers") or 0), 0)
        return (window, n) if n else None
    if max_ctx is not None and window >= max_ctx:
        return None
    return window, layers  # mistral v0.1, phi3: every layer


def _attention_layers(cfg: _Config, layers: int) -> int | None:
    """Layers that keep a KV cache in a hybrid model whose other layers use linear attention or a state
    space (Qwen3-Next/3.5/3.6: `layer_types` or `full_attention_interval` with `linear_*` keys; Nemotron-H:
    '*' in `hybrid_override_pattern`); None for a model whose every layer attends."""
    types = cfg.get("layer_types")
    if isinstance(types, list) and "linear_attention" in types:
        return sum(1 for t in types if t == "full_attention")
    interval = cfg.int("full_attention_interval")
    if interval and interval > 1 and cfg.get("linear_num_value_heads") is not None:
        return layers // interval
    pattern = cfg.get("hybrid_override_pattern")
    if isinstance(pattern, str) and pattern:
        return pattern.count("*")
    return None


def _state_bytes(cfg: _Config, recurrent_layers: int) -> float | None:
    """The recurrent state per sequence of a hybrid's other layers, from the config's linear-attention
    (Qwen3-Next/3.5/3.6) or Mamba-2 (Nemotron-H) sizes; None when the config does not give them."""
    v_heads, k_heads = cfg.int("linear_num_value_heads"), cfg.int("linear_num_key_heads")
    k_dim, v_dim = cfg.int("linear_key_head_dim"), cfg.int("linear_value_head_dim")
    if v_heads and k_heads and k_dim and v_dim:
        return recurrent_state_bytes(
            recurrent_layers, k_dim, v_heads * v_dim, k_heads, cfg.int("linear_conv_kernel_dim") or 4
        )
    heads, head_dim, d_state = cfg.int("mamba_num_heads"), cfg.int("mamba_head_dim"), cfg.int("ssm_state_size")
    if heads and head_dim and d_state:
        return recurrent_state_bytes(
            recurrent_layers, d_state, heads * head_dim, cfg.int("n_groups") or 1, cfg.int("conv_kernel") or 4
        )
    return None


def _counts(
    cfg: _Config, model_type: str, layers: int, hidden: int, heads: int, kv_heads: int, head_dim: int, vocab: int
) -> ArchCounts:
    experts = cfg.int(*_EXPERT_KEYS) or 0
    active = cfg.int("num_experts_per_tok", "experts_per_token") or 0
    moe_width = cfg.int("moe_intermediate_size") or 0
    dense_width = cfg.int("intermediate_size") or 0
    if experts and not moe_width:  # mixtral, gpt-oss: intermediate_size is the expert's width
        moe_width, dense_width = dense_width, 0
    dense_layers = cfg.int("first_k_dense_replace") or 0
    only_mlp = cfg.get("mlp_only_layers")
    step = cfg.int("decoder_sparse_step") or 1
    if experts and (isinstance(only_mlp, list) or step > 1):  # qwen-moe: which layers keep a dense MLP
        dense = {i for i in (only_mlp or []) if isinstance(i, int)} | {i for i in range(layers) if (i + 1) % step}
        dense_layers = len(dense & set(range(layers)))
    shared = cfg.int("n_shared_experts") or 0
    shared_width = 0
    if not shared and cfg.int("shared_expert_intermediate_size"):  # qwen2-moe: one shared expert of this width
        shared, shared_width = 1, cfg.int("shared_expert_intermediate_size") or 0
    if experts and not moe_width:
        raise cfg.fail("field 'moe_intermediate_size': needed for a mixture-of-experts config")
    if not experts and not dense_width:
        raise cfg.fail("missing 'intermediate_size'")
    mla = cfg.int("kv_lora_rank") or 0
    return ArchCounts(
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        vocab=vocab,
        intermediate_size=dense_width,
        tied_embeddings=bool(cfg.bool("tie_word_embeddings")),
        attention_bias=_or(cfg.bool("attention_bias"), model_type in ("qwen2", "qwen2_moe")),
        experts=experts,
        experts_active=active,
        moe_intermediate_size=moe_width,
        shared_experts=shared,
        shared_intermediate_size=shared_width,
        dense_layers=dense_layers,
        expert_bias=model_type == "gpt_oss",
        kv_lora_rank=mla,
        q_lora_rank=cfg.int("q_lora_rank") or 0,
        qk_nope_head_dim=cfg.int("qk_nope_head_dim") or 0,
        qk_rope_head_dim=cfg.int("qk_rope_head_dim") or 0,
        v_head_dim=cfg.int("v_head_dim") or 0,
    )


def _or(value: bool | None, default: bool) -> bool:
    return default if value is None else value


def _index_params(index_path: Path, cfg: _Config, notes: list[str]) -> int | None:
    """Params from the index's byte total, when the checkpoint's dtype says how many bytes one weight takes."""
    raw = _read_json(index_path)
    meta = raw.get("metadata") if isinstance(raw, dict) else None
    total = meta.get("total_size") if isinstance(meta, dict) else None
    if isinstance(total, bool) or not isinstance(total, int | float) or not 0 < total <= MAX_INT:
        raise HFImportError(f"{index_path.name}: field 'metadata.total_size': expected a positive byte count")
    if cfg.get("quantization_config") is not None:
        notes.append("quantized checkpoint: the index's bytes do not map to params; counted from the architecture")
        return None
    dtype = str(cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16")
    width = _DTYPE_BYTES.get(dtype)
    if width is None:
        notes.append(f"dtype {dtype} unknown: params counted from the architecture")
        return None
    return int(total) // width


def _model_name(path: Path, cfg: _Config) -> str:
    """The repo's name: from a hub cache path (models--org--name/snapshots/<hash>), the folder, or the config."""
    parts = path.resolve().parts
    for p in reversed(parts):
        if p.startswith("models--"):
            return p.split("--")[-1]
    folder = path.parent.name
    if folder and not re.fullmatch(r"[0-9a-f]{40}", folder):
        return folder
    name = cfg.get("_name_or_path")
    if isinstance(name, str) and name:
        return name.rstrip("/").split("/")[-1]
    archs = cfg.get("architectures")
    return str(archs[0]) if isinstance(archs, list) and archs else str(cfg.get("model_type") or "Imported model")


def import_hf_config(path: Path | str, index_path: Path | str | None = None) -> ImportedConfig:
    """Describe the model a config.json (or a folder holding one) defines, as a catalog entry."""
    path = Path(path)
    if path.is_dir():
        path = path / "config.json"
    raw = _read_json(path)
    if not isinstance(raw, dict):
        raise HFImportError(f"{path.name}: expected a JSON object")
    cfg, model_type = _merged(raw, path.name)
    notes: list[str] = [f"imported from {path.name}" + (f" ({model_type})" if model_type else "")]
    if cfg.defaulted:
        notes.append(f"transformers defaults used for {', '.join(cfg.defaulted)}")

    layers = cfg.int("num_hidden_layers", "n_layer", "num_layers", required=True) or 0
    hidden = cfg.int("hidden_size", "n_embd", "d_model", required=True) or 0
    heads = cfg.int("num_attention_heads", "n_head", required=True) or 0
    kv_heads = cfg.int("num_key_value_heads") or heads
    vocab = cfg.int("vocab_size", required=True) or 0
    if not (layers and hidden and heads):
        raise cfg.fail("num_hidden_layers, hidden_size and num_attention_heads must be positive")
    if layers > MAX_LAYERS:
        raise cfg.fail(f"field 'num_hidden_layers': {layers:,} layers, more than {MAX_LAYERS} (not a real model)")
    mla = cfg.int("kv_lora_rank")
    head_dim = (cfg.int("v_head_dim") if mla else None) or cfg.int("head_dim") or hidden // heads
    max_ctx = cfg.int("max_position_embeddings")

    counts = _counts(cfg, model_type, layers, hidden, heads, kv_heads, head_dim, vocab)
    total, active = count_params(counts)
    params_from = "architecture"
    idx = Path(index_path) if index_path is not None else path.with_name(INDEX_NAME)
    if index_path is not None or idx.is_file():
        from_index = _index_params(idx, cfg, notes)
        if from_index:
            if abs(from_index / total - 1) > 0.05:
                notes.append(
                    f"the architecture alone gives {total / 1e9:.2f}B "
                    "(the checkpoint may hold a vision encoder or prediction layers too)"
                )
            active = max(from_index - (total - active), 1)
            total, params_from = from_index, "index"
    if "tie_word_embeddings" not in cfg.data:
        notes.append("tie_word_embeddings absent: counted untied")
    if cfg.int("num_nextn_predict_layers"):
        notes.append(f"{cfg.int('num_nextn_predict_layers')} multi-token-prediction layer(s) not counted")
    scaling = cfg.get("rope_scaling")
    if isinstance(scaling, dict) and scaling.get("factor"):
        notes.append(f"rope_scaling {scaling.get('rope_type') or scaling.get('type')} factor {scaling['factor']}")

    fields: dict[str, Any] = {
        "layers": layers,
        "hidden": hidden,
        "heads": heads,
        "kv_heads": kv_heads,
        "head_dim": head_dim,
        "vocab": vocab or None,
    }
    if (tied := cfg.bool("tie_word_embeddings")) is not None:  # absent: unknown, every weight counted as read
        fields["tied_embeddings"] = tied
    if max_ctx:
        fields["max_context"] = max_ctx
    if counts.is_moe:
        fields.update(experts=counts.experts, experts_active=counts.experts_active or None)
    attending = None if mla else _attention_layers(cfg, layers)
    if attending is not None and attending < layers:
        # a hybrid: only the attention layers' cache grows with context, and no window applies to it
        fields["kv_bytes_per_token_override"] = attention_kv_bytes(attending, kv_heads, head_dim)
        fields["attention_layers"] = attending
        state = _state_bytes(cfg, layers - attending)
        if state is not None:
            fields["state_bytes_per_sequence"] = state
        notes.append(
            f"hybrid: {attending} of {layers} layers keep a KV cache; the other {layers - attending} keep "
            + (
                f"{state / 1e6:.1f} MB of state per sequence"
                if state is not None
                else "a fixed-size state per sequence, not counted (its sizes are not in the config)"
            )
            + " (their weights are counted as attention layers')"
        )
    if mla:
        fields.update(attention="mla", kv_lora_rank=mla, rope_dim=counts.qk_rope_head_dim)
    elif "kv_bytes_per_token_override" not in fields and (sw := _sliding(cfg, model_type, layers, max_ctx)):
        fields.update(attention="sliding", sliding_window=sw[0], sliding_layers=sw[1])

    name = _model_name(path, cfg)[:200]
    try:
        entry = ModelEntry(
            id=slugify(name),
            name=name,
            family=(model_type or "unknown")[:80],
            total_params_b=total / 1e9,
            active_params_b=active / 1e9 if counts.is_moe else None,
            source=f"config.json at {path}"[:2000],
            notes="; ".join(notes),
            # the index's bytes over the dtype's width is an estimate; the architecture count is exact arithmetic
            estimates=(
                ["total_params_b"] + (["active_params_b"] if counts.is_moe else []) if params_from == "index" else []
            ),
            **fields,
        )
    except ValidationError as err:
        first = err.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "entry"
        raise HFImportError(f"{path.name}: gives an invalid {loc}: {first['msg']}") from None
    return ImportedConfig(entry=entry, params_from=params_from, notes=tuple(notes))
