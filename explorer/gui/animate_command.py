"""``python -m explorer animate``: open the window offscreen, select what the command line
names, trace it and write the animation (see :mod:`explorer.gui.animation_file`).

Exit codes: 0 written, 2 usage or environment (an output that cannot be written, no
device), 3 refused, 4 the trace crashed or did not finish within ``--timeout``, 130 Ctrl+C.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
import tempfile
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from explorer.file_writes import WriteFailed, write_output
from explorer.gui import interrupt
from explorer.gui.animation_file import Steps, write_animation
from explorer.gui.slide_view import frames_of
from explorer.paths import shown

if TYPE_CHECKING:
    from explorer.engine.remote.hosts import Host
    from explorer.gui.main_window import MainWindow

WRITTEN, USAGE, REFUSED, FAILED = 0, 2, 3, 4
_START_ALLOWANCE_S = 10.0  # the kernel's build and the window's preparation, beside --timeout


def animate_to_file(args: argparse.Namespace) -> int:
    """Trace the selection in an offscreen window and write ``args.out``; the exit code."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from explorer.gui.main_window import MainWindow
    from explorer.gui.screenshot import dispose

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication([])
    scratch = tempfile.TemporaryDirectory()
    settings = QSettings(os.path.join(scratch.name, "s.ini"), QSettings.Format.IniFormat)
    host = _host(args)
    if host is not None:  # the window connects to the hosts its settings name
        from explorer.gui.settings import save_hosts

        save_hosts(settings, [host])
    window = MainWindow(settings=settings)
    width, height = args.window_size
    window.resize(width, height)
    window.show()
    try:
        with interrupt.interruptible():
            return _animate(app, window, args)
    except KeyboardInterrupt:
        print("interrupted: nothing was written", file=sys.stderr)
        return interrupt.INTERRUPTED
    finally:
        window.worker.cancel()
        dispose(app, window)
        scratch.cleanup()


def _animate(app: QApplication, window: MainWindow, args: argparse.Namespace) -> int:
    from explorer.engine.header.catalog import CatalogError
    from explorer.engine.launch.devices import NoDeviceError
    from explorer.gui.command_line import apply_selection
    from explorer.gui.screenshot import wait_until
    from explorer.selection import UsageError

    model, state, traces = window.model, window.state, window.controllers.traces
    if not wait_until(lambda: model.device is not None, 120):
        print("error: no OpenCL device", file=sys.stderr, flush=True)
        return USAGE
    try:
        _choose_device(window, args)
        apply_selection(model, args)
    except (UsageError, CatalogError, NoDeviceError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE
    group = None
    if args.group:
        gx, gy, gz = ([int(v) for v in args.group.split(",")] + [0, 0, 0])[:3]
        group = (gx, gy, gz)
    traces.trace(group)
    refusal = traces.panel.refusal
    if refusal is not None and state.traced is None and not window.worker.busy:
        print(f"REFUSED  {refusal.reason} {refusal.fix}".rstrip(), file=sys.stderr)
        return REFUSED
    limit = args.timeout + _START_ALLOWANCE_S
    if not wait_until(lambda: state.traced is not None, limit):
        print(
            f"error: the trace did not finish within --timeout {args.timeout:g} s; it was "
            "stopped. Trace smaller sizes or give a longer --timeout.",
            file=sys.stderr,
        )
        return FAILED
    traced = state.traced
    if traced is None or state.playback is None:
        if traced is None:
            return FAILED
        result = traced.result
        print(f"error: {result.summary()}", file=sys.stderr)
        return REFUSED if result.status == "refused" else FAILED
    view = window.views.execution_view
    window.views.show_page("execution")
    app.processEvents()
    size = getattr(args, "frame_size", None)
    return _write(view, args, size, bool(getattr(args, "force", False)))


def _host(args: argparse.Namespace) -> Host | None:
    """The host ``--host`` or ``--executor-command`` names, or None."""
    from explorer.engine.remote.hosts import Host

    target = getattr(args, "host", None) or ""
    command = getattr(args, "executor_command", None) or ""
    return Host.parse(target, command) if target or command else None


def _choose_device(window: MainWindow, args: argparse.Namespace) -> None:
    """The device ``--device`` names, among the host's devices with ``--host``; the host's
    default one when only the host is given. UsageError when the host's devices never
    came."""
    from explorer.engine.launch.devices import pick_device
    from explorer.gui.screenshot import wait_until
    from explorer.selection import UsageError

    host = _host(args)
    model = window.model
    if host is None:
        if args.device:
            model.set_device(pick_device(model.devices, args.device).key)
        return
    if not wait_until(lambda: any(d.host == host.label for d in model.devices), 120):
        raise UsageError(
            f"{host.label}'s devices did not come: {window.statusBar().currentMessage()}"
        )
    here = [d for d in model.devices if d.host == host.label]
    model.set_device(pick_device(here, args.device).key)


def _write(view: Steps, args: argparse.Namespace, size: tuple[int, int] | None, force: bool) -> int:
    """Draw and write the file frame by frame, as the window's export does: at the view's
    size in the window, or the view laid out as a slide of ``size``
    (:func:`~explorer.gui.slide_view.frames_of`), no frame kept once written
    (:func:`~explorer.gui.animation_file.write_animation`: 400 frames at 1920×1080 need not
    2.5 GB). Written as
    :func:`explorer.file_writes.write_output` writes (a file already there is replaced only
    with ``--force``, a link never written through); on any failure (a full disk, Ctrl+C,
    noted before each step is drawn) nothing is left under its name."""
    out = args.out
    written: list[tuple[int, int, int]] = []

    def write(path: str) -> None:
        with frames_of(view, size, interrupt.check) as steps:
            written.append(write_animation(steps, path, args.fps, args.max_frames))

    try:
        write_output(out, write, force=force)
    except (OSError, ValueError, ImportError, WriteFailed) as exc:
        reason = (
            getattr(exc, "cause", None)
            or getattr(exc, "strerror", None)
            or str(exc)
            or type(exc).__name__
        )
        if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
            reason = "the disk is full"
        print(f"error: cannot write {shown(out)}: {reason}; nothing was written", file=sys.stderr)
        return USAGE
    count, width, height = written[-1]
    print(f"wrote {count} frames ({width}x{height}) to {out}")
    return WRITTEN
