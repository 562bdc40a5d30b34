"""Sessions in the window: apply one, read the view back, save one (``explorer.session``
holds the file format and its validation); the lessons, shipped sessions that trace; and what
the window opens on."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from explorer.capture.folder import CAPTURE_FILE, JOURNAL
from explorer.engine.header.catalog import CatalogError, find_variant
from explorer.engine.records import Variant
from explorer.gui.actions import Action, Actions
from explorer.gui.background import off_gui_thread
from explorer.gui.controllers.roles import Animation, Page, Pages, ResultShower, StatusLine, Tracer
from explorer.gui.model import ConfigModel
from explorer.gui.state import AppState
from explorer.paths import shown
from explorer.session import (
    Session,
    SessionError,
    check_files,
    files_outside,
    load_session,
    resolve_variant,
    save_session,
    session_from_request,
    session_to_request,
)

FILTER = "Sessions (*.kexp.json *.json)"
# Session view names (VIEW_TABS): the --view names of the pages, "grid" for the Execution tab.
TAB_PAGES: dict[str, Page] = {
    "result": "result",
    "timing": "timing",
    "source": "source",
    "findings": "findings",
    "grid": "execution",
}
TAB_NAMES = tuple(TAB_PAGES)
START_SIZE = 768  # the IOU demo's M = N = K


def apply_session(model: ConfigModel, session: Session) -> None:
    """Set the configuration from a session (its device comes with the devices)."""
    variant = resolve_variant(session)
    if session.kernel_path:
        model.add_user_variant(variant)
    else:
        model.set_family(variant.family)
        model.set_variant(variant)
    for name, value in session.sizes.items():
        model.set_size(name, value)
    model.set_local(session.local)
    for name, value in session.defines.items():
        model.set_define(name, value)
    model.set_layout(session.layout)
    if session.input:
        model.set_input(session.input, session.text, session.image_path)


def _group(named: list[int]) -> tuple[int, int, int]:
    """A saved work-group index ([x], [x, y] or [x, y, z]) as (x, y, z)."""
    x, y, z = (list(named) + [0, 0])[:3]
    return int(x), int(y), int(z)


def lesson_title(path: Path) -> str:
    """A lesson's menu title: its number, then the title its session gives (its file name's
    words where it gives none)."""
    stem = path.name.removesuffix(".kexp.json")
    number, _, words = stem.partition("-")
    try:
        title = load_session(path).title
    except (SessionError, CatalogError):
        title = None
    return f"{number} · {title or words.replace('-', ' ').capitalize()}"


def session_device(model: ConfigModel, session: Session) -> str | None:
    """Select the session's device among the model's; the notice when it is missing."""
    request, notice = session_to_request(session, model.devices)
    model.set_device(request.device_key)
    return notice


def session_view(state: AppState, pages: Pages, execution: Animation) -> dict[str, Any]:
    """The tab shown and, after a trace, the work-group and phase shown."""
    view: dict[str, Any] = {}
    shown = pages.current_tab()
    for name, page in TAB_PAGES.items():
        if page == shown:
            view["tab"] = name
    playback = state.playback
    if playback is not None and playback.group is not None and playback.steps:
        view["group"] = list(playback.group)
        step = max(0, min(execution.current, len(playback.steps) - 1))
        view["phase"] = playback.steps[step].phase
    return view


def _captured(kernel_path: str) -> bool:
    """Whether ``kernel_path`` is a program of a capture folder (``programs/N.cl``)."""
    if not kernel_path:
        return False
    folder = Path(kernel_path).parent
    return folder.name == "programs" and any(
        (folder.parent / name).is_file() for name in (CAPTURE_FILE, JOURNAL)
    )


class SessionController:
    """File ▸ Open session and Save session, ``--session`` on the command line, the lessons
    and the window's first page. Dialogs open over ``parent``."""

    def __init__(
        self,
        model: ConfigModel,
        state: AppState,
        tracer: Tracer,
        execution: Animation,
        result: ResultShower,
        status: StatusLine,
        pages: Pages,
        parent: QWidget | None = None,
    ) -> None:
        self.model = model
        self.state = state
        self.tracer = tracer
        self.execution = execution
        self.result = result
        self.status = status
        self.pages = pages
        self.parent_widget = parent
        # Told of a kernel file of the person's that a session opened (to watch it: a save
        # in another editor re-runs it, as for a file opened from the menu).
        self.opened_file: Callable[[Variant], None] | None = None

    def save(self, path: str, force: bool | None = None) -> bool:
        """Write the configuration, the device and the view; False (said why) when refused.
        ``force`` None: a path the Save dialog confirmed; True or False: the command line's
        ``--save-session``, which replaces a file only with ``--force``."""
        request = self.model.request()
        view = session_view(self.state, self.pages, self.execution)
        header = self.state.user_headers.get(str(Path(request.variant.path)))
        session = session_from_request(
            request, self.model.device, view, layout=self.model.chosen_layout, header=header
        )
        try:
            if header is None and _captured(request.variant.path):
                raise SessionError(
                    path,
                    None,
                    "a capture's launch is not saved in a session (its program has no header "
                    "to open it by): Save as kernel… beside the capture's launches writes it "
                    "as a kernel file, which a session can name",
                )
            save_session(session, path, force=force)
        except SessionError as exc:
            print(f"error: {exc}", file=sys.stderr)
            self.status.say(f"Could not save {path}: {exc}")
            return False
        self.status.say(f"Saved {path}")
        return True

    def open(self, path: str) -> bool:
        """Read a session file and show it; a bad file is refused in a message box."""
        try:  # off the GUI thread: its kernel may be a long .sim file
            session = off_gui_thread(lambda: load_session(path))
        except (SessionError, CatalogError) as exc:
            QMessageBox.warning(self.parent_widget, "Cannot open the session", str(exc))
            return False
        except Exception as exc:
            message = f"{shown(path)}: cannot be opened ({type(exc).__name__})"
            QMessageBox.warning(self.parent_widget, "Cannot open the session", message)
            return False
        outside = files_outside(session, path)
        if outside and not self.confirm_outside("\n".join(outside)):
            self.status.say(f"Did not open {path}")
            return False
        if outside:  # only now are the files outside its folder read and checked
            try:
                off_gui_thread(lambda: check_files(session, shown(path)))
            except (SessionError, CatalogError) as exc:
                QMessageBox.warning(self.parent_widget, "Cannot open the session", str(exc))
                return False
        # Asked once, before any of it applies: staying with unsaved edits opens nothing.
        if not self.model.may_leave_kernel():
            self.status.say(f"Did not open {path}: the kernel's unsaved edits stay")
            return False
        self.show(session)
        self.status.say(f"Opened {path}")
        return True

    def confirm_outside(self, files: str) -> bool:
        """Ask before opening a session that uses files outside its own folder (a kernel, a
        reference kernel, arrays, an image): a session from someone else could point at any
        file."""
        answer = QMessageBox.question(
            self.parent_widget,
            "Use files from another folder?",
            f"This session compiles, runs or reads these files outside its folder:\n\n{files}\n\n"
            "Open it only if you trust them.",
            QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Open

    def show(self, session: Session, always_trace: bool = False) -> None:
        """Configuration and tab now; the device once the devices are known; then the trace
        it was saved with, at its group and phase (a lesson's ``always_trace``)."""
        if session.header is not None and session.kernel_path is not None:
            self.state.user_headers[str(Path(session.kernel_path))] = session.header
        apply_session(self.model, session)
        if session.kernel_path and self.opened_file is not None:
            self.opened_file(self.model.variant)
        page = TAB_PAGES.get(str(session.view.get("tab", "")))
        if page is not None:
            self.pages.show_page(page)

        def choose_device() -> None:
            notice = session_device(self.model, session)
            if notice:  # kept in the status bar (its view shows the notice as it changes)
                old = self.state.notice
                self.state.notice = f"{old}  ·  {notice}" if old else notice

        if self.model.devices:
            choose_device()
        else:
            self.model.devices_changed.connect(choose_device)
        self._trace_as_saved(session, always_trace)

    def _trace_as_saved(self, session: Session, always: bool = False) -> None:
        """A session saved with its animation (a work-group, a phase, the Execution tab) is
        traced again once a device is ready, and shown at that group and phase; ``always``:
        a lesson, traced whatever it names."""
        view = session.view
        named = view.get("group")
        group = _group(named) if named else None
        phase = view.get("phase")
        if not (always or group is not None or phase is not None or view.get("tab") == "grid"):
            return
        shown = group is not None or phase is not None
        self.state.keep_view = (group, int(phase or 0)) if shown else None

        def trace() -> None:
            if self.model.device is None:
                QTimer.singleShot(250, trace)
            elif session.anyway:
                self.tracer.trace_anyway(group)
            else:
                self.tracer.trace(group)

        trace()

    def save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self.parent_widget, "Save session", "session.kexp.json", FILTER
        )
        if path:
            self.save(path)

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.parent_widget, "Open session", "", FILTER)
        if path:
            self.open(path)

    # -- lessons and the first start -----------------------------------------------------
    def open_lesson(self, path: str) -> None:
        """Open a lesson's session, then trace it once a device is ready (around the group
        its view names)."""
        try:  # a lesson ships with the app: the files it names are checked at once
            session = load_session(path)
            check_files(session, path)
        except (SessionError, CatalogError) as exc:
            QMessageBox.warning(self.parent_widget, "Cannot open the lesson", str(exc))
            return
        if not self.model.may_leave_kernel():
            self.status.say("Did not open the lesson: the kernel's unsaved edits stay")
            return
        self.show(session, always_trace=True)

    def open_start(self, restored: bool) -> None:
        """The window started with no arguments opens on something alive: the last session's
        configuration (``restored`` from the settings) or, on a first start, the IOU demo
        (the tiled matmul at 768³ on the IOU input), ready to run with the hint on the
        result (how to run it, or while Run is disabled, why). It is not run by itself: on a
        CPU device its eleven launches take seconds, and a lecturer starts it when the room is
        watching."""
        if restored:
            what = "The last session is open"
        else:
            self.model.set_family("matmul")
            self.model.set_variant(find_variant("matmul", "tiled"))
            for name in ("M", "N", "K"):
                self.model.set_size(name, START_SIZE)
            self.model.set_local(None)
            self.model.set_input("iou", "IOU")
            what = f"The IOU demo is ready: tiled matmul, {START_SIZE}³, the IOU input"
        self.pages.show_page("result")
        self.state.hint = what  # the result adds how to run it, or why Run is disabled


ACTIONS = Actions(
    SessionController,
    Action(
        "open_session",
        "Open s&ession…",
        "&File",
        SessionController.open_dialog,
        ("Ctrl+Alt+O",),
        "Open a .kexp.json session: its configuration, device and view",
        section=1,
    ),
    Action(
        "save_session",
        "&Save session…",
        "&File",
        SessionController.save_dialog,
        ("Ctrl+S",),
        "Save the configuration and the view as a .kexp.json session",
        section=1,
    ),
)
