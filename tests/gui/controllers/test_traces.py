"""The trace controller with a fake worker and mocked views: a trace requested, one that
comes back (animated, or discarded when the kernel changed), presenter mode's timing, and
Oclgrind's second opinion."""

from __future__ import annotations

import pytest

from explorer.engine.header.catalog import find_variant
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import Refusal
from explorer.gui.controllers.traces import GUI_TRACE_BUDGET, TraceController
from explorer.trace.playback import Playback
from tests.gui.controllers.fakes import (
    FakeWorker,
    device,
    model_on,
    result,
    said,
    state,
    traced_run,
    views,
)


@pytest.fixture
def traces():
    v = views()
    v.panel.validate.return_value = True
    v.panel.refusal = None
    worker = FakeWorker()
    model = model_on()
    model.set_variant(find_variant("matmul", "tiled"))
    controller = TraceController(
        model,
        state(),
        worker,
        v.panel,
        v.execution,
        v.findings,
        v.result,
        v.timing,
        v.status,
        v.pages,
    )
    return controller, worker, v


def test_a_trace_asks_for_the_values_around_the_group(traces):
    controller, worker, v = traces
    controller.trace((1, 0, 0))
    request = worker.last("trace")
    assert isinstance(request, TraceRequest)
    assert request.center == (1, 0, 0) and request.values and not request.run.anyway
    assert request.budget_bytes == GUI_TRACE_BUDGET
    assert controller.state.pending_group == (1, 0, 0)
    v.findings.clear.assert_called_with("Tracing …")


def test_a_trace_that_comes_back_is_animated_at_the_group_asked_for(traces):
    controller, worker, v = traces
    shown = []
    controller.trace_shown.connect(lambda: shown.append(True))
    controller.trace((1, 1, 0))
    traced = traced_run()
    worker.trace_finished.emit(traced)
    st = controller.state
    assert st.traced is traced and isinstance(st.playback, Playback)
    playback, source = v.execution.set_playback.call_args.args
    assert playback is st.playback and source == controller.model.variant.source
    v.execution.select_group.assert_called_with((1, 1, 0))
    v.execution.play.assert_not_called()  # outside presenter mode it waits for a key
    v.pages.show_page.assert_called_with("execution")
    findings = len(traced.analysis.findings)
    assert (
        said(v.status) == f"Trace: {traced.report_json['records']:,} records, {findings} finding(s)"
    )
    assert shown == [True]


def test_a_trace_kept_off_the_device_shows_its_findings(traces):
    controller, worker, v = traces
    controller.trace()
    worker.trace_finished.emit(traced_run(with_trace=False))
    assert controller.state.playback is None
    v.execution.set_playback.assert_not_called()
    v.pages.show_page.assert_called_with("findings")


def test_after_a_reload_the_same_group_and_phase_come_back(traces):
    controller, worker, v = traces
    controller.state.keep_view = ((1, 0, 0), 3)
    controller.trace((1, 0, 0))
    worker.trace_finished.emit(traced_run())
    v.execution.select_group.assert_called_with((1, 0, 0))
    step = controller.state.playback.first_step_of(3)
    assert step is not None and controller.state.playback.steps[step].phase == 3
    v.execution.set_step.assert_called_with(step)
    assert controller.state.keep_view is None


def test_a_click_outside_the_traced_groups_traces_around_it(traces):
    controller, worker, v = traces
    controller.trace_group(7, 7, 0)
    assert worker.last("trace").center == (7, 7, 0) and not worker.last("trace").run.anyway
    assert said(v.status) == "Tracing around work-group (7, 7, 0) …"
    # a trace run anyway is followed by one run anyway
    controller.state.traced = traced_run(result("tiled", outside=("L0 == TS",)))
    v.panel.refusal = Refusal("L0 == TS", "", overridable=True)
    controller.trace_group(2, 3, 0)
    assert worker.last("trace").run.anyway and worker.last("trace").center == (2, 3, 0)


def test_a_refused_configuration_is_not_traced(traces):
    controller, worker, v = traces
    v.panel.validate.return_value = False
    controller.trace()
    v.panel.refusal = Refusal("device: too much local memory", "")
    controller.trace_anyway()
    assert worker.requests == []


def test_in_presenter_mode_the_trace_waits_for_space_and_its_kernel_is_timed(traces):
    controller, worker, v = traces
    controller.state.presenting = True
    traced = traced_run(result("tiled"))
    controller.trace()
    worker.trace_finished.emit(traced)
    v.execution.play.assert_not_called()  # nothing plays until Space
    v.result.show_result.assert_called_with(traced.result)  # no timed run yet: the trace's
    assert "the trace is not timed" in v.timing.show_message.call_args.args[0]
    assert worker.last("run").variant.id == "tiled"  # a timed run follows
    # a timed run of the same configuration on screen: no second run
    controller.state.result = result("tiled")
    runs = len(worker.requests)
    controller.trace()
    worker.trace_finished.emit(traced_run(result("tiled")))
    assert len(worker.requests) == runs + 1  # the trace only


def test_oclgrind_checks_on_its_own_device_and_reports(traces):
    controller, worker, v = traces
    controller.check_with_oclgrind()
    assert worker.requests == []
    assert "No Oclgrind platform" in said(v.status)
    grind = device(platform="Oclgrind", index=1)
    controller.model.set_devices([device(), grind], device().key)
    controller.check_with_oclgrind()
    assert worker.last("oclgrind").device_key == grind.key
    v.findings.show_checking.assert_called_with("Oclgrind is checking (it simulates: slow) …")
    v.pages.show_page.assert_called_with("findings")
    worker.oclgrind_finished.emit("Oclgrind crashed")
    assert controller.state.oclgrind == "Oclgrind crashed"
    assert said(v.status) == "Oclgrind crashed"
