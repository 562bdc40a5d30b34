"""Why is this element wrong: a click on an element of the result's error map (or Run ▸ Why
is the worst element wrong?) explains it from the trace on screen, tracing first where there
is none or the trace did not cover the work-item that wrote it.

The explanation (:func:`explorer.engine.record.explain.explain_element`) is written under
the result, the element outlined on the error map; the execution view draws what flowed in
on every buffer (the inputs by kind, the local elements the writing work-item read) at the
step where the first input that should not be there came in. Under that input, the index
anatomy of the accesses that brought it in: at once from the trace on screen (its values
where it recorded them, else the static chains, saying the values are coming), then, once
the worker is free, with the values an anatomy build of those lines recorded over their
group (:func:`explorer.engine.record.explain.record_anatomy`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np
from PySide6.QtCore import QObject, Signal

from explorer.engine.record.anatomy_run import Ranges
from explorer.engine.record.explain import (
    RECORDING,
    anatomy_asked,
    anatomy_request,
    answered,
    explain_element,
    record_anatomy,
)
from explorer.engine.record.trace_launch import TracedRun, TraceRequest
from explorer.engine.records import RunResult
from explorer.engine.remote.router import HostRouter
from explorer.gui.actions import Action, Actions
from explorer.gui.controllers.roles import Pages, StatusLine
from explorer.gui.controllers.traces import TraceController
from explorer.gui.model import ConfigModel
from explorer.gui.state import AppState
from explorer.trace.anatomy import TraceAnatomy
from explorer.trace.explain import ElementError, Explanation, with_anatomy
from explorer.trace.explain_marks import ExplainMarks, explain_marks
from explorer.trace.provenance import Layout, element_text


class ExplanationShower(Protocol):
    """The result view: the explanation under the result, the element on the error map."""

    def show_explanation(self, text: str, where: tuple[int, ...]) -> None: ...

    def clear_explanation(self) -> None: ...

    def explaining(self) -> tuple[int, ...] | None: ...  # the element explained on screen


class InflowDrawer(Protocol):
    """The execution view: what flowed into the element, drawn on every buffer."""

    def show_explanation(self, marks: ExplainMarks) -> None: ...


@dataclass(frozen=True, eq=False)
class _Waiting:
    """An explanation on screen waiting for the values of its index anatomy: the trace it
    explains, the element, and the lines and groups an anatomy build records."""

    traced: TracedRun
    where: tuple[int, ...]
    explanation: Explanation
    lines: tuple[int, ...]
    groups: Ranges


class ExplainController(QObject):
    """Explains the element a person points at, tracing first when it must."""

    # The explanation now on screen (an explorer.trace.explain.Explanation): where more
    # about one access starts from, e.g. ``explanation.first_offending.load`` (its trace
    # record, line and work-item) for the values of that access's index terms.
    explained = Signal(object)

    def __init__(
        self,
        model: ConfigModel,
        state: AppState,
        traces: TraceController,
        result: ExplanationShower,
        execution: InflowDrawer,
        status: StatusLine,
        pages: Pages,
    ) -> None:
        super().__init__()
        self.model = model
        self.state = state
        self.traces = traces
        self.result = result
        self.execution = execution
        self.status = status
        self.pages = pages
        # The element waiting for a trace, and whether that trace was asked for it (a window
        # around its work-group: not asked again when that one did not cover it either).
        self.explanation: Explanation | None = None  # the one last shown
        self._pending: tuple[tuple[int, ...], tuple[object, ...]] | None = None
        self._traced_for: tuple[int, ...] | None = None
        traces.trace_shown.connect(self._trace_shown)
        # The explanation whose index anatomy waits for the worker, and the one whose values
        # are being recorded (with the worker's generation for it).
        self.worker = traces.worker
        self._waiting: _Waiting | None = None
        self._recording: tuple[int, _Waiting] | None = None
        self.worker.call_finished.connect(self._values_came)
        self.worker.idle.connect(self._worker_idle)

    # -- commands ------------------------------------------------------------------------
    def explain(self, where: tuple[int, ...]) -> None:
        """Explain element ``where`` (rows first) of the first result on screen."""
        shown = self._shown()
        if shown is None or not shown.outputs:
            self.status.say("Nothing to explain: run or trace the kernel first")
            return
        traced = self.state.traced
        if traced is None or traced.trace is None or not _same_launch(traced.result, shown):
            self._trace_for(shown, where)
            return
        self._explain(traced, where)

    def explain_worst(self) -> None:
        """Explain the element furthest from its reference."""
        shown = self._shown()
        if shown is None or shown.output is None or shown.reference is None:
            self.status.say("Nothing to explain: the result has no reference to differ from")
            return
        error = np.abs(np.asarray(shown.output, dtype=np.float64) - shown.reference)
        error = np.where(np.isnan(error), np.inf, error)
        self.explain(tuple(int(i) for i in np.unravel_index(int(np.argmax(error)), error.shape)))

    def show_inflow(self) -> None:
        """The execution view, where what flowed in is drawn."""
        self.pages.show_page("execution")

    # -- the work ------------------------------------------------------------------------
    def _shown(self) -> RunResult | None:
        traced = self.state.traced
        return self.state.result or (traced.result if traced is not None else None)

    def _trace_for(self, shown: RunResult, where: tuple[int, ...]) -> None:
        """Trace around the work-group that most likely wrote the element, then explain it."""
        anyway = bool(shown.outside_constraints)  # the result on screen was run anyway
        if not (self.state.overridable if anyway else self.state.runnable):
            self.status.say("Cannot trace to explain the element: the configuration is refused")
            return
        self._pending, self._traced_for = (where, self.model.identity()), where
        name = next(iter(shown.outputs or {}), "")
        self.status.say(f"Tracing to explain {element_text(name, where)} …")
        center = _likely_group(shown, where)
        if anyway:
            self.traces.trace_anyway(center)
        else:
            self.traces.trace(center=center)

    def _trace_shown(self) -> None:
        """A trace is on screen: the element waiting for it is explained, where the
        configuration is still the one it was clicked in."""
        pending, self._pending = self._pending, None
        traced = self.state.traced
        if pending is None or traced is None or traced.trace is None:
            return
        where, identity = pending
        if identity == self.model.identity():
            self._explain(traced, where)

    def _explain(self, traced: TracedRun, where: tuple[int, ...]) -> None:
        assert traced.trace is not None
        result = traced.result
        name = next(iter(result.outputs or {}), None)
        device = self.model.device
        try:
            explanation = explain_element(
                traced.trace,
                result,
                self.model.variant,
                (name, where),
                device.compute_units if device is not None else 1,
            )
        except ElementError as exc:
            self.status.say(f"Cannot explain that element: {exc}")
            return
        covered = len(set(map(tuple, traced.trace.groups_traced)))
        every = int(np.prod(traced.trace.num_groups))
        if not explanation.provenance.written and covered < every and self._traced_for != where:
            self._trace_for(result, where)  # its writer is outside the window traced
            return
        traced_for_it, self._traced_for = self._traced_for is not None, None
        layout = Layout(traced.trace, result.shapes, tuple(result.column_major))
        asked = anatomy_asked(explanation, traced.trace, traced.anatomy)
        note = RECORDING if asked is not None else ""
        explanation = with_anatomy(explanation, traced.trace, traced.anatomy, note)
        self._show(explanation, where)
        self.execution.show_explanation(explain_marks(explanation, layout))
        self.status.say(explanation.summary())
        self._waiting = None if asked is None else _Waiting(traced, where, explanation, *asked)
        self._record_values()
        if traced_for_it:  # the trace brought its animation to the front: back to the answer
            self.pages.show_page("result")

    def _show(self, explanation: Explanation, where: tuple[int, ...]) -> None:
        self.result.show_explanation(explanation.text(), where)
        self.explanation = explanation
        self.explained.emit(explanation)

    # -- the values of the first offending input's index anatomy -------------------------
    def _record_values(self) -> None:
        """Ask the worker for the values the explanation waits for, once it is free (it is
        busy while the trace it came from is still being delivered)."""
        waiting = self._waiting
        if waiting is None or self._recording is not None or self.worker.busy:
            return
        self._waiting = None
        if not self._current(waiting) or self.result.explaining() != waiting.where:
            return  # another explanation, or none, is on screen now
        trace = waiting.traced.trace
        assert trace is not None
        # The trace on screen belongs to the configuration chosen (a change clears it).
        run = replace(self.model.request(), anyway=bool(waiting.traced.result.outside_constraints))
        request = anatomy_request(TraceRequest(run), trace)
        sites, lines, groups = trace.sites, waiting.lines, waiting.groups
        listed = ", ".join(map(str, lines))

        def work(executors: HostRouter) -> object:
            return executors.call(
                record_anatomy,
                request,
                sites,
                lines,
                groups,
                timeout_s=request.run.timeout_s,
                what=f"the index anatomy of line(s) {listed}",
            )

        generation = self.worker.call(work, f"recording the index anatomy of line(s) {listed}")
        self._recording = (generation, waiting)

    def _values_came(self, generation: int, outcome: object) -> None:
        if self._recording is None or self._recording[0] != generation:
            return  # another controller's call
        waiting = self._recording[1]
        self._recording = None
        if not self._current(waiting):
            return
        trace, kept = waiting.traced.trace, waiting.traced.anatomy
        assert trace is not None
        got = answered(outcome)  # the call's exception, if it raised: why there are no values
        if isinstance(got, TraceAnatomy):
            final = with_anatomy(waiting.explanation, trace, got)
        elif got is None:
            final = with_anatomy(waiting.explanation, trace, kept, "the kernel could not be parsed")
        else:
            final = with_anatomy(waiting.explanation, trace, kept, f"values not recorded: {got}")
        self._show(final, waiting.where)

    def _worker_idle(self) -> None:
        """The worker is free: a call for values that ended without an answer (cancelled)
        says so; an explanation waiting for values asks now."""
        if self._recording is not None:
            waiting = self._recording[1]
            self._recording = None
            trace = waiting.traced.trace
            if self._current(waiting) and trace is not None:
                stopped = "values not recorded: stopped before they came"
                kept = waiting.traced.anatomy
                self._show(with_anatomy(waiting.explanation, trace, kept, stopped), waiting.where)
        self._record_values()

    def _current(self, waiting: _Waiting) -> bool:
        """Whether ``waiting``'s explanation is still the last one shown, of the trace on
        screen. (A call's values come only where no other work was asked after it: the
        result drawn again when a call ends clears the explanation, which is shown again.)"""
        return self.explanation is waiting.explanation and self.state.traced is waiting.traced


def _same_launch(a: RunResult, b: RunResult) -> bool:
    """Whether a trace's result and the result on screen ran the same launch."""
    return (a.family, a.variant, a.sizes, a.local_size, a.defines) == (
        b.family,
        b.variant,
        b.sizes,
        b.local_size,
        b.defines,
    )


