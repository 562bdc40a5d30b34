"""``python -m explorer bench-ui``: repaint cost of the animation, offscreen.

Traces the IOU tiled matmul, steps through every step of the selected work-group and times
a full-window repaint at each; runs the animation twice and reports the resident memory
after each pass, which must not grow while it plays.
"""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            pages = int(handle.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run(size: int = 768, device: str | None = None) -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from explorer.engine.catalog import find_variant
    from explorer.engine.devices import pick_device
    from explorer.gui.main_window import MainWindow
    from explorer.gui.screenshot import dispose, wait_until

    app = QApplication.instance() or QApplication([])
    scratch = tempfile.TemporaryDirectory()
    settings = QSettings(os.path.join(scratch.name, "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    window.resize(1600, 1000)
    window.show()

    wait = wait_until

    try:
        if not wait(lambda: window.model.device is not None, 120):
            raise RuntimeError("no OpenCL device")
        if device:
            window.model.set_device(pick_device(window.model.devices, device).key)
        window.model.set_family("matmul")
        window.model.set_variant(find_variant("matmul", "tiled"))
        for name in ("M", "N", "K"):
            window.model.set_size(name, size)
        window.model.set_input("iou")
        window.controllers.runs.trace()
        if not wait(lambda: window.state.traced is not None, 900) or window.state.playback is None:
            raise RuntimeError("the trace did not complete")
        view = window.views.execution_view
        window.views.tabs.setCurrentWidget(view)
        app.processEvents()
        paint_ms, step_ms, rss = [], [], []
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
            rss.append(_rss_mb())
        return {
            "frames": len(paint_ms),
            "paint_ms_median": round(float(np.median(paint_ms)), 3),
            "paint_ms_p95": round(float(np.percentile(paint_ms, 95)), 3),
            "step_ms_median": round(float(np.median(step_ms)), 3),
            "steps": view.steps,
            "phases": window.state.playback.phases,
            "groups_traced": len(window.state.playback.traced_groups),
            "rss_mb_after_first_pass": round(rss[0], 1),
            "rss_mb_after_second_pass": round(rss[1], 1),
        }
    finally:
        dispose(app, window)
        scratch.cleanup()
