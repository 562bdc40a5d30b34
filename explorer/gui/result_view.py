"""The result: a verdict badge, the output as an image with a colour scale (or bars for a
1-D output such as matvec's or rowdot's, the error beside them), the error map
|output − reference|, and the inputs on tabs. On a CPU device a one-line notice says why the
tiling ladder gains little there."""

from __future__ import annotations

import functools
import html
from collections.abc import Callable
from functools import cached_property
from typing import TypeVar

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPen, QTextOption
from PySide6.QtWidgets import (
    QGraphicsRectItem,
    QPushButton,
    QSizePolicy,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from explorer.description.images import flat_picture
from explorer.engine.record.trace_launch import TracedRun
from explorer.engine.records import RunResult, Verdict
from explorer.gui.fitted_text import FittedLabel
from explorer.gui.paged_tabs import PagedTabs
from explorer.gui.timing_view import ms_text, rate_text

pg.setConfigOptions(imageAxisOrder="row-major", antialias=True)

BADGE_COLOURS = {
    "verified": "#1e8449",
    "wrong": "#c0392b",
    "refused": "#b9770e",
    "crashed": "#7d3c98",
    "timeout": "#7d3c98",
    "error": "#7d3c98",
    "cancelled": "#5d6d7e",
}
BADGE_STYLE = "font-size: 15pt; padding: 6px; border-radius: 6px;"
# From docs/benchmarks.md (matmul 4096³ on an H100, TFLOP/s): what the ladder gives on a GPU.
CPU_NOTICE = (
    "On a CPU device local memory is ordinary cached memory, so tiling gains little here: the "
    "ladder is a GPU lesson (H100, 4096³: naive 5.3, tiled 6.5, wpt 12.7, reg2d 41.8, "
    "fast 48.3, wave 49.6-50.0 TFLOP/s, cuBLAS 49.4-51.6; see docs/benchmarks.md)."
)
V = TypeVar("V", pg.ImageView, pg.PlotWidget)
ERROR_TAB = "Error |result − reference|"
# Presenter mode's side column (a quarter of a 1280×720 screen, 16 px type) holds "Result",
# "Error" and the inputs' tabs whole; the long title would be cut behind scroll arrows.
PRESENTED_ERROR_TAB = "Error"
INPUT_TAB = "Input "  # "Input MAT1" at the desk; "MAT1" in presenter mode (whole in its tooltip)
# Presenter mode's tabs, narrower than the style's: seed 004's five ("Result", "Error",
# "VECTOR", "MAT1", "MAT2") fit the side column at 1280×720. More than fit are narrowed with
# "…" (whole in their tooltips), never put behind scroll arrows.
PRESENTED_TABS_STYLE = "QTabBar::tab { padding: 4px 7px; }"
BARS_UP_TO = 512  # a 1-D output of up to this many elements is drawn as bars


def _image_view() -> pg.ImageView:
    view = pg.ImageView()
    view.ui.roiBtn.hide()
    view.ui.menuBtn.hide()
    return view


class ResultView(QWidget):
    # An element of the first result clicked in its error map: (row, col), or (i,) for a
    # vector: "why is this element wrong".
    element_clicked = Signal(object)
    inflow_requested = Signal()  # the way from the explanation to its drawing was taken

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        # A long verdict (a timeout naming every option) is cut to three lines, the whole
        # text on hover: it never widens the view.
        self.badge = FittedLabel("Pick a configuration and press Run (Ctrl+R).", max_lines=3)
        self.badge.setObjectName("badge")
        self.badge.setStyleSheet(BADGE_STYLE)
        layout.addWidget(self.badge)
        self.notice = FittedLabel("", max_lines=2)  # the whole notice on hover
        self.notice.setObjectName("device-notice")
        self.notice.setStyleSheet("color: #7e5109; background: #fef5e7; padding: 3px;")
        self.notice.setVisible(False)
        layout.addWidget(self.notice)
        self.tabs = PagedTabs()  # Ctrl+PgDown walks them
        self.message = QTextBrowser()  # a build log wraps anywhere and scrolls
        self.message.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        layout.addWidget(self.tabs, 1)
        # Why the element clicked in the error map is wrong (hidden until one is clicked),
        # and the way to its drawing.
        self.explanation = QTextBrowser()
        self.explanation.setObjectName("explanation")
        self.explanation.setMaximumHeight(260)
        self.explanation.setVisible(False)
        layout.addWidget(self.explanation)
        self.inflow_button = QPushButton("Show what flowed in (Execution tab)")
        self.inflow_button.clicked.connect(self.inflow_requested)
        self.inflow_button.setVisible(False)
        layout.addWidget(self.inflow_button, 0, Qt.AlignmentFlag.AlignLeft)
        self._marker: QGraphicsRectItem | None = None  # the element explained, on the map
        self._explaining: tuple[int, ...] | None = None  # and its explanation is shown
        self._scrolled: tuple[tuple[int, ...] | None, int] = (None, 0)  # where it was scrolled
        self.input_views: dict[str, pg.ImageView | pg.PlotWidget] = {}
        # Images of tabs not yet looked at, drawn when their tab is first shown: a 768² image
        # with its histogram costs tens of milliseconds, on every run, for a tab few open.
        self._pending: dict[QWidget, Callable[[], None]] = {}
        self._pages: list[QWidget] = []  # stand-ins for input image views not made yet
        self._drawn: np.ndarray | None = None  # the output the Result image shows
        self.tabs.currentChanged.connect(self._draw_current)
        self.showing = "none"  # "image", "plot" or "message": what the Result tab holds
        self._vector_length = 0  # elements of a vector result drawn as bars
        self.presenting = False  # presenter mode: no small print in the plots

    # The result's four views are made when a result first needs them: each costs tens of
    # milliseconds, and a window showing images never needs the bars (nor the reverse).
    @cached_property
    def image(self) -> pg.ImageView:
        return self._styled(_image_view())

    @cached_property
    def error_map(self) -> pg.ImageView:
        view = _image_view()
        view.setColorMap(pg.colormap.get("inferno"))  # once: it costs ~0.2 s a call
        view.scene.sigMouseClicked.connect(self._map_clicked)
        return self._styled(view)

    def _map_clicked(self, event: object) -> None:
        """A click on an element of the error map asks why it is wrong."""
        item = self.error_map.getImageItem()
        if item.image is None or event.button() != Qt.MouseButton.LeftButton:  # type: ignore[attr-defined]
            return
        point = item.mapFromScene(event.scenePos())  # type: ignore[attr-defined]
        row, col = int(np.floor(point.y())), int(np.floor(point.x()))
        rows, cols = item.image.shape[:2]
        if 0 <= row < rows and 0 <= col < cols:
            self.element_clicked.emit((row, col))

    def _plot_clicked(self, event: object) -> None:
        """A click on a bar of a vector's error asks why that element is wrong."""
        if event.button() != Qt.MouseButton.LeftButton:  # type: ignore[attr-defined]
            return
        box = self.error_plot.getPlotItem().getViewBox()
        point = box.mapSceneToView(event.scenePos())  # type: ignore[attr-defined]
        index = int(np.floor(point.x() + 0.5))
        if 0 <= index < self._vector_length:
            self.element_clicked.emit((index,))

    def show_explanation(self, text: str, where: tuple[int, ...]) -> None:
        """Why the element clicked is wrong, under the result; the element outlined on the
        error map. The same element's explanation shown again (its index anatomy's values
        came, after the result was drawn again) keeps the place it was scrolled to."""
        bar = self.explanation.verticalScrollBar()
        if self._explaining is not None:
            self._scrolled = (self._explaining, bar.value())
        kept = self._scrolled[1] if where == self._scrolled[0] else 0
        self.explanation.setHtml(f"<pre style='white-space: pre-wrap'>{html.escape(text)}</pre>")
        self.explanation.setVisible(True)
        self.inflow_button.setVisible(True)
        self._mark(where)
        self._explaining = where
        bar.setValue(kept)

    def clear_explanation(self) -> None:
        if self._explaining is not None:
            self._scrolled = (self._explaining, self.explanation.verticalScrollBar().value())
        self.explanation.clear()
        self.explanation.setVisible(False)
        self.inflow_button.setVisible(False)
        self._mark(None)
        self._explaining = None

    def explaining(self) -> tuple[int, ...] | None:
        """The element whose explanation is on screen (None: none)."""
        return self._explaining

    def _mark(self, where: tuple[int, ...] | None) -> None:
        if "error_map" not in self.__dict__:
            return
        box = self.error_map.getView()
        if self._marker is not None:
            box.removeItem(self._marker)
            self._marker = None
        if where is not None and len(where) == 2:
            row, col = where
            marker = QGraphicsRectItem(QRectF(col, row, 1, 1))
            pen = QPen(QColor("#2ecc71"), 2)
            pen.setCosmetic(True)  # two pixels wide at any zoom
            marker.setPen(pen)
            box.addItem(marker)
            self._marker = marker

    @cached_property
    def plot(self) -> pg.PlotWidget:
        plot = pg.PlotWidget(background="w")
        _legend_above(plot.getPlotItem())
        plot.setLabel("bottom", "element")
        return self._styled(plot)

    @cached_property
    def error_plot(self) -> pg.PlotWidget:
        plot = pg.PlotWidget(background="w")
        plot.setLabel("bottom", "element")
        plot.setLabel("left", "|output − reference|")
        plot.scene().sigMouseClicked.connect(self._plot_clicked)
        return self._styled(plot)

    def set_presenting(self, on: bool) -> None:
        """Presenter mode: the images without their histogram (small print a room cannot
        read), the plots' ticks, labels and legends at 16 px, the error's tab titled short;
        back as they were after."""
        self.presenting = on
        made = [
            self.__dict__[n]
            for n in ("image", "error_map", "plot", "error_plot")
            if n in self.__dict__
        ]
        for view in [*made, *self.input_views.values()]:
            self._styled(view)
        for index in range(self.tabs.count()):
            self.tabs.setTabText(index, self._tab_title(self.tab_name(index)))
        bar = self.tabs.tabBar()
        bar.setStyleSheet(PRESENTED_TABS_STYLE if on else "")
        bar.setUsesScrollButtons(not on)
        bar.setElideMode(Qt.TextElideMode.ElideRight if on else Qt.TextElideMode.ElideNone)

    def tab_name(self, index: int) -> str:
        """A tab's whole title, as the desk shows it (the room's may be shorter)."""
        return self.tabs.tabToolTip(index) or self.tabs.tabText(index)

    def _tab_title(self, name: str) -> str:
        """A tab's title for the desk or the room: there "Error" and an input's name."""
        if not self.presenting:
            return name
        if name == ERROR_TAB:
            return PRESENTED_ERROR_TAB
        return name.removeprefix(INPUT_TAB)

    def _add_tab(self, page: QWidget, name: str) -> None:
        """A tab titled for the desk or the room; where that is shorter (the error's, an
        input's) its tooltip says it whole."""
        index = self.tabs.addTab(page, self._tab_title(name))
        if name == ERROR_TAB or name.startswith(INPUT_TAB):
            self.tabs.setTabToolTip(index, name)

    def _add_error_tab(self, page: QWidget) -> None:
        """The error's tab, titled for the desk or the room; its tooltip says it whole."""
        self._add_tab(page, ERROR_TAB)

    def _styled(self, view: V) -> V:
        on = self.presenting
        if isinstance(view, pg.ImageView):
            view.ui.histogram.setVisible(not on)
            return view
        font = QFont()
        if on:
            font.setPixelSize(16)
        for side in ("left", "bottom"):
            axis = view.getAxis(side)
            axis.setTickFont(font if on else None)
            axis.label.setFont(font)
        legend = view.getPlotItem().legend
        if legend is not None:
            legend.setLabelTextSize("12pt" if on else "9pt")
            # side by side at the desk; one above the other in the room's narrow column,
            # where "numpy reference" beside "kernel output" ran off its right edge
            legend.setColumnCount(1 if on else 2)
        return view

    def set_device_type(self, device_type: str | None) -> None:
        """The CPU notice shows while the device is a CPU, and only then."""
        on_cpu = (device_type or "").upper() == "CPU"
        self.notice.setText(CPU_NOTICE if on_cpu else "")
        self.notice.setVisible(on_cpu)

    def set_badge(self, text: str) -> None:
        """A sentence in the badge, in the badge's present colours."""
        self.badge.setText(text)

    def show_traced(self, traced: TracedRun | None) -> None:
        """The verdict of a trace build (it computes the same answer as a run)."""
        if traced is not None:
            self.show_result(traced.result)

    def show_hint(self, text: str) -> None:
        """What to do next, in the badge until something runs (e.g. "Press Ctrl+R to run")."""
        self.badge.setText(text)
        self.badge.setStyleSheet(BADGE_STYLE + "color: #1b2631; background: #d5f5e3;")

    def show_running(self, text: str) -> None:
        self.badge.setText(f"{text[:1].upper()}{text[1:]} …")
        self.badge.setStyleSheet(BADGE_STYLE + "color: #2e4053; background: #d6eaf8;")

    def show_message(self, title: str, text: str) -> None:
        self.clear_explanation()
        self.tabs.clear()
        self.message.setHtml(
            f"<h3>{html.escape(title)}</h3>"
            f"<pre style='white-space: pre-wrap'>{html.escape(text)}</pre>"
        )
        self.tabs.addTab(self.message, title)
        self.showing = "message"

    def show_result(self, result: RunResult) -> None:
        status = "cancelled" if result.error_kind == "cancelled" else result.status
        colour = BADGE_COLOURS.get(status, "#5d6d7e")
        self.badge.setStyleSheet(BADGE_STYLE + f"color: white; background: {colour};")
        self.badge.setText(badge_text(result))
        self.clear_explanation()
        if result.output is None:
            detail = result.build_log or str(result.refused or result.error or "")
            self.show_message(status.capitalize(), detail)
            return
        # The tab looked at stays in front (a trace of the run on screen comes back with the
        # same tabs: its error map stays where the person clicked it).
        looked_at = self.tab_name(self.tabs.currentIndex()) if self.tabs.count() else ""
        self.tabs.clear()
        self._pending.clear()
        for page in self._pages:  # stand-ins for image views never shown
            page.deleteLater()
        self._pages.clear()
        # An image's (H, W, channels) or a 3-D image's slices: drawn as a 2-D picture.
        output = flat_picture(np.asarray(result.output, dtype=np.float64))
        if output.ndim == 2:
            # A trace of what was just run comes back with the same picture: not drawn again.
            if not _same(output, self._drawn):
                _show_image(self.image, output)
                self._drawn = output
            self.tabs.addTab(self.image, "Result")
            self.showing = "image"
            if result.reference is not None:
                reference = flat_picture(result.reference)
                if "error_map" in self.__dict__:
                    self._pending[self.error_map] = functools.partial(
                        _show_error, self.error_map, output, reference
                    )
                    self._add_error_tab(self.error_map)
                else:  # made when its tab is first shown, as an input's image view
                    page = QWidget()
                    self._pages.append(page)
                    self._pending[page] = functools.partial(
                        self._made_error_map, page, output, reference
                    )
                    self._add_error_tab(page)
        else:
            self._show_vector(output, result.reference)
        for role, given in (result.inputs or {}).items():
            array = flat_picture(given)
            view = self.input_views.get(role)
            if array.ndim == 2:
                image = np.asarray(array, dtype=np.float64)
                if isinstance(view, pg.ImageView):
                    self._pending[view] = functools.partial(_show_image, view, image)
                else:  # its image view is made when the tab is first shown
                    view = QWidget()
                    self._pages.append(view)
                    self._pending[view] = functools.partial(self._made, view, role, image)
            else:
                if not isinstance(view, pg.PlotWidget):
                    view = self._styled(pg.PlotWidget(background="w"))
                    self.input_views[role] = view
                view.clear()
                view.plot(np.asarray(array, dtype=np.float64), pen=pg.mkPen("#2874a6"))
            self._add_tab(view, f"{INPUT_TAB}{role}")
        titles = [self.tab_name(i) for i in range(self.tabs.count())]
        if looked_at in titles[1:]:
            self.tabs.setCurrentIndex(titles.index(looked_at))

    def _made(self, page: QWidget, role: str, image: np.ndarray) -> None:
        """An input's image view, made and drawn in place of the stand-in ``page`` when its
        tab is first shown: an image view with its histogram costs tens of milliseconds,
        for a tab few open."""
        view = self._styled(_image_view())
        self.input_views[role] = view
        self._put_in_place_of(page, view)
        _show_image(view, image)

    def _made_error_map(self, page: QWidget, output: np.ndarray, reference: np.ndarray) -> None:
        """The error map, made (once a window) and drawn in place of the stand-in ``page``
        when its tab is first shown: with its colour map it costs some 70 ms."""
        self._put_in_place_of(page, self.error_map)
        _show_error(self.error_map, output, reference)

    def _put_in_place_of(self, page: QWidget, view: QWidget) -> None:
        """``view`` in the tab of the stand-in ``page``; the same tab stays in front."""
        index = self.tabs.indexOf(page)
        blocked = self.tabs.blockSignals(True)
        try:
            self.tabs.insertTab(index, view, self.tabs.tabText(index))
            self.tabs.setTabToolTip(index, self.tabs.tabToolTip(index + 1))
            self.tabs.setCurrentIndex(index)
            self.tabs.removeTab(index + 1)
        finally:
            self.tabs.blockSignals(blocked)
        self._pages.remove(page)
        page.deleteLater()

    def _draw_current(self, index: int) -> None:
        """A tab shown for the first time since the result came: its image is drawn now."""
        widget = self.tabs.widget(index)
        draw = self._pending.pop(widget, None) if widget is not None else None
        if draw is not None:
            draw()

    def _show_vector(self, output: np.ndarray, reference: np.ndarray | None) -> None:
        """A 1-D output as bars (a strip of values for a long one) with the reference as
        marks on them, and the error as bars on its own tab beside it."""
        self.plot.clear()
        self.error_plot.clear()
        output = output.ravel()
        self._vector_length = output.size
        x = np.arange(output.size)
        values = np.nan_to_num(output)
        if output.size <= BARS_UP_TO:
            self.plot.addItem(
                pg.BarGraphItem(
                    x=x, height=values, width=0.8, brush="#2874a6", name="kernel output"
                )
            )
        else:
            self.plot.plot(x, values, pen=pg.mkPen("#2874a6", width=2), name="kernel output")
        if reference is not None:
            ref = np.asarray(reference, dtype=np.float64).ravel()
            if output.size <= BARS_UP_TO:  # marks on bars; over a long line they would hide it
                self.plot.plot(
                    x,
                    ref,
                    pen=None,
                    symbol="_",
                    symbolSize=14,
                    symbolPen=pg.mkPen("#c0392b", width=2),
                    name="numpy reference",
                )
            diff = np.nan_to_num(np.abs(output - ref), nan=0.0)
            if output.size <= BARS_UP_TO:
                self.error_plot.addItem(
                    pg.BarGraphItem(x=x, height=diff, width=0.8, brush="#c0392b")
                )
            else:
                self.error_plot.plot(x, diff, pen=pg.mkPen("#c0392b", width=1))
        self.tabs.addTab(self.plot, "Result")
        if reference is not None:
            self._add_error_tab(self.error_plot)
        self.showing = "plot"


def _legend_above(item: pg.PlotItem) -> None:
    """The legend on a row of its own above the plot (where a title would be), its entries
    side by side: never drawn over the values."""
    legend = pg.LegendItem(colCount=2, labelTextColor="#333333", frame=False)
    legend.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Preferred)
    item.layout.removeItem(item.titleLabel)
    item.titleLabel.hide()
    item.layout.addItem(legend, 0, 1)
    item.layout.setAlignment(legend, Qt.AlignmentFlag.AlignLeft)
    item.legend = legend  # what plot(name=...) adds its entry to


