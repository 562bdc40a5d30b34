"""The runs controller with a fake worker and mocked views: what a run, a comparison and a
cancel do to the state and the views, with no window and no executor."""

from __future__ import annotations

import pytest

from explorer.engine.records import Refusal
from explorer.gui.controllers.runs import RunsController
from tests.gui.controllers.fakes import FakeWorker, model_on, result, said, state, views


@pytest.fixture
def runs():
    v = views()
    v.panel.validate.return_value = True
    worker = FakeWorker()
    controller = RunsController(
        model_on(), state(), worker, v.panel, v.result, v.timing, v.status, v.pages
    )
    return controller, worker, v


def test_run_asks_the_worker_and_shows_the_result_page(runs):
    controller, worker, v = runs
    generation = controller.run()
    assert generation == worker.generation and worker.last("run").variant.id == "naive"
    v.pages.show_page.assert_called_with("result")


def test_other_work_done_gives_the_badge_back_to_the_result_on_screen(runs):
    controller, worker, v = runs
    shown = result()
    controller.state.result = shown
    worker.started.emit("grading exercise 1")
    v.result.show_running.assert_called_with("grading exercise 1")
    worker.call_finished.emit(3, object())  # the grade (the exercise panel shows it)
    v.result.show_result.assert_called_with(shown)  # not "Grading exercise 1 …" for good
    controller.state.result = None
    worker.started.emit("grading exercise 1")
    worker.call_finished.emit(4, object())
    v.result.set_badge.assert_called_with("")


def test_a_refused_configuration_is_not_run(runs):
    controller, worker, v = runs
    v.panel.validate.return_value = False
    v.panel.refusal = Refusal("device: local size 4096 > 1024", "")
    assert controller.run() is None and controller.run_anyway() is None
    assert worker.requests == []
    v.panel.refusal = Refusal("L0 == TS", "", overridable=True)
    assert controller.run_anyway() is not None
    assert worker.last("run").anyway


def test_a_finished_run_is_in_the_state_its_history_and_every_view(runs):
    controller, worker, v = runs
    finished = []
    controller.run_finished.connect(lambda generation, r: finished.append(generation))
    worker.started.emit("running matmul/naive")
    assert controller.state.working
    v.result.show_running.assert_called_with("running matmul/naive")
    shown = result(arrays=True)
    worker.finished.emit(7, shown)
    st = controller.state
    assert st.result is shown and st.result.output is not None  # the image on screen
    assert [r.variant for r in st.history] == ["naive"]
    assert st.history[0].output is None and st.history[0].inputs is None  # figures only
    v.result.show_result.assert_called_with(shown)
    v.timing.show_run.assert_called_with(shown)
    assert said(v.status) == "test cpu · naive: verified, kernel 1.000 ms"
    assert finished == [7]
    worker.idle.emit()
    assert not st.working
    v.status.end_progress.assert_called()


def test_a_build_error_while_editing_keeps_the_last_good_result(runs):
    controller, worker, v = runs
    worker.finished.emit(1, result("mine"))
    v.result.reset_mock()
    broken = result("mine", error_kind="build")
    worker.finished.emit(2, broken)
    assert controller.state.result is broken and controller.state.last_good.variant == "mine"
    v.result.show_result.assert_not_called()
    assert "Showing the last good result" in v.result.set_badge.call_args.args[0]
    v.pages.show_page.assert_not_called()  # the result stays in front


def test_a_build_error_with_nothing_to_keep_shows_the_source(runs):
    _controller, worker, v = runs
    broken = result("mine", error_kind="build")
    worker.finished.emit(1, broken)
    v.result.show_result.assert_called_with(broken)
    v.pages.show_page.assert_called_with("source")


def test_the_tour_keeps_its_timing_bars(runs):
    controller, worker, v = runs
    controller.state.tour_stage = 0
    worker.finished.emit(1, result())
    v.timing.show_run.assert_not_called()


def test_compare_all_collects_its_own_batch_and_counts_the_verified(runs):
    controller, worker, v = runs
    shown = []
    controller.state.events.comparison.connect(shown.append)
    controller.compare_all()
    requests = worker.last("compare")
    ids = [r.variant.id for r in requests]
    assert ids == [variant.id for variant in controller.model.variants()] and len(ids) > 3
    assert all(r.sizes == controller.model.sizes and not r.keep_output for r in requests)
    v.status.start_progress.assert_called_with(len(requests))
    v.pages.show_page.assert_called_with("timing")
    assert shown == [()]  # the bars of the last comparison leave at once
    generation = worker.generation
    worker.compare_progress.emit(generation, 0, 2, result("naive"))
    worker.compare_progress.emit(generation - 1, 0, 9, result("stale"))  # another batch's
    worker.compare_progress.emit(generation, 1, 2, result("tiled", status="wrong"))
    v.status.set_progress.assert_called_with(2)
    assert [r.variant for r in controller.state.comparison] == ["naive", "tiled"]
    assert [r.variant for r in shown[-1]] == ["naive", "tiled"]
    # every run goes into the history, another batch's (a sweep's) too
    assert [r.variant for r in controller.state.history] == ["naive", "stale", "tiled"]
    worker.compare_finished.emit(generation)
    assert said(v.status) == "Compared 2 variants: 1 verified"


def test_compare_all_waits_for_a_device(runs):
    controller, worker, _v = runs
    controller.model.set_devices([], None)
    controller.compare_all()
    assert worker.requests == []


def test_cancel_stops_the_work_and_says_so(runs):
    controller, worker, v = runs
    worker.started.emit("running matmul/naive")
    controller.cancel()
    assert worker.cancelled == 1 and not controller.state.working
    v.result.set_badge.assert_called_with("Cancelled")
    assert said(v.status).startswith("Cancelled")
    v.status.end_progress.assert_called()
    v.status.work_ended.assert_called()


def test_the_panels_verdict_is_the_states(runs):
    controller, _worker, v = runs
    v.panel.refusal = Refusal("L0 == TILE", "", overridable=True)
    controller.set_validity(False)
    assert not controller.state.runnable and controller.state.overridable
    v.panel.refusal = None
    controller.set_validity(True)
    assert controller.state.runnable and controller.state.refusal is None
    assert not controller.state.overridable


def test_a_run_that_failed_says_so_in_the_status_bar(runs):
    controller, worker, v = runs
    generation = controller.run()
    worker.finished.emit(generation, result(error_kind="build"))
    assert "the run failed: error: expected ';'" in said(v.status)
    generation = controller.run()
    worker.finished.emit(generation, result())
    assert "failed" not in said(v.status)
