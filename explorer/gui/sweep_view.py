"""Parameter sweep: a heat map of GFLOP/s (or GB/s), or of a trace figure (bank-conflict
degree, sectors per request, each point from a real trace), over two chosen parameters;
refused configurations are shown as such; clicking a cell loads that configuration."""

from __future__ import annotations

import itertools

import numpy as np
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from explorer.engine.records import RunResult, Variant
from explorer.gui.canvas import CellCanvas, rgba
from explorer.gui.timing_view import figure as shown_figure

REFUSED = rgba("#bdc3c7")
WRONG = rgba("#e74c3c")
# The fastest cell's colour: light enough that its figure, drawn in near-black, still reads
# (a dark green left the best cell's figure at a contrast of 2:1).
FASTEST = "#52be80"
METRIC_NAMES = {
    "time": "time",
    "bank-degree": "bank-conflict degree (worst local site)",
    "sectors": "sectors per request (worst global site)",
}


Value = int | tuple[int, ...]  # a define's value, or a local size


def parse_values(axis: str, text: str) -> list[Value]:
    """``8x8,16x16`` for the local size, ``8,16,32`` for a define."""
    values: list[Value] = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        if axis == "local":
            values.append(tuple(int(v) for v in part.lower().replace("×", "x").split("x")))
        else:
            values.append(int(part))
    if not values:
        raise ValueError(f"no values for {axis}")
    return values


