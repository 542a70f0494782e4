"""Which catalog model and quant a pasted llama-bench table ran, when it is not the scenario's.

    offer = switch_offer(scenario, rows, catalog.models, catalog.quants, session.model_id)
    # None: the table is the scenario's model (or refused for another reason, a CPU build say);
    # offer.switch: the catalog pick it matches, or None when the catalog holds no such model and quant

llama-bench names the file it ran as `<arch> <size> <file type>` ("qwen2 7B Q8_0", "llama 8B Q4_K - Medium",
"gpt-oss 120B MXFP4 MoE"; the file type as llama.cpp's llama_model_ftype_name prints it) and prints its
parameter count and file size. A catalog pick matches when the same check that refused the table
(advisor.measure.fit.model_mismatch: parameters and file size within 10 %) accepts it, so switching always
lets the table be fitted. Among several, one with the very parameter count llama-bench printed comes
first, then the scenario's own model, then the architecture and size llama-bench named, then the closest
parameter count and file size, then the newest release.

Pure: no Qt, no I/O."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from advisor.catalog.convert import to_model, to_quant
from advisor.catalog.schema import ModelEntry, QuantEntry
from advisor.core.evaluate import evaluate
from advisor.core.scenario import Scenario
from advisor.core.units import GB
from advisor.measure.fit import PARAMS_TOLERANCE, model_mismatch
from advisor.measure.llama_bench import BenchRow

# llama.cpp's file-type names that are not the quant's own (llama_model_ftype_name), as catalog ids
_FTYPE_WORDS = {"medium": "m", "small": "s", "large": "l", "extra small": "xs"}
_SPECIAL = {"q2_k - medium": "q2_k", "iq3_s mix": "iq3_m", "all f32": "f32", "mxfp4 moe": "mxfp4"}
# llama-bench prints the parameter count to two decimals ("7.62 B"): within this (log) it is the same count
SAME_PARAMS = 0.015
_SIZE = re.compile(r"^(?P<n>\d+(?:\.\d+)?)(?P<u>[BMT])(?:[.\-x]\S*)?$", re.IGNORECASE)


@dataclass(frozen=True)
class TableModel:
    """What llama-bench says of the file it ran."""

    label: str  # as printed, e.g. "qwen2 7B Q8_0"
    arch: str  # "qwen2"; "" when the label has no architecture
    size: str  # "7B"; "" when not printed
    quant_id: str | None  # the catalog id its file type names ("q8_0"), None when not named
    params: float | None
    size_bytes: float | None

    def describe(self) -> str:
        parts = [f"{self.params / 1e9:.2f} B parameters"] if self.params else []
        if self.size_bytes:
            parts.append(f"{self.size_bytes / 2**30:.2f} GiB")
        name = self.label or "an unnamed model"
        return f"{name} ({', '.join(parts)})" if parts else name


@dataclass(frozen=True)
class Switch:
    """A catalog model and quant the table's runs fit."""

    model_id: str
    quant_id: str
    model_name: str
    quant_name: str
    also: tuple[str, ...] = ()  # other catalog models that match as well (the same shape under other names)

    @property
    def label(self) -> str:
        return f"{self.model_name} {self.quant_name}"


@dataclass(frozen=True)
class Offer:
    """A table refused for its model, and what to switch to (None: the catalog holds no match)."""

    table: TableModel
    switch: Switch | None

    def message(self) -> str:
        if self.switch is None:
            return (
                f"No catalog model and quant match the table's {self.table.describe()}: pick its model and "
                "quant in the Model and Quant panels (or import its GGUF file), then fit again."
            )
        also = f" (and equally {' or '.join(self.switch.also)})" if self.switch.also else ""
        return f"The table matches the catalog's {self.switch.label}{also}: switch to it to fit these runs."


def quant_id_of(file_type: str) -> str | None:
    """The catalog quant id llama.cpp's file-type name stands for: "Q4_K - Medium" → "q4_k_m",
    "IQ4_XS - 4.25 bpw" → "iq4_xs", "Q8_0" → "q8_0"; None when there is no name."""
    text = re.sub(r"\s*\(guessed\)\s*$", "", file_type.strip().lower())
    text = re.sub(r"^mostly\s+", "", text)
    if not text:
        return None
    for name, qid in _SPECIAL.items():
        if text.startswith(name):
            return qid
    text = re.sub(r"\s*-\s*[\d.]+\s*bpw.*$", "", text)  # "IQ2_XS - 2.3125 bpw"
    m = re.match(r"^(?P<q>\S+)\s*-\s*(?P<w>.+)$", text)
    if m and (suffix := _FTYPE_WORDS.get(m["w"].strip())) is not None:
        return f"{m['q']}_{suffix}"
    return text.replace(" ", "_")


