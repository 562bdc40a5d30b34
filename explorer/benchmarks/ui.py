"""What the animation costs, offscreen: repaints, and the wait from Trace to the first frame.

:func:`bench_ui` traces the IOU tiled matmul, steps through every step of the selected
work-group and times a full-window repaint at each; it runs the animation twice and reports
the resident memory after each pass, which must not grow while it plays.

:func:`bench_first_frame` presses Trace (the window's QAction, as a person would) several
times and times each press until the execution view has painted its first step, split into
the parts that make it up.

It needs a window, so Qt and the GUI are imported only when :func:`bench_ui` runs: this
module imports without Qt.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.engine.header.catalog import find_variant
from explorer.engine.launch.devices import pick_device


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


@contextmanager
def _iou_window(
    size: int, device: str | None, watch: Any = None, host: Any = None
) -> Iterator[tuple[Any, Any]]:
    """The main window offscreen (1600×1000, its own settings and executor) set to the
    ``size``² IOU tiled matmul on ``device``, once a device is found; closed afterwards.
    ``watch``, called with the window's worker before the window connects to it, may connect
    first (to see a result arrive before the window handles it). ``host``: a
    :class:`~explorer.engine.remote.hosts.Host` whose device (``device`` among its devices)
    runs the work."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from explorer.gui.main_window import MainWindow
    from explorer.gui.screenshot import dispose, wait_until
    from explorer.gui.worker import Worker

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication([])
    scratch = tempfile.TemporaryDirectory()
    settings = QSettings(os.path.join(scratch.name, "s.ini"), QSettings.Format.IniFormat)
    if host is not None:
        from explorer.gui.settings import save_hosts

        save_hosts(settings, [host])
    worker = Worker()
    if watch is not None:
        watch(worker)
    window = MainWindow(worker=worker, settings=settings)
    worker.setParent(window)
    window.resize(1600, 1000)
    window.show()
    try:
        if not wait_until(lambda: window.model.device is not None, 120):
            raise RuntimeError("no OpenCL device")
        if host is not None:
            here = lambda: [d for d in window.model.devices if d.host == host.label]  # noqa: E731
            if not wait_until(lambda: bool(here()), 120):
                raise RuntimeError(f"{host.label}'s devices did not come")
            window.model.set_device(pick_device(here(), device).key)
        elif device:
            window.model.set_device(pick_device(window.model.devices, device).key)
        window.model.set_family("matmul")
        window.model.set_variant(find_variant("matmul", "tiled"))
        for name in ("M", "N", "K"):
            window.model.set_size(name, size)
        window.model.set_input("iou")
        yield app, window
    finally:
        dispose(app, window)
        scratch.cleanup()


def bench_ui(size: int = 768, device: str | None = None, host: Any = None) -> UiBenchRecord:
    """Open the main window offscreen (1600×1000), trace the ``size``² IOU tiled matmul on
    ``device`` and play the selected group's steps twice, timing every repaint."""
    from explorer.gui.screenshot import wait_until

    with _iou_window(size, device, host=host) as (app, window):
        window.controllers.traces.trace()
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


# The executor's stages, as its trace reports them (``TracedRun.timings_ms``).
EXECUTOR_PARTS = ("build_ms", "count_ms", "record_ms", "verify_ms", "decode_ms", "analyse_ms")
# Then, in the window: the trace crossing from the executor to the GUI thread, the window
# preparing the first frame (findings, grids, playback), and that frame's layout and paint.
GUI_PARTS = ("transfer_ms", "prepare_ms", "paint_ms")
PARTS = (*EXECUTOR_PARTS, *GUI_PARTS, "other_ms")


@dataclass(frozen=True)
class FirstFrameRecord:
    """Trace pressed → first frame; ``bench-ui --first-frame --json`` prints its fields.

    ``first_*``: the first press, whose builds are compiled in this executor for the first
    time (PyOpenCL's on-disk binary cache may still serve them). ``median_*``: the median of
    the later presses, each part's median on its own (so they need not add up exactly).
    ``other_ms`` is what the named parts leave of the press: sending the request, waiting
    for the worker thread, Python between the stages."""

    size: int
    device: str
    presses: int
    records: int
    groups_traced: int
    first_ms: float
    median_ms: float
    first_parts: dict[str, float]
    median_parts: dict[str, float]

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def summary(self) -> str:
        """Two lines: the first press and the median of the others, each with its parts."""

        def parts(values: dict[str, float]) -> str:
            return " + ".join(f"{k.removesuffix('_ms')} {v:.0f}" for k, v in values.items())

        head = (
            f"Trace pressed → first frame, IOU matmul {self.size}² on {self.device} "
            f"({self.records} records, {self.groups_traced} groups)"
        )
        return (
            f"{head}\nfirst press: {self.first_ms:.0f} ms = {parts(self.first_parts)}\n"
            f"median of {self.presses - 1} later presses: {self.median_ms:.0f} ms = "
            f"{parts(self.median_parts)}"
        )


