"""Running: run, run anyway, compare all variants, cancel; the results that come back."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QObject, Signal

from explorer.engine.record.trace_launch import TracedRun
from explorer.engine.records import RunRequest, RunResult
from explorer.gui.actions import Action, Actions, AppContext
from explorer.gui.controllers.roles import (
    ConfigCheck,
    Pages,
    ResultShower,
    StatusLine,
    TimingShower,
    Worker,
)
from explorer.gui.model import ConfigModel, declared_sizes
from explorer.gui.state import AppState
from explorer.gui.timing_view import ms_text


class RunsController(QObject):
    """Starts runs and comparisons on the worker and writes what comes back into the state;
    the views that show a result, the history or a comparison follow the state."""

    run_finished = Signal(int, object)  # generation, RunResult: after the views show it
    cancelled = Signal()  # the person stopped the work in flight

    def __init__(
        self,
        model: ConfigModel,
        state: AppState,
        worker: Worker,
        panel: ConfigCheck,
        result: ResultShower,
        timing: TimingShower,
        status: StatusLine,
        pages: Pages,
    ) -> None:
        super().__init__()
        self.model = model
        self.state = state
        self.worker = worker
        self.panel = panel
        self.result = result
        self.timing = timing
        self.status = status
        self.pages = pages
        self._compare_generation = -1
        self._typing: dict[int, bool] = {}  # the run asked from the source view, by generation
        worker.started.connect(self._started)
        worker.building.connect(self.status.work_building)
        worker.idle.connect(self._idle)
        worker.finished.connect(self._finished)
        worker.call_finished.connect(self._call_done)
        worker.compare_progress.connect(self._compare_step)
        worker.compare_finished.connect(self._compare_done)

    def set_validity(self, ok: bool) -> None:
        """The panel's verdict on the configuration: Run and Trace follow it, and Run anyway
        follows its refusal."""
        self.state.refusal = None if ok else self.panel.refusal
        self.state.runnable = ok

    # -- commands ------------------------------------------------------------------------
    def run(self) -> int | None:
        """Run the configuration; the generation of the run, or None when it is refused."""
        if not self.panel.validate():
            return None
        typing = self.pages.current_tab() == "source"  # a save in the source view re-runs
        self.pages.show_page("result")
        generation = self.worker.run(self.model.request())
        self._typing = {generation: typing} if typing else {}
        return generation

    def run_anyway(self) -> int | None:
        """Run a configuration that only the kernel's own constraints refuse (a seed kernel's
        bug shows at such sizes); None when something else refuses it."""
        if not self.overridable():
            return None
        self.pages.show_page("result")
        return self.worker.run(replace(self.model.request(), anyway=True))

    def overridable(self) -> bool:
        """Whether only the kernel's own constraints refuse the configuration, checked now."""
        self.panel.validate()
        refusal = self.panel.refusal
        return refusal is not None and refusal.overridable

    def compare_all(self) -> None:
        """Every variant of the family at this size, one bar each."""
        if self.model.device is None:
            return
        current = self.model.variant.path
        requests = [
            RunRequest(
                variant,
                # A kernel whose header names its own sizes runs the others at theirs.
                self.model.sizes
                if not variant.model.own_sizes or variant.path == current
                else declared_sizes(variant),
                device_key=self.model.device_key,
                input=self.model.input,
                text=self.model.text,
                image_path=self.model.image_path,
                keep_output=False,
            )
            for variant in self.model.variants()
        ]
        self.status.start_progress(len(requests))
        self.pages.show_page("timing")
        self.state.comparison = ()
        self._compare_generation = self.worker.compare(requests)

    def cancel(self) -> None:
        """Stop what is running (the executor abandons it); nothing of it is shown."""
        self.worker.cancel()
        self.state.working = False
        self.status.end_progress()
        seconds = self.status.work_ended()
        self.status.say(f"Cancelled after {seconds:.1f} s")
        self.result.set_badge("Cancelled")
        self.cancelled.emit()

    # -- what comes back -----------------------------------------------------------------
    def _started(self, what: str) -> None:
        self.state.working = True
        self.result.show_running(what)
        self.status.say(what[:1].upper() + what[1:] + " …")
        self.status.work_started(what)

    def _idle(self) -> None:
        self.state.working = False
        self.status.end_progress()
        self.status.work_ended()

    def _call_done(self, _generation: int, _outcome: object) -> None:
        """Other work done (an exercise graded): the badge that said it was running gives
        back the verdict of the result on screen."""
        self._give_back_badge("")

    def _give_back_badge(self, otherwise: str) -> None:
        """The badge that said work was running shows the verdict of the result on screen
        again; ``otherwise`` where nothing has run."""
        if self.state.result is not None:
            self.result.show_result(self.state.result)
        else:
            self.result.set_badge(otherwise)

    def _finished(self, generation: int, result: RunResult) -> None:
        state = self.state
        if generation <= state.stale_up_to:
            # Asked for before the configuration changed: its figures are kept, never shown.
            state.remember(result)
            self.status.say(f"Set aside the run of {result.variant}: the configuration changed")
            return
        keep = (
            result.error_kind == "build"
            and state.last_good is not None
            and state.last_good.variant == result.variant
        )
        state.result = result
        state.remember(result)
        if keep:
            # A build error while editing: the previous good result stays on screen.
            self.result.set_badge(f"⚠ Build failed: {result.error}. Showing the last good result.")
        else:
            self.result.show_result(result)
        if result.status in ("verified", "wrong"):
            state.last_good = result
        if not state.touring:
            self.timing.show_run(result)
        typing = self._typing.pop(generation, False)
        if result.error_kind == "build" and (typing or not keep):
            # The build log names the line. Saved from the explorer's own editor, the person
            # goes back to it; saved in another editor, the last good result stays in front.
            self.pages.show_page("source")
        device = self.model.device
        timing = f", kernel {ms_text(result.timing.median_ms)}" if result.timing else ""
        finished = ("verified", "wrong", "unchecked")  # ran to the end: nothing failed
        failed = "" if result.status in finished else _failure(result)
        where = device.shown_name if device else ""
        self.status.say(f"{where} · {result.variant}: {result.status}{timing}{failed}")
        self.run_finished.emit(generation, result)

    def _compare_step(self, generation: int, index: int, total: int, result: object) -> None:
        self.status.set_progress(index + 1)
        if isinstance(result, TracedRun) or not isinstance(result, RunResult):
            return  # a sweep by trace figures: no timing to keep
        self.state.remember(result)  # every run, a sweep's too
        if generation != self._compare_generation:
            return
        self.state.comparison = (*self.state.comparison, result)
        self.status.say(f"Comparing {index + 1}/{total}: {result.variant} {result.status}")

    def _compare_done(self, generation: int) -> None:
        # Whoever compared (Compare all, the sweep, a fix's cost), the badge no longer says
        # it is comparing.
        if generation != self._compare_generation:
            self._give_back_badge("")
            return
        comparison = self.state.comparison
        verified = sum(r.status == "verified" for r in comparison)
        said = f"Compared {len(comparison)} variants: {verified} verified"
        self._give_back_badge(said)
        self.status.say(said)


