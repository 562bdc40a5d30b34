"""Presenter mode and the guided tour: what a person giving a talk drives from the keyboard.

Keys while presenting, wherever the focus is (a combo box, the slider, a tab bar): Space (the
tour's next stage, or play/pause), → (the tour's next stage, or the next step), ← (the
previous step), Home and End (first and last step), F11 or F5 (toggle), Esc. An event filter
on the application takes the stepping keys before any widget can, so a click on a combo box
or the slider never steals them. Esc leaves presenter mode first, even while work runs, so a
presenter is never stuck full screen; outside presenter mode Esc cancels.

Every view follows the configuration: a change of variant clears the animation, the
highlighted line and a stale banner, so nothing on screen belongs to another kernel.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeyEvent
from PySide6.QtWidgets import QApplication, QWidget

from explorer.engine.header.catalog import find_variant
from explorer.engine.records import RunResult
from explorer.gui.controllers import Views
from explorer.gui.controllers.runs import RunCompareController
from explorer.gui.model import ConfigModel
from explorer.gui.state import AppState
from explorer.gui.worker import RunController

# (variant, trace it?, caption) for each stage of the tour.
TOUR = (
    (
        "naive",
        True,
        "1 · naive: every work-item walks its own row of A and column of B in global memory: "
        "each element is loaded once per use (64 loads per element at 64³).",
    ),
    (
        "tiled",
        True,
        "2 · tiled: the work-group copies a 16×16 tile of A and of B into local memory, "
        "waits at a barrier, and every work-item reads its row and column from the copy.",
    ),
    (
        "reg2d",
        False,
        "3 · register-blocked: each work-item computes several outputs from values held in "
        "registers: even fewer loads per multiply.",
    ),
)
PRESENTER_KEYS = ("leave_presenter", "space", "step_forward", "step_back")


class PresenterController(QObject):
    """Enters and leaves presenter mode and walks the tour's stages."""

    presenting_changed = Signal(bool)

    def __init__(
        self,
        model: ConfigModel,
        state: AppState,
        views: Views,
        actions: dict[str, QAction],
        worker: RunController,
        runs: RunCompareController,
        layout: Callable[[bool, bool], None],
    ) -> None:
        super().__init__(views.window)
        self.model = model
        self.state = state
        self.views = views
        self.actions = actions
        self.worker = worker
        self.runs = runs
        self._layout = layout  # the window's presenter layout: (on, full screen)
        self._generation = -1
        self._wants_trace = False
        runs.run_finished.connect(self._stage_finished)
        self._variant_key = self._key()
        model.variant_changed.connect(self._variant_changed)
        model.device_changed.connect(self._device_changed)
        # A device restored from the settings is chosen before the devices are known, and
        # stays chosen when they arrive (no device_changed): the notice follows both.
        model.devices_changed.connect(self._device_changed)
        self._keys = StageKeys(self)

    # -- presenter mode ------------------------------------------------------------------
    def set_presenter(self, on: bool, full_screen: bool = True) -> None:
        """Full screen, large type, high contrast: execution, result and timing together."""
        if on == self.state.presenting:
            return
        self.state.presenting = on
        if not on:
            self.state.tour_stage = -1
            self.views.execution_view.set_caption("")
        self._layout(on, full_screen)
        for key in PRESENTER_KEYS:
            self.actions[key].setEnabled(on)
        self.presenting_changed.emit(on)

    def toggle(self) -> None:
        self.set_presenter(not self.state.presenting)

    def leave(self) -> None:
        self.set_presenter(False)

    def space(self) -> None:
        """The tour's next stage while a tour runs, else play or pause the animation."""
        if self.state.touring:
            self.tour_next()
        else:
            self.views.execution_view.toggle_play()

    def step_forward(self) -> None:
        self.views.execution_view.step_forward()

    def step_back(self) -> None:
        self.views.execution_view.step_back()

    def forward(self) -> None:
        """→: the tour's next stage while a tour runs, else the animation's next step."""
        if self.state.touring:
            self.tour_next()
        else:
            self.step_forward()

    # -- following the configuration -----------------------------------------------------
    def _device_changed(self) -> None:
        """On a CPU device, the result says in one line why tiling gains little there."""
        device = self.model.device
        self.views.result_view.set_device_type(device.type if device is not None else None)

    def _key(self) -> tuple[str, str] | None:
        variant = self.model.variant
        return None if variant is None else (variant.qualified_id, str(variant.path))

    def _variant_changed(self) -> None:
        """A new variant: the old trace, its highlighted line and banners leave the screen.
        A new version of the same kernel file (it was saved) keeps them: it is traced again
        and shown at the same group and phase."""
        variant = self.model.variant
        key = self._key()
        if variant is None or key == self._variant_key:
            return
        self._variant_key = key
        self.state.playback = None
        self.state.comparison = []
        self.views.execution_view.clear(f"{variant.name}: trace it (Ctrl+T) to watch it run.")
        self.views.source_view.editor.mark_lines([])
        if not self.worker.busy:
            self.views.result_view.badge.setText(f"{variant.name}: press Run (Ctrl+R).")
            self.views.say("")

    # -- the guided tour -----------------------------------------------------------------
    def start_tour(self) -> None:
        """naive → tiled → register-blocked matmul on the IOU input, in presenter mode."""
        if self.model.device is None:
            return
        self.set_presenter(True)
        self.state.tour_stage = -1
        self.state.tour_results = []
        self.tour_next()

    def tour_next(self) -> None:
        """One stage further (Space); ignored while a stage still runs."""
        if self.worker.busy:
            return
        self.state.tour_stage += 1
        if self.state.tour_stage >= len(TOUR):
            self.views.result_view.badge.setText(
                "That was the ladder: each step keeps data closer to the arithmetic. "
                "Esc leaves presenter mode."
            )
            self.state.tour_stage = len(TOUR)
            return
        variant_id, trace, caption = TOUR[self.state.tour_stage]
        self.model.set_family("matmul")
        self.model.set_variant(find_variant("matmul", variant_id))
        self.model.set_input("iou")
        self.views.execution_view.set_caption(caption)
        self._wants_trace = trace
        self._generation = self.worker.run(self.model.request())

    def _stage_finished(self, generation: int, result: RunResult) -> None:
        if generation != self._generation or not 0 <= self.state.tour_stage < len(TOUR):
            return
        self.state.tour_results.append(result)
        self.views.timing_view.show_compare(self.state.tour_results)  # the bars grow
        if self._wants_trace:
            self.runs.trace()


