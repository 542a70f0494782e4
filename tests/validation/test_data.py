"""Reading the published measurements: every row parses or is reported, never a crash."""

from __future__ import annotations

import csv
import textwrap
from pathlib import Path

import pytest

from advisor.catalog.loader import shipped_catalog
from advisor.core.efficiency import Backend
from advisor.core.hardware import HardwareClass
from advisor.core.inputs import backend_in_use
from advisor.validation.cases import Case, Skip, build_case, held_out
from advisor.validation.data import HARDWARE_SPECS_CSV, MEASUREMENTS_CSV, load_dataset
from advisor.validation.measurements import COLUMNS, OPTIONAL_COLUMNS, parse_hardware_specs, parse_measurements

HEADER = ",".join(COLUMNS)
GOOD = (
    "rtx-4090,NVIDIA GeForce RTX 4090,1,llama-3.1-8b,Llama 3.1 8B,8.03,,q4_k_m,,llama.cpp,tg,,128,0,1,99,0,"
    "130.5,https://example.org/x,ok"
)


def _csv_rows(path: Path) -> int:
    """A file's data rows, counted apart from the parser under test."""
    with path.open(encoding="utf-8", newline="") as f:
        return sum(1 for _ in csv.DictReader(f))


def test_bad_rows_are_reported_not_fatal() -> None:
    text = "\n".join(
        [
            HEADER,
            GOOD,
            GOOD.replace(",tg,", ",xx,"),  # unknown test
            GOOD.replace("130.5", "fast"),  # not a number
            GOOD.replace("130.5", "-3"),  # negative
            GOOD.replace(",ok", ",ok,extra"),  # too many cells
            GOOD.replace(",1,99,", ",1.5,99,"),  # batch not whole
        ]
    )
    rows, problems = parse_measurements(text)
    assert len(rows) == 1 and rows[0].tok_s == 130.5
    assert len(problems) == 5
    assert problems[0].startswith("line 3: test")
    assert any("line 4: tok_s" in p for p in problems)
    assert any("more cells" in p for p in problems)


def test_missing_columns_reported() -> None:
    rows, problems = parse_measurements("a,b\n1,2\n")
    assert rows == [] and "missing column" in problems[0]


def test_shipped_file_reads_cleanly() -> None:
    data = load_dataset(shipped_catalog())
    assert data.rows == _csv_rows(MEASUREMENTS_CSV) and not data.problems
    assert len(data.cases) + len(data.skipped) + len(data.excluded) == data.rows
    assert len(data.cases) >= 400
    assert all(s.reason for s in data.skipped)
    # every kind of row the validation reports on is present
    kinds = {c.kind for c in data.cases}
    assert kinds == {"depth 0", "depth sweep", "offload", "batch"}
    assert sum(c.moe for c in data.cases) >= 50
    assert {c.hw_class for c in data.cases} >= {HardwareClass.DISCRETE_GPU, HardwareClass.UNIFIED}


def test_split_is_by_configuration_and_deterministic() -> None:
    data = load_dataset(shipped_catalog())
    held = [c for c in data.cases if c.held_out]
    assert 0.2 < len(held) / len(data.cases) < 0.4
    by_config: dict[tuple[str, str, str], set[bool]] = {}
    for c in data.cases:
        r = c.row
        by_config.setdefault((r.hardware_name + str(r.gpus), r.model_name, r.quant + r.engine), set()).add(c.held_out)
    assert all(len(v) == 1 for v in by_config.values())
    assert [held_out(c.row) for c in data.cases] == [c.held_out for c in data.cases]


def test_hardware_specs_have_sources() -> None:
    specs, problems = parse_hardware_specs(HARDWARE_SPECS_CSV.read_text(encoding="utf-8"))
    assert not problems and specs
    assert all(s.source.startswith("http") for s in specs.values())
    bad, problems = parse_hardware_specs("hardware_name,class,memory_gb,bandwidth_gbps,source\nX,gpu,8,100,nope\n")
    assert not bad and problems


def _row(**changes: str) -> Case | Skip:
    values = dict(zip(COLUMNS, GOOD.split(","), strict=True))
    values.update(changes)
    rows, problems = parse_measurements(HEADER + "\n" + ",".join(values[c] for c in COLUMNS))
    assert not problems
    return build_case(rows[0], shipped_catalog(), {})


