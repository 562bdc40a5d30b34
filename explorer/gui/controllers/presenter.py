"""Presenter mode and the guided tour: what a person giving a talk drives from the keyboard.

Keys while presenting, wherever the focus is: Space (the tour's next stage, or play/pause),
← and → (step), F11 or F5 (toggle), Esc. Esc leaves presenter mode first, even while work
runs, so a presenter is never stuck full screen; outside presenter mode Esc cancels.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction

from explorer.engine.catalog import find_variant
from explorer.engine.records import RunResult
from explorer.gui.controllers import Views
from explorer.gui.controllers.runs import RunCompareController
from explorer.gui.model import ConfigModel
from explorer.gui.state import AppState
from explorer.gui.worker import RunController

# (variant, trace it?) for each stage of the tour.
TOUR = (("naive", False), ("tiled", True), ("reg2d", False))
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

    # -- presenter mode ------------------------------------------------------------------
    def set_presenter(self, on: bool, full_screen: bool = True) -> None:
        """Full screen, large type, high contrast: execution, result and timing together."""
        if on == self.state.presenting:
            return
        self.state.presenting = on
        if not on:
            self.state.tour_stage = -1
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
        variant_id, trace = TOUR[self.state.tour_stage]
        self.model.set_family("matmul")
        self.model.set_variant(find_variant("matmul", variant_id))
        self.model.set_input("iou")
        self._wants_trace = trace
        self._generation = self.worker.run(self.model.request())

    def _stage_finished(self, generation: int, result: RunResult) -> None:
        if generation != self._generation or not 0 <= self.state.tour_stage < len(TOUR):
            return
        self.state.tour_results.append(result)
        self.views.timing_view.show_compare(self.state.tour_results)  # the bars grow
        if self._wants_trace:
            self.runs.trace()