def _same(a: np.ndarray, b: np.ndarray | None) -> bool:
    return b is not None and a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=True))


def _show_image(view: pg.ImageView, data: np.ndarray) -> None:
    finite = data[np.isfinite(data)]
    lo = min(float(finite.min()), 0.0) if finite.size else 0.0
    hi = max(float(finite.max()), 1.0) if finite.size else 1.0
    view.setImage(np.nan_to_num(data, nan=lo), levels=(lo, hi), autoRange=True)


def _show_error(view: pg.ImageView, output: np.ndarray, reference: np.ndarray) -> None:
    diff = np.abs(output - reference)
    view.setImage(
        np.nan_to_num(diff, nan=np.nanmax(np.where(np.isfinite(diff), diff, 0)) or 1.0),
        autoRange=True,
    )


def badge_text(result: RunResult) -> str:
    """The verdict in one line; a run outside the kernel's constraints says so first."""
    text = _verdict_text(result)
    if result.outside_constraints:
        return f"⚠ Run anyway, {result.outside_label} · {text}"
    return text


def _verdict_text(result: RunResult) -> str:
    status = "cancelled" if result.error_kind == "cancelled" else result.status
    if status in ("verified", "wrong"):
        assert result.verdict is not None
        rate = f" · {rate_text(result)}" if rate_text(result) else ""
        verdict = _verdict_words(result.verdict)
        timing = f" · kernel {ms_text(result.timing.median_ms)}" if result.timing else ""
        why = f" · {result.explanation}" if result.explanation else ""  # a trace's bugs
        return f"{verdict}{timing}{rate}{why}"
    if status == "refused":
        return f"⛔ Refused: {result.refused}"
    if status == "cancelled":
        return "Cancelled"
    if status == "unchecked":  # ran; nothing to compare the result with
        timing = f" · kernel {ms_text(result.timing.median_ms)}" if result.timing else ""
        why = result.verdict.unreferenced if result.verdict is not None else ""
        if why:  # a reference was declared but cannot be computed for this launch
            return f"Ran{timing} · not checked: {why}"
        return f"Ran, not checked (no reference){timing}"
    return f"⚠ {status.capitalize()}: {result.error}"


def _verdict_words(v: Verdict) -> str:
    """Verified or wrong, on the input shown and on the random probe: a bug only the probe
    found says so, and why the input shown (the picture on screen) cannot show it."""
    shown = v.shown_input or "the input shown"
    if v.verified:
        if v.probed:
            return "✔ Verified, also on random data"
        if v.unprobed:  # a trace build: judged on the input shown alone
            return f"✔ Verified on {shown} only (a run also checks random data)"
        return "✔ Verified"
    if v.wrong_on_probe_only:
        nan = f", {v.probe_not_a_number:,} NaN" if v.probe_not_a_number else ""
        why = f": {v.hides}" if v.hides else ""
        return (
            f"✘ Wrong on random data (seed {v.probe_seed}): {v.probe_mismatches:,} elements, "
            f"max error {v.probe_max_abs_error:.3g}{nan}. Right on {shown}, which cannot "
            f"show this bug{why}"
        )
    also = ", also on random data" if v.probed and not v.probe_verified else ""
    return (
        f"✘ Wrong: {v.mismatches:,} elements, max error {v.max_abs_error:.3g}"
        + (f", {v.not_a_number:,} NaN" if v.not_a_number else "")
        + also
    )