class SweepView(QWidget):
    run_requested = Signal(str, list, str, list)  # x axis, x values, y axis, y values
    cell_chosen = Signal(object, object)  # {axis: value} of the chosen cell

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        form = QFormLayout()
        row_x, row_y = QHBoxLayout(), QHBoxLayout()
        self.x_axis, self.y_axis = QComboBox(), QComboBox()
        self.x_values, self.y_values = QLineEdit(), QLineEdit()
        row_x.addWidget(self.x_axis)
        row_x.addWidget(self.x_values, 1)
        row_y.addWidget(self.y_axis)
        row_y.addWidget(self.y_values, 1)
        form.addRow("Across", row_x)
        form.addRow("Down", row_y)
        self.colour_by = QComboBox()
        self.colour_by.addItems(list(METRIC_NAMES))
        self.colour_by.setToolTip(
            "time: GFLOP/s or GB/s of each point; bank-degree and sectors: from a real trace "
            "of each point (lower is better; small sizes keep it fast)"
        )
        form.addRow("Colour by", self.colour_by)
        layout.addLayout(form)
        self.run_button = QPushButton("Run sweep")
        self.run_button.clicked.connect(self._run)
        layout.addWidget(self.run_button)
        self.message = QLabel("Pick two parameters and their values, then Run sweep.")
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        self.canvas = CellCanvas("")
        self.canvas.clicked.connect(self._clicked)
        layout.addWidget(self.canvas, 1)
        self.x_axis.currentTextChanged.connect(lambda a: self._defaults(a, self.x_values))
        self.y_axis.currentTextChanged.connect(lambda a: self._defaults(a, self.y_values))
        self.variant: Variant | None = None
        self.grid: list[list[RunResult | None]] = []
        self.figures: list[list[float | None]] = []  # trace figures, when coloured by one
        self.grid_metric = "time"  # what the grid on screen is coloured by
        self.axes: tuple[str, list, str, list] | None = None

    def set_variant(self, variant: Variant) -> None:
        self.variant = variant
        axes = ["local", *variant.default_defines]
        for combo in (self.x_axis, self.y_axis):
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(axes)
            combo.blockSignals(False)
        self.x_axis.setCurrentIndex(0)
        self.y_axis.setCurrentIndex(1 if len(axes) > 1 else 0)
        self._defaults(self.x_axis.currentText(), self.x_values)
        self._defaults(self.y_axis.currentText(), self.y_values)

    def clear(self, message: str) -> None:
        """No grid: the configuration it was run for is gone."""
        self.axes = None
        self.grid, self.figures = [], []
        self.canvas.set_pixels(np.full((1, 1, 4), 255, dtype=np.uint8))  # one blank cell
        self.canvas.outlines = []
        self.canvas.cell_labels = None
        self.canvas.title = ""
        self.canvas.update()
        self.message.setText(message)

    def _defaults(self, axis: str, edit: QLineEdit) -> None:
        if self.variant is None or not axis:
            return
        if axis == "local":
            dims = len(self.variant.global_size)
            text = {1: "64,128,256,512", 2: "8x8,16x16,32x8,32x32"}.get(dims, "4x4x4,8x8x4")
        else:
            allowed = self.variant.allowed_values.get(axis)
            default = self.variant.default_defines[axis]
            values = allowed or sorted({max(1, default // 2), default, default * 2})
            text = ",".join(map(str, values))
        edit.setText(text)

    def _run(self) -> None:
        try:
            x_axis, y_axis = self.x_axis.currentText(), self.y_axis.currentText()
            xs = parse_values(x_axis, self.x_values.text())
            ys = parse_values(y_axis, self.y_values.text()) if y_axis != x_axis else [None]
        except ValueError as exc:
            self.message.setText(f"Cannot read the values: {exc}")
            return
        self.axes = (x_axis, xs, y_axis, ys)
        self.grid = [[None] * len(xs) for _ in ys]
        self.figures = [[None] * len(xs) for _ in ys]
        self.grid_metric = self.colour_by.currentText()
        self.message.setText(f"Sweeping {len(xs) * len(ys)} configurations …")
        self.run_requested.emit(x_axis, xs, y_axis, ys)

    def configurations(self) -> list[dict[str, Value]]:
        """Every cell's parameters, row by row."""
        assert self.axes is not None
        x_axis, xs, y_axis, ys = self.axes
        out = []
        for y, x in itertools.product(ys, xs):
            params = {x_axis: x}
            if y is not None:
                params[y_axis] = y
            out.append(params)
        return out

    def show_cell(self, index: int, result: RunResult, figure: float | None = None) -> None:
        """One point's result, and its trace figure when the grid is coloured by one."""
        assert self.axes is not None
        cols = len(self.axes[1])
        self.grid[index // cols][index % cols] = result
        self.figures[index // cols][index % cols] = figure
        if self.grid_metric == "time":
            self._draw()
        else:
            self._draw_figures()

    def _draw_figures(self) -> None:
        """Colour by a trace figure: lower is better (1 bank turn, fewer sectors)."""
        assert self.axes is not None
        x_axis, xs, y_axis, ys = self.axes
        known = [
            (r, c, v)
            for r, row in enumerate(self.figures)
            for c, v in enumerate(row)
            if v is not None
        ]
        lo = min((v for _, _, v in known), default=0.0)
        hi = max((v for _, _, v in known), default=1.0)
        span = (hi - lo) or 1.0
        good, bad = rgba("#e8f8f5").astype(float), rgba("#1f618d").astype(float)
        pixels = np.zeros((len(ys), len(xs), 4), dtype=np.uint8)
        labels = [[""] * len(xs) for _ in ys]
        for r, row in enumerate(self.grid):
            for c, result in enumerate(row):
                value = self.figures[r][c]
                if result is None:
                    pixels[r, c] = rgba("#ffffff")
                elif result.status == "refused":
                    pixels[r, c], labels[r][c] = REFUSED, "refused"
                elif value is None:
                    pixels[r, c], labels[r][c] = WRONG, result.status
                else:
                    pixels[r, c] = (good + (bad - good) * ((value - lo) / span)).astype(np.uint8)
                    labels[r][c] = f"{value:.2f}"
        best = min(known, key=lambda k: k[2]) if known else None
        self.canvas.set_pixels(pixels)
        self.canvas.outlines = (
            [(best[0], best[0] + 1, best[1], best[1] + 1, "#c0392b")] if best else []
        )
        fmt = [("x".join(map(str, x)) if isinstance(x, tuple) else str(x)) for x in xs]
        name = METRIC_NAMES[self.grid_metric]
        self.canvas.title = f"{name}: {x_axis} across ({', '.join(fmt)})" + (
            f", {y_axis} down ({', '.join(map(str, ys))})" if ys != [None] else ""
        )
        done = sum(r is not None for row in self.grid for r in row)
        refused = sum(r is not None and r.status == "refused" for row in self.grid for r in row)
        text = f"{done} of {len(xs) * len(ys)} traced, {refused} refused (grey)"
        if best is not None:
            text += f"; lowest {best[2]:.2f} (outlined). Click a cell to load it."
        self.message.setText(text)
        self.canvas.cell_labels = labels
        self.canvas.update()

    def _draw(self) -> None:
        if self.axes is None:
            return
        x_axis, xs, y_axis, ys = self.axes
        values = np.zeros((len(ys), len(xs)))
        for r, row in enumerate(self.grid):
            for c, result in enumerate(row):
                if result is not None and result.status == "verified":
                    values[r, c] = result.gflops or result.gbps or 0.0
        top = values.max() or 1.0
        a, b = rgba("#fef9e7").astype(float), rgba(FASTEST).astype(float)
        pixels = (a + (b - a) * (values / top)[..., None]).astype(np.uint8)
        best = None
        for r, row in enumerate(self.grid):
            for c, result in enumerate(row):
                if result is None:
                    pixels[r, c] = rgba("#ffffff")
                elif result.status == "refused":
                    pixels[r, c] = REFUSED
                elif result.status != "verified":
                    pixels[r, c] = WRONG
                elif best is None or values[r, c] > values[best]:
                    best = (r, c)
        self.canvas.set_pixels(pixels)
        self.canvas.outlines = (
            [(best[0], best[0] + 1, best[1], best[1] + 1, "#c0392b")] if best else []
        )
        unit = "GFLOP/s" if any(r and r.gflops for row in self.grid for r in row) else "GB/s"
        fmt = [("x".join(map(str, x)) if isinstance(x, tuple) else str(x)) for x in xs]
        self.canvas.title = f"{unit}: {x_axis} across ({', '.join(fmt)}), " + (
            f"{y_axis} down ({', '.join(map(str, ys))})" if ys != [None] else ""
        )
        done = sum(r is not None for row in self.grid for r in row)
        refused = sum(r is not None and r.status == "refused" for row in self.grid for r in row)
        text = f"{done} of {len(xs) * len(ys)} done, {refused} refused (grey)"
        if best is not None:
            best_text = f"{shown_figure(values[best], 1)} {unit}"
            text += f"; best {best_text} (outlined). Click a cell to load it."
        self.message.setText(text)
        self.canvas.cell_labels = [[_label(r, unit) for r in row] for row in self.grid]
        self.canvas.update()

    def _clicked(self, cell: int) -> None:
        if self.axes is None:
            return
        x_axis, xs, y_axis, ys = self.axes
        r, c = divmod(cell, len(xs))
        if r < len(ys):
            params = {x_axis: xs[c]}
            if ys[r] is not None:
                params[y_axis] = ys[r]
            self.cell_chosen.emit(params, self.grid[r][c])


def _label(result: RunResult | None, unit: str) -> str:
    if result is None:
        return ""
    if result.status == "refused":
        return "refused"
    if result.status != "verified":
        return result.status
    value = result.gflops if unit == "GFLOP/s" else result.gbps
    return shown_figure(value, 1) if value is not None else ""