def _press_parts(
    total_ms: float, executor: dict[str, float], gui: dict[str, float]
) -> dict[str, float]:
    parts = {name: executor.get(name, 0.0) for name in EXECUTOR_PARTS}
    parts.update(gui)
    parts["other_ms"] = total_ms - sum(parts.values())
    return {k: round(v, 1) for k, v in parts.items()}


def bench_first_frame(
    size: int = 768, device: str | None = None, presses: int = 4, host: Any = None
) -> FirstFrameRecord:
    """Press the window's Trace action ``presses`` times (at least 2) on the ``size``² IOU
    tiled matmul, each time timing from the press until the execution view has painted the
    first step of the new trace, as the window shows it (its own record budget and window
    of work-groups)."""
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QWidget

    from explorer.gui.screenshot import wait_until

    marks: dict[str, float] = {}
    arrived: list[Any] = []  # the TracedRun of the press in flight

    def received(traced: Any) -> None:
        marks.setdefault("received", time.time())
        arrived.append(traced)

    def watch(worker: Any) -> None:
        worker.trace_finished.connect(received)

    class PaintWatch(QObject):
        """Notes when the execution view (or a widget in it) paints after the trace is shown,
        and when that paint pass has ended (the next turn of the event loop)."""

        def __init__(self, view: Any) -> None:
            super().__init__()
            self.view = view

        def eventFilter(self, watched: Any, event: Any) -> bool:
            if (
                event.type() == QEvent.Type.Paint
                and "shown" in marks
                and "painted" not in marks
                and isinstance(watched, QWidget)
                and (watched is self.view or self.view.isAncestorOf(watched))
            ):
                marks.setdefault("paint_started", time.time())
                QTimer.singleShot(0, lambda: marks.setdefault("painted", time.time()))
            return False

    with _iou_window(size, device, watch, host) as (app, window):
        view = window.views.execution_view
        trace_action = window.commands["trace"]
        window.controllers.traces.trace_shown.connect(
            lambda: marks.setdefault("shown", time.time())
        )
        watcher = PaintWatch(view)
        app.installEventFilter(watcher)
        totals: list[float] = []
        parts: list[dict[str, float]] = []
        try:
            for _ in range(max(2, presses)):
                marks.clear()
                arrived.clear()
                if not wait_until(trace_action.isEnabled, 60):
                    raise RuntimeError("Trace stayed disabled")
                marks["pressed"] = time.time()
                trace_action.trigger()
                shown = wait_until(
                    lambda: "painted" in marks or (arrived and arrived[0].trace is None), 900
                )
                if not shown or "painted" not in marks:
                    why = arrived[0].result.summary() if arrived else "no trace came back"
                    raise RuntimeError(f"the trace did not reach the screen: {why}")
                traced = arrived[0]
                finished_at = traced.finished_at or marks["received"]
                gui = {
                    "transfer_ms": (marks["received"] - finished_at) * 1e3,
                    "prepare_ms": (marks["shown"] - marks["received"]) * 1e3,
                    "paint_ms": (marks["painted"] - marks["shown"]) * 1e3,
                }
                total = (marks["painted"] - marks["pressed"]) * 1e3
                totals.append(total)
                parts.append(_press_parts(total, traced.timings_ms, gui))
                wait_until(lambda: not window.worker.busy, 60)
        finally:
            app.removeEventFilter(watcher)
        report = traced.report_json or {}
        later = parts[1:]
        return FirstFrameRecord(
            size=size,
            device=traced.result.device,
            presses=len(totals),
            records=int(report.get("records", 0)),
            groups_traced=len(report.get("groups_traced", [])),
            first_ms=round(totals[0], 1),
            median_ms=round(float(np.median(totals[1:])), 1),
            first_parts=parts[0],
            median_parts={k: round(float(np.median([p[k] for p in later])), 1) for k in PARTS},
        )