def _failure(result: RunResult) -> str:
    """What the status bar adds for a run that did not finish: that it failed, and why, on
    one line."""
    if result.status == "refused":
        return f" (refused: {result.refused})"[:200]
    why = str(result.error or "").splitlines()
    return f" (the run failed: {why[0] if why else result.status})"[:200]


def _has_device(app: AppContext) -> bool:
    return app.model.device is not None


ACTIONS = Actions(
    RunsController,
    Action(
        "run",
        "&Run",
        "&Run",
        RunsController.run,
        ("Ctrl+R",),
        "Run this configuration",
        order=10,
        enabled_when=lambda app: app.state.runnable,
    ),
    Action(
        "compare",
        "&Compare all variants",
        "&Run",
        RunsController.compare_all,
        ("Ctrl+Shift+R",),
        "Run every variant of the family at this size, side by side",
        order=20,
        toolbar=True,
        enabled_when=_has_device,
    ),
    Action(
        "run_anyway",
        "Run &anyway, outside the kernel's constraints",
        "&Run",
        RunsController.run_anyway,
        ("Ctrl+Alt+R",),
        "Run a configuration that only the kernel's own constraints refuse, to show its bug "
        "(the result is marked as outside them; the device's limits still hold)",
        order=40,
        enabled_when=lambda app: app.state.overridable,
    ),
    Action(
        "cancel",
        "Ca&ncel",
        "&Run",
        RunsController.cancel,
        ("Esc",),
        "Stop what is running (in presenter mode too: Esc leaves it once nothing runs)",
        section=1,
        toolbar=True,
        # Esc cancels first, then leaves presenter mode: one enabled action per key.
        enabled_when=lambda app: app.state.working,
    ),
)
