"""QApplication bootstrap and ``main()``: ``kernel-explorer``, ``python main.py``.

The command line picks one of three things: ``--screenshot`` renders offscreen and exits
(:mod:`explorer.gui.screenshot`); ``--save-session`` alone writes a session and exits with no
window (:mod:`explorer.gui.command_line`); otherwise the window opens.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from explorer.gui.main_window import MainWindow
    from explorer.session import Session

VIEWS = ("result", "timing", "source", "findings", "grid", "all")


def build_parser() -> argparse.ArgumentParser:
    from explorer.selection import add_selection

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
        "--force",
        action="store_true",
        help="let --screenshot and --save-session replace a file already there (a symbolic "
        "link there is replaced itself, never written through)",
    )
    parser.add_argument(
        "--save-session",
        metavar="PATH",
        help="save the configuration as a session and exit, with no window "
        "(with --screenshot: after its work, with its view)",
    )
    add_selection(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    multiprocessing.freeze_support()
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["install-desktop"]:  # a bundle has no `python -m explorer`
        from explorer.desktop import main as install_desktop

        return install_desktop(args_list[1:])
    args = build_parser().parse_args(args_list)
    refused = _outputs_refused(args)
    if refused:
        print(f"error: {refused}", file=sys.stderr)
        return 2
    session, error = _load_session(args)
    if error and (args.screenshot or args.save_session):
        print(f"error: {error}", file=sys.stderr)
        return 2
    if session is not None and (args.screenshot or args.save_session):
        error = _outside_refused(session, args)
        if error:
            print(f"error: {error}", file=sys.stderr)
            return 2
    if args.save_session and not args.screenshot:
        from explorer.gui.command_line import save_session_without_window

        return save_session_without_window(args, session)
    if args.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    else:
        problem = display_problem()
        if problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from explorer.paths import resources_dir

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication([sys.argv[0]])
    app.setApplicationName("OpenCL Kernel Explorer")
    app.setOrganizationName("OpenCL Kernel Explorer")
    app.setDesktopFileName("kernel-explorer")
    icon = resources_dir() / "icon.svg"
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))
    from explorer.gui import interrupt

    if args.screenshot:
        from explorer.gui.screenshot import take_screenshot

        try:
            with interrupt.interruptible():
                return take_screenshot(app, args, session)
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return interrupt.INTERRUPTED
    from PySide6.QtWidgets import QMessageBox

    from explorer.gui.background import stop_all
    from explorer.gui.main_window import MainWindow
    from explorer.gui.screenshot import dispose

    window = MainWindow()
    window.show_fitted()
    if error:
        QMessageBox.warning(window, "Cannot open the session", error)
    elif session is not None:
        # Through the same path as File ▸ Open session: a kernel from another folder is asked
        # about first.
        window.controllers.sessions.open(args.session)
    elif not args_list:
        window.open_start()  # the last session, or the IOU demo, ready to run
    else:
        _open_with_options(window, args)
    with interrupt.interruptible():  # Ctrl+C in the terminal closes the window: exit 130
        code = int(app.exec())
    dispose(app, window)
    stop_all()  # the work of any other window, or of none, ends with the application
    return code


# The X11 libraries Qt's xcb platform plugin loads (Debian/Ubuntu package names).
XCB_LIBRARIES = {
    "xcb-cursor": "libxcb-cursor0",
    "xcb-icccm": "libxcb-icccm4",
    "xcb-keysyms": "libxcb-keysyms1",
    "xcb-image": "libxcb-image0",
    "xcb-render-util": "libxcb-render-util0",
    "xcb-shape": "libxcb-shape0",
    "xcb-randr": "libxcb-randr0",
    "xcb-xkb": "libxcb-xkb1",
    "xkbcommon-x11": "libxkbcommon-x11-0",
}


def _started_as() -> str:
    """The command that started this window, as a person would type it again: ``python
    main.py`` in a checkout, else the installed ``kernel-explorer``."""
    return "python main.py" if os.path.basename(sys.argv[0]) == "main.py" else "kernel-explorer"


def display_problem() -> str | None:
    """Why a window cannot open on this Linux machine, or None: Qt would abort the process
    (exit 134) with a message about platform plugins that names no package."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return None
    if os.environ.get("WAYLAND_DISPLAY"):
        return None
    if not os.environ.get("DISPLAY"):
        return (
            "no display to open a window on (DISPLAY is not set). Run it on a desktop, "
            f"or render offscreen: {_started_as()} --screenshot out.png --run"
        )
    import ctypes.util

    missing = [pkg for lib, pkg in XCB_LIBRARIES.items() if ctypes.util.find_library(lib) is None]
    if missing:
        return "the window needs these system libraries: apt-get install " + " ".join(missing)
    return None


