"""The running-cost inputs under the side-by-side table: electricity price, an API price to break
even against, the share of the time the machine generates, and the years it is paid off over."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QLabel, QWidget

from advisor.core.running_cost import CostInputs
from advisor.ui.compare.state import CompareSnapshot, CompareStore


def _spin(
    lo: float,
    hi: float,
    decimals: int,
    step: float,
    tip: str,
    prefix: str = "",
    suffix: str = "",
    special: str | None = None,
) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(lo, hi)
    box.setDecimals(decimals)
    box.setSingleStep(step)
    box.setPrefix(prefix)
    box.setSuffix(suffix)
    box.setKeyboardTracking(False)  # commit on Enter, focus-out or arrows
    box.setToolTip(tip)
    if special:
        box.setSpecialValueText(special)
    return box


class CostsBar(QWidget):
    """Edits the comparison's CostInputs; the table's cost and break-even columns follow."""

    def __init__(self, store: CompareStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.electricity = _spin(
            0,
            100,
            3,
            0.01,
            "Electricity price per kWh (default about the US residential average; change it for your tariff)",
            prefix="$",
            suffix="/kWh",
        )
        self.api = _spin(
            0,
            100_000,
            2,
            0.1,
            "An API's price per million output tokens: the table says how many "
            "months until the machine has paid for itself",
            prefix="$",
            suffix="/1M",
            special="no API",
        )
        self.utilization = _spin(
            1, 100, 0, 5, "Share of the time the machine generates at the table's throughput", suffix=" % use"
        )
        self.life = _spin(0.5, 50, 1, 0.5, "Years the hardware is paid off over", suffix=" years")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        for text, box in (
            ("Electricity", self.electricity),
            ("API", self.api),
            ("", self.utilization),
            ("over", self.life),
        ):
            if text:
                lay.addWidget(QLabel(text))
            lay.addWidget(box)
            box.valueChanged.connect(lambda _v: self._edited())
        store.changed.connect(self.show_snapshot)
        self.show_snapshot(store.snapshot)

    def costs(self) -> CostInputs:
        api = self.api.value()
        return CostInputs(
            electricity_usd_per_kwh=self.electricity.value(),
            api_usd_per_million=api or None,
            utilization=self.utilization.value() / 100,
            life_years=self.life.value(),
        )

    def _edited(self) -> None:
        self.store.update(costs=self.costs().model_dump())

    def show_snapshot(self, snap: CompareSnapshot) -> None:
        k = snap.setup.costs
        for box, value in (
            (self.electricity, k.electricity_usd_per_kwh),
            (self.api, k.api_usd_per_million or 0.0),
            (self.utilization, k.utilization * 100),
            (self.life, k.life_years),
        ):
            with QSignalBlocker(box):
                box.setValue(value)
