"""QApplication bootstrap: ``kernel-explorer``, ``python main.py``, and the screenshot command.

``python main.py --screenshot PATH [selection] [--run] [--trace]
[--view result|timing|source|findings|grid|all] [--phase N] [--group gx,gy] [--presenter]``
renders the window offscreen at 1600×1000 after the work completes, writes the PNG and exits:
0 when written, 1 when the run produced no result (refused, build error, crash, timeout),
2 for bad arguments, 3 when the chosen view is empty. ``--view grid`` traces first.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
from collections.abc import Sequence

VIEWS = ("result", "timing", "source", "findings", "grid", "all")


def _parser() -> argparse.ArgumentParser:
    from explorer.cli.options import add_selection

    parser = argparse.ArgumentParser(prog="kernel-explorer", description="OpenCL Kernel Explorer")
    parser.add_argument("--screenshot", metavar="PATH", help="render offscreen to PATH and exit")
    parser.add_argument("--run", action="store_true", help="run before the screenshot")
    parser.add_argument("--trace", action="store_true", help="trace before the screenshot")
    parser.add_argument("--view", choices=VIEWS, default="all", help="the view to show")
    parser.add_argument("--phase", type=int, help="with --view grid: the phase to show")
    parser.add_argument("--group", help="with --view grid: the work-group to show, gx,gy")
    parser.add_argument("--presenter", action="store_true", help="presenter mode")
    parser.add_argument(
        "--session",
        metavar="PATH",
        help="open a .kexp.json session: its configuration, device and view",
    )
    parser.add_argument(
        "--save-session",
        metavar="PATH",
        help="save the configuration and view as a session: after the screenshot's work, "
        "or when the window closes",
    )
    add_selection(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    multiprocessing.freeze_support()
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["install-desktop"]:  # a bundle has no `python -m explorer`
        from explorer.desktop import main as install_desktop

        return install_desktop(args_list[1:])
    args = _parser().parse_args(args_list)
    session, error = _load_session(args)
    if error and (args.screenshot or args.save_session):
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from explorer.paths import resources_dir

    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName("OpenCL Kernel Explorer")
    app.setOrganizationName("OpenCL Kernel Explorer")
    app.setDesktopFileName("kernel-explorer")
    icon = resources_dir() / "icon.svg"
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))
    if args.screenshot:
        return _screenshot(app, args, session)
    from PySide6.QtWidgets import QMessageBox

    from explorer.gui import session_io
    from explorer.gui.main_window import MainWindow

    window = MainWindow()
    window.show()
    if error:
        QMessageBox.warning(window, "Cannot open the session", error)
    elif session is not None:
        session_io.open_session(window, session)
    code = int(app.exec())
    if args.save_session and not session_io.save_session_file(window, args.save_session):
        code = code or 2
    _dispose(app, window)
    return code


def _load_session(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """The session of ``--session``, or the reason it cannot be used."""
    if not args.session:
        return None, None
    from explorer.cli.options import session_conflicts
    from explorer.session import SessionError, load_session

    conflicts = session_conflicts(args)
    if conflicts:
        return None, f"--session holds the configuration; drop {', '.join(conflicts)}"
    try:
        return load_session(args.session), None
    except SessionError as exc:
        return None, str(exc)


def _apply_selection(window, args: argparse.Namespace) -> None:  # type: ignore[no-untyped-def]
    from explorer.cli.options import parse_defines, parse_local, selected_variant, sizes_from_args

    model = window.model
    if args.kernel_file or args.variant:
        variant = selected_variant(args)
        if args.kernel_file:
            model.add_user_variant(variant)
        else:
            model.set_family(variant.family)
            model.set_variant(variant)
    elif args.family:
        model.set_family(args.family)
    for name, value in sizes_from_args(model.family, args).items():
        model.set_size(name, value)
    model.set_local(parse_local(args.local))
    for name, value in parse_defines(args.define).items():
        model.set_define(name, value)
    if args.input or args.text != "IOU" or args.image:
        model.set_input(
            args.input or ("image" if args.image else model.input), args.text, args.image
        )
    if args.device:
        window.requested_device = args.device


def _screenshot(app, args: argparse.Namespace, session=None) -> int:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QSettings

    from explorer.cli.options import UsageError
    from explorer.engine.catalog import CatalogError
    from explorer.engine.devices import NoDeviceError, pick_device
    from explorer.gui import session_io
    from explorer.gui.main_window import MainWindow

    scratch = tempfile.TemporaryDirectory()
    settings = QSettings(os.path.join(scratch.name, "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    window.requested_device = None
    try:
        if session is not None:
            session_io.apply_session(window, session)
            window.requested_device = args.device  # --device overrides the session's
            view = session.view  # the session's view, unless the command line names one
            if args.view == "all" and view.get("tab") in VIEWS:
                args.view = view["tab"]
            if args.phase is None and "phase" in view:
                args.phase = view["phase"]
            if args.group is None and "group" in view:
                args.group = ",".join(str(v) for v in view["group"])
        else:
            _apply_selection(window, args)
    except (UsageError, CatalogError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        window.close()
        return 2
    window.resize(1600, 1000)
    window.show()

    wait = wait_until

    wait(
        lambda: (
            window.model.device is not None
            or window.statusBar().currentMessage() == "No OpenCL device"
        ),
        120,
    )
    if session is not None and not args.device and window.model.devices:
        notice = session_io.session_device(window, session)
        if notice:
            print(f"note: {notice}", file=sys.stderr)
    if window.requested_device and window.model.devices:
        try:
            window.model.set_device(pick_device(window.model.devices, window.requested_device).key)
        except NoDeviceError as exc:
            print(f"error: {exc}", file=sys.stderr)
            window.close()
            return 2
    code = 0
    if args.run and window.model.device is not None:
        window.run_action.setEnabled(True)
        before = len(window.history)
        window.controller.run(window.model.request())
        wait(lambda: len(window.history) > before, args.timeout + 60)
        result = window.last_result
        if result is None or result.status not in ("verified", "wrong"):
            code = 1
    group = None
    if args.group:
        try:
            values = [int(v) for v in args.group.split(",")]
            group = tuple((values + [0, 0, 0])[:3])
        except ValueError:
            print(f"error: --group {args.group!r} is not like 3,4", file=sys.stderr)
            _dispose(app, window)
            return 2
    wants_trace = args.trace or args.view == "grid" or args.phase is not None or group
    if wants_trace and window.model.device is not None:
        window.trace(group)
        wait(lambda: window.last_trace is not None, args.timeout + 120)
        if window.last_trace is None or window.last_trace.analysis is None:
            code = 1
        elif group is not None and not window.execution_view.select_group(group):
            print(f"error: work-group {group} is not in the NDRange", file=sys.stderr)
            code = 2
    if args.phase is not None and window.playback is not None:
        step = window.playback.first_step_of(args.phase)
        if step is None:
            print(
                f"error: the selected group has no phase {args.phase} "
                f"(phases 0 to {window.playback.phases - 1})",
                file=sys.stderr,
            )
            code = 2
        else:
            window.execution_view.set_step(step)
    if args.presenter:
        window.set_presenter(True, full_screen=False)
    views = {
        "result": window.result_view,
        "timing": window.timing_view,
        "source": window.source_view,
        "findings": window.findings_view,
    }
    if args.view in views:
        window.tabs.setCurrentWidget(views[args.view])
    empty = {
        "result": window.last_result is None and window.last_trace is None,
        "timing": window.timing_view.bar_count == 0,
        "source": not window.source_view.editor.toPlainText(),
        "findings": window.last_trace is None,
        "grid": window.playback is None,
        "all": False,
    }[args.view]
    app.processEvents()
    ok = window.grab().save(args.screenshot, "PNG")
    if args.save_session and not session_io.save_session_file(window, args.save_session):
        code = 2
    _dispose(app, window)
    scratch.cleanup()
    if not ok:
        print(f"error: cannot write {args.screenshot}", file=sys.stderr)
        return 2
    if code == 0 and empty:
        print(f"error: the {args.view} view is empty (add --run or --trace)", file=sys.stderr)
        return 3
    return code


def wait_until(condition, seconds: float) -> bool:  # type: ignore[no-untyped-def]
    """Run the event loop until ``condition()`` holds or ``seconds`` pass."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    timer = QTimer()
    timer.timeout.connect(lambda: loop.quit() if condition() else None)
    timer.start(50)
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()
    timer.stop()
    return bool(condition())


def _dispose(app, window) -> None:  # type: ignore[no-untyped-def]
    """Close and delete the window while the QApplication is alive: letting the interpreter
    collect Qt objects at exit can crash PySide6."""
    import gc

    window.close()
    window.deleteLater()
    app.processEvents()
    app.sendPostedEvents(None, 0)
    del window
    gc.collect()


if __name__ == "__main__":
    sys.exit(main())
