"""Running: devices, run, compare all variants, trace, Oclgrind, cancel; findings navigation."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction

from explorer.engine.launch.devices import NO_PLATFORM_HELP
from explorer.engine.record.oclgrind import find_oclgrind
from explorer.engine.record.trace_launch import TracedRun, TraceRequest
from explorer.engine.records import DeviceInfo, RunRequest, RunResult, Variant
from explorer.gui.controllers import Views
from explorer.gui.controllers.fix_cost import FixCostController
from explorer.gui.execution_view import run_arrays
from explorer.gui.model import ConfigModel, declared_sizes
from explorer.gui.state import AppState, Group
from explorer.gui.worker import RunController
from explorer.trace.grids import make_grids
from explorer.trace.playback import Playback

# The window keeps the trace it animates: 64 MiB of records is 8 M accesses, dozens of
# work-groups of a tiled matmul; a click on any other group traces a window around it.
GUI_TRACE_BUDGET = 64 << 20
MARK = "#f9e79f"


class RunCompareController(QObject):
    """Starts work on the worker and shows what comes back in the result, timing, source,
    findings, execution and roofline views."""

    run_finished = Signal(int, object)  # generation, RunResult: after the views show it
    trace_shown = Signal()

    def __init__(
        self,
        model: ConfigModel,
        state: AppState,
        views: Views,
        actions: dict[str, QAction],
        worker: RunController,
    ) -> None:
        super().__init__(views.window)
        self.model = model
        self.state = state
        self.views = views
        self.actions = actions
        self.worker = worker
        self.trace_budget = GUI_TRACE_BUDGET
        self._valid = False
        self._compare_generation = -1
        self._tracing: tuple[str, str, str] | None = None  # the variant the trace in flight runs
        views.run_button.clicked.connect(actions["run"].trigger)
        views.panel.anyway_button.clicked.connect(actions["run_anyway"].trigger)
        views.panel.validity_changed.connect(self._validity)
        views.source_view.line_activated.connect(self.goto_line)
        views.findings_view.line_selected.connect(self.goto_line)
        views.findings_view.finding_selected.connect(self.show_finding)
        views.execution_view.group_requested.connect(self.trace_group)
        views.execution_view.step_changed.connect(
            lambda _phase, line: views.source_view.editor.mark_lines([line], MARK)
        )
        model.variant_changed.connect(self._show_source)
        model.device_changed.connect(self._device_changed)
        worker.devices_ready.connect(self._devices_ready)
        worker.devices_failed.connect(self._devices_failed)
        worker.started.connect(self._started)
        worker.finished.connect(self._finished)
        worker.compare_progress.connect(self._compare_step)
        worker.compare_finished.connect(self._compare_done)
        worker.trace_finished.connect(self._trace_done)
        worker.idle.connect(self.refresh_actions)
        worker.limits_ready.connect(views.roofline_view.set_limits)
        worker.oclgrind_finished.connect(self._oclgrind_done)
        self._show_source()
        self.fix_cost = FixCostController(model, views, worker)  # "Measure the fix"

    # -- enabling ------------------------------------------------------------------------
    def refresh_actions(self) -> None:
        """Run and Trace need a valid configuration; Cancel needs work in flight and, in
        presenter mode, gives Esc to "Leave presenter mode" (one Esc action at a time)."""
        for widget in (self.views.run_button, self.actions["run"], self.actions["trace"]):
            widget.setEnabled(self._valid)
        refusal = self.views.panel.refusal
        anyway = not self._valid and refusal is not None and refusal.overridable
        for key in ("run_anyway", "trace_anyway"):
            self.actions[key].setEnabled(anyway)
        self.actions["compare"].setEnabled(self.model.device is not None)
        busy = self.worker.busy
        self.actions["cancel"].setEnabled(busy and not self.state.presenting)
        if not busy:
            self.views.progress.setVisible(False)

    def _validity(self, ok: bool) -> None:
        self._valid = ok
        self.refresh_actions()

    # -- devices -------------------------------------------------------------------------
    def _devices_ready(self, devices: list[DeviceInfo], default_key: str | None) -> None:
        if not devices:
            self._devices_failed(NO_PLATFORM_HELP)
            return
        self.model.set_devices(devices, default_key)
        self.actions["oclgrind"].setEnabled(find_oclgrind(devices) is not None)
        self.views.panel.validate()
        device = self.model.device
        message = f"Device: {device.label if device else '?'}"
        notice = self.state.notice
        self.views.say(f"{notice}  ·  {message}" if notice else message)

    def _devices_failed(self, message: str) -> None:
        self.views.say("No OpenCL device")
        self.views.result_view.show_message("No OpenCL device", message)
        self.views.result_view.badge.setText("No OpenCL device: see below how to get one.")

    def _device_changed(self) -> None:
        self.views.roofline_view.set_limits(None)
        if self.model.device is not None:
            self.worker.measure_limits(self.model.device_key)
        self.refresh_actions()

    # -- commands ------------------------------------------------------------------------
    def run(self) -> int | None:
        """Run the configuration; the generation of the run, or None when it is refused."""
        if not self.views.panel.validate():
            return None
        self.views.show_page(self.views.result_view)
        return self.worker.run(self.model.request())

    def run_anyway(self) -> int | None:
        """Run a configuration that only the kernel's own constraints refuse (a seed kernel's
        bug shows at such sizes); None when something else refuses it."""
        if not self._overridable():
            return None
        self.views.show_page(self.views.result_view)
        return self.worker.run(replace(self.model.request(), anyway=True))

    def trace_anyway(self, center: Group | None = None) -> None:
        """Trace a configuration that only the kernel's own constraints refuse."""
        if self._overridable():
            self._start_trace(center, anyway=True)

    def _overridable(self) -> bool:
        self.views.panel.validate()
        refusal = self.views.panel.refusal
        return refusal is not None and refusal.overridable

    def compare_all(self) -> None:
        """Every variant of the family at this size, one bar each."""
        if self.model.device is None:
            return
        self.state.comparison = []
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
        self.views.start_progress(len(requests))
        self.views.show_page(self.views.timing_view)
        self.views.timing_view.clear()
        self._compare_generation = self.worker.compare(requests)

    def trace(self, center: Group | None = None) -> None:
        """Record every access; ``center``: the work-group the traced window surrounds."""
        if not self.views.panel.validate():
            return
        self._start_trace(center, anyway=False)

    def _start_trace(self, center: Group | None, anyway: bool) -> None:
        self.views.findings_view.clear("Tracing …")
        self.state.pending_group = center
        self._tracing = _identity(self.model.variant)
        request = replace(self.model.request(), anyway=anyway)
        self.worker.trace(
            TraceRequest(request, center=center, budget_bytes=self.trace_budget, values=True)
        )

    def trace_group(self, gx: int, gy: int, gz: int) -> None:
        """A click on a group the trace did not cover: trace a window around it."""
        self.views.say(f"Tracing around work-group ({gx}, {gy}, {gz}) …")
        traced = self.state.traced
        if traced is not None and traced.result.outside_constraints:
            self.trace_anyway((gx, gy, gz))  # the trace on screen was run anyway
        else:
            self.trace((gx, gy, gz))

    def check_with_oclgrind(self) -> None:
        device = find_oclgrind(self.model.devices)
        if device is None:
            self.views.say('No Oclgrind platform: pip install "pyopencl[oclgrind]" to get one')
            return
        request = replace(self.model.request(), device_key=device.key)
        self.views.findings_view.oclgrind.setPlainText(
            "Oclgrind is checking (it simulates: slow) …"
        )
        self.views.show_page(self.views.findings_view)
        self.worker.oclgrind(request)

    def cancel(self) -> None:
        """Stop what is running; its results are dropped."""
        self.worker.cancel()
        self.actions["cancel"].setEnabled(False)
        self.views.progress.setVisible(False)
        self.views.say("Cancelled")
        self.views.result_view.badge.setText("Cancelled")

    # -- what comes back -----------------------------------------------------------------
    def _started(self, what: str) -> None:
        self.refresh_actions()
        self.views.result_view.show_running(what)
        self.views.say(what[:1].upper() + what[1:] + " …")

    def _finished(self, generation: int, result: RunResult) -> None:
        state, views = self.state, self.views
        state.result = result
        state.remember(result)
        views.roofline_view.show_results(state.history)
        keep = (
            result.error_kind == "build"
            and state.last_good is not None
            and state.last_good.variant == result.variant
        )
        if keep:
            # A build error while editing: the previous good result stays on screen.
            views.result_view.badge.setText(
                f"⚠ Build failed: {result.error}. Showing the last good result."
            )
        else:
            views.result_view.show_result(result)
        if result.status in ("verified", "wrong"):
            state.last_good = result
        if not state.touring:
            views.timing_view.show_run(result)
        views.source_view.show_build_log(result.build_log)
        views.source_view.show_output(result.output_text)
        if result.error_kind == "build" and not keep:
            views.show_page(views.source_view)
        device = self.model.device
        timing = f", kernel {result.timing.median_ms:.3f} ms" if result.timing else ""
        views.say(f"{device.name if device else ''} · {result.variant}: {result.status}{timing}")
        self.run_finished.emit(generation, result)

    def _compare_step(self, generation: int, index: int, total: int, result: RunResult) -> None:
        self.views.progress.setValue(index + 1)
        if isinstance(result, TracedRun):  # a sweep by trace figures: no timing to keep
            return
        self.state.remember(result)  # every run, a sweep's too
        if generation != self._compare_generation:
            return
        self.state.comparison.append(result)
        self.views.timing_view.show_compare(self.state.comparison)
        self.views.say(f"Comparing {index + 1}/{total}: {result.variant} {result.status}")

    def _compare_done(self, generation: int) -> None:
        self.views.roofline_view.show_results(self.state.history)
        if generation != self._compare_generation:
            return
        verified = sum(r.status == "verified" for r in self.state.comparison)
        self.views.say(f"Compared {len(self.state.comparison)} variants: {verified} verified")

    def _oclgrind_done(self, outcome: object) -> None:
        self.views.findings_view.show_oclgrind(outcome)
        self.state.oclgrind = outcome
        verdict = outcome if isinstance(outcome, str) else getattr(outcome, "verdict", "")
        self.views.say(str(verdict))

    def _trace_done(self, traced: TracedRun) -> None:
        state, views = self.state, self.views
        asked, self._tracing = self._tracing, None
        if asked is not None and asked != _identity(self.model.variant):
            # The variant or family changed while it ran: its records belong to a kernel
            # that is no longer on screen.
            views.findings_view.clear("The trace was discarded: the kernel changed while it ran.")
            views.say(f"Discarded the trace of {asked[0]}/{asked[1]}: the kernel changed")
            return
        state.traced = traced
        views.result_view.show_result(traced.result)
        if traced.analysis is None:
            views.findings_view.clear(f"The trace did not run: {traced.result.summary()}")
            views.source_view.show_build_log(traced.result.build_log)
            return
        views.findings_view.show_trace(traced.report_json or {}, traced.analysis)
        views.source_view.editor.mark_lines([f.line for f in traced.analysis.findings if f.line])
        if traced.trace is not None:
            self._animate(traced)
        else:
            views.show_page(views.findings_view)
        report = traced.report_json or {}
        views.say(
            f"Trace: {report.get('records', 0):,} records, "
            f"{len(traced.analysis.findings)} finding(s)"
        )
        self.trace_shown.emit()

    def _animate(self, traced: TracedRun) -> None:
        state, view = self.state, self.views.execution_view
        variant = self.model.variant
        assert traced.trace is not None
        if state.presenting:
            self.views.result_view.show_result(state.result or traced.result)
        result = traced.result
        grids = make_grids(traced.trace, result.shapes, column_major=set(result.column_major))
        # The run's values from the start: the first frame is drawn once, with them.
        state.playback = Playback(traced.trace, grids, arrays=run_arrays(result))
        view.set_playback(state.playback, variant.source)
        if state.pending_group is not None:
            view.select_group(state.pending_group)
        if state.keep_view is not None:  # after a reload: the same phase of the same group
            kept_group, phase = state.keep_view
            state.keep_view = None
            if kept_group is not None:
                view.select_group(kept_group)
            step = state.playback.first_step_of(phase)
            if step is not None:
                view.set_step(step)
        if state.presenting:
            view.play()
            self._time_for_presenter(traced.result)
        else:
            self.views.show_page(view)

    def _time_for_presenter(self, traced: RunResult) -> None:
        """Presenter mode shows the timing beside the animation: a trace that no timed run of
        the same configuration accompanies is followed by one (a trace build's own time
        says nothing of the kernel's)."""
        timed = self.state.result
        if timed is not None and timed.timing is not None and _same_run(timed, traced):
            return
        self.views.timing_view.show_message(f"Timing {traced.variant} (the trace is not timed) …")
        request = replace(self.model.request(), anyway=bool(traced.outside_constraints))
        self.worker.run(request)

    # -- navigation ----------------------------------------------------------------------
    def _show_source(self) -> None:
        v = self.model.variant
        self.views.source_view.show_source(f"<b>{v.name}</b> — {v.path}", v.source)
        self.views.sweep_view.set_variant(v)

    def show_finding(self, finding: object) -> None:
        """A finding selected: the animation jumps to its phase and line, its work-items and
        elements marked; without a trace to play, the source shows the line."""
        if self.state.playback is None:
            return
        self.views.execution_view.show_finding(finding)
        line = getattr(finding, "line", None)
        if line:
            self.views.source_view.editor.mark_lines([line], MARK)
        self.views.show_page(self.views.execution_view)

    def goto_line(self, line: int) -> None:
        self.views.source_view.editor.mark_lines([line], MARK)
        self.views.show_page(self.views.source_view)


def _same_run(a: RunResult, b: RunResult) -> bool:
    """Whether two results ran the same configuration (kernel, sizes, NDRange, defines)."""
    return (a.family, a.variant, a.sizes, a.local_size, a.defines) == (
        b.family,
        b.variant,
        b.sizes,
        b.local_size,
        b.defines,
    )


def _identity(variant: Variant) -> tuple[str, str, str]:
    """What makes a trace belong to a kernel: its family, id and file."""
    return (variant.family, variant.id, variant.path)
