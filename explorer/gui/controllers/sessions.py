"""Sessions in the window: apply one, read the view back, save one (``explorer.session``
holds the file format and its validation)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from explorer.engine.header.catalog import CatalogError
from explorer.gui.controllers import Views
from explorer.gui.model import ConfigModel
from explorer.gui.state import AppState
from explorer.session import (
    Session,
    SessionError,
    kernel_outside,
    load_session,
    resolve_variant,
    save_session,
    session_from_request,
    session_to_request,
)

FILTER = "Sessions (*.kexp.json *.json)"
# Session view names: the --view names of the pages, "grid" for the Execution tab.
TAB_NAMES = ("result", "timing", "source", "findings", "grid")


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


def session_device(model: ConfigModel, session: Session) -> str | None:
    """Select the session's device among the model's; the notice when it is missing."""
    request, notice = session_to_request(session, model.devices)
    model.set_device(request.device_key)
    return notice


def tab_pages(views: Views) -> dict[str, QWidget]:
    """Each of :data:`TAB_NAMES` and its page."""
    pages = (
        views.result_view,
        views.timing_view,
        views.source_view,
        views.findings_view,
        views.execution_view,
    )
    return dict(zip(TAB_NAMES, pages, strict=True))


def session_view(state: AppState, views: Views) -> dict[str, Any]:
    """The tab shown and, after a trace, the work-group and phase shown."""
    view: dict[str, Any] = {}
    for name, page in tab_pages(views).items():
        if views.tabs.currentWidget() is page:
            view["tab"] = name
    playback = state.playback
    if playback is not None and playback.group is not None and playback.steps:
        view["group"] = list(playback.group)
        step = max(0, min(views.execution_view.current, len(playback.steps) - 1))
        view["phase"] = playback.steps[step].phase
    return view


class SessionController:
    """File ▸ Open session and Save session, and ``--session`` on the command line."""

    def __init__(self, model: ConfigModel, state: AppState, views: Views) -> None:
        self.model = model
        self.state = state
        self.views = views

    def save(self, path: str) -> bool:
        """Write the configuration, the device and the view; False (said why) when refused."""
        request = self.model.request()
        view = session_view(self.state, self.views)
        header = self.state.user_headers.get(str(Path(request.variant.path)))
        session = session_from_request(
            request, self.model.device, view, layout=self.model.chosen_layout, header=header
        )
        try:
            save_session(session, path)
        except SessionError as exc:
            print(f"error: {exc}", file=sys.stderr)
            self.views.say(f"Could not save {path}: {exc}")
            return False
        self.views.say(f"Saved {path}")
        return True

    def open(self, path: str) -> bool:
        """Read a session file and show it; a bad file is refused in a message box."""
        try:
            session = load_session(path)
        except (SessionError, CatalogError) as exc:
            QMessageBox.warning(self.views.window, "Cannot open the session", str(exc))
            return False
        outside = kernel_outside(session, path)
        if outside is not None and not self.confirm_outside(outside):
            self.views.say(f"Did not open {path}")
            return False
        self.show(session)
        self.views.say(f"Opened {path}")
        return True

    def confirm_outside(self, kernel: str) -> bool:
        """Ask before opening a session that runs a kernel file outside its own folder: a
        session from someone else could point at any file."""
        answer = QMessageBox.question(
            self.views.window,
            "Run a kernel from another folder?",
            f"This session runs the kernel file\n{kernel}\nwhich lies outside the session's "
            "folder. Open it only if you trust that file.",
            QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Open

    def show(self, session: Session) -> None:
        """Configuration and tab now; the device once the devices are known."""
        if session.header is not None and session.kernel_path is not None:
            self.state.user_headers[str(Path(session.kernel_path))] = session.header
        apply_session(self.model, session)
        page = tab_pages(self.views).get(str(session.view.get("tab", "")))
        if page is not None:
            self.views.show_page(page)

        def choose_device() -> None:
            notice = session_device(self.model, session)
            if notice:  # kept in the status bar beside the device the window announces
                old = self.state.notice
                self.state.notice = f"{old}  ·  {notice}" if old else notice
                self.views.say(self.state.notice)

        if self.model.devices:
            choose_device()
        else:
            self.model.devices_changed.connect(choose_device)

    def save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self.views.window, "Save session", "session.kexp.json", FILTER
        )
        if path:
            self.save(path)

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.views.window, "Open session", "", FILTER)
        if path:
            self.open(path)