def test_rows_become_scenarios() -> None:
    case = _row()
    assert isinstance(case, Case)
    w = case.scenario.workload
    assert w.context == 64 and w.gpu_layers == 32  # tg128: mean context 64; -ngl 99 forces all 32 layers
    assert case.kind == "depth 0" and not case.moe
    pp = _row(test="pp", prompt_tokens="512", gen_tokens="", depth="4096")
    assert isinstance(pp, Case) and pp.kind == "depth sweep"
    assert pp.scenario.workload.prompt_tokens == 512 and pp.scenario.workload.context == 4096 + 512


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"hardware_id": "", "hardware_name": "Mystery box"}, "not in the catalog"),
        ({"depth": ""}, "depth not stated"),
        ({"model_id": "", "params_b": ""}, "no parameter count"),
        ({"quant": "", "bits_per_weight": ""}, "weight format"),
        ({"gpu_layers": "10", "hardware_name": "RTX 4090 (+ unstated host CPU/RAM)"}, "host"),
    ],
)
def test_unusable_rows_say_why(changes: dict[str, str], reason: str) -> None:
    out = _row(**changes)
    assert isinstance(out, Skip) and reason in out.reason


def test_measurements_file_exists() -> None:
    assert MEASUREMENTS_CSV.exists()
    header = textwrap.dedent(MEASUREMENTS_CSV.read_text(encoding="utf-8").splitlines()[0])
    assert header == ",".join(COLUMNS + OPTIONAL_COLUMNS)


def test_older_files_without_the_optional_columns_still_read() -> None:
    rows, problems = parse_measurements(HEADER + "\n" + GOOD)
    assert not problems and rows[0].backend is None and rows[0].exclude_reason == ""


def test_backend_column() -> None:
    full = ",".join(COLUMNS + OPTIONAL_COLUMNS)
    rows, problems = parse_measurements("\n".join([full, GOOD + ",Vulkan,", GOOD + ",,", GOOD + ",Glide,"]))
    assert [r.backend for r in rows] == [Backend.VULKAN, None]
    assert len(problems) == 1 and "line 4: backend" in problems[0]
    # a stated backend reaches the scenario; an empty one leaves the hardware's usual backend
    vulkan = build_case(rows[0], shipped_catalog(), {})
    default = build_case(rows[1], shipped_catalog(), {})
    assert isinstance(vulkan, Case) and isinstance(default, Case)
    assert vulkan.scenario.workload.backend is Backend.VULKAN and backend_in_use(vulkan.scenario) is Backend.VULKAN
    assert default.scenario.workload.backend is None and backend_in_use(default.scenario) is Backend.CUDA


def test_shipped_backends_come_from_the_notes() -> None:
    """A stated backend is named in the row's notes (or, for the DGX Spark bench file, in its printed tables)."""
    rows, _ = parse_measurements(MEASUREMENTS_CSV.read_text(encoding="utf-8"))
    words = {
        Backend.CUDA: ("CUDA",),
        Backend.ROCM: ("ROCm", "HIP", "-hip"),
        Backend.VULKAN: ("Vulkan", "vulkan"),
        Backend.METAL: ("Metal", "MTL"),
        Backend.CPU: ("CPU backend",),
        Backend.SYCL: ("SYCL",),
    }
    stated = [r for r in rows if r.backend is not None]
    assert len(stated) > 400
    for r in stated:
        assert any(w in r.notes for w in words[r.backend]) or "benches/dgx-spark.md" in r.source_url, r.line
    assert not any(r.backend for r in rows if r.engine == "mlx")


def test_excluded_rows_stay_in_the_file_with_a_reason() -> None:
    data = load_dataset(shipped_catalog())
    # prefill on Apple chips whose GPU core count the source leaves open (their decode is in: every variant
    # has the same bandwidth); the rest, a handful of rows whose source shows a build unlike today's
    cores = [e for e in data.excluded if e.reason.startswith("GPU core count not stated")]
    assert cores and all(e.row.test == "pp" and "Apple" in e.row.hardware_name for e in cores)
    assert 0 < len(data.excluded) - len(cores) <= 0.05 * len(data.cases)  # conservative: a few rows, each explained
    assert all(len(e.reason) > 30 for e in data.excluded)
    lines = {e.row.line for e in data.excluded}
    assert not lines & {c.row.line for c in data.cases} and not lines & {s.row.line for s in data.skipped}
    assert sum(e.case is not None for e in data.excluded) >= 5  # most can still be predicted and shown


