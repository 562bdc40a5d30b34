"""The freshness controller with a fake worker and mocked views: a change of kernel, device,
size or local size clears what belonged to the old configuration, stops or sets aside its
work, and the result says how to run the new one or why Run is disabled."""

from __future__ import annotations

from explorer.engine.header.catalog import find_variant
from explorer.engine.records import Refusal
from explorer.gui.controllers.devices import DeviceController
from explorer.gui.controllers.freshness import FreshnessController
from explorer.gui.controllers.runs import RunsController
from explorer.gui.model import ConfigModel
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


def _fresh(model=None):
    v = views()
    worker = FakeWorker()
    model = model or model_on()
    s = state()
    runs = RunsController(model, s, worker, v.panel, v.result, v.timing, v.status, v.pages)
    fresh = FreshnessController(
        model, s, worker, v.result, v.timing, v.findings, v.execution, v.source, v.status
    )
    return fresh, runs, worker, v


def hint(v) -> str:
    return v.result.show_hint.call_args.args[0]


def test_another_variant_clears_every_view_of_the_old_one():
    fresh, _runs, _worker, v = _fresh()
    s = fresh.state
    s.result, s.traced, s.oclgrind = result(), traced_run(), "no errors"
    fresh.model.set_variant(find_variant("matmul", "tiled"))
    assert (s.result, s.traced, s.playback, s.oclgrind, s.last_good) == (None,) * 5
    v.execution.clear.assert_called()
    v.findings.clear.assert_called()
    v.source.mark_lines.assert_called_with([])
    assert v.result.show_message.call_args.args[0] == "Not run yet"
    assert "run it (Ctrl+R)" in v.timing.show_message.call_args.args[0]


def test_the_same_configuration_set_again_clears_nothing():
    fresh, _runs, _worker, v = _fresh()
    fresh.state.result = result()
    fresh.model.set_size("M", fresh.model.sizes["M"])  # no change
    fresh.model.set_local(None)
    assert fresh.state.result is not None
    v.execution.clear.assert_not_called()


def test_during_the_tour_the_timing_bars_stay():
    fresh, _runs, _worker, v = _fresh()
    fresh.state.tour_stage = 0
    fresh.model.set_variant(find_variant("matmul", "tiled"))
    v.timing.show_message.assert_not_called()


def test_work_for_another_kernel_is_stopped_and_a_stale_run_is_set_aside():
    fresh, runs, worker, v = _fresh()
    generation = runs.run()
    worker.busy = True
    fresh.model.set_size("M", 32)  # another size: the run in flight is for nothing on screen
    assert worker.cancelled == 1
    worker.finished.emit(generation, result())
    v.result.show_result.assert_not_called()
    v.timing.show_run.assert_not_called()
    assert fresh.state.result is None and len(fresh.state.history) == 1
    assert "configuration changed" in said(v.status)


def test_a_new_local_size_sets_aside_the_run_in_flight_without_stopping_it():
    fresh, runs, worker, v = _fresh()
    generation = runs.run()
    worker.busy = True
    fresh.model.set_local((8, 8))
    assert worker.cancelled == 0  # a sweep's runs go on
    worker.finished.emit(generation, result())
    v.result.show_result.assert_not_called()
    later = runs.run()
    worker.finished.emit(later, result())
    v.result.show_result.assert_called_once()


def test_the_hint_says_ctrl_r_only_while_run_can_act():
    fresh, runs, _worker, v = _fresh(ConfigModel())  # no device yet
    fresh.state.hint = "The IOU demo is ready"
    assert hint(v) == (
        "The IOU demo is ready. Run is disabled until an OpenCL device is found "
        "(looking for devices …)."
    )
    fresh.model.set_devices([device()], device().key)
    v.panel.refusal = Refusal("Local size 32×32 is over the device's 256.", "Try 16×16.")
    runs.set_validity(False)
    assert hint(v) == (
        "The IOU demo is ready. Run is disabled: Local size 32×32 is over the device's 256. "
        "Try 16×16."
    )
    v.panel.refusal = Refusal("L0 must equal TS.", "", overridable=True)
    runs.set_validity(False)
    assert hint(v).endswith("Ctrl+Alt+R runs it anyway.")
    runs.set_validity(True)
    assert hint(v) == "The IOU demo is ready. Press Ctrl+R to run."


def test_once_something_runs_the_hint_leaves_the_result_alone():
    fresh, runs, worker, v = _fresh()
    fresh.state.hint = "The last session is open"
    worker.started.emit("running matmul/naive")
    assert fresh.state.hint is None
    calls = v.result.show_hint.call_count
    runs.set_validity(False)
    assert v.result.show_hint.call_count == calls


def test_the_cpu_notice_shows_on_matmul_only():
    v = views()
    model = ConfigModel()
    kept = DeviceController(model, state(), FakeWorker(), v.panel, v.result, v.roofline, v.status)
    cpu = device("CPU")
    model.set_devices([cpu], cpu.key)
    v.result.set_device_type.assert_called_with("CPU")
    model.set_family("transpose")
    v.result.set_device_type.assert_called_with(None)
    model.set_family("matmul")
    v.result.set_device_type.assert_called_with("CPU")
    assert kept.model is model


def test_an_oclgrind_report_for_an_earlier_local_size_is_set_aside():
    from explorer.gui.controllers.traces import TraceController

    v = views()
    worker = FakeWorker()
    oclgrind = device("CPU | GPU", platform="Oclgrind")
    model = model_on(device(), oclgrind)
    s = state()
    traces = TraceController(
        model, s, worker, v.panel, v.execution, v.findings, v.result, v.timing, v.status, v.pages
    )
    traces.check_with_oclgrind()
    model.set_local((8, 8))
    worker.oclgrind_finished.emit("no errors")
    assert s.oclgrind is None and "Set aside" in said(v.status)
    traces.check_with_oclgrind()
    worker.oclgrind_finished.emit("no errors")
    assert s.oclgrind == "no errors"