def _likely_group(result: RunResult, where: tuple[int, ...]) -> tuple[int, int, int] | None:
    """The work-group that writes an element where the groups tile the result evenly, as
    most kernels do (dimension 0 along its columns, a block of elements a work-item too): a
    guess the trace then checks."""
    local, ndrange, output = result.local_size, result.global_size, result.output
    if not local or not ndrange or output is None or np.ndim(output) != len(where):
        return None
    groups = [-(-g // max(lo, 1)) for g, lo in zip(ndrange, local, strict=False)] + [1, 1]
    shape = np.shape(output)
    if len(where) == 2:
        gx = where[1] * groups[0] // max(shape[1], 1)
        gy = where[0] * groups[1] // max(shape[0], 1)
        return min(gx, groups[0] - 1), min(gy, groups[1] - 1), 0
    return min(where[0] * groups[0] // max(shape[0], 1), groups[0] - 1), 0, 0


ACTIONS = Actions(
    ExplainController,
    Action(
        "explain_worst",
        "&Why is the worst element wrong?",
        "&Run",
        ExplainController.explain_worst,
        tip="Explain the element furthest from its reference (or click any element of the "
        "error map): what flowed into it, what its reference needs, the first input that "
        "should not be there",
        order=40,
        enabled_when=lambda app: app.state.result is not None or app.state.traced is not None,
    ),
)
