"""Presenter mode and the guided tour: what a person giving a talk drives from the keyboard.

Keys while presenting, wherever the focus is (a combo box, the slider, a tab bar): Space (the
tour's next stage, or play/pause), → (the tour's next stage, or the next step), ← (the
previous step), Home and End (first and last step), Page Up/Down, [ ] (phase, line: the Step
menu's), F11 or F5 (toggle), Esc. Nothing plays until Space. The stepping
keys are taken at the application before any widget can (:mod:`explorer.gui.stage_keys`), so a
click on a combo box or the slider never steals them. Esc cancels the work in flight first and
leaves presenter mode once nothing runs, so a running job can be stopped without leaving.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer, SignalInstance

from explorer.engine.header.catalog import find_variant
from explorer.engine.record.trace_launch import TracedRun
from explorer.engine.records import RunResult
from explorer.gui.actions import Action, Actions, AppContext
from explorer.gui.controllers.roles import Animation, ResultShower, Tracer, Worker
from explorer.gui.controllers.tour_stages import (
    CLOSING,
    TOUR,
    Figures,
    caption,
    chosen_spot,
    group_at,
    loads_per_output,
)
from explorer.gui.model import ConfigModel
from explorer.gui.state import AppState


def stages_ahead(state: AppState) -> bool:
    """Whether the tour is at one of its stages (not before it, nor at its closing words)."""
    return 0 <= state.tour_stage < len(TOUR)


class PresenterController:
    """Enters and leaves presenter mode and walks the tour's stages.

    ``layout(on, full_screen)`` is the window's presenter layout; ``run_finished`` tells each
    run's (generation, result) once its views show it."""

    def __init__(
        self,
        model: ConfigModel,
        state: AppState,
        worker: Worker,
        execution: Animation,
        result: ResultShower,
        tracer: Tracer,
        run_finished: SignalInstance,
        layout: Callable[[bool, bool], None],
    ) -> None:
        self.model = model
        self.state = state
        self.worker = worker
        self.execution = execution
        self.result = result
        self.tracer = tracer
        self._layout = layout
        self._generation = -1
        self._spot = chosen_spot(None, None)
        self._figures: list[Figures] = []
        run_finished.connect(self._stage_finished)
        state.events.tour_stage.connect(self._show_caption)
        state.events.traced.connect(self._stage_traced)

    # -- presenter mode ------------------------------------------------------------------
    def set_presenter(self, on: bool, full_screen: bool = True, tour: bool = False) -> None:
        """Full screen, large type, high contrast: execution, result and timing together; a
        trace on screen that no timed run accompanies is timed (the tour runs its own)."""
        if on == self.state.presenting:
            return
        if not on:
            closing = self.state.tour_stage >= len(TOUR)
            self.state.tour_stage = -1
            if closing:  # the closing words belong to the tour: the run's verdict again
                if self.state.result is not None:
                    self.result.show_result(self.state.result)
                else:
                    self.result.set_badge("")
        self._layout(on, full_screen)
        self.state.presenting = on
        if on and not tour:
            self.tracer.time_trace_shown()

    def toggle(self) -> None:
        self.set_presenter(not self.state.presenting)

    def leave(self) -> None:
        self.set_presenter(False)

    def stages_ahead(self) -> bool:
        """Whether Space and → take the tour's next stage (after its last stage they play
        and step the animation again, as the key strip then says)."""
        return stages_ahead(self.state)

    def space(self) -> None:
        """The tour's next stage while a tour runs, else play or pause the animation."""
        if self.stages_ahead():
            self.tour_next()
        else:
            self.execution.toggle_play()

    def forward(self) -> None:
        """→: the tour's next stage while a tour runs, else the animation's next step."""
        if self.stages_ahead():
            self.tour_next()
        else:
            self.step_forward()

    def step_forward(self) -> None:
        self.execution.step_forward()

    def step_back(self) -> None:
        self.execution.step_back()

    def first_step(self) -> None:
        self.execution.first_step()

    def last_step(self) -> None:
        self.execution.last_step()

    # -- the guided tour -----------------------------------------------------------------
    def start_tour(self) -> None:
        """naive → tiled → register-blocked matmul on the IOU input, in presenter mode, each
        traced around the group the person picked (else the showcase group)."""
        if self.model.device is None:
            return
        playback, traced = self.state.playback, self.state.traced
        picked = playback.group if playback is not None else None
        self._spot = chosen_spot(picked, traced.result if traced is not None else None)
        self.set_presenter(True, tour=True)
        self.state.tour_stage = -1
        self.state.tour_results = ()
        self._figures = []
        self.tour_next()

    def tour_next(self) -> None:
        """One stage further (Space); ignored while a stage still runs."""
        if self.worker.busy:
            return
        stage = self.state.tour_stage + 1
        if stage >= len(TOUR):
            self.result.set_badge(CLOSING)
            self.state.tour_stage = len(TOUR)
            return
        self.model.set_family("matmul")
        self.model.set_variant(find_variant("matmul", TOUR[stage].variant))
        self.model.set_input("iou")
        # Nothing of the previous stage's trace stays under this stage's caption.
        self.execution.clear(f"Running {TOUR[stage].variant}; its trace follows …")
        self._figures.append(Figures())
        self.state.tour_stage = stage
        self._generation = self.worker.run(self.model.request())

    def _show_caption(self, stage: int) -> None:
        """The stage's caption above the animation, with what its run and trace measured;
        none outside a tour (the closing words keep the last stage's)."""
        if stage < 0:
            self.execution.set_caption("")
        elif stage < len(TOUR) and stage < len(self._figures):
            first = self.state.tour_results[0] if self.state.tour_results else None
            text = caption(stage, self.model.sizes, self._figures[stage], first)
            self.execution.set_caption(text)

    def _stage_finished(self, generation: int, result: RunResult) -> None:
        stage = self.state.tour_stage
        if generation != self._generation or not 0 <= stage < len(TOUR):
            return
        self.state.tour_results = (*self.state.tour_results, result)  # the bars grow
        self._figures[stage] = Figures(run=result)
        self._show_caption(stage)
        if result.status in ("verified", "wrong"):
            self.tracer.trace(group_at(self._spot, result))

    def _stage_traced(self, traced: TracedRun | None) -> None:
        """The stage's trace: its global loads per element of C join the caption."""
        stage = self.state.tour_stage
        if traced is None or traced.analysis is None or not 0 <= stage < len(self._figures):
            return
        if traced.result.variant != TOUR[stage].variant:
            return
        analysis = traced.analysis
        loads = loads_per_output(analysis.global_bytes_read, analysis.global_bytes_written)
        self._figures[stage] = Figures(self._figures[stage].run, loads)
        self._show_caption(stage)
        # Once the animation is on screen: open it past the first barrier, where the local
        # tiles hold what the group loaded (step 1 shows them empty).
        QTimer.singleShot(0, self._show_loaded_tiles)

    def _show_loaded_tiles(self) -> None:
        playback = self.state.playback
        if playback is None or not self.state.touring:
            return
        step = playback.first_step_of(1)
        if step is not None:
            self.execution.set_step(step)


