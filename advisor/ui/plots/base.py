"""What every tok/s plot shares: log axes, interactivity bands, the threshold, the cliff and a hover readout.

A plot is a graphics item, not a widget: the window lays its three plots out in one scene, so an edit
repaints them in one pass (three views cost three paint-and-flush passes per edit, about a third
more). PlotView shows one plot on its own, for slide exports. Items are built once; redraws only
set data. pyqtgraph's log mode transforms curves but not regions, lines or text, so those are
placed in log10 coordinates here."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from numpy.typing import NDArray
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QFont, QPen
from PySide6.QtWidgets import QGraphicsItem

from advisor.core.curves import Alternative, Curve
from advisor.core.feel import FEELS
from advisor.ui import theme
from advisor.ui.plots.alternative import AlternativeLine
from advisor.ui.plots.axes import LogAxis
from advisor.ui.plots.geometry import band_outline, cache_pixmaps, finite_or_nan, log10
from advisor.ui.plots.labels import Label, Labels, readout_item
from advisor.ui.plots.log_curve import LogCurve
from advisor.ui.plots.points import Points
from advisor.ui.plots.spans import Band, Dot, Grid, Spans
from advisor.ui.plots.zones import zones
from advisor.ui.store import PointSet

Y_MIN, Y_MAX = 0.5, 5000.0
Y_FLOOR = 0.01  # the lowest the axis goes to show a scenario below Y_MIN (weights streaming from disk)
# While edits stream in (a slider drag), the top of the tok/s axis holds still as long as the data
# need at most this many decades less than it shows: re-ranging re-lays out and repaints the axes, about
# a third of an edit. Once edits pause the range settles to the tight one (settle_range). An edit that
# comes on its own (a click, more than STREAM_GAP_S after the last) gets the tight range at once, so
# the axis does not jump a moment later.
HOLD_DECADES = 2.0
STREAM_GAP_S = 0.5
HOVER_REACH_PX = 10.0  # the mouse this close to a published point names it in the readout


class TokPlot(pg.PlotItem):
    """A tok/s plot with everything but the axis-specific curves."""

    x_label: str = ""

    binary_x: bool = False  # context and batch read best in powers of two

    def __init__(self, title: str, x_label: str) -> None:
        axes = {"bottom": LogAxis("bottom", binary=self.binary_x), "left": LogAxis("left")}
        super().__init__(axisItems=axes)
        self.base_title = title
        self.store: object | None = None  # the window's store, for the user's measured points
        self.setLogMode(x=True, y=True)
        self.setLabel("left", "tok/s per stream")
        self.setLabel("bottom", x_label)
        self.setMenuEnabled(False)
        self.hideButtons()
        for side in ("left", "bottom"):
            ax = self.getAxis(side)
            ax.setPen(theme.AXIS)
            ax.setTextPen(theme.AXIS)
            ax.setStyle(tickFont=QFont(theme.FONT, theme.TICK_PT))
            # Every full repaint of the view also exposes the axes' inner edge (their bounds reach into
            # the view for the ticks): blit them from a cache instead of re-playing them each time.
            ax.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.vb.setMouseEnabled(x=False, y=False)
        self.legend = self.addLegend(offset=(10, -10), labelTextColor=theme.AXIS, brush=pg.mkBrush(255, 255, 255, 220))

        grid_pen = pg.mkPen(theme.over_white(QColor(theme.GRID), 0.25), width=1)
        grid_pen.setCosmetic(True)
        self.grid = Grid(self.getAxis("bottom"), self.getAxis("left"), grid_pen)
        self.grid.setZValue(-90)
        self.addItem(self.grid, ignoreBounds=True)

        # Interactivity bands: spans of log10(tok/s) across the plot, one label each.
        self.band_spans = Spans(horizontal=True)
        self.band_spans.setZValue(-100)
        self.addItem(self.band_spans, ignoreBounds=True)
        # Band names, the cliff's and the no-run zone's labels: one item draws them all.
        self.labels = Labels(theme.SMALL_PT)
        self.labels.setZValue(50)
        self.addItem(self.labels, ignoreBounds=True)
        self.threshold = pg.InfiniteLine(
            angle=0, movable=False, pen=pg.mkPen(theme.THRESHOLD, width=2, style=Qt.PenStyle.DashLine)
        )
        self.addItem(self.threshold, ignoreBounds=True)

        # The offload cliff and, past it, where nothing runs: spans of log10(x).
        self.cliff = Spans(horizontal=False)
        self.cliff.setZValue(-50)
        self.cliff_pen = pg.mkPen(theme.CLIFF, width=2)
        self.addItem(self.cliff, ignoreBounds=True)

        # Realistic line, η band and dashed ceiling. The band is one path in log10 coordinates,
        # rebuilt once per redraw (FillBetweenItem rebuilds on each of its two curves' changes).
        self.band = Band(theme.BAND_BRUSH)
        self.band.setZValue(-10)
        self.addItem(self.band, ignoreBounds=True)
        # Curves are lean items fed log10 data (see log_curve): pyqtgraph's curve items cost more per
        # repaint than drawing the line does.
        self.ceiling = LogCurve(pg.mkPen(theme.CEILING, width=2, style=Qt.PenStyle.DashLine))
        self.line = LogCurve(pg.mkPen(theme.REALISTIC, width=3))
        for curve, name in ((self.ceiling, "ceiling (η = 1)"), (self.line, "realistic")):
            self.addItem(curve, ignoreBounds=True)
            self.legend.addItem(curve, name)
        self.alternative = AlternativeLine()  # the best other placement where this one spills
        self.addItem(self.alternative, ignoreBounds=True)
        # A legend swatch for the band (the fill item itself has no legend sample).
        self.band_swatch = pg.PlotDataItem([], [], pen=pg.mkPen(None), fillLevel=0, fillBrush=theme.BAND_BRUSH)
        self.legend.addItem(self.band_swatch, "η range")
        self.marker = Dot(pg.mkBrush(theme.REALISTIC))
        self.marker.setZValue(30)
        self.addItem(self.marker, ignoreBounds=True)
        # The user's own measurements (advisor.measure) and the published ones on this machine
        # (advisor.core.published): scatter items, each in the legend only while it has points.
        self.measured = Points(pg.mkBrush(theme.AXIS), pg.mkPen("w", width=1.5), 11)
        self.published = Points(pg.mkBrush(theme.BACKGROUND), pg.mkPen(theme.PUBLISHED, width=1.5), 8, square=True)
        self._shown_xy: dict[Points, tuple[tuple[float, ...], tuple[float, ...]]] = {}
        for item in (self.measured, self.published):
            item.setZValue(20)
            item.setVisible(False)
            self.addItem(item, ignoreBounds=True)
            self._shown_xy[item] = ((), ())
        # They change only when the machine, model or quant does; a drag repaints them from a pixmap.
        cache_pixmaps(self.measured, self.published)
        self.published_labels: tuple[str, ...] = ()  # what each published point is, for the hover readout
        self._published_shown: tuple[PointSet, float] | None = None

        # Hover readout.
        self.readout = readout_item()
        self.addItem(self.readout, ignoreBounds=True)
        self.hover_line = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen(theme.GRID, width=1))
        self.hover_line.hide()
        self.addItem(self.hover_line, ignoreBounds=True)
        self._proxy: pg.SignalProxy | None = None  # hover: connected once the plot is in a scene
        self._hover_x: float | None = None  # where the readout is, in log10 x: redrawn there on any change
        self.curve_data: Curve | None = None
        self._range: tuple[float, ...] = ()
        self._tight_y_hi: float | None = None  # the y top the data ask for, when the drawn one is held
        self._last_render: tuple[Curve, float, tuple[float, ...], str, float | None, Alternative | None] | None = None
        self._rendered_at = -math.inf  # time.monotonic() of the last render_common
        self._title = ""

    # --- drawing ------------------------------------------------------------------------
    def set_title(self, title: str, size_pt: int = theme.TITLE_PT) -> None:
        html = f"<span style='font-size:{size_pt}pt; color:{theme.AXIS}'>{title}</span>"
        if html != self._title:  # a new title re-lays out the whole plot item
            self._title = html
            self.setTitle(html)

    def render_common(
        self,
        c: Curve,
        threshold: float,
        thresholds: tuple[float, ...],
        title: str,
        y_top: float | None = None,
        alternative: Alternative | None = None,
        hold: bool = True,
    ) -> None:
        """Draw what every axis shares. On screen the title stays short (a long one would force the
        plot wider than its pane); slide exports add the scenario. `hold` keeps the y range's top
        where it is while it still fits the data (see HOLD_DECADES). `alternative` is drawn dashed."""
        self._last_render = (c, threshold, thresholds, title, y_top, alternative)
        now = time.monotonic()
        hold = hold and now - self._rendered_at < STREAM_GAP_S
        self._rendered_at = now
        fields = ("x", "decode", "ceiling", "low", "high")
        same_curves = self.curve_data is not None and all(
            np.array_equal(getattr(self.curve_data, f), getattr(c, f)) for f in fields
        )
        self.curve_data = c
        self.set_title(title)
        runs = c.runs
        if not same_curves:  # dragging the context moves only the marker on its own plot: repaint just that
            self.line.set_xy(c.x, finite_or_nan(c.decode, runs))
            self.ceiling.set_xy(c.x, finite_or_nan(c.ceiling, runs))
            self.band.set_outline(
                *band_outline(
                    c.x,
                    np.where(runs & (c.low > 0), c.low, Y_FLOOR / 10),
                    np.where(runs & (c.high > 0), c.high, Y_FLOOR / 10),
                )
            )

        x0, x1 = log10(float(c.x[0])), log10(float(c.x[-1]))
        if y_top is None:
            y_top = float(np.nanmax(np.where(runs, c.ceiling, np.nan))) if runs.any() else 10.0
        # Round the top up to a half decade: the range then holds still while a slider drags, and
        # a plot whose range holds still repaints once instead of twice.
        y_hi = math.ceil(2 * log10(min(max(y_top * 1.5, threshold * 3), Y_MAX))) / 2
        held = self._range[3] if self._range else None
        self._tight_y_hi = y_hi
        if hold and held is not None and y_hi <= held <= y_hi + HOLD_DECADES:
            y_hi = held
        mx = c.marker_x
        my = float(np.interp(log10(mx), np.log10(c.x), c.decode)) if c.x[0] <= mx <= c.x[-1] else 0.0
        y_lo = log10(Y_MIN)
        if 0 < my < Y_MIN * 1.5:  # the scenario's own point stays in view, clear of the legend under it
            y_lo = max(math.floor(2 * log10(my / 8)) / 2, log10(Y_FLOOR))
        if (x0, x1, y_lo, y_hi) != self._range:  # re-ranging re-lays out the axes: only when it moved
            self._range = (x0, x1, y_lo, y_hi)
            self.setXRange(x0, x1, padding=0.02)
            self.setYRange(y_lo, y_hi, padding=0.0)

        edges = [y_lo - 5, *(log10(t) for t in thresholds), y_hi + 5]
        self.band_spans.set_spans([(edges[k], edges[k + 1], theme.FEEL_BRUSH[f], None) for k, f in enumerate(FEELS)])
        labels = [
            Label(x1, min(edges[k + 1], y_hi), f.value, theme.FEEL_TEXT, (1.05, 0.0), optional=True)
            for k, f in enumerate(FEELS)
            if edges[k] < y_hi and min(edges[k + 1], y_hi) > y_lo
        ]
        self.threshold.setValue(log10(threshold))

        # The offload cliff, the disk zone and the no-run zone, each named inside itself.
        spans, zone_labels = zones(c, log10(float(c.x[-1])) + 1.0, y_hi, self.cliff_pen)
        self.cliff.set_spans(spans)
        if self.alternative.alternative is not alternative:  # the store hands back the same one until it changes
            self.alternative.show_alternative(alternative, self.legend)
        self.labels.set_labels(labels + zone_labels)
        if self.readout.isVisible() and self._hover_x is not None:  # undo, a pick...: the readout follows
            self.show_readout(int(np.clip(np.searchsorted(np.log10(c.x), self._hover_x), 0, len(c.x) - 1)))

        self.marker.set_point((log10(mx), log10(my)) if my > 0 else None)

    def settle_range(self) -> None:
        """Once edits pause: give the y range the top the data ask for, if a drag held it higher."""
        if self._last_render is not None and self._range and self._range[3] != self._tight_y_hi:
            self.render_common(*self._last_render, hold=False)

    def show_measured(self, xs: list[float] | NDArray[np.float64], ys: list[float] | NDArray[np.float64]) -> None:
        """Draw the user's measured points (x on this plot's axis, tok/s); empty lists hide them."""
        self._show_points(self.measured, "measured by you", xs, ys)

    def show_published(self, points: PointSet, x_min: float = 0.0) -> None:
        """Draw the published measurements that match the scenario; `x_min` pulls points left of the axis
        onto its edge (a tg128 from an empty cache on a context axis that starts at 512)."""
        if (
            self._published_shown is not None
            and self._published_shown[0] is points
            and self._published_shown[1] == x_min
        ):
            return  # the store hands back the same set until the machine, model or quant changes
        self._published_shown = (points, x_min)
        self.published_labels = points.labels
        self._show_points(self.published, "published runs", [max(x, x_min) for x in points.x], points.y)

    def _show_points(
        self,
        item: Points,
        name: str,
        xs: Sequence[float] | NDArray[np.float64],
        ys: Sequence[float] | NDArray[np.float64],
    ) -> None:
        x = np.asarray(xs, dtype=float)
        y = np.asarray(ys, dtype=float)
        ok = (x > 0) & (y > 0)
        key = (tuple(x[ok]), tuple(y[ok]))
        old = self._shown_xy[item]
        if key == old:  # nearly every redraw: nothing changed
            return
        self._shown_xy[item] = key
        item.setData(x[ok], y[ok])
        shown, was = bool(ok.any()), bool(old[0])
        if shown != was:  # the legend lists the points only while there are some
            if shown:
                self.legend.addItem(item, name)
                cache_pixmaps(*self.legend.items[-1])  # as cache_legend does for the entries made at start
            else:
                self.legend.removeItem(item)

    def cache_legend(self) -> None:
        """The legend box and its entries from pixmaps (see cache_pixmaps): on a plot whose curves
        redraw on every drag step, the legend is repainted with them although it never changes."""
        cache_pixmaps(self.legend, *(part for entry in self.legend.items for part in entry))

    def compact_legend(self) -> None:
        """Drop the entries every plot shares (ceiling, realistic, η range) from this plot's legend:
        beside the context plot in the window they only cover data. Slide exports keep them."""
        for shared in (self.ceiling, self.line, self.band_swatch):
            self.legend.removeItem(shared)
        self.legend.setVisible(bool(self.legend.items))

    def scale_text(self, factor: float) -> None:
        """Bigger type for slides: every label, the legend and the axes."""
        for item in self.items:
            if isinstance(item, pg.TextItem):
                f = item.textItem.font()
                f.setPointSizeF(f.pointSizeF() * factor)
                item.setFont(f)
            elif isinstance(item, Labels):
                item.scale(factor)
            elif isinstance(item, Points):  # markers as big, beside the type, as they are on screen
                item.set_size(item.size * factor)
        for side in ("left", "bottom"):
            ax = self.getAxis(side)
            ax.setStyle(tickFont=QFont(theme.FONT, round(theme.TICK_PT * factor)))
            ax.label.setFont(QFont(theme.FONT, round(theme.TICK_PT * factor)))
        for _sample, label in self.legend.items:
            label.setText(label.text, size=f"{round(theme.SMALL_PT * factor)}pt")
        self.layout.setContentsMargins(10, 16, 24, 10)

    def smooth_lines(self, width_factor: float) -> None:
        """Antialiased, wider lines for slides: a projector shows a 3-pixel aliased line as a staircase."""
        for item in self.items:
            if isinstance(item, LogCurve):
                pen = QPen(item.pen)
                pen.setWidthF(pen.widthF() * width_factor)
                item.pen = item.opts["pen"] = pen
                item.opts["antialias"] = True
                item.update()

    def cliff_start(self) -> float | None:
        """Where the shaded cliff begins, in log10 of the axis (None when nothing spills)."""
        return self.cliff.spans[0][0] if self.cliff.spans else None

    # --- hover --------------------------------------------------------------------------
    def itemChange(self, change: QGraphicsItem.GraphicsItemChange, value: object) -> object:  # noqa: N802
        """Follow the mouse in whichever scene the plot lands in (the window's, or a PlotView's)."""
        out = super().itemChange(change, value)
        if change == QGraphicsItem.GraphicsItemChange.ItemSceneHasChanged:
            scene = self.scene()
            self._proxy = (
                pg.SignalProxy(scene.sigMouseMoved, rateLimit=30, slot=self._on_mouse)
                if scene is not None and hasattr(scene, "sigMouseMoved")
                else None
            )
        return out

    def readout_text(self, i: int) -> str:
        c = self.curve_data
        assert c is not None
        if not c.runs[i]:
            return f"{self.format_x(float(c.x[i]))}\ndoes not run{self.alternative.readout(i)}"
        place = (
            "fits fast memory"
            if c.fits[i]
            else "streams weights from disk"
            if c.from_disk[i]
            else "spills to host memory"
        )
        return (
            f"{self.format_x(float(c.x[i]))}\n{c.decode[i]:.1f} tok/s realistic ({c.low[i]:.1f}–{c.high[i]:.1f})"
            f"\n{c.ceiling[i]:.1f} tok/s ceiling\n{c.total_gb[i]:.1f} GB, {place}{self.alternative.readout(i)}"
        )

    def format_x(self, x: float) -> str:
        return f"{x:,.0f}"

    def _on_mouse(self, event: tuple[QPointF]) -> None:
        c = self.curve_data
        if c is None:
            return
        pos = event[0]
        vb = self.vb
        if not self.sceneBoundingRect().contains(pos) or not vb.sceneBoundingRect().contains(pos):
            self.readout.hide()
            self.hover_line.hide()
            return
        p = vb.mapSceneToView(pos)
        i = int(np.clip(np.searchsorted(np.log10(c.x), p.x()), 0, len(c.x) - 1))
        self.show_readout(i, self.published_near(pos))

    def published_near(self, pos: QPointF, reach_px: float = HOVER_REACH_PX) -> str | None:
        """What the published point within `reach_px` of a scene position is (the nearest), if any."""
        item = self.published
        spots = item.view_xy()
        if not item.isVisible() or len(self.published_labels) != len(spots):
            return None
        best: tuple[float, str] | None = None
        for (lx, ly), label in zip(spots, self.published_labels, strict=True):
            d = (self.vb.mapViewToScene(QPointF(lx, ly)) - pos).manhattanLength()
            if d <= reach_px and (best is None or d < best[0]):
                best = (d, label)
        return best[1] if best else None

    def show_readout(self, i: int, published: str | None = None) -> None:
        c = self.curve_data
        assert c is not None
        x_log = self._hover_x = log10(float(c.x[i]))
        self.hover_line.setValue(x_log)
        self.hover_line.show()
        text = self.readout_text(i)
        self.readout.setText(f"published: {published}\n\n{text}" if published else text)
        (x0, x1), (y0, y1) = self.vb.viewRange()
        # Keep the box inside the view: left of the cursor on the right half, hanging from the top.
        self.readout.setAnchor((1, 0) if x_log > (x0 + x1) / 2 else (0, 0))
        self.readout.setPos(x_log, y1 - 0.02 * (y1 - y0))
        self.readout.show()
