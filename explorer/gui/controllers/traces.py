"""Tracing: trace, trace anyway, a window around a clicked group, the animation of what comes
back; and the second opinion of Oclgrind."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication, QInputDialog

from explorer.engine.record.oclgrind import find_oclgrind
from explorer.engine.record.trace_launch import TracedRun, TraceRequest
from explorer.engine.records import RunResult, Variant
from explorer.gui.actions import Action, Actions
from explorer.gui.controllers.roles import (
    Animation,
    ConfigCheck,
    FindingsShower,
    Pages,
    ResultShower,
    StatusLine,
    TimingShower,
    Worker,
)
from explorer.gui.execution_view import run_arrays
from explorer.gui.model import ConfigModel
from explorer.gui.state import AppState, Group
from explorer.trace.grids import make_grids
from explorer.trace.playback import Playback

# The window keeps the trace it animates: 64 MiB of records is 8 M accesses, dozens of
# work-groups of a tiled matmul; a click on any other group traces a window around it.
GUI_TRACE_BUDGET = 64 << 20


class TraceController(QObject):
    """Starts traces and Oclgrind checks on the worker; a trace that comes back is written
    into the state (the result, findings and source views follow it) and animated."""

    trace_shown = Signal()  # a trace with its findings and animation is on screen

    def __init__(
        self,
        model: ConfigModel,
        state: AppState,
        worker: Worker,
        panel: ConfigCheck,
        execution: Animation,
        findings: FindingsShower,
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
        self.execution = execution
        self.findings = findings
        self.result = result
        self.timing = timing
        self.status = status
        self.pages = pages
        self.trace_budget = GUI_TRACE_BUDGET
        self._tracing: tuple[object, ...] | None = None  # the configuration of the trace in flight
        self._checking: tuple[object, ...] | None = None  # the configuration Oclgrind checks
        worker.trace_finished.connect(self._trace_done)
        worker.oclgrind_finished.connect(self._oclgrind_done)

    # -- commands ------------------------------------------------------------------------
    def trace(self, center: Group | None = None, against: Variant | None = None) -> None:
        """Record every access; ``center``: the work-group the traced window surrounds;
        ``against``: a reference kernel traced at the same launch and compared (the trace
        diff: its first differences become findings and marks)."""
        if not self.panel.validate():
            return
        self._start_trace(center, anyway=False, against=against)

    def trace_anyway(self, center: Group | None = None) -> None:
        """Trace a configuration that only the kernel's own constraints refuse."""
        self.panel.validate()
        refusal = self.panel.refusal
        if refusal is not None and refusal.overridable:
            self._start_trace(center, anyway=True)

    def _start_trace(
        self, center: Group | None, anyway: bool, against: Variant | None = None
    ) -> None:
        self.findings.clear("Tracing …")
        self.state.pending_group = center
        self._tracing = self.model.identity()
        request = replace(self.model.request(), anyway=anyway)
        self.worker.trace(
            TraceRequest(
                request,
                center=center,
                budget_bytes=self.trace_budget,
                values=True,
                against=against,
                # Hover and the step lines show each access's index anatomy; the values of
                # those the findings report are recorded by an anatomy build after the trace.
                anatomy_findings=True,
            )
        )

    def trace_group(self, gx: int, gy: int, gz: int) -> None:
        """A click on a group the trace did not cover: trace a window around it."""
        self.status.say(f"Tracing around work-group ({gx}, {gy}, {gz}) …")
        traced = self.state.traced
        if traced is not None and traced.result.outside_constraints:
            self.trace_anyway((gx, gy, gz))  # the trace on screen was run anyway
        else:
            self.trace((gx, gy, gz))

    def go_to_group(self) -> None:
        """The work-group to watch, typed ("20, 18"): a keyboard's way to the click on the
        work-groups map (one the trace did not cover is traced around)."""
        playback = self.state.playback
        if playback is None:
            return
        count = playback.index.num_groups
        current = playback.group or (0, 0, 0)
        text, ok = QInputDialog.getText(
            QApplication.activeWindow(),
            "Go to work-group",
            f"Work-group (x, y): 0 to {count[0] - 1}, 0 to {count[1] - 1}",
            text=f"{current[0]}, {current[1]}",
        )
        if not ok:
            return
        group = parse_group(text, (count[0], count[1]))
        if group is None:
            self.status.say(
                f"No work-group {text.strip()!r}: x from 0 to {count[0] - 1}, "
                f"y from 0 to {count[1] - 1}"
            )
        elif not self.execution.select_group(group):
            self.trace_group(*group)

    def check_with_oclgrind(self) -> None:
        device = find_oclgrind(self.model.devices)
        if device is None:
            self.status.say('No Oclgrind platform: pip install "pyopencl[oclgrind]" to get one')
            return
        request = replace(self.model.request(), device_key=device.key)
        self.findings.show_checking("Oclgrind is checking (it simulates: slow) …")
        self.pages.show_page("findings")
        self._checking = self.model.identity()
        self.worker.oclgrind(request)

    def cancelled(self) -> None:
        """The work in flight was cancelled: the findings say so, not "Tracing …"."""
        if self._tracing is not None:
            self._tracing = None
            self.findings.clear("Cancelled: the trace was stopped before it finished.")
            if self.state.presenting and self.state.result is None:
                self.timing.show_message("Cancelled.")
        if self._checking is not None:
            self._checking = None
            self.findings.show_checking("Cancelled: the Oclgrind check was stopped.")

    # -- what comes back -----------------------------------------------------------------
    def _oclgrind_done(self, outcome: object) -> None:
        asked, self._checking = self._checking, None
        if asked is not None and asked != self.model.identity():
            self.status.say("Set aside Oclgrind's report: the configuration changed while it ran")
            return
        self.state.oclgrind = outcome
        shown = self.state.result or (self.state.traced.result if self.state.traced else None)
        if shown is not None:  # the badge said "Checking … with Oclgrind"
            self.result.show_result(shown)
        else:
            self.result.set_badge("Checked with Oclgrind: its report is on the Findings tab.")
        verdict = outcome if isinstance(outcome, str) else getattr(outcome, "verdict", "")
        self.status.say(str(verdict).splitlines()[0] if str(verdict) else "")

    def _trace_done(self, traced: TracedRun) -> None:
        asked, self._tracing = self._tracing, None
        if asked is not None and asked != self.model.identity():
            # The configuration changed while it ran: its records belong to a kernel or a
            # launch that is no longer on screen.
            self.findings.clear("The trace was discarded: the configuration changed while it ran.")
            self.status.say(
                f"Discarded the trace of {traced.result.variant}: the configuration changed"
            )
            return
        self.show_traced(traced)

    def show_traced(self, traced: TracedRun) -> None:
        """Put a trace run on screen (its findings, its animation), whoever traced it (an
        exercise's grade traces the attempt against its solution)."""
        self.state.traced = traced
        if traced.analysis is None:
            self.status.say(_failed(traced.result))
            return
        missing = None
        if traced.trace is not None:
            missing = self._animate(traced)
        else:
            self.pages.show_page("findings")
        report = traced.report_json or {}
        self.status.say(
            f"Trace: {report.get('records', 0):,} records, "
            f"{len(traced.analysis.findings)} finding(s)" + (f" · {missing}" if missing else "")
        )
        if traced.trace is not None:  # the run's inputs and output: the values drawn
            self.execution.set_arrays(run_arrays(traced.result))
        self.trace_shown.emit()

    def _animate(self, traced: TracedRun) -> str | None:
        """Show the trace's animation; what of the group and phase asked for (a session's,
        a reload's) it does not hold, said, or None."""
        state, view = self.state, self.execution
        missing: list[str] = []
        assert traced.trace is not None
        if state.presenting:
            self.result.show_result(state.result or traced.result)
        result = traced.result
        grids = make_grids(traced.trace, result.shapes, column_major=set(result.column_major))
        # The run's values from the start: the first frame is drawn once, with them.
        playback = Playback(traced.trace, grids, arrays=run_arrays(result))
        if traced.against is not None and traced.against.diff is not None:
            playback.set_differing(traced.against.diff.first_records)  # marked from the start
        playback.set_anatomy(traced.anatomy)
        state.playback = playback
        view.set_playback(playback, self.model.variant.source)
        if state.pending_group is not None and not view.select_group(state.pending_group):
            missing.append(f"work-group {state.pending_group}")
        if state.keep_view is not None:  # after a reload: the same phase of the same group
            kept_group, phase = state.keep_view
            state.keep_view = None
            if kept_group is not None and not view.select_group(kept_group):
                missing.append(f"work-group {kept_group}")
            step = playback.first_step_of(phase)
            if step is not None:
                view.set_step(step)
            elif phase:
                missing.append(f"phase {phase}")
        if state.presenting:  # nothing plays until Space
            self._time_for_presenter(traced.result)
        else:
            self.pages.show_page("execution")
        if not missing:
            return None
        shown = f"work-group {playback.group}" if playback.group is not None else "the first"
        return f"this launch has no {' and no '.join(dict.fromkeys(missing))}: {shown} is shown"

    def time_trace_shown(self) -> None:
        """Presenter mode entered over a trace (a lesson's, one traced at the desk): it is
        timed as one traced while presenting is, unless other work is in flight."""
        traced = self.state.traced
        if traced is None or traced.trace is None or self.state.playback is None:
            return
        if not self.worker.busy:
            self._time_for_presenter(traced.result)

    def _time_for_presenter(self, traced: RunResult) -> None:
        """Presenter mode shows the timing beside the animation: a trace that no timed run of
        the same configuration accompanies is followed by one (a trace build's own time
        says nothing of the kernel's)."""
        timed = self.state.result
        if timed is not None and timed.timing is not None and _same_run(timed, traced):
            return
        self.timing.show_message(f"Timing {traced.variant} (the trace is not timed) …")
        request = replace(self.model.request(), anyway=bool(traced.outside_constraints))
        self.worker.run(request)


