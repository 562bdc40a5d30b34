"""The result: a verdict badge, the output as an image with a colour scale (or a curve for
1-D outputs), the error map |output − reference|, and the inputs on tabs."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from explorer.engine.records import RunResult

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


def _image_view() -> pg.ImageView:
    view = pg.ImageView()
    view.ui.roiBtn.hide()
    view.ui.menuBtn.hide()
    return view


class ResultView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.badge = QLabel("Pick a configuration and press Run (Ctrl+R).")
        self.badge.setObjectName("badge")
        self.badge.setWordWrap(True)
        self.badge.setStyleSheet(BADGE_STYLE)
        layout.addWidget(self.badge)
        self.tabs = QTabWidget()
        self.image = _image_view()
        self.error_map = _image_view()
        self.plot = pg.PlotWidget(background="w")
        self.plot.addLegend()
        self.plot.setLabel("bottom", "element")
        self.message = QLabel()
        self.message.setWordWrap(True)
        layout.addWidget(self.tabs, 1)
        self.input_views: dict[str, pg.ImageView | pg.PlotWidget] = {}
        self.showing = "none"  # "image", "plot" or "message": what the Result tab holds

    def show_running(self, text: str) -> None:
        self.badge.setText(f"{text[:1].upper()}{text[1:]} …")
        self.badge.setStyleSheet(BADGE_STYLE + "color: #2e4053; background: #d6eaf8;")

    def show_message(self, title: str, text: str) -> None:
        self.tabs.clear()
        self.message.setText(f"<h3>{title}</h3><pre>{text}</pre>")
        self.tabs.addTab(self.message, title)
        self.showing = "message"

    def show_result(self, result: RunResult) -> None:
        status = "cancelled" if result.error_kind == "cancelled" else result.status
        colour = BADGE_COLOURS.get(status, "#5d6d7e")
        self.badge.setStyleSheet(BADGE_STYLE + f"color: white; background: {colour};")
        self.badge.setText(badge_text(result))
        if result.output is None:
            detail = result.build_log or str(result.refused or result.error or "")
            self.show_message(status.capitalize(), detail)
            return
        self.tabs.clear()
        output = np.asarray(result.output, dtype=np.float64)
        if output.ndim == 2:
            _show_image(self.image, output)
            self.tabs.addTab(self.image, "Result")
            self.showing = "image"
            if result.reference is not None:
                diff = np.abs(output - result.reference)
                self.error_map.setImage(
                    np.nan_to_num(diff, nan=np.nanmax(np.where(np.isfinite(diff), diff, 0)) or 1.0),
                    autoRange=True,
                )
                self.error_map.setColorMap(pg.colormap.get("inferno"))
                self.tabs.addTab(self.error_map, "Error |result − reference|")
        else:
            self.plot.clear()
            x = np.arange(output.size)
            if result.reference is not None:
                self.plot.plot(
                    x, result.reference, pen=pg.mkPen("#95a5a6", width=4), name="numpy reference"
                )
                diff = np.abs(output - result.reference)
                self.plot.plot(
                    x, np.nan_to_num(diff), pen=pg.mkPen("#c0392b", width=1), name="|error|"
                )
            self.plot.plot(
                x, np.nan_to_num(output), pen=pg.mkPen("#2874a6", width=1), name="kernel output"
            )
            self.tabs.addTab(self.plot, "Result")
            self.showing = "plot"
        for role, array in (result.inputs or {}).items():
            view = self.input_views.get(role)
            if np.asarray(array).ndim == 2:
                if not isinstance(view, pg.ImageView):
                    view = _image_view()
                    self.input_views[role] = view
                _show_image(view, np.asarray(array, dtype=np.float64))
            else:
                if not isinstance(view, pg.PlotWidget):
                    view = pg.PlotWidget(background="w")
                    self.input_views[role] = view
                view.clear()
                view.plot(np.asarray(array, dtype=np.float64), pen=pg.mkPen("#2874a6"))
            self.tabs.addTab(view, f"Input {role}")


def _show_image(view: pg.ImageView, data: np.ndarray) -> None:
    finite = data[np.isfinite(data)]
    lo = min(float(finite.min()), 0.0) if finite.size else 0.0
    hi = max(float(finite.max()), 1.0) if finite.size else 1.0
    view.setImage(np.nan_to_num(data, nan=lo), levels=(lo, hi), autoRange=True)


def badge_text(result: RunResult) -> str:
    status = "cancelled" if result.error_kind == "cancelled" else result.status
    if status in ("verified", "wrong"):
        assert result.verdict is not None
        rate = ""
        if result.gflops is not None:
            rate = f" · {result.gflops:,.1f} GFLOP/s"
        elif result.gbps is not None:
            rate = f" · {result.gbps:,.1f} GB/s"
        v = result.verdict
        verdict = (
            "✔ Verified"
            if status == "verified"
            else (
                f"✘ Wrong: {v.mismatches:,} elements, max error {v.max_abs_error:.3g}"
                + (f", {v.not_a_number:,} NaN" if v.not_a_number else "")
            )
        )
        timing = f" · kernel {result.timing.median_ms:.3f} ms" if result.timing else ""
        return f"{verdict}{timing}{rate}"
    if status == "refused":
        return f"⛔ Refused: {result.refused}"
    if status == "cancelled":
        return "Cancelled"
    return f"⚠ {status.capitalize()}: {result.error}"
