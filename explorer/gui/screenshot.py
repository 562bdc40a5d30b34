"""The offscreen screenshot command: ``python main.py --screenshot PATH [selection] [--run]
[--trace] [--view result|timing|source|findings|grid|all] [--phase N] [--group gx,gy]
[--presenter]``.

Renders the window at 1600×1000 after the work completes, writes the PNG and exits: 0 when
written, 1 when the run produced no result (refused, build error, crash, timeout), 2 for bad
arguments or a PNG that could not be written whole (none is left), 3 when the chosen view is
empty. ``--view grid`` traces first.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QEventLoop, QSettings, QTimer
from PySide6.QtWidgets import QApplication

from explorer.engine.header.catalog import CatalogError
from explorer.engine.launch.devices import NoDeviceError, pick_device
from explorer.file_writes import PNG, WriteFailed, write_output
from explorer.gui import interrupt
from explorer.gui.command_line import apply_selection
from explorer.gui.controllers.sessions import TAB_NAMES, apply_session, session_device
from explorer.gui.main_window import MainWindow
from explorer.selection import UsageError
from explorer.session import Session

SIZE = (1600, 1000)


def wait_until(condition: Callable[[], object], seconds: float) -> bool:
    """Run the event loop until ``condition()`` holds or ``seconds`` pass."""
    loop = QEventLoop()
    timer = QTimer()
    timer.timeout.connect(lambda: loop.quit() if condition() else None)
    timer.start(50)
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()
    timer.stop()
    interrupt.check()  # Ctrl+C stopped the loop: raise it here, outside any Qt slot
    return bool(condition())


def dispose(app: QApplication, window: MainWindow) -> None:
    """Close and delete the window while the QApplication is alive: letting the interpreter
    collect Qt objects at exit can crash PySide6."""
    window.close()
    window.deleteLater()
    app.processEvents()
    app.sendPostedEvents(None, 0)
    del window
    gc.collect()


def take_screenshot(app: QApplication, args: argparse.Namespace, session: Session | None) -> int:
    """Apply the command line (or the session), do the work it asks for, write the PNG."""
    with tempfile.TemporaryDirectory() as scratch:
        settings = QSettings(os.path.join(scratch, "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(settings=settings)
        try:
            return _shoot(app, window, args, session)
        finally:
            dispose(app, window)


def _shoot(
    app: QApplication, window: MainWindow, args: argparse.Namespace, session: Session | None
) -> int:
    state, views, traces = window.state, window.views, window.controllers.traces
    try:
        if session is not None:
            apply_session(window.model, session)
            view = session.view  # the session's view, unless the command line names one
            if args.view == "all" and view.get("tab") in TAB_NAMES:
                args.view = view["tab"]
            if args.phase is None and "phase" in view:
                args.phase = view["phase"]
            if args.group is None and "group" in view:
                args.group = ",".join(str(v) for v in view["group"])
        else:
            apply_selection(window.model, args)
    except (UsageError, CatalogError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    group: tuple[int, int, int] | None = None
    if args.group:
        try:
            values = [int(v) for v in args.group.split(",")]
        except ValueError:
            print(f"error: --group {args.group!r} is not like 3,4", file=sys.stderr)
            return 2
        gx, gy, gz = (values + [0, 0, 0])[:3]
        group = (gx, gy, gz)
    window.resize(*SIZE)
    window.show()

    wait_until(
        lambda: (
            window.model.device is not None
            or window.statusBar().currentMessage() == "No OpenCL device"
        ),
        120,
    )
    if session is not None and not args.device and window.model.devices:
        notice = session_device(window.model, session)
        if notice:
            print(f"note: {notice}", file=sys.stderr)
    if args.device and window.model.devices:  # --device overrides the session's
        try:
            window.model.set_device(pick_device(window.model.devices, args.device).key)
        except NoDeviceError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    code = 0
    if args.run and window.model.device is not None:
        before = len(state.history)
        anyway = session is not None and session.anyway
        window.worker.run(replace(window.model.request(), anyway=anyway))
        wait_until(lambda: len(state.history) > before, args.timeout + 60)
        if state.result is None or state.result.status not in ("verified", "wrong"):
            code = 1
    wants_trace = args.trace or args.view == "grid" or args.phase is not None or group
    if wants_trace and window.model.device is not None:
        if session is not None and session.anyway:
            traces.trace_anyway(group)
        else:
            traces.trace(group)
        wait_until(lambda: state.traced is not None, args.timeout + 120)
        if state.traced is None or state.traced.analysis is None:
            code = 1
        elif group is not None and not views.execution_view.select_group(group):
            print(f"error: work-group {group} is not in the NDRange", file=sys.stderr)
            code = 2
    if args.phase is not None and state.playback is not None:
        step = state.playback.first_step_of(args.phase)
        if step is None:
            print(
                f"error: the selected group has no phase {args.phase} "
                f"(phases 0 to {state.playback.phases - 1})",
                file=sys.stderr,
            )
            code = 2
        else:
            views.execution_view.set_step(step)
    if args.presenter:
        window.controllers.presenter.set_presenter(True, full_screen=False)
    if args.view in ("result", "timing", "source", "findings"):
        views.show_page(args.view)
    empty = {
        "result": state.result is None and state.traced is None,
        "timing": views.timing_view.bar_count == 0,
        "source": not views.source_view.editor.toPlainText(),
        "findings": state.traced is None,
        "grid": state.playback is None,
        "all": False,
    }[args.view]
    app.processEvents()
    picture = window.grab()
    try:
        write_output(
            args.screenshot, lambda path: picture.save(path, "PNG"), PNG, force=_force(args)
        )
    except WriteFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.save_session and not window.controllers.sessions.save(
        args.save_session, force=_force(args)
    ):
        code = 2
    if code == 0 and empty:
        print(f"error: the {args.view} view is empty (add --run or --trace)", file=sys.stderr)
        return 3
    return code


def _force(args: argparse.Namespace) -> bool:
    """Whether the command line's outputs may replace files already there (``--force``)."""
    return bool(getattr(args, "force", False))
