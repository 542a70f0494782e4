"""Keep a fitted η with the user's own hardware entry, and use it whenever that entry is picked.

The entry is a copy of the catalog entry under a new id, `<id>-mine` (re-measuring replaces it;
measuring a `-mine` entry again keeps its id). It never shadows the shipped entry: the datasheet
machine stays in the list beside "yours", and deleting yours (catalog remove) brings nothing back
that was lost. The copy carries the hardware figures the fit was made with (the η means η × those
figures' ceiling), `measured_eta` / `measured_compute_eta`, and the measured points.

Pure: no Qt, no I/O (saving is advisor.catalog.user_store.save_entry)."""

from __future__ import annotations

from typing import Any

from advisor.catalog.loader import Catalog
from advisor.catalog.schema import HardwareEntry
from advisor.catalog.user_store import slugify
from advisor.core.hardware import Hardware
from advisor.core.published import MINE_SUFFIX
from advisor.measure.fit import FitResult
from advisor.session import Session

MAX_ID = 80


def mine_id(base_id: str | None, name: str) -> str:
    """`<id>-mine` for a catalog entry (unchanged when it already is one), else from the name."""
    stem = base_id or slugify(name)
    if stem.endswith(MINE_SUFFIX):
        return stem
    return stem[: MAX_ID - len(MINE_SUFFIX)].rstrip("-._") + MINE_SUFFIX


def measured_entry(
    base: HardwareEntry | None,
    hardware: Hardware,
    fit: FitResult,
    *,
    model_id: str | None = None,
    quant_id: str | None = None,
    when: str = "",
    model_name: str = "",
) -> HardwareEntry:
    """The user's entry: `hardware`'s figures (those the fit used), `base`'s catalog facts, the fitted η
    and the measured points. An η the fit did not produce (no pp rows, say) is kept from `base`."""
    figures = hardware.model_dump()
    name = base.name if base is not None else hardware.name
    if not name.endswith("(mine)"):
        name = f"{name} (mine)"
    figures["name"] = name[:200]
    on = f" on {when}" if when else ""
    with_model = f" with {model_name}" if model_name else ""
    source = f"Measured by you with llama-bench{on}{with_model}"
    if base is not None:
        source += f"; figures from {base.name}: {base.source}"
    facts: dict[str, Any] = {}
    if base is not None:
        facts = base.model_dump(
            include={
                "vendor",
                "year",
                "power_w",
                "price_usd",
                "price_seen",
                "price_estimate",
                "estimates",
                "notes",
            }
        )
    data: dict[str, Any] = {
        "vendor": "",
        **facts,
        **figures,
        "id": mine_id(base.id if base is not None else None, hardware.name),
        "source": source[:2000],
        "measured_points": fit.points(model_id, quant_id),
    }
    # the calibration rides with the hardware figures: factors on top of the fitted model
    data["measured"] = fit.terms.model_dump() if fit.terms is not None else None
    return HardwareEntry.model_validate(data)


MEASURED_FIELDS = (("efficiency", "measured_eta"), ("compute_efficiency", "measured_compute_eta"))


def apply_measured(workload: dict[str, Any], previous: HardwareEntry | None, entry: HardwareEntry) -> dict[str, Any]:
    """The workload section after picking `entry`: its measured η replace the efficiencies; an η that
    came from the previously picked entry's measurements (and was not changed since) is cleared, so a
    measured η never follows the user onto another machine."""
    w = dict(workload)
    for wfield, efield in MEASURED_FIELDS:
        new = getattr(entry, efield)
        old = getattr(previous, efield) if previous is not None else None
        if new is not None:
            w[wfield] = new
        elif old is not None and w.get(wfield) == old:
            w[wfield] = None
    return w


def measured_xy(catalog: Catalog | None, session: Session) -> tuple[list[float], list[float]]:
    """(context, tok/s) of the current hardware entry's measured decode points for the session's
    model and quant (points without a model id are shown for any): what the context plot draws."""
    if catalog is None or not session.hardware_id:
        return [], []
    entry = catalog.hardware.get(session.hardware_id)
    if entry is None or not entry.measured_points:
        return [], []
    xs: list[float] = []
    ys: list[float] = []
    for p in entry.measured_points:
        if p.test != "tg":
            continue
        if p.model_id is not None and p.model_id != session.model_id:
            continue
        if p.quant_id is not None and p.quant_id != session.quant_id:
            continue
        xs.append(float(p.depth + p.gen / 2))
        ys.append(p.tok_s)
    return xs, ys