def test_an_excluded_row_is_never_a_case() -> None:
    full = ",".join(COLUMNS + OPTIONAL_COLUMNS)
    rows, _ = parse_measurements(full + "\n" + GOOD + ",CUDA,old build")
    from advisor.validation.cases import build_cases

    cases, skipped, excluded = build_cases(rows, shipped_catalog(), {})
    assert not cases and not skipped and excluded[0].reason == "old build" and excluded[0].case is not None


def test_flash_attn_column() -> None:
    full = ",".join(COLUMNS + OPTIONAL_COLUMNS)
    rows, problems = parse_measurements(
        "\n".join([full, GOOD + ",CUDA,,0", GOOD + ",CUDA,,1", GOOD + ",CUDA,,", GOOD + ",CUDA,,yes"])
    )
    assert [r.flash_attn for r in rows] == [False, True, None]
    assert len(problems) == 1 and "line 5: flash_attn" in problems[0]
    # off reaches the scenario; on and unstated leave the default (on)
    cases = [build_case(r, shipped_catalog(), {}) for r in rows]
    assert all(isinstance(c, Case) for c in cases)
    assert [c.scenario.workload.flash_attention for c in cases if isinstance(c, Case)] == [False, True, True]


def test_shipped_flash_attn_comes_from_the_source() -> None:
    """On: the notes quote the flag. Off: builds from before llama.cpp had flash attention (Jan-Mar 2024
    PRs), the May 2024 XiongjieDai table, whose llama-bench command line has no -fa (default off), and
    llama-bench runs from before its default became auto (May 2026) whose command or table shows no -fa."""
    rows, _ = parse_measurements(MEASUREMENTS_CSV.read_text(encoding="utf-8"))
    on = [r for r in rows if r.flash_attn is True]
    off = [r for r in rows if r.flash_attn is False]
    assert on and off and len(on) + len(off) <= len(rows)
    for r in on:
        # "-fa -ctk ...": llama-server and sweep-bench's bare switch of 2025 builds
        # "flash_attn = 1": batched-bench's printed parameters; "flash_attention true": a JSON result file
        on_words = ("-fa 1", "flash_attn 1", "fa=1", "-fa on", "-fa -", "flash_attn = 1", "flash_attention true")
        assert any(w in r.notes for w in on_words), r.line
    for r in off:
        if "XiongjieDai" in r.source_url or any(f"pull/{n}" in r.source_url for n in (2059, 4766, 4812, 5835)):
            assert "-fa" not in r.notes and "flash_attn" not in r.notes
            continue
        explicit = ("fa=0 (printed in the table's fa column)", "table 'No Flash attention'", "--flash-attn 0", "-fa 0 ")
        if any(w in r.notes for w in explicit):
            continue  # an explicit -fa 0 run
        if "llama-cli (not llama-bench)" in r.notes:
            assert "the log prints 'flash_attn = 0'" in r.notes, r.line  # the run's own log says so
            continue
        # llama-bench at its default (off): the notes say what the source shows
        assert "llama-bench" in r.notes and "default" in r.notes, r.line
        assert any(
            w in r.notes
            for w in (
                "no -fa",
                "without -fa",
                "without an fa column",
                "no fa column",
                "no ngl/fa column",
                "fa: llama-bench default off",
                "(defaults: ngl 99, fa off)",
            )
        ), r.line
        assert not any(w in r.notes for w in ("-fa 1", "flash_attn 1", "fa=1", "-fa on")), r.line


def test_build_date_column() -> None:
    full = ",".join(COLUMNS + OPTIONAL_COLUMNS)
    rows, problems = parse_measurements(
        "\n".join(
            [full, GOOD + ",CUDA,,,2024-05", GOOD + ",CUDA,,,", GOOD + ",CUDA,,,May 2024", GOOD + ",CUDA,,,2024-13"]
        )
    )
    assert [r.build_date for r in rows] == ["2024-05", ""]
    assert len(problems) == 2 and all("build_date" in p for p in problems)
    cases = [build_case(r, shipped_catalog(), {}) for r in rows]
    assert [c.era.value if isinstance(c, Case) and c.era else None for c in cases] == ["2024-05 to 2024-12", None]


def test_build_flags_column() -> None:
    full = ",".join(COLUMNS + OPTIONAL_COLUMNS)
    rows, problems = parse_measurements(
        "\n".join([full, GOOD + ",SYCL,,,2026-04,GGML_SYCL_F16=ON", GOOD + ",SYCL,,,,", GOOD + ",SYCL,,,,-DF16"])
    )
    assert [r.sycl_f16 for r in rows] == [True, False]
    assert len(problems) == 1 and "build_flags" in problems[0]
    (case,) = [build_case(r, shipped_catalog(), {}) for r in rows[:1]]
    assert isinstance(case, Case) and case.scenario.workload.sycl_f16


