"""``python -m explorer animate``: open the window offscreen, select what the command line
names, trace it and write the animation (see :mod:`explorer.gui.animation_file`)."""

from __future__ import annotations

import argparse
import os
import tempfile

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from explorer.file_writes import WriteFailed
from explorer.gui.animation_file import frames_of, write_frames


def animate_to_file(args: argparse.Namespace) -> int:
    """Trace the selection in an offscreen window and write ``args.out``; the exit code."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from explorer.gui.command_line import apply_selection
    from explorer.gui.main_window import MainWindow
    from explorer.gui.screenshot import dispose, wait_until

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication([])
    scratch = tempfile.TemporaryDirectory()
    window = MainWindow(
        settings=QSettings(os.path.join(scratch.name, "s.ini"), QSettings.Format.IniFormat)
    )
    width, height = args.window_size
    window.resize(width, height)
    window.show()
    try:
        if not wait_until(lambda: window.model.device is not None, 120):
            print("error: no OpenCL device", flush=True)
            return 1
        apply_selection(window.model, args)
        group = None
        if args.group:
            gx, gy, gz = ([int(v) for v in args.group.split(",")] + [0, 0, 0])[:3]
            group = (gx, gy, gz)
        window.controllers.traces.trace(group)
        if not wait_until(lambda: window.state.playback is not None, args.timeout + 120):
            print("error: the trace did not complete", flush=True)
            return 1
        view = window.views.execution_view
        window.views.show_page("execution")
        app.processEvents()
        frames = frames_of(view, args.max_frames, getattr(args, "frame_size", None))
        try:
            write_frames(frames, args.out, args.fps)
        except WriteFailed as exc:
            print(f"error: {exc}", flush=True)
            return 2
        height, width = frames[0].shape[:2]
        print(f"wrote {len(frames)} frames ({width}x{height}) to {args.out}")
        return 0
    finally:
        dispose(app, window)
        scratch.cleanup()
