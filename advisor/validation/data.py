"""Published measurements (benchmarks/data/measurements.csv) read into scenarios the core can predict.

Every row becomes either a `Case` (a Scenario plus what was measured and how to compare) or a `Skip`
with the reason it cannot be predicted honestly. Parsing never raises on a bad row: the row is
reported in `problems` and left out.

What a row needs:
- hardware: the catalog entry when `hardware_id` is set, else a line of hardware_specs.csv with the
  same `hardware_name` (datasheet figures with their source);
- a parameter count (`params_b`, or a catalog model);
- bits per weight (the row's printed `bits_per_weight`, its catalog quant, or a well-defined format
  named in its notes, see resolve.QUANT_FROM_NOTES);
- a known context (`depth`), and for rows that read weights from host RAM, a known host.

A row whose `exclude_reason` is set stays in the file but is neither fitted nor counted in the
statistics: it becomes an `Excluded` (with its prediction when it can be made), and `validate`
lists every one with its reason. The optional `backend` column names llama.cpp's backend as the
source states it; an empty cell leaves the scenario's default for its hardware. The optional
`flash_attn` column (0/1) says whether llama.cpp ran with flash attention; an empty cell leaves the
scenario's default (on). The optional `build_date` column (YYYY-MM) is the month of the build the
source ran, where it says; it puts a llama.cpp row in a build era (terms.BuildEra), whose
fixed time per token the fit sets apart from the current era's.

measurements.py reads the two files into typed rows, resolve.py finds each row's machine, model and
weight format, cases.py builds the scenarios and the held-out split; this module loads the whole set.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from advisor.catalog.loader import Catalog
from advisor.validation.cases import Case, Excluded, Skip, build_cases
from advisor.validation.coverage import Coverage, catalog_coverage
from advisor.validation.measurements import HardwareSpec, parse_hardware_specs, parse_measurements

DATA_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "data"
MEASUREMENTS_CSV = DATA_DIR / "measurements.csv"
HARDWARE_SPECS_CSV = DATA_DIR / "hardware_specs.csv"


@dataclass(frozen=True)
class DataSet:
    cases: tuple[Case, ...]
    skipped: tuple[Skip, ...]
    problems: tuple[str, ...]  # rows that could not even be read
    rows: int  # data rows in the file
    excluded: tuple[Excluded, ...] = ()
    coverage: Coverage = Coverage(0, 0, 0, 0)

    def skip_reasons(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for s in self.skipped:
            counts[s.reason] = counts.get(s.reason, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def load_dataset(catalog: Catalog, measurements: Path = MEASUREMENTS_CSV, specs: Path = HARDWARE_SPECS_CSV) -> DataSet:
    """Read both CSVs and build every case; a missing specs file just means fewer machines."""
    rows, problems = parse_measurements(measurements.read_text(encoding="utf-8"))
    spec_map: dict[str, HardwareSpec] = {}
    if specs.exists():
        spec_map, spec_problems = parse_hardware_specs(specs.read_text(encoding="utf-8"))
        problems += spec_problems
    cases, skipped, excluded = build_cases(rows, catalog, spec_map)
    return DataSet(
        cases=tuple(cases),
        skipped=tuple(skipped),
        problems=tuple(problems),
        rows=len(rows) + sum(1 for p in problems if p.startswith("line ")),
        excluded=tuple(excluded),
        coverage=catalog_coverage(rows, catalog, spec_map),
    )
