"""What a measurement row ran, resolved against the catalog and hardware_specs.csv: its machine, its
model's shape and its weight format. Each returns the value, or a string that says why the row cannot
be predicted."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from advisor.catalog.convert import to_hardware, to_model, to_quant
from advisor.catalog.loader import Catalog
from advisor.core.hardware import Hardware
from advisor.core.inputs import split_params
from advisor.core.model import ModelArch
from advisor.core.quant import Quant
from advisor.validation.measurements import HardwareSpec, Measurement

# Rows whose model has no catalog id but whose name clearly names a catalog architecture: the layer
# and head shape (hence KV bytes and layer count) come from that entry; parameters stay the row's own.
MODEL_ALIASES: dict[str, str] = {
    # Llama 3 8B/70B: same layers, heads and GQA shape as Llama 3.1 (only RoPE scaling and context differ).
    "Meta Llama 3 8B": "llama-3.1-8b",
    "Meta Llama 3 70B": "llama-3.1-70b",
    # llama.cpp prints "llama 8B" for the Llama 3.x 8B shape and "llama 70B" for the 80-layer, 8-KV-head
    # 70B shape that Llama 2 70B and Llama 3.x 70B share.
    "Llama 8B-class (llama 8B)": "llama-3.1-8b",
    "Llama 70B-class (llama 70B Q4_K_M)": "llama-3.1-70b",
    # "qwen3moe 30B.A3B" is the architecture label of Qwen3-30B-A3B (and its Coder variant, same shape).
    "Qwen3 30B-A3B-class MoE (qwen3moe 30B.A3B Q8_0)": "qwen3-30b-a3b",
    # Mistral 7B v0.2 and v0.3 share the shape (v0.3 only grew the vocabulary).
    "Mistral 7B Instruct v0.2": "mistral-7b-v0.3",
    # Mistral Small 3 / 3.1 / 3.2 24B share the text architecture.
    "Mistral-Small-24B (dense; exact release not stated)": "mistral-small-3.1-24b",
    # Qwen3.5-35B-A3B and Qwen3.6-35B-A3B share the architecture and model_type (llama.cpp: qwen35moe), a
    # hybrid whose Gated DeltaNet layers keep a fixed state instead of a KV cache.
    "Qwen3.5-35B-A3B (Qwen3.5-35B-A3B-Q8_0; qwen35moe 35B.A3B Q8_0)": "qwen3.6-35b-a3b",
    "Qwen3.5-35B-A3B (Unsloth UD-Q3_K_XL GGUF; printed as qwen35moe 35B.A3B Q3_K - Medium)": "qwen3.6-35b-a3b",
    "Qwen3.5-35B-A3B (Unsloth UD-Q4_K_XL GGUF; printed as qwen35moe 35B.A3B Q4_K - Medium)": "qwen3.6-35b-a3b",
    "Qwen3.6-35B-A3B (Qwen3.6-35B-A3B-UD-Q4_K_M.gguf; qwen35moe 35B.A3B Q4_K - Medium)": "qwen3.6-35b-a3b",
    "Qwen3.6-35B-A3B (Unsloth UD-Q3_K_XL GGUF; printed as qwen35moe 35B.A3B Q3_K - Medium)": "qwen3.6-35b-a3b",
    "Qwen3.6-35B-A3B (Unsloth UD-Q4_K_XL GGUF; printed as qwen35moe 35B.A3B Q4_K - Medium)": "qwen3.6-35b-a3b",
    "Qwen3-Coder-Next 80B-A3B": "qwen3-coder-next",
    # The catalog model itself, named as its GGUF file or llama.cpp's label prints it.
    "Qwen3.5-9B (Unsloth GGUF Qwen3.5-9B-Q8_0)": "qwen3.5-9b",
    "Qwen3.5-27B (Unsloth UD-Q4_K_XL GGUF)": "qwen3.5-27b",
    "Qwen3.6 27B-class (qwen3.6 27B Q4_K_M)": "qwen3.6-27b",
    "Gemma 4 31B-it (gemma-4-31B-it-UD-Q4_K_XL.gguf; gemma4 31B Q4_K - Medium)": "gemma-4-31b",
    "GLM-4.7-Flash (ggml-org GGUF; printed as deepseek2 30B.A3B Q8_0)": "glm-4.7-flash",
    "Qwen3-0.6B (F16 GGUF)": "qwen3-0.6b",
    "Qwen3-0.6B (Q4_K_M GGUF)": "qwen3-0.6b",
    "qwen3 0.6B Q8_0 (arch label, presumably Qwen3-0.6B)": "qwen3-0.6b",
    "Meta Llama 3 8B (Meta-Llama-3-8B.Q4_0.gguf; llama 8B Q4_0)": "llama-3.1-8b",
    "Meta Llama 3 8B (Meta-Llama-3-8B.Q4_1.gguf; llama 8B Q4_1)": "llama-3.1-8b",
    "Meta Llama 3 8B (Meta-Llama-3-8B.Q5_0.gguf; llama 8B Q5_0)": "llama-3.1-8b",
    # llama.cpp's "llama 3B" in Nov 2024: the 28-layer Llama 3.2 3B shape.
    "Llama 3B-class (llama 3B)": "llama-3.2-3b",
    # the only nemotron_h model of 9B: Nemotron Nano 9B v2 (base and chat share the shape)
    "nemotron_h 9B (architecture label; checkpoint not named)": "nemotron-nano-9b-v2",
    # LLaMA 1 7B/13B, Llama 2 7B/13B and their chat and quantized builds share one shape per size
    # (llama.cpp prints "llama 7B" / "llama 13B" for either).
    "LLaMA 7B (llama 7B)": "llama-2-7b",
    "LLaMA 13B (llama 13B)": "llama-2-13b",
    "Llama 7B-class (llama 7B Q4_0)": "llama-2-7b",
    "Llama 2 7B": "llama-2-7b",
    "Llama 2 7B Chat": "llama-2-7b",
    "Llama 2 7B (Llama-2-7b-chat-hf.f16.gguf)": "llama-2-7b",
    "Llama 2 7B (Llama2-7b Q4_0)": "llama-2-7b",
    "Llama 2 7B (TheBloke llama-2-7b.Q4_0.gguf; llama 7B Q4_0)": "llama-2-7b",
    "Llama 2 7B (llama-2-7b.Q4_0.gguf; llama 7B Q4_0)": "llama-2-7b",
    "Llama 2 7B (llama-2-7b.Q4_K_M.gguf)": "llama-2-7b",
    "Llama 2 7B (llama-2-7b.Q4_K_M.gguf, TheBloke)": "llama-2-7b",
    "Llama 2 7B (llama-2-7b.Q8_0.gguf)": "llama-2-7b",
    "meta-llama/Llama-2-7b-chat-hf (FP16)": "llama-2-7b",
    "RedHatAI/Llama-2-7b-chat-quantized.w8a8": "llama-2-7b",
    "TheBloke/Llama-2-7B-Chat-GPTQ (4-bit)": "llama-2-7b",
    "CodeLlama 7B": "codellama-7b",
    # TinyLlama's checkpoints (1T tokens to 3T) share one shape
    "TinyLlama 1.1B (1T OpenOrca)": "tinyllama-1.1b",
    "Qwen2-7B-Instruct (qwen2-7b-instruct-q8_0.gguf, Qwen)": "qwen2-7b",
    "Phi-3.5-mini (printed phi3 3B F16)": "phi-3.5-mini",
    # DeepSeek-V2-Lite and DeepSeek-Coder-V2-Lite share the shape (llama.cpp: deepseek2 16B)
    "DeepSeek-Coder-V2-Lite (16B total / 2.4B active)": "deepseek-coder-v2-lite",
    "DeepSeek-Coder-V2-Lite-Instruct (16B total / 2.4B active)": "deepseek-coder-v2-lite",
    "DeepSeek-Lite (printed deepseek2 16B Q8_0)": "deepseek-coder-v2-lite",
    # fine-tunes keep their base's shape
    "Shisa V2 Llama 3.3 70B (shisa-v2-llama3.3-70b.i1-Q4_K_M; llama 70B Q4_K - Medium)": "llama-3.3-70b",
    "Shisa V2 Mistral Nemo 12B (shisa-v2-mistral-nemo-12b.i1-Q4_K_M; llama 13B Q4_K - Medium)": "mistral-nemo-12b",
}

# Weight formats without a catalog id, recognised in the notes. MLX affine quantization stores one f16
# scale and one f16 bias per group of 64 weights (mlx_lm's default group size): bits + 32/64.
QUANT_FROM_NOTES: tuple[tuple[str, float, str], ...] = (
    ("MLX 4-bit", 4.5, "MLX 4-bit, group 64: 4 + 32/64 bits"),
    ("MLX 8-bit", 8.5, "MLX 8-bit, group 64: 8 + 32/64 bits"),
)


def row_hardware(row: Measurement, catalog: Catalog, specs: Mapping[str, HardwareSpec]) -> tuple[Hardware, bool] | str:
    """The row's machine and whether its host RAM is known, or why there is none."""
    if row.hardware_id:
        entry = catalog.hardware.get(row.hardware_id)
        if entry is None:
            return f"hardware id '{row.hardware_id}' not in the catalog"
        return to_hardware(entry), False
    spec = specs.get(row.hardware_name)
    if spec is None:
        if row.gpus == 0:
            return "CPU-only machine without a sourced memory bandwidth"
        return "machine not in the catalog or hardware_specs.csv"
    if not spec.catalog_id:
        return spec.hardware, spec.host_known
    # a catalog device in a host the line describes: the entry's device figures, the line's host
    entry = catalog.hardware.get(spec.catalog_id)
    if entry is None:
        return f"hardware_specs.csv: catalog id '{spec.catalog_id}' not in the catalog"
    hw = to_hardware(entry)
    return Hardware.model_validate({**hw.model_dump(), **spec.host}), spec.host_known


