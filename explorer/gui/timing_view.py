"""Timing bars: a run's upload / kernel / download beside the time numpy took to make the
check's answer, or one bar per variant when comparing; min–max whiskers over the samples;
every bar labelled, every figure with at least three significant digits."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from explorer.engine.records import RunResult, figure_text

STATUS_COLOURS = {
    "verified": "#27ae60",
    "wrong": "#c0392b",
    "refused": "#95a5a6",
    "crashed": "#8e44ad",
    "timeout": "#8e44ad",
    "error": "#8e44ad",
}
BAR_HEIGHT = 0.6
LABEL_PX = 16  # read from the back of a room on a 1280×720 projector
LABEL_ROOM = 0.95  # data units above the top bar's centre: its label fits
# Pixels between the chart's left edge and a label drawn from it: a label placed on the edge
# itself ended a rounding error outside the chart for some times (the pixel the time 0 lands
# on is computed from the axis's end), so an edge is never where a label starts.
LABEL_INSET_PX = 2
PART_COLOURS = {"upload": "#5dade2", "kernel": "#27ae60", "download": "#f5b041", "numpy": "#7f8c8d"}
# The bars' colours, a line of their own above the figures, each swatch and its name kept
# together where the line wraps: in presenter mode's narrow column "■ check's" once ended a
# line, "answer · kernel 1.090 ms" reading as the check's kernel time on the next.
LEGEND = " &nbsp; ".join(
    f"<span style='color:{PART_COLOURS[part]}'>■</span>&nbsp;{name.replace(' ', '&nbsp;')}"
    for part, name in (
        ("upload", "upload"),
        ("kernel", "kernel"),
        ("download", "download"),
        ("numpy", "check's answer"),
    )
)
# What the grey bar times: the check's answer made in numpy (in float64, with the magnitudes
# its tolerance scales with; for matmul two products), not numpy doing the kernel's job.
REFERENCE_NAME = "check's answer (numpy)"  # one line in presenter mode's quarter
REFERENCE_WHY = (
    "the time numpy took to make the answer the result is checked against: the float64 "
    "result and the magnitudes its tolerance scales with (for matmul, two products). It is not "
    "numpy doing the kernel's own job in its own type: the bench command's numpy row times that"
)


def figure(value: float, decimals: int) -> str:
    """A time or rate as shown: ``decimals`` places, or more where a small figure needs them
    for three significant digits (figure_text's rule: a 1.88 µs kernel reads "0.00188" ms,
    not "0.002"), thousands grouped ("12,345.6 GFLOP/s")."""
    text = figure_text(value, decimals)
    if not math.isfinite(value):
        return text
    return f"{value:,.{len(text.partition('.')[2])}f}"


def ms_text(value: float) -> str:
    """Milliseconds as every view shows them."""
    return f"{figure(value, 3)} ms"


def rate_text(result: RunResult) -> str:
    if result.gflops is not None:
        return f"{figure(result.gflops, 1)} GFLOP/s"
    if result.gbps is not None:
        return f"{figure(result.gbps, 1)} GB/s"
    return ""


class TimingView(QWidget):
    """Horizontal bars, longest time to the right; names on the left axis."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.plot = pg.PlotWidget(background="w")
        self.plot.setLabel("bottom", "time", units="ms")
        # The values are already milliseconds: pyqtgraph's own prefix would make "mms".
        self.plot.getAxis("bottom").enableAutoSIPrefix(False)
        label_font = self.plot.getAxis("bottom").label.font()
        label_font.setPixelSize(LABEL_PX)
        self.plot.getAxis("bottom").label.setFont(label_font)
        self.plot.showGrid(x=True, y=False, alpha=0.3)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        layout.addWidget(self.plot, 1)
        # The figures in full and the legend, as text that wraps to the pane's width: a label
        # drawn in the plot beside a bar runs off a narrow pane (presenter mode at 1280×720).
        self.details = QLabel("")
        self.details.setObjectName("timing-details")
        self.details.setWordWrap(True)
        layout.addWidget(self.details)
        self.labels: list[str] = []  # what each bar says, for tests and exports
        self.bar_count = 0
        # Labels beside the bars, and the time the axis ends at before they are fitted: on a
        # narrow pane the axis is lengthened until every label ends inside the chart.
        self._placed: list[tuple[float, float, pg.TextItem]] = []
        self._x_end = 1.0
        self._y_top = 1.0  # the value axis's top before the labels are fitted
        self.plot.getPlotItem().getViewBox().sigResized.connect(self._fit_labels)

    def clear(self) -> None:
        self.plot.clear()
        self.details.setText("")
        self.details.setToolTip("")
        self.labels = []
        self.bar_count = 0
        self._placed = []

    def _axis(self, names: list[str]) -> None:
        axis = self.plot.getAxis("left")
        axis.setTicks([list(enumerate(names))])
        font = axis.label.font()
        font.setPixelSize(LABEL_PX)  # the time axis reads from the back of a room too
        # Each bar's label names it: the axis keeps the names (for the record) without
        # writing them, so the bars and their labels get the pane's whole width.
        axis.setStyle(tickFont=font, showValues=False)
        self.plot.getAxis("bottom").setStyle(tickFont=font)
        # Room above the top bar for its label (each bar's label sits on the bar's top edge).
        self._y_top = len(names) - 1 + LABEL_ROOM
        self.plot.setYRange(-0.6, self._y_top, padding=0)

    def _label(self, x: float, y: float, text: str) -> None:
        """A bar's words, on the bar's top edge from the left: inside the chart however
        narrow the pane (a label right of a bar ran off it at 1280×720), and naming the
        variant, so an exported chart says which bar is which."""
        item = pg.TextItem(text, color="#1b2631", anchor=(0, 1))
        y += BAR_HEIGHT / 2
        font = item.textItem.font()
        font.setPixelSize(LABEL_PX)
        item.setFont(font)
        item.setPos(x, y)
        self.plot.addItem(item)
        self.labels.append(text)
        self._placed.append((x, y, item))

    def _set_x_end(self, end: float) -> None:
        self._x_end = end
        self._fit_labels()

    def _fit_labels(self, *_args: object) -> None:
        """The time axis long enough for each label beside a bar to end inside the chart,
        and the chart tall enough above each bar for its label (a short pane: presenter
        mode's quarter at 1280×720 with the details below wrapped over several lines)."""
        box = self.plot.getPlotItem().getViewBox()
        width, height = box.width(), box.height()
        end = self._x_end
        for x, _y, item in self._placed:
            if x == 0 and width > 40:  # a label from the left edge wraps inside the chart
                item.textItem.setTextWidth(-1)
                if item.textItem.boundingRect().width() > width - 6:
                    item.textItem.setTextWidth(width - 6)
            room = width - item.textItem.boundingRect().width() - 6
            if x > 0 and room > 0:
                end = max(end, x * width / room)
        self.plot.setXRange(0, end, padding=0)
        inset = LABEL_INSET_PX * end / width if width > 0 else 0.0
        for x, y, item in self._placed:
            if x == 0:
                item.setPos(inset, y)
        top = self._y_top
        for _x, y, item in self._placed:
            # A label of h pixels ends inside where y + h * (top - bottom) / height <= top.
            share = (item.textItem.boundingRect().height() + 2) / height if height > 0 else 1
            if share < 1:
                top = max(top, (y + share * 0.6) / (1 - share))
        self.plot.setYRange(-0.6, top, padding=0)

    def show_message(self, text: str) -> None:
        """No bars yet: what is coming, in words (e.g. a run being timed)."""
        self.clear()
        self._axis([""])
        self._label(0, -BAR_HEIGHT / 2, text)
        self._set_x_end(1)

    def show_run(self, result: RunResult) -> None:
        """Stacked upload / kernel / download, the numpy reference below."""
        self.clear()
        if result.timing is None:
            self._axis([bar_name(result)])
            self._label(0, 0, f"{result.status}: {result.error or result.refused or ''}"[:120])
            return
        t = result.timing
        parts = [
            ("upload", _finite(t.upload_ms)),
            ("kernel", t.median_ms),
            ("download", _finite(t.download_ms)),
        ]
        left = 0.0
        for name, width in parts:
            bar = pg.BarGraphItem(
                x0=[left],
                y=[1],
                height=BAR_HEIGHT,
                width=[width],
                brush=PART_COLOURS[name],
                pen=pg.mkPen("w"),
            )
            self.plot.addItem(bar)
            left += width
        kernel_left = parts[0][1]
        self.plot.addItem(
            pg.ErrorBarItem(
                x=np.array([kernel_left + t.median_ms]),
                y=np.array([1.0]),
                left=np.array([t.median_ms - t.min_ms]),
                right=np.array([t.max_ms - t.median_ms]),
                beam=0.25,
                pen=pg.mkPen("#1b2631", width=2),
            )
        )
        numpy_bar = pg.BarGraphItem(
            x0=[0], y=[0], height=BAR_HEIGHT, width=[t.reference_ms], brush=PART_COLOURS["numpy"]
        )
        numpy_bar.setToolTip(f"{REFERENCE_NAME}: {REFERENCE_WHY}")
        self.plot.addItem(numpy_bar)
        self.bar_count = 2
        self._axis([REFERENCE_NAME, bar_name(result)])
        span = max(left, t.reference_ms, t.max_ms + kernel_left)
        self._label(0, 1, f"{bar_name(result)}: kernel {ms_text(t.median_ms)}")
        self._label(0, 0, f"{REFERENCE_NAME}: {ms_text(t.reference_ms)}")
        self.details.setText(
            f"{LEGEND}<br>"
            f"kernel {ms_text(t.median_ms)}, the median of {len(t.kernel_ms)} (whisker: min "
            f"{figure(t.min_ms, 3)} – max {ms_text(t.max_ms)}) · {rate_text(result)} · upload "
            f"{ms_text(parts[0][1])} · download {ms_text(parts[2][1])} · check's answer "
            f"{ms_text(t.reference_ms)} (numpy making the float64 answer and its tolerance's "
            "magnitudes: not a numpy baseline)"
        )
        self.details.setToolTip(REFERENCE_WHY)
        self._set_x_end(span * 1.05)

    def show_compare(self, results: Sequence[RunResult]) -> None:
        """One bar per variant, in catalog order; wrong and refused ones stay in the chart."""
        self.clear()
        names = [bar_name(r) for r in results][::-1]
        self._axis(names)
        times = [max(r.timing.median_ms, r.timing.max_ms) for r in results if r.timing is not None]
        span = max(times) if times else 1.0
        for row, result in enumerate(results[::-1]):
            colour = STATUS_COLOURS.get(result.status, "#95a5a6")
            if result.timing is None:
                why = "refused" if result.refused else result.status
                self._label(
                    0, row, f"{bar_name(result)} {why}: {result.refused or result.error or ''}"[:90]
                )
                continue
            t = result.timing
            self.plot.addItem(
                pg.BarGraphItem(
                    x0=[0], y=[row], height=BAR_HEIGHT, width=[t.median_ms], brush=colour
                )
            )
            self.plot.addItem(
                pg.ErrorBarItem(
                    x=np.array([t.median_ms]),
                    y=np.array([float(row)]),
                    left=np.array([t.median_ms - t.min_ms]),
                    right=np.array([t.max_ms - t.median_ms]),
                    beam=0.25,
                    pen=pg.mkPen("#1b2631", width=1.5),
                )
            )
            verdict = VERDICT_MARKS.get(result.status, result.status)
            figures = f"{ms_text(t.median_ms)}  {rate_text(result)}  {verdict}"
            self._label(0, row, f"{bar_name(result)}: {figures}")
            self.bar_count += 1
        self._set_x_end(span * 1.05)


# A timed bar's verdict: a run with nothing to compare against is not called wrong.
VERDICT_MARKS = {"verified": "✔", "wrong": "✘ wrong", "unchecked": "not checked"}


def bar_name(result: RunResult) -> str:
    """A bar's name: the variant, marked when it ran outside the kernel's constraints."""
    if result.outside_constraints:
        return f"{result.variant} (outside its constraints)"
    return result.variant


def _finite(value: float) -> float:
    return value if value == value else 0.0