def _steps(app: AppContext) -> bool:
    """Something to step: an animation, or the tour's stages."""
    return app.state.presenting or app.state.playback is not None


ACTIONS = Actions(
    PresenterController,
    Action(
        "presenter",
        "&Presenter mode",
        "&View",
        PresenterController.toggle,
        ("F11", "F5"),
        "Full screen, large type: the execution, the result and the timing bars",
    ),
    Action(
        "leave_presenter",
        "&Leave presenter mode",
        "&View",
        PresenterController.leave,
        ("Esc",),
        "Back to the window with its menus and tabs (Esc, once nothing runs: while work runs "
        "Esc cancels it)",
        enabled_when=lambda app: app.state.presenting and not app.state.working,
    ),
    Action(
        "tour",
        "Guided &tour",
        "&View",
        PresenterController.start_tour,
        ("Ctrl+G",),
        "naive → tiled → register-blocked matmul on the IOU input; Space advances",
    ),
    Action(
        "space",
        "Pl&ay / pause",
        "&Step",
        PresenterController.space,
        tip="Play or pause the animation; during the tour, its next stage",
        enabled_when=_steps,
        keys=("Space",),
    ),
    Action(
        "step_forward",
        "Step &forward",
        "&Step",
        PresenterController.forward,
        tip="The animation's next step; during the tour, its next stage",
        enabled_when=_steps,
        keys=("Right",),
    ),
    Action(
        "step_back",
        "Step &back",
        "&Step",
        PresenterController.step_back,
        tip="The animation's previous step",
        enabled_when=_steps,
        keys=("Left",),
    ),
)
