"""Repaint cost of the animation, offscreen.

Traces the IOU tiled matmul, steps through every step of the selected work-group and times
a full-window repaint at each; runs the animation twice and reports the resident memory
after each pass, which must not grow while it plays.

It needs a window, so Qt and the GUI are imported only when :func:`bench_ui` runs: this
module imports without Qt.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.engine.catalog import find_variant
from explorer.engine.devices import pick_device


@dataclass(frozen=True)
class UiBenchRecord:
    """What the animation cost; ``bench-ui --json`` prints its fields, in this order."""

    frames: int
    paint_ms_median: float
    paint_ms_p95: float
    step_ms_median: float
    steps: int
    phases: int
    groups_traced: int
    rss_mb_after_first_pass: float
    rss_mb_after_second_pass: float

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def resident_mb() -> float:
    """This process's resident memory now (Linux), else its peak so far."""
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            pages = int(handle.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def bench_ui(size: int = 768, device: str | None = None) -> UiBenchRecord:
    """Open the main window offscreen (1600×1000), trace the ``size``² IOU tiled matmul on
    ``device`` and play the selected group's steps twice, timing every repaint."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from explorer.gui.main_window import MainWindow
    from explorer.gui.screenshot import dispose, wait_until

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication([])
    scratch = tempfile.TemporaryDirectory()
    settings = QSettings(os.path.join(scratch.name, "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    window.resize(1600, 1000)
    window.show()
    try:
        if not wait_until(lambda: window.model.device is not None, 120):
            raise RuntimeError("no OpenCL device")
        if device:
            window.model.set_device(pick_device(window.model.devices, device).key)
        window.model.set_family("matmul")
        window.model.set_variant(find_variant("matmul", "tiled"))
        for name in ("M", "N", "K"):
            window.model.set_size(name, size)
        window.model.set_input("iou")
        window.controllers.runs.trace()
        traced = wait_until(lambda: window.state.traced is not None, 900)
        playback = window.state.playback
        if not traced or playback is None:
            raise RuntimeError("the trace did not complete")
        view = window.views.execution_view
        window.views.tabs.setCurrentWidget(view)
        app.processEvents()
        paint_ms: list[float] = []
        step_ms: list[float] = []
        rss: list[float] = []
        for _ in range(2):
            for i in range(view.steps):
                t0 = time.perf_counter()
                view.set_step(i)
                t1 = time.perf_counter()
                window.repaint()
                t2 = time.perf_counter()
                step_ms.append((t1 - t0) * 1e3)
                paint_ms.append((t2 - t1) * 1e3)
            app.processEvents()
            rss.append(resident_mb())
        return UiBenchRecord(
            frames=len(paint_ms),
            paint_ms_median=round(float(np.median(paint_ms)), 3),
            paint_ms_p95=round(float(np.percentile(paint_ms, 95)), 3),
            step_ms_median=round(float(np.median(step_ms)), 3),
            steps=int(view.steps),
            phases=int(playback.phases),
            groups_traced=len(playback.traced_groups),
            rss_mb_after_first_pass=round(rss[0], 1),
            rss_mb_after_second_pass=round(rss[1], 1),
        )
    finally:
        dispose(app, window)
        scratch.cleanup()
