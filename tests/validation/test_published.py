"""The app's copy of the published measurements stays in step with the validation set, and a bad copy
never stops the catalog from loading."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

from advisor.catalog.loader import PUBLISHED_FILE, catalog_root, load_shipped, shipped_catalog
from advisor.validation.data import load_dataset
from advisor.validation.published import held_out_summary, published_json, published_row, published_rows
from advisor.validation.report import build_report

SHIPPED = Path(str(catalog_root())).joinpath(*PUBLISHED_FILE)


def test_shipped_file_is_what_validate_write_makes_from_the_measurements() -> None:
    # Fails when measurements.csv changed without `benchmarks/validate.py --write`.
    data = load_dataset(shipped_catalog())
    assert SHIPPED.read_text(encoding="utf-8") == published_json(data.cases, None, held_out_summary(data))
    # the held-out figures the app shows are validate's own
    report = build_report(data)
    depth0 = next(r for r in report["held_out"] if r["test"] == "decode" and r["group"] == "depth 0")
    shipped = next(f for f in shipped_catalog().held_out if f.test == "decode" and f.group == "depth 0")
    assert (shipped.n, shipped.median_pct, shipped.p90_pct) == (
        depth0["n"],
        depth0["fitted"]["median_pct"],
        depth0["fitted"]["p90_pct"],
    )
    assert (shipped.target_median_pct, shipped.target_p90_pct) == (8.0, 20.0)
    assert shipped.met() is (shipped.median_pct <= 8.0 and shipped.p90_pct <= 20.0)
    assert shipped.n == sum(c.held_out and c.test == "tg" and c.kind == "depth 0" for c in data.cases) > 0
    assert 0 < shipped.median_pct <= shipped.p90_pct < 100


def test_only_rows_on_catalog_machines_with_every_layer_on_the_gpu() -> None:
    data = load_dataset(shipped_catalog())
    rows = published_rows(data.cases)
    cat = shipped_catalog()
    shown = [c for c in data.cases if c.row.hardware_id and c.kind != "offload"]
    assert len(rows) == len(cat.published) == len(shown) > 0
    assert sum(r.test == "tg" for r in rows) == sum(c.test == "tg" for c in shown) > 0
    assert sum(r.test == "pp" for r in rows) == sum(c.test == "pp" for c in shown) > 0
    assert all(r.hardware_id in cat.hardware for r in rows)
    tg = next(c for c in data.cases if c.test == "tg" and c.row.hardware_id == "rtx-4090")
    assert published_row(tg) is not None
    assert published_row(replace(tg, kind="offload")) is None  # part of the weights in host RAM
    assert published_row(replace(tg, row=replace(tg.row, hardware_id=""))) is None  # not a catalog machine
    pp = next(c for c in data.cases if c.test == "pp" and c.row.hardware_id == "rtx-4090" and c.row.depth == 0)
    row = published_row(pp)  # prefill runs are listed beside the prefill estimate (not on the plots)
    assert row is not None and row.test == "pp" and row.prompt == pp.row.prompt_tokens > 0
    assert row.test_name() == f"pp{pp.row.prompt_tokens}" and row.tokens == 0
    # a batched-bench aggregate is stored per stream: DGX Spark gpt-oss-20b at B = 32, PP 512
    agg = [
        c
        for c in data.cases
        if c.aggregate and c.row.batch == 32 and c.row.model_name.startswith("gpt-oss-20b") and c.row.depth == 512
    ]
    assert agg
    mine = [r for r in rows if r.streams == 32 and r.model.startswith("gpt-oss-20b") and r.depth == 512]
    assert mine[0].tok_s == round(agg[0].row.tok_s / 32, 4)


def test_a_bad_row_is_reported_and_the_rest_load(tmp_path: Path) -> None:
    root = tmp_path / "catalogs"
    shutil.copytree(Path(str(catalog_root())), root)
    path = root.joinpath(*PUBLISHED_FILE)
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["rows"][1]["tok_s"] = -3
    doc["held_out"][0]["n"] = -1
    path.write_text(json.dumps(doc), encoding="utf-8")
    cat = load_shipped(root)  # type: ignore[arg-type]
    shipped = shipped_catalog()
    assert len(cat.published) == len(shipped.published) - 1 and len(cat.held_out) == len(shipped.held_out) - 1
    # one message for each bad entry, naming the file, the entry and the field (the bound's own words follow)
    assert len(cat.problems) == 2
    assert cat.problems[0].startswith("catalogs/published/runs.json: entry '#2' field 'tok_s': Input should be")
    assert cat.problems[1].startswith("catalogs/published/runs.json held_out: entry '#1' field 'n': Input should be")
    assert len(cat.hardware) == len(shipped_catalog().hardware)


def test_an_unreadable_file_means_no_published_rows_and_one_message(tmp_path: Path) -> None:
    root = tmp_path / "catalogs"
    shutil.copytree(Path(str(catalog_root())), root)
    root.joinpath(*PUBLISHED_FILE).write_text("{not json", encoding="utf-8")
    cat = load_shipped(root)  # type: ignore[arg-type]
    assert cat.published == ()
    assert len(cat.problems) == 1 and cat.problems[0].startswith("catalogs/published/runs.json: cannot read:")
    root.joinpath(*PUBLISHED_FILE).write_text('{"rows": 3}', encoding="utf-8")
    assert load_shipped(root).problems == (  # type: ignore[arg-type]
        'catalogs/published/runs.json: expected a JSON object with a list of "rows"',
    )
