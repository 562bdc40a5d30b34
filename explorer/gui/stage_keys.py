"""The stepping keys, taken at the application before any widget sees them.

Space, ← →, Home/End, Page Up/Down and [ ] (each an action's ``keys``: see
:mod:`explorer.gui.actions`) drive the animation whenever the execution view is visible and
no text field has the focus: a combo box, a button, the slider, the source pane or the canvas
may hold it. In a text field (the local size, a spin box, the kernel's editor) the keys edit
the text. While presenting they work wherever the focus is, but in a text field on screen (the
editor of an exercise solved live). They are never window shortcuts, so a key never
steps an animation that is not on screen. Esc, F11 and F5 stay the window's shortcuts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from explorer.gui.actions import Action
from explorer.gui.state import AppState

# Modifiers a key press carries that do not make it another key: the keypad's, and the level
# shift some layouts need to type [ and ].
_IGNORED = Qt.KeyboardModifier.KeypadModifier | Qt.KeyboardModifier.GroupSwitchModifier


def key_code(text: str) -> int:
    """A key as the filter compares it: key and modifiers in one integer."""
    return QKeySequence(text)[0].toCombined()  # type: ignore[index]  # stubs lack []


def is_text_field(widget: QWidget | None) -> bool:
    """Whether the keys typed into ``widget`` edit text: a line edit, a spin box, an editable
    combo box or text editor (a read-only source pane is not one)."""
    if isinstance(widget, QLineEdit):
        return not widget.isReadOnly()
    if isinstance(widget, QAbstractSpinBox):
        return True
    if isinstance(widget, (QPlainTextEdit, QTextEdit)):
        return not widget.isReadOnly()
    return isinstance(widget, QComboBox) and widget.isEditable()


class StageKeys(QObject):
    """An application event filter for ``bindings`` (key code → what it does), installed only
    while it can take a key (presenting, or the execution view ``view`` visible): an
    application-wide filter in Python is called for every event of every widget."""

    def __init__(
        self,
        window: QWidget,
        view: QWidget,
        state: AppState,
        bindings: Mapping[int, Callable[[], object]],
    ) -> None:
        super().__init__(window)
        self.top = window
        self.view = view
        self.state = state
        self.bindings = bindings
        self.installed = False
        state.events.presenting.connect(self.sync)

    def sync(self, *_: object) -> None:
        """Install the filter while it can take a key, remove it otherwise."""
        app = QApplication.instance()
        if app is None:
            return
        wanted = self.state.presenting or self.view.isVisible()
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
        modifiers = event.modifiers() & ~_IGNORED
        handler = self.bindings.get(event.key() | modifiers.value)
        if handler is None or not self._ours(watched):
            return False
        if kind == QEvent.Type.ShortcutOverride:
            event.accept()  # no shortcut fires: the key press comes here next
            return True
        handler()
        return True

    def _ours(self, watched: QObject) -> bool:
        if not isinstance(watched, QWidget) or QApplication.activeModalWidget() is not None:
            return False
        if watched.window() is not self.top:
            return False
        focus = QApplication.focusWidget() or watched
        if self.state.presenting:  # the kernel's editor on screen takes what is typed
            return not (is_text_field(focus) and focus.isVisible())
        return self.view.isVisible() and not is_text_field(focus)


# The presenter's key strip: (actions whose first keys are shown together, what they do), as
# the keys act in each mode: during the tour's stages Space and → take the next stage; while
# work runs Esc cancels it (and leaves presenter mode only once nothing runs).
STRIP = (
    (("space",), "play / pause"),
    (("step_back", "step_forward"), "step"),
    (("previous_phase", "next_phase"), "phase"),
    (("previous_line", "next_line"), "line"),
    (("next_finding",), "finding"),
    (("leave_presenter",), "leave"),
)
TOUR_STRIP = (
    (("space", "step_forward"), "next stage"),
    (("step_back",), "step back"),
    *STRIP[2:],
)
CANCEL = (("cancel",), "cancel")
_ARROWS = {"Left": "←", "Right": "→", "Up": "↑", "Down": "↓"}


def key_strip(commands: Iterable[Action[Any]], touring: bool = False, working: bool = False) -> str:
    """One line naming the stepping keys as they act now, from the actions themselves (so
    it cannot drift): "Space play / pause · ← → step · PgUp PgDown phase · …"; during the
    tour's stages "Space → next stage · ← step back · …"; "Esc cancel" while work runs."""
    by_key = {c.key: c for c in commands}
    native = QKeySequence.SequenceFormat.NativeText
    strip = list(TOUR_STRIP if touring else STRIP)
    if working:
        strip[-1] = CANCEL
    parts = []
    for keys, what in strip:
        found = [by_key[k] for k in keys if k in by_key]
        names = [
            QKeySequence((c.keys or c.shortcuts)[0]).toString(native)
            for c in found
            if c.keys or c.shortcuts
        ]
        if names:
            parts.append(" ".join(_ARROWS.get(n, n) for n in names) + f" {what}")
    return "   ·   ".join(parts)
