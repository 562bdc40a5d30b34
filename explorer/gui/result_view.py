"""The result: the output as an image (2-D) or a curve against the reference (1-D)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QStackedWidget, QVBoxLayout, QWidget

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


class ResultView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        self.badge = QLabel("Pick a configuration and press Run (Ctrl+R).")
        self.badge.setObjectName("badge")
        self.badge.setWordWrap(True)
        self.badge.setStyleSheet("font-size: 15pt; padding: 6px;")
        layout.addWidget(self.badge)
        self.stack = QStackedWidget()
        self.image = pg.ImageView()
        self.image.ui.roiBtn.hide()
        self.image.ui.menuBtn.hide()
        self.plot = pg.PlotWidget()
        self.plot.addLegend()
        self.plot.setLabel("bottom", "element")
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.stack.addWidget(self.image)
        self.stack.addWidget(self.plot)
        self.stack.addWidget(self.message)
        layout.addWidget(self.stack, 1)

    def show_running(self, text: str) -> None:
        self.badge.setText(f"Running {text} …")
        self.badge.setStyleSheet("font-size: 15pt; padding: 6px; color: #2e4053;")

    def show_result(self, result: RunResult) -> None:
        status = "cancelled" if result.error_kind == "cancelled" else result.status
        colour = BADGE_COLOURS.get(status, "#5d6d7e")
        self.badge.setStyleSheet(
            f"font-size: 15pt; padding: 6px; color: white; background: {colour};border-radius: 6px;"
        )
        self.badge.setText(badge_text(result))
        if result.output is None:
            detail = result.build_log or str(result.refused or result.error or "")
            self.message.setText(f"<pre>{detail}</pre>")
            self.stack.setCurrentWidget(self.message)
            return
        output = np.asarray(result.output, dtype=np.float64)
        if output.ndim == 2:
            finite = output[np.isfinite(output)]
            lo = min(float(finite.min()), 0.0) if finite.size else 0.0
            hi = max(float(finite.max()), 1.0) if finite.size else 1.0
            self.image.setImage(np.nan_to_num(output, nan=lo), levels=(lo, hi), autoRange=True)
            self.stack.setCurrentWidget(self.image)
        else:
            self.plot.clear()
            x = np.arange(output.size)
            if result.reference is not None:
                self.plot.plot(
                    x, result.reference, pen=pg.mkPen("#95a5a6", width=3), name="numpy reference"
                )
            self.plot.plot(
                x, np.nan_to_num(output), pen=pg.mkPen("#2874a6", width=1), name="kernel output"
            )
            self.stack.setCurrentWidget(self.plot)


def badge_text(result: RunResult) -> str:
    status = "cancelled" if result.error_kind == "cancelled" else result.status
    if status == "verified" or status == "wrong":
        assert result.timing is not None and result.verdict is not None
        rate = ""
        if result.gflops is not None:
            rate = f" · {result.gflops:.1f} GFLOP/s"
        elif result.gbps is not None:
            rate = f" · {result.gbps:.1f} GB/s"
        verdict = (
            "✔ Verified"
            if status == "verified"
            else (
                f"✘ Wrong: {result.verdict.mismatches} elements, max error "
                f"{result.verdict.max_abs_error:.3g}"
            )
        )
        return f"{verdict} · kernel {result.timing.median_ms:.3f} ms{rate}"
    if status == "refused":
        return f"⛔ Refused: {result.refused}"
    if status == "cancelled":
        return "Cancelled"
    return f"⚠ {status.capitalize()}: {result.error}"
