"""The Measure dialog's offer for a table of another model: "Switch to <model> <quant>" sets the scenario
to the catalog pick the table ran (one undoable edit, as picking it in the Model and Quant panels) and
fits the table again. Which pick matches is advisor.measure.switch's (pure); this shows and routes it."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from PySide6.QtWidgets import QLabel, QPushButton

from advisor.catalog.convert import to_model, to_quant
from advisor.measure.fit import FitError
from advisor.measure.switch import Offer
from advisor.ui.context_window import clamp_to_window
from advisor.ui.store import Store


class TableRefused(FitError):
    """No row could be fitted because the table ran another model; `offer` says what it ran."""

    def __init__(self, message: str, offer: Offer) -> None:
        super().__init__(message)
        self.offer = offer


class SwitchSection:
    """Mixed into the dialog (a QWidget with a `store`, a `summary` label and `start_fit`)."""

    store: Store
    summary: QLabel
    start_fit: Callable[[], object]
    offer: Offer | None = None
    switch_button: QPushButton

    def _switch_button(self) -> QPushButton:
        self.switch_button = QPushButton()
        self.switch_button.setObjectName("measure-switch")
        self.switch_button.setToolTip(
            "Set the scenario's model and quant to the ones the table ran, then fit the table again "
            "(Edit → Undo goes back)"
        )
        self.switch_button.hide()
        self.switch_button.clicked.connect(lambda _c=False: self.switch_to_table_model())
        return self.switch_button

    def _show_offer(self, offer: Offer | None) -> None:
        """The offer under the refusal: its sentence, and the button when the catalog holds a match."""
        self.offer = offer
        sw = offer.switch if offer is not None else None
        self.switch_button.setVisible(sw is not None)
        if sw is not None:
            self.switch_button.setText(f"Switch to {sw.label}")
        if offer is not None:
            self.summary.setText(self.summary.text() + f"<br>{escape(offer.message())}")

    def switch_to_table_model(self) -> bool:
        """One undoable edit to the table's model and quant, then the table is fitted again."""
        sw = self.offer.switch if self.offer is not None else None
        if sw is None:
            return False
        catalog = self.store.catalog
        model, quant = catalog.models.get(sw.model_id), catalog.quants.get(sw.quant_id)
        if model is None or quant is None:  # the catalog changed since the fit
            self._show_offer(None)
            return False
        data = self.store.session.model_dump()
        data["scenario"]["model"] = to_model(model).model_dump()
        data["scenario"]["quant"] = to_quant(quant).model_dump()
        note = clamp_to_window(data, model.name)
        data.update(model_id=sw.model_id, quant_id=sw.quant_id)
        if not self.store.set_session(data, f"Pick {sw.label} (the measured table's)"):
            return False
        if note:
            self.store.noted.emit(note)
        self._show_offer(None)
        self.start_fit()
        return True
