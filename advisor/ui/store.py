"""The one place the window's state lives: a session, validated on every edit, evaluated once,
announced once. Panels call update(); plots and numbers redraw from `changed`.

The recommendation and the catalog's points on the model-size plot rank every model × quant, which
is the slow part of an edit; they follow in `extras_changed` once edits pause (a single-shot timer
coalesces a slider drag into one ranking), so dragging stays smooth."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import QObject, QTimer, Signal

from advisor.catalog.convert import standings, to_model, to_quant
from advisor.catalog.loader import Catalog
from advisor.core.curves import AXES, Alternative, Axis, Curve, alternative, curve, curve_key, with_marker
from advisor.core.evaluate import evaluate
from advisor.core.published import Candidates, Setup, candidates, pick
from advisor.core.recommend import ModelPoints, Recommendation, model_points, recommend
from advisor.core.result import Result
from advisor.core.scenario import Scenario
from advisor.session import Session

UNDO_LIMIT = 200
# Points per plotted curve: smooth at any window size, and a third of the core's 500-point cost to draw.
UI_CURVE_POINTS = 200
SECTIONS = ("hardware", "model", "quant", "workload")


EXTRAS_DELAY_MS = 120  # how long edits must pause before the catalog is re-ranked


@dataclass(frozen=True)
class PointSet:
    """Points on one plot: x, tok/s per stream, and what each one is (for the hover readout)."""

    x: tuple[float, ...] = ()
    y: tuple[float, ...] = ()
    labels: tuple[str, ...] = ()


NO_POINTS: dict[Axis, PointSet] = {axis: PointSet() for axis in AXES}


@dataclass(frozen=True)
class Snapshot:
    session: Session
    result: Result
    curves: dict[Axis, Curve]
    published: dict[Axis, PointSet] = field(default_factory=lambda: NO_POINTS)  # published runs, per plot
    # per plot, the best other placement where the chosen one spills (drawn dashed), if any
    alternatives: dict[Axis, Alternative | None] = field(default_factory=dict)


@dataclass(frozen=True)
class Extras:
    """What ranks the whole catalog for one session."""

    session: Session
    recommendation: Recommendation
    points: ModelPoints  # the catalog's models at the chosen quant, for the model-size plot


def validation_text(err: ValidationError) -> str:
    first = err.errors()[0]
    loc = ".".join(str(p) for p in first["loc"] if p != "scenario")
    return f"{loc}: {first['msg']}"


# What the solver raises when it cannot finish a scenario (a result out of range fails its validation).
COMPUTE_ERRORS = (ValueError, ArithmeticError, RecursionError)


def failure_text(err: BaseException) -> str:
    if isinstance(err, ValidationError):
        return f"the result's {validation_text(err)}"
    return str(err) or type(err).__name__


class Store(QObject):
    changed = Signal(object)  # Snapshot
    extras_changed = Signal(object)  # Extras, after edits pause
    rejected = Signal(str)  # why an edit was refused; the old state stays
    history_changed = Signal()
    noted = Signal(str)  # something an edit changed besides what was asked (a context cut to the window)

    def __init__(self, catalog: Catalog, session: Session | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self._models = [(k, to_model(m)) for k, m in catalog.models.items()]
        self._quants = [(k, to_quant(q)) for k, q in catalog.quants.items() if q.format == "gguf"]
        self._undo: list[tuple[Session, str]] = []
        self._redo: list[tuple[Session, str]] = []
        self._curves: dict[Axis, tuple[Scenario, Curve, Alternative | None]] = {}
        # published runs: the candidates per plot (by what they depend on), then the last picks and sets
        self._candidates: tuple[object, dict[Axis, Candidates]] | None = None
        self._published: dict[Axis, tuple[tuple[int, ...], PointSet]] | None = None
        # A restored or opened session that cannot be computed starts the window on the default one;
        # `problem` says why, for the window to show.
        self.problem: str | None = None
        try:
            self.snapshot = self._compute(session or Session())
        except COMPUTE_ERRORS as err:
            self.problem = f"The scenario could not be computed ({failure_text(err)}); the default scenario is used."
            self.snapshot = self._compute(Session())
        self.extras = self._compute_extras(self.snapshot.session)
        self._extras_timer = QTimer(self)
        self._extras_timer.setSingleShot(True)
        self._extras_timer.setInterval(EXTRAS_DELAY_MS)
        self._extras_timer.timeout.connect(self.flush)

    # --- reading ------------------------------------------------------------------------
    @property
    def session(self) -> Session:
        return self.snapshot.session

    def can_undo(self) -> bool:
        return bool(self._undo)

    def can_redo(self) -> bool:
        return bool(self._redo)

    def undo_text(self) -> str:
        return self._undo[-1][1] if self._undo else ""

    def redo_text(self) -> str:
        return self._redo[-1][1] if self._redo else ""

    # --- editing ------------------------------------------------------------------------
    def update(self, section: str, label: str | None = None, **changes: Any) -> bool:
        """Merge `changes` into one section of the scenario and validate the whole (never model_copy:
        that would skip validation). A refused edit leaves everything as it was."""
        return self._update(section, label, changes, continues=False)

    def continue_update(self, section: str, label: str, **changes: Any) -> bool:
        """As update, carrying on the last edit of the same label (a slider still being dragged): the
        two undo as one step."""
        return self._update(section, label, changes, continues=True)

    def _update(self, section: str, label: str | None, changes: dict[str, Any], continues: bool) -> bool:
        if section not in SECTIONS:
            raise ValueError(f"unknown section {section!r}")
        data = self.session.model_dump()
        data["scenario"][section].update(changes)
        return self._apply(data, label or f"Edit {section}", continues=continues)

    def update_speculative(self, **changes: Any) -> bool:
        data = self.session.model_dump()
        data["scenario"]["workload"]["speculative"].update(changes)
        return self._apply(data, "Edit speculative decoding")

    def set_session(self, session: Session | dict[str, Any], label: str) -> bool:
        data = session.model_dump() if isinstance(session, Session) else session
        return self._apply(data, label)

    def set_ids(self, label: str, **ids: str | None) -> bool:
        data = self.session.model_dump()
        data.update(ids)
        return self._apply(data, label)

    def _apply(self, data: dict[str, Any], label: str, continues: bool = False) -> bool:
        try:
            new = Session.model_validate(data)
        except ValidationError as err:
            self.rejected.emit(validation_text(err))
            return False
        if new == self.session:
            return True
        try:  # computed before the undo step is recorded: an edit the solver cannot finish leaves no trace
            snapshot = self._compute(new)
        except COMPUTE_ERRORS as err:
            self.rejected.emit(f"cannot compute this scenario: {failure_text(err)}")
            return False
        if not (continues and self._undo and self._undo[-1][1] == label):
            self._undo.append((self.session, label))
        del self._undo[:-UNDO_LIMIT]
        self._redo.clear()
        self._publish(new, snapshot)
        return True

    def undo(self) -> None:
        if self._undo:
            old, label = self._undo.pop()
            self._redo.append((self.session, label))
            self._publish(old)

    def redo(self) -> None:
        if self._redo:
            new, label = self._redo.pop()
            self._undo.append((self.session, label))
            self._publish(new)

    def refresh(self) -> None:
        """Re-announce the current state (after the catalog changed, say)."""
        self._publish(self.session)

    def set_catalog(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._published = self._candidates = None
        self._models = [(k, to_model(m)) for k, m in catalog.models.items()]
        self._quants = [(k, to_quant(q)) for k, q in catalog.quants.items() if q.format == "gguf"]
        self.extras = self._compute_extras(self.session)
        self.refresh()
        self.extras_changed.emit(self.extras)

    def _publish(self, session: Session, snapshot: Snapshot | None = None) -> None:
        self.snapshot = snapshot if snapshot is not None else self._compute(session)
        self.changed.emit(self.snapshot)
        self.history_changed.emit()
        self._extras_timer.start()

    def flush(self) -> Extras:
        """Bring the recommendation and catalog points up to date now (exports and tests call this)."""
        self._extras_timer.stop()
        if self.extras.session != self.session:
            self.extras = self._compute_extras(self.session)
            self.extras_changed.emit(self.extras)
        return self.extras

    def _compute(self, session: Session) -> Snapshot:
        s = session.scenario
        # The worked arithmetic is left out: only the numbers panel shows it, once edits pause.
        curves = {axis: self._curve(s, axis) for axis in AXES}
        return Snapshot(
            session=session,
            result=evaluate(s, explain=False),
            curves={axis: c for axis, (c, _) in curves.items()},
            published=self._published_points(session),
            alternatives={axis: alt for axis, (_, alt) in curves.items()},
        )

    def setup(self, session: Session | None = None) -> Setup:
        """The session's setup for matching published measurements."""
        session = session or self.session
        return Setup(session.scenario, session.hardware_id, session.model_id, session.quant_id)

    def _published_points(self, session: Session) -> dict[Axis, PointSet]:
        """Each plot's published runs. The candidates are found once per machine, model, quant and the
        like; an edit then only picks the run nearest its context at each x (a context drag moves which
        run stands for a model on the model-size plot), and a plot's set keeps its identity while the
        picks do not change, so the plots skip it."""
        if not self.catalog.published:
            return NO_POINTS
        s = session.scenario
        w = s.workload
        key = (
            session.hardware_id,
            session.model_id,
            session.quant_id,
            s.hardware.devices,
            w.engine,
            w.streams,
            s.quant.bits_per_weight,
            s.model.total_params_b,
            s.model.layers,
            w.gpu_layers,
            w.cpu_moe_layers,
        )
        if self._candidates is None or self._candidates[0] != key:
            setup = self.setup(session)
            self._candidates = (key, {axis: candidates(self.catalog.published, setup, axis) for axis in AXES})
            self._published = None
        old = self._published
        new: dict[Axis, tuple[tuple[int, ...], PointSet]] = {}
        for axis, found in self._candidates[1].items():
            picked = pick(found, w.context)
            ids = tuple(id(r) for _, r in picked)
            if old is not None and old[axis][0] == ids:
                new[axis] = old[axis]
            else:
                new[axis] = (
                    ids,
                    PointSet(
                        tuple(x for x, _ in picked),
                        tuple(r.tok_s for _, r in picked),
                        tuple(r.describe() for _, r in picked),
                    ),
                )
        self._published = new
        return {axis: ps for axis, (_, ps) in new.items()}

    def _curve(self, s: Scenario, axis: Axis) -> tuple[Curve, Alternative | None]:
        """The axis's curve and its alternative placement's, reused while only the axis's own variable
        moved (then just the marker moves)."""
        key = curve_key(s, axis)
        cached = self._curves.get(axis)
        if cached is not None and cached[0] == key:
            return with_marker(cached[1], s), cached[2]
        c = curve(s, axis, n=UI_CURVE_POINTS)
        alt = alternative(s, c)
        self._curves[axis] = (key, c, alt)
        return c, alt

    def _compute_extras(self, session: Session) -> Extras:
        s = session.scenario
        return Extras(
            session=session,
            recommendation=recommend(s, self._models, self._quants, standing=standings(self.catalog.models)),
            points=model_points(s, self._models),
        )
