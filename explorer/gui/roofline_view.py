"""The roofline: every run a point (arithmetic intensity, achieved GFLOP/s) under the
device's measured ceilings: its copy bandwidth and its peak FMA rate. A verified run is a
filled dot; a wrong one a red cross and a run with nothing to check it against a hollow ring,
each named so in the legend: a wrong kernel's speed is no achievement."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from explorer.engine.records import RunResult
from explorer.gui.timing_view import figure

COLOURS = [  # a verified run's dot: no red, the colour of a wrong one
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
]
WRONG_COLOUR = "#c0392b"
UNCHECKED_COLOUR = "#7f8c8d"
# What the legend adds to a point's name, by the run's status (a verified run adds nothing).
MARK_WORDS = {"wrong": "✘ WRONG result: speed not earned"}
NOT_CHECKED = "not checked"


class LogAxis(pg.AxisItem):
    """A log axis whose figures do not run into each other: the powers of ten always
    labelled, 2 and 5 times them where there is room, the other multiples ticked unlabelled
    (pyqtgraph labelled all nine of each decade over three decades: "0.040.050.060.070.08"),
    in plain decimals ("0.05", "20", not "2·10¹")."""

    def logTickValues(
        self, minVal: float, maxVal: float, size: float, stdTicks: list
    ) -> list[tuple[float | None, list[float]]]:
        levels: list[list[float]] = [[], [], []]
        for decade in range(math.floor(minVal), math.ceil(maxVal) + 1):
            for multiple in range(1, 10):
                at = decade + math.log10(multiple)
                if minVal <= at <= maxVal:
                    levels[0 if multiple == 1 else 1 if multiple in (2, 5) else 2].append(at)
        return [(1.0, levels[0]), (None, levels[1]), (None, levels[2])]

    def logTickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        strings = []
        for at in values:
            multiple = round(10 ** (at - math.floor(at + 1e-9)))
            strings.append(f"{10**at:,.6g}" if multiple in (1, 2, 5) else "")
        return strings


class RooflineView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.note = QLabel("Run kernels to place them under the device's ceilings.")
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        self.plot = pg.PlotWidget(
            background="w", axisItems={"bottom": LogAxis("bottom"), "left": LogAxis("left")}
        )
        self.plot.setLogMode(x=True, y=True)
        self.plot.setLabel("bottom", "arithmetic intensity", units="FLOP/byte")
        self.plot.setLabel("left", "achieved", units="GFLOP/s")
        for side in ("bottom", "left"):  # no "kGFLOP/s" or "mFLOP/byte": the units stay put
            self.plot.getAxis(side).enableAutoSIPrefix(False)
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        # Dark text: pyqtgraph's pale grey default does not read on white at 1280×720.
        self.plot.addLegend(offset=(10, 10), labelTextColor="#1b2631")
        layout.addWidget(self.plot)
        self.limits: dict | None = None
        self.points: list[tuple[str, float, float]] = []  # label, intensity, GFLOP/s
        self.statuses: list[str] = []  # each point's run status, as ``points``
        self.legend_names: list[str] = []  # what the legend says of each point, for tests
        self.results: tuple[RunResult, ...] = ()  # every run of the session
        self.device: str | None = None  # only its runs are drawn under its ceilings
        self.elsewhere = 0  # runs on other devices, not drawn

    def set_device(self, device: str | None) -> None:
        """The device whose ceilings and runs are drawn: another device's runs would sit
        under ceilings that are not theirs."""
        self.device = device
        self.show_results(self.results)

    def set_limits(self, limits: dict | None) -> None:
        self.limits = limits
        self._redraw()

    def show_results(self, results: Sequence[RunResult]) -> None:
        self.results = tuple(results)
        self.points = []
        self.statuses = []
        mine = [r for r in results if self.device is None or r.device == self.device]
        self.elsewhere = len(results) - len(mine)
        for r in mine:
            if r.timing is None or not r.flops or not r.bytes_moved or r.gflops is None:
                continue
            self.points.append(
                (
                    f"{r.variant} {'x'.join(map(str, r.sizes.values()))}",
                    r.flops / r.bytes_moved,
                    r.gflops,
                )
            )
            self.statuses.append(r.status)
        self._redraw()

    def _redraw(self) -> None:
        self.plot.clear()
        xs = [p[1] for p in self.points] or [1.0]
        lo, hi = min(xs) / 4, max(xs) * 4
        if self.limits:
            copy, fma = self.limits["copy_gbps"], self.limits["fma_gflops"]
            lo = min(lo, fma / copy / 64)
            hi = max(hi, fma / copy * 16)
            ai = np.logspace(np.log10(lo), np.log10(hi), 200)
            roof = np.minimum(fma, ai * copy)
            self.plot.plot(
                ai,
                roof,
                pen=pg.mkPen("#1b2631", width=3),
                name=f"ceiling: {figure(copy, 0)} GB/s copy, {figure(fma, 0)} GFLOP/s FMA",
            )
        self.legend_names = []
        for i, (label, x, y) in enumerate(self.points):
            status = self.statuses[i] if i < len(self.statuses) else "verified"
            mark = MARK_WORDS.get(status, NOT_CHECKED)
            name = label if status == "verified" else f"{label} · {mark}"
            if status == "wrong":
                style = {"symbol": "x", "symbolSize": 16, "symbolBrush": WRONG_COLOUR}
                style["symbolPen"] = pg.mkPen(WRONG_COLOUR)
            elif status != "verified":  # ran, never compared with anything
                style = {"symbol": "o", "symbolSize": 12, "symbolBrush": None}
                style["symbolPen"] = pg.mkPen(UNCHECKED_COLOUR, width=2)
            else:
                style = {"symbol": "o", "symbolSize": 12, "symbolBrush": COLOURS[i % len(COLOURS)]}
            self.plot.plot([x], [y], pen=None, name=name, **style)
            self.legend_names.append(name)
        if self.limits:
            self.note.setText(
                f"Ceilings of {self.limits.get('device', 'the device')} measured "
                f"{self.limits.get('measured', '')}: a kernel left of the ridge "
                f"({figure(self.limits['fma_gflops'] / self.limits['copy_gbps'], 1)} FLOP/byte) is "
                "limited by memory bandwidth, right of it by arithmetic."
            )
        elif self.points:
            self.note.setText("Measuring the device's ceilings …")
        else:
            self.note.setText("Run kernels to place them under the device's ceilings.")
        wrong = self.statuses.count("wrong")
        unchecked = sum(s not in ("verified", "wrong") for s in self.statuses)
        if wrong or unchecked:
            words = [f"{wrong} wrong (red ✘)"] if wrong else []
            words += [f"{unchecked} not checked (hollow ring)"] if unchecked else []
            self.note.setText(
                f"{self.note.text()} Marked apart: {' and '.join(words)}; only a filled dot "
                "is a verified result."
            )
        if self.elsewhere:
            self.note.setText(
                f"{self.note.text()} ({self.elsewhere} run(s) on other devices not shown.)"
            )