def table_model(row: BenchRow) -> TableModel:
    tokens = row.model.split()
    arch = size = ""
    rest = tokens
    if len(tokens) >= 2 and _SIZE.match(tokens[1]):
        arch, size, rest = tokens[0].lower(), tokens[1], tokens[2:]
    return TableModel(
        label=row.model.strip(),
        arch=arch,
        size=size,
        quant_id=quant_id_of(" ".join(rest)) if rest else None,
        params=row.params,
        size_bytes=row.size_bytes,
    )


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _arch_matches(arch: str, e: ModelEntry) -> bool:
    """llama.cpp's architecture in the model's id, name or family ("qwen3moe" → qwen3, "gpt-oss" → gptoss)."""
    base = _key(re.sub(r"(moe|vl)$", "", arch))
    return bool(base) and base in _key(f"{e.id} {e.name} {e.family}")


def _size_matches(size: str, e: ModelEntry) -> bool:
    m = _SIZE.match(size)
    if m is None:
        return False
    return re.search(rf"(?<![\d.]){re.escape(m['n'])}\s*{m['u']}\b", e.name, re.IGNORECASE) is not None


def _with(base: Scenario, model: ModelEntry, quant: QuantEntry) -> Scenario:
    data = base.model_dump()
    data["model"] = to_model(model).model_dump()
    data["quant"] = to_quant(quant).model_dump()
    return Scenario.model_validate(data)


def _log_gap(a: float | None, b: float) -> float:
    return abs(math.log(a / b)) if a and b > 0 else 0.0


def _newest_first(released: str | None) -> tuple[int, ...]:
    """A sort key putting a later "YYYY-MM" first; an unknown date last."""
    parts = [int(p) for p in re.findall(r"\d+", released or "")][:2]
    return tuple(-p for p in parts) if parts else (0,)


def find_switch(
    base: Scenario,
    table: TableModel,
    row: BenchRow,
    models: Mapping[str, ModelEntry],
    quants: Mapping[str, QuantEntry],
    current_model_id: str | None = None,
) -> Switch | None:
    """The catalog model and quant whose scenario accepts `row` (the table's), best first; None when none does."""
    if table.quant_id is not None:
        if table.quant_id not in quants:
            return None  # a file type the catalog lacks: another quant of similar size would be the wrong name
        picks = [quants[table.quant_id]]
    else:
        picks = [q for q in quants.values() if q.format == "gguf"]
    current = models.get(current_model_id) if current_model_id else None
    scored: list[tuple[tuple[object, ...], ModelEntry, QuantEntry]] = []
    for mid, m in models.items():
        params = m.total_params_b * 1e9
        if row.params and params > 0 and abs(row.params / params - 1) > PARAMS_TOLERANCE:
            continue
        for q in picks:
            candidate = _with(base, m, q)
            if model_mismatch(candidate, row) is not None:
                continue
            weights = evaluate(candidate, explain=False).weights_gb * GB
            gap = _log_gap(row.params, params)
            same_count = gap <= SAME_PARAMS  # within the two decimals llama-bench prints: the same count
            evidence = (not same_count, not _arch_matches(table.arch, m), not _size_matches(table.size, m))
            score = (
                evidence[0],  # the count llama-bench printed is the strongest sign of which model it ran
                mid != current_model_id,
                *evidence[1:],
                0.0 if same_count else round(gap, 3),
                current is None or m.family != current.family,
                round(_log_gap(row.size_bytes, weights), 3),
                _newest_first(m.released),  # twins of one shape: the one people run today
            )
            scored.append((score, m, q))
    if not scored:
        return None
    scored.sort(key=lambda t: t[0])
    best_score, model, quant = scored[0]
    same = (best_score[0], *best_score[2:5])  # as good a match, the scenario's own model aside
    also = tuple(m.name for s, m, q in scored[1:] if (s[0], *s[2:5]) == same and q.id == quant.id)
    return Switch(model.id, quant.id, model.name, quant.name, also=also[:3])


def switch_offer(
    base: Scenario,
    rows: Sequence[BenchRow],
    models: Mapping[str, ModelEntry],
    quants: Mapping[str, QuantEntry],
    current_model_id: str | None = None,
) -> Offer | None:
    """When the table's rows are refused as another model (parameters or file size), what to switch to.
    None when every llama-bench row is the scenario's model."""
    other_model = [r for r in rows if r.test != "pg" and model_mismatch(base, r) is not None]
    if not other_model:
        return None
    commonest = Counter((r.model, r.params, r.size_bytes) for r in other_model).most_common(1)[0][0]
    row = next(r for r in other_model if (r.model, r.params, r.size_bytes) == commonest)
    table = table_model(row)
    return Offer(table, find_switch(base, table, row, models, quants, current_model_id))
