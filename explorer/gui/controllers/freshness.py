"""Nothing on screen belongs to another configuration.

When the kernel, its device, sizes, input, layout, local size or defines change (a lesson or
a session opened, a variant picked, a field edited), every view that showed the old
configuration's run, timing, trace, findings or Oclgrind report is cleared, and work still in
flight for it is stopped (another kernel, device, size or input) or shown nowhere when it
returns (another local size or define: a sweep's runs go on). A saved new version of the same
kernel file is the same kernel: it is re-run and re-traced in place
(:mod:`~explorer.gui.controllers.kernel_files`).

While nothing has run in the configuration, the result says what is ready and how to run it,
or why Run is disabled.
"""

from __future__ import annotations

from explorer.gui.controllers.roles import (
    Animation,
    FindingsShower,
    ResultShower,
    SourceMarks,
    StatusLine,
    TimingShower,
    Worker,
)
from explorer.gui.model import ConfigModel
from explorer.gui.state import AppState


class FreshnessController:
    """Clears what belongs to an earlier configuration; says how to run the new one."""

    def __init__(
        self,
        model: ConfigModel,
        state: AppState,
        worker: Worker,
        result: ResultShower,
        timing: TimingShower,
        findings: FindingsShower,
        execution: Animation,
        source: SourceMarks,
        status: StatusLine,
    ) -> None:
        self.model = model
        self.state = state
        self.worker = worker
        self.result = result
        self.timing = timing
        self.findings = findings
        self.execution = execution
        self.source = source
        self.status = status
        self._kernel = model.kernel_identity()
        self._whole = model.identity()
        for signal in model.configuration_signals():
            signal.connect(self._changed)
        for event in (state.events.hint, state.events.runnable, state.events.refusal):
            event.connect(self._show_hint)
        model.devices_changed.connect(self._show_hint)
        worker.started.connect(self._started)

    def _changed(self) -> None:
        whole = self.model.identity()
        if whole == self._whole:
            return
        kernel = self.model.kernel_identity()
        other_kernel = kernel != self._kernel
        # The first device found: what the window opened on is still what is ready.
        first_device = self._whole[0] is None and whole[1:] == self._whole[1:]
        self._whole, self._kernel = whole, kernel
        if other_kernel and self.worker.busy:
            self.worker.cancel()  # its results would belong to nothing on screen
        self.forget(keep_hint=first_device and self.state.hint is not None)

    def forget(self, keep_hint: bool = False) -> None:
        """Every view back to "not run yet" for the configuration now chosen; the result
        says it is ready (``keep_hint``: in the words already there)."""
        state, variant = self.state, self.model.variant
        if state.result is not None or state.traced is not None:
            # The status bar spoke of them (a trace's records, a run's kernel time).
            self.status.say(f"{variant.name}: the configuration changed; nothing has run in it")
        state.stale_up_to = self.worker.generation
        state.last_good = None
        state.traced = None
        state.playback = None
        state.result = None
        state.oclgrind = None
        name = variant.name
        self.execution.clear(f"{name}: trace it (Ctrl+T) to watch it run.")
        self.findings.clear(f"Trace {name} (Ctrl+T) to see what every work-item did.")
        self.source.mark_lines([])
        self.result.show_message("Not run yet", f"{name} has not run in this configuration.")
        if not state.touring:  # the tour's bars grow stage by stage
            state.comparison = ()
            self.timing.show_message(f"{name}: run it (Ctrl+R) to time it.")
        state.hint = state.hint if keep_hint else f"{name} ({variant.family}) is ready"

    def _started(self, _what: str) -> None:
        self.state.hint = None

    # -- how to run -----------------------------------------------------------------------
    def _show_hint(self, *_: object) -> None:
        if self.state.hint is not None:
            self.result.show_hint(f"{self.state.hint}. {self.how_to_run()}")

    def how_to_run(self) -> str:
        """How to run ("Press Ctrl+R to run.") while Run can act; else why it cannot."""
        state = self.state
        if state.runnable:
            return "Press Ctrl+R to run."
        if not self.model.devices:
            return "Run is disabled until an OpenCL device is found (looking for devices …)."
        if self.model.device is None:
            return "Run is disabled: choose a device."
        refusal = state.refusal
        if refusal is None:
            return "Run is disabled while the configuration is checked."
        anyway = " Ctrl+Alt+R runs it anyway." if refusal.overridable else ""
        return f"Run is disabled: {refusal}{anyway}"