def _open_with_options(window: MainWindow, args: argparse.Namespace) -> None:
    """The window honours the command line as ``--screenshot`` does: the selection, then
    presenter mode, then a run or trace once a device is ready."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QMessageBox

    from explorer.engine.header.catalog import CatalogError
    from explorer.gui.command_line import apply_selection
    from explorer.selection import UsageError

    try:
        try:
            apply_selection(window.model, args)
        except CatalogError as exc:
            if not args.kernel_file or "no catalog header" not in str(exc):
                raise
            # A file without a header opens as File ▸ Open kernel opens it: the mapping
            # dialog, proposing the answers given for the file before.
            if not window.controllers.kernels.open_kernel(args.kernel_file):
                return
            rest = {"kernel_file": None, "family": None, "variant": None}
            apply_selection(window.model, argparse.Namespace(**{**vars(args), **rest}))
    except (UsageError, CatalogError, ValueError) as exc:
        QMessageBox.warning(window, "Cannot use the options", str(exc))
        return
    if args.kernel_file and window.model.variant.path == args.kernel_file:
        window.controllers.kernels.watch(window.model.variant)  # saving it re-runs it
    if args.presenter:
        window.controllers.presenter.set_presenter(True)
    group: tuple[int, int, int] | None = None
    if args.group:
        try:
            values = [int(v) for v in args.group.split(",")]
        except ValueError:
            QMessageBox.warning(window, "Cannot use the options", f"--group {args.group!r}")
            return
        gx, gy, gz = (values + [0, 0, 0])[:3]
        group = (gx, gy, gz)
    if not (args.run or args.trace or args.view == "grid" or group):
        return

    def start() -> None:
        if window.model.device is None:
            QTimer.singleShot(250, start)
        elif args.trace or args.view == "grid" or group:
            window.controllers.traces.trace(group)
        else:
            window.controllers.runs.run()

    QTimer.singleShot(0, start)


def _outputs_refused(args: argparse.Namespace) -> str | None:
    """Why ``--screenshot`` or ``--save-session`` cannot be written, before any work: a file
    already there without ``--force``, a folder, a device, a folder that is missing."""
    from explorer.file_writes import output_problem
    from explorer.paths import shown

    for option, path in (("--screenshot", args.screenshot), ("--save-session", args.save_session)):
        problem = output_problem(path, args.force) if path else None
        if problem:
            return f"{option} {shown(path)}: {problem}"
    return None


def _outside_refused(session: Session, args: argparse.Namespace) -> str | None:
    """Name the files the session uses outside its own folder, before any is read; why it
    cannot be used (no ``--allow-outside``, or a file that fails its checks), or None."""
    from explorer.session import SessionError, check_files, files_outside

    outside = files_outside(session, args.session)
    for line in outside:
        print(f"note: the session uses a file outside its folder: {line}", file=sys.stderr)
    if outside and not args.allow_outside:
        return (
            "the session uses files outside its folder (named above); add --allow-outside "
            "to use them"
        )
    try:
        check_files(session, args.session)
    except SessionError as exc:
        return str(exc)
    return None


def _load_session(args: argparse.Namespace) -> tuple[Session | None, str | None]:
    """The session of ``--session``, or the reason it cannot be used."""
    if not args.session:
        return None, None
    from explorer.selection import session_conflicts
    from explorer.session import SessionError, load_session

    conflicts = session_conflicts(args)
    if conflicts:
        return None, f"--session holds the configuration; drop {', '.join(conflicts)}"
    try:
        return load_session(args.session), None
    except SessionError as exc:
        return None, str(exc)


if __name__ == "__main__":
    sys.exit(main())