class StageKeys(QObject):
    """The stepping keys, taken at the application before any widget sees them: while
    presenting anywhere in the window, otherwise only where the focus is in the execution
    view (outside it, arrows still move a cursor or a spin box). Esc, F11 and F5 stay the
    window's shortcuts: no widget of the window claims them.

    The filter is installed only while it can take a key (presenting, or the focus in the
    execution view): an application-wide filter in Python is called for every event of
    every widget, paints and timers included."""

    def __init__(self, presenter: PresenterController) -> None:
        super().__init__(presenter)
        self.presenter = presenter
        self.handlers = {
            Qt.Key.Key_Space: presenter.space,
            Qt.Key.Key_Right: presenter.forward,
            Qt.Key.Key_Left: presenter.step_back,
            Qt.Key.Key_Home: lambda: presenter.views.execution_view.first_step(),
            Qt.Key.Key_End: lambda: presenter.views.execution_view.last_step(),
        }
        self.installed = False
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self.sync)
        presenter.presenting_changed.connect(self.sync)

    def sync(self, *_: object) -> None:
        """Install the filter while it can take a key, remove it otherwise."""
        app = QApplication.instance()
        if app is None:
            return
        view = self.presenter.views.execution_view
        focus = QApplication.focusWidget()
        wanted = self.presenter.state.presenting or (
            focus is not None and (focus is view or view.isAncestorOf(focus))
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
        views = self.presenter.views
        if watched.window() is not views.window:
            return False
        if self.presenter.state.presenting:
            return True
        view = views.execution_view
        return (watched is view or view.isAncestorOf(watched)) and not (
            watched is view.code or view.code.isAncestorOf(watched)
        )