# llama-bench's size label of a mixture-of-experts model, "30B.A3B": predicted as dense, every expert would
# count as read per token
MOE_LABEL = re.compile(r"\d+(?:\.\d+)?B\.A\d+(?:\.\d+)?B")


def catalog_model_key(row: Measurement) -> str:
    """The catalog model id a row names: its own model_id, else the one its published name stands for
    (MODEL_ALIASES); "" when neither."""
    return row.model_id or MODEL_ALIASES.get(row.model_name, "")


def row_model(row: Measurement, catalog: Catalog) -> tuple[ModelArch, list[str]] | str:
    """The row's model (the catalog shape with the row's parameter counts) and its caveats, or why
    there is none."""
    caveats: list[str] = []
    base: ModelArch | None = None
    key = catalog_model_key(row)
    if key:
        entry = catalog.models.get(key)
        if entry is None:
            return f"model id '{key}' not in the catalog"
        base = to_model(entry)
        if not row.model_id:
            caveats.append(f"shape from catalog '{key}'")
    total = row.params_b if row.params_b is not None else (base.total_params_b if base else None)
    if total is None or total <= 0:
        return "no parameter count for the model"
    active = row.active_params_b if row.active_params_b is not None else (base.active_params_b if base else None)
    if (
        base is not None
        and base.active_params_b is not None
        and active is not None
        and total == base.total_params_b
        and active != base.active_params_b
    ):
        # the same model's published count in another convention (gpt-oss's card leaves out the input
        # embedding): the catalog's, every weight but the unused experts, is what the core splits by
        caveats.append(f"active {active:g} B counted as the catalog's {base.active_params_b:g} B")
        active = base.active_params_b
    if active is not None and active >= total:
        active = None
    if active is None and MOE_LABEL.search(row.model_name):
        return "mixture-of-experts model (llama.cpp's A…B size label) without an active parameter count"
    if base is None:
        caveats.append("KV shape unknown: a typical shape for its size (core.shape, an estimate)")
        return ModelArch(name=row.model_name[:200] or "model", total_params_b=total, active_params_b=active), caveats
    update: dict[str, Any] = {"total_params_b": total, "active_params_b": active}
    if base.experts and active is None:
        update["experts"] = update["experts_active"] = None
    try:
        return ModelArch.model_validate({**base.model_dump(), **update}), caveats
    except ValidationError as err:
        return f"model: {err.errors()[0]['msg']}"