def test_shipped_sycl_f16_flags_follow_the_notes() -> None:
    """A SYCL row is marked GGML_SYCL_F16=ON exactly where its source says the build had it."""
    rows, _ = parse_measurements(MEASUREMENTS_CSV.read_text(encoding="utf-8"))
    for r in rows:
        said = "GGML_SYCL_F16=ON" in r.notes or "GGML_SYCL_F16: yes" in r.notes
        assert r.sycl_f16 == (said and r.backend is Backend.SYCL), r.line


def test_shipped_build_dates_come_from_the_source() -> None:
    """build_date is set only where the source dates the build (a printed build number or commit, the
    dated post or snapshot that printed the table); empty otherwise."""
    rows, _ = parse_measurements(MEASUREMENTS_CSV.read_text(encoding="utf-8"))
    dated = [r for r in rows if r.build_date]
    assert 0 < len(dated) < len(rows)
    for r in rows:
        if "snapshot May 2024" in r.notes:  # notebooks print builds 2795-2843 (2024-05-06 to 05-10)
            assert r.build_date == "2024-05", r.line
        if "(6918)" in r.notes or "(7099)" in r.notes:
            assert r.build_date == "2025-11", r.line
        if "b8038" in r.notes:
            assert r.build_date == "2026-02", r.line
        if "b3617" in r.notes:  # llama.cpp b3617 (a07c32ea), the A770 blog's runs of 2024-08-24
            assert r.build_date == "2024-08", r.line
        if "(1786)" in r.notes or "pull/4766" in r.source_url or "pull/2059" in r.source_url:
            assert r.build_date == "2024-01", r.line
        # runs with no build shown: LM Studio, llmfit's llama-server, mlx_lm, vLLM
        if "LM Studio" in r.notes or "llmfit" in r.notes or r.engine in ("mlx", "vllm"):
            assert r.build_date == "", r.line


def test_pending_rows_parse_and_stay_out_of_the_validation() -> None:
    """benchmarks/data/pending/ holds transcribed rows not merged yet (see its README)."""
    pending = MEASUREMENTS_CSV.parent / "pending" / "llm-tracker-vault.csv"
    rows, problems = parse_measurements(pending.read_text(encoding="utf-8"))
    assert rows and not problems
    assert all(r.source_url.startswith("https://github.com/AUGMXNT/llm-tracker.info-vault/blob/") for r in rows)
    apple, problems = parse_measurements((pending.parent / "apple-unmapped.csv").read_text(encoding="utf-8"))
    assert apple and not problems
    assert not any(r.hardware_id for r in apple if "PrismML" not in r.source_url)  # none maps outside the fork
    llmfit, problems = parse_measurements((pending.parent / "llmfit-community.csv").read_text(encoding="utf-8"))
    assert llmfit and not problems
    assert all(r.source_url.startswith("https://github.com/AlexsJones/llmfit/blob/") for r in llmfit)
    sycl, problems = parse_measurements((pending.parent / "sycl-f16-unstated-quant.csv").read_text(encoding="utf-8"))
    assert sycl and not problems
    assert all(r.source_url.endswith("/pull/23996") and not r.quant for r in sycl)
    assert {r.sycl_f16 for r in sycl} == {True, False}  # both builds of every table cell
    assert load_dataset(shipped_catalog()).rows == _csv_rows(MEASUREMENTS_CSV)  # measurements.csv alone


def test_the_projects_own_cpu_runs_cite_their_method_file_and_catalog_shapes() -> None:
    rows, problems = parse_measurements(MEASUREMENTS_CSV.read_text(encoding="utf-8"))
    own = [r for r in rows if r.source_url == "benchmarks/data/own-cpu.md"]
    assert len(own) >= 40 and (MEASUREMENTS_CSV.parent / "own-cpu.md").is_file()
    cat = shipped_catalog()
    for r in own:  # the method file is their source
        assert r.gpus == 0 and r.backend is Backend.CPU, r.line
        assert r.hardware_id in cat.hardware and r.model_id in cat.models, r.line
        assert abs(r.params_b - cat.models[r.model_id].total_params_b) <= 0.03, r.line  # the catalog shape