def _same_run(a: RunResult, b: RunResult) -> bool:
    """Whether two results ran the same configuration (kernel, sizes, NDRange, defines)."""
    return (a.family, a.variant, a.sizes, a.local_size, a.defines) == (
        b.family,
        b.variant,
        b.sizes,
        b.local_size,
        b.defines,
    )


def _failed(result: RunResult) -> str:
    """The status bar's line for a trace that did not run: that it failed, and why."""
    why = str(result.error or result.refused or result.status).splitlines()
    return f"The trace of {result.variant} failed: {result.status}: {why[0] if why else ''}"[:200]


def parse_group(text: str, count: tuple[int, int]) -> Group | None:
    """The work-group typed as "20, 18" (or "20 18", "(20, 18)"), within ``count``
    groups; None for anything else."""
    ids = parse_ids(text, count)
    return None if ids is None else (ids[0], ids[1], 0)


def parse_ids(text: str, count: tuple[int, int]) -> tuple[int, int] | None:
    """An x and a y typed as "3, 5" (or "3 5", "(3, 5)"; a lone x has y 0), each below its
    ``count``; None for anything else."""
    words = text.replace("(", " ").replace(")", " ").replace(",", " ").split()
    if len(words) not in (1, 2) or not all(w.isdigit() for w in words):
        return None
    x, y = int(words[0]), int(words[1]) if len(words) == 2 else 0
    if x >= count[0] or y >= count[1]:
        return None
    return x, y