def row_bits(row: Measurement, catalog: Catalog) -> tuple[float, str | None] | str:
    """The row's bits per weight and, where the notes named the format, why; or why there are none."""
    if row.bits_per_weight:
        return row.bits_per_weight, None
    if row.quant:
        entry = catalog.quants.get(row.quant)
        if entry is None:
            return f"quant '{row.quant}' not in the catalog"
        return to_quant(entry).bits_per_weight, None
    for needle, bits, why in QUANT_FROM_NOTES:
        if needle in row.notes or needle in row.model_name:
            return bits, why
    return "weight format not identified (no catalog quant, no printed bits per weight)"


def row_quant(row: Measurement, catalog: Catalog, arch: ModelArch, bpw: float) -> tuple[Quant, str | None]:
    """The row's weight format. Where the catalog quant keeps an MoE model's non-expert tensors at other
    bits (MXFP4 files: Q8_0), the experts get the bits that make the file's printed average come out."""
    name = row.quant or "as printed"
    entry = catalog.quants.get(row.quant) if row.quant else None
    dense_bits = entry.dense_bits_per_weight if entry is not None else None
    dense, experts, _ = split_params(arch)
    if dense_bits is None or not arch.is_moe or experts <= 0:
        return Quant(name=name, bits_per_weight=bpw), None
    if row.bits_per_weight is None:  # the catalog's own bits: its expert precision
        return Quant(name=name, bits_per_weight=bpw, dense_bits_per_weight=dense_bits), None
    expert_bits = (bpw * (dense + experts) - dense_bits * dense) / experts
    if not 0 < expert_bits <= bpw:
        return Quant(name=name, bits_per_weight=bpw), None
    return (
        Quant(name=name, bits_per_weight=expert_bits, dense_bits_per_weight=dense_bits),
        f"{row.quant}: {dense_bits:g} bits outside the experts, {expert_bits:.2f} in them (the file averages {bpw:g})",
    )
