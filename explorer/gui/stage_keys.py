"""The stepping keys of presenter mode, taken at the application before any widget sees them.

While presenting, Space, →, ←, Home and End step the animation wherever the focus is in the
window; outside presenter mode only where the focus is in the execution view (outside it,
arrows still move a cursor or a spin box). Esc, F11 and F5 stay the window's shortcuts: no
widget of the window claims them.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QWidget

from explorer.gui.state import AppState


class StageKeys(QObject):
    """An application event filter for ``handlers`` (key → what it does), installed only while
    it can take a key (presenting, or the focus in ``view``): an application-wide filter in
    Python is called for every event of every widget, paints and timers included. Keys in
    ``code`` (the view's source pane) are left to it."""

    def __init__(
        self,
        window: QWidget,
        view: QWidget,
        code: QWidget,
        state: AppState,
        handlers: dict[Qt.Key, Callable[[], object]],
    ) -> None:
        super().__init__(window)
        self.top = window
        self.view = view
        self.code = code
        self.state = state
        self.handlers = handlers
        self.installed = False
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self.sync)
        state.events.presenting.connect(self.sync)

    def sync(self, *_: object) -> None:
        """Install the filter while it can take a key, remove it otherwise."""
        app = QApplication.instance()
        if app is None:
            return
        focus = QApplication.focusWidget()
        wanted = self.state.presenting or (
            focus is not None and (focus is self.view or self.view.isAncestorOf(focus))
        )
        if wanted and not self.installed:
            app.installEventFilter(self)
        elif self.installed and not wanted:
            app.removeEventFilter(self)
        self.installed = wanted

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride):
            return False
        assert isinstance(event, QKeyEvent)
        handler = self.handlers.get(Qt.Key(event.key()))
        if handler is None or not self._ours(watched, event):
            return False
        if kind == QEvent.Type.ShortcutOverride:
            event.accept()  # no shortcut fires: the key press comes here next
            return True
        handler()
        return True

    def _ours(self, watched: QObject, event: QKeyEvent) -> bool:
        if not isinstance(watched, QWidget) or QApplication.activeModalWidget() is not None:
            return False
        if event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        if watched.window() is not self.top:
            return False
        if self.state.presenting:
            return True
        view, code = self.view, self.code
        return (watched is view or view.isAncestorOf(watched)) and not (
            watched is code or code.isAncestorOf(watched)
        )