ACTIONS = Actions(
    TraceController,
    Action(
        "trace",
        "&Trace",
        "&Run",
        TraceController.trace,
        ("Ctrl+T",),
        "Record every access and barrier; list findings",
        order=30,
        toolbar=True,
        enabled_when=lambda app: app.state.runnable,
    ),
    Action(
        "trace_anyway",
        "Trace an&yway, outside the kernel's constraints",
        "&Run",
        TraceController.trace_anyway,
        ("Ctrl+Alt+T",),
        "Trace a configuration that only the kernel's own constraints refuse",
        order=50,
        enabled_when=lambda app: app.state.overridable,
    ),
    Action(
        "go_to_group",
        "Go to work-gro&up…",
        "&Step",
        TraceController.go_to_group,
        ("Ctrl+J",),
        "Watch another work-group: its x and y typed (a click on the work-groups map does "
        "the same); one the trace did not cover is traced",
        section=4,
        enabled_when=lambda app: app.state.playback is not None,
    ),
    Action(
        "oclgrind",
        "Check with &Oclgrind",
        "&Run",
        TraceController.check_with_oclgrind,
        ("Ctrl+Shift+O",),
        "Run this configuration on Oclgrind with its race and uninitialised-read checks",
        order=60,
        enabled_when=lambda app: find_oclgrind(app.model.devices) is not None,
    ),
)
