"""The presenter controller with a fake worker and mocked views: presenter mode in and out,
what Space and → mean, and the guided tour's stages. (That the keys reach it wherever the
focus is, is the window's test: tests/gui/test_execution.py.)"""

from __future__ import annotations

from unittest.mock import MagicMock

import pytest
from PySide6.QtCore import QObject, Signal

from explorer.gui.controllers import roles
from explorer.gui.controllers.presenter import CLOSING, TOUR, PresenterController
from explorer.gui.model import ConfigModel
from tests.gui.controllers.fakes import FakeWorker, model_on, result, state, views


class Shown(QObject):
    run_finished = Signal(int, object)


@pytest.fixture
def presenter():
    v = views()
    worker = FakeWorker()
    shown = Shown()
    tracer = MagicMock(spec=roles.Tracer)
    layout = MagicMock()
    controller = PresenterController(
        model_on(), state(), worker, v.execution, v.result, tracer, shown.run_finished, layout
    )
    return controller, worker, v, shown, tracer, layout


def test_presenter_mode_lays_the_window_out_once_each_way(presenter):
    controller, _worker, v, _shown, _tracer, layout = presenter
    told = []
    controller.state.events.presenting.connect(told.append)
    controller.toggle()
    layout.assert_called_once_with(True, True)
    assert controller.state.presenting and told == [True]
    controller.set_presenter(True)  # already presenting: nothing again
    assert layout.call_count == 1
    controller.leave()
    layout.assert_called_with(False, True)
    assert not controller.state.presenting and told == [True, False]
    v.execution.set_caption.assert_called_with("")


def test_space_and_right_step_the_animation_outside_a_tour(presenter):
    controller, _worker, v, *_ = presenter
    controller.space()
    v.execution.toggle_play.assert_called_once()
    controller.forward()
    v.execution.step_forward.assert_called_once()
    controller.step_back()
    controller.first_step()
    controller.last_step()
    v.execution.step_back.assert_called_once()
    v.execution.first_step.assert_called_once()
    v.execution.last_step.assert_called_once()


def test_the_tour_runs_each_stage_traces_it_and_grows_the_bars(presenter):
    controller, worker, v, shown, tracer, layout = presenter
    controller.model.set_input("random")
    for name in ("M", "N", "K"):
        controller.model.set_size(name, 768)
    controller.start_tour()
    layout.assert_called_once_with(True, True)
    st = controller.state
    assert st.tour_stage == 0 and st.touring
    assert controller.model.variant.id == "naive" and controller.model.input == "iou"
    assert v.execution.set_caption.call_args.args[0].startswith("1 · naive, 768³")
    assert worker.last("run").variant.id == "naive"
    bars = []
    st.events.tour_results.connect(bars.append)
    shown.run_finished.emit(worker.generation - 1, result("other"))  # not the stage's run
    assert st.tour_results == () and bars == []
    shown.run_finished.emit(worker.generation, result("naive"))
    assert [r.variant for r in bars[-1]] == ["naive"]
    tracer.trace.assert_called_once()  # the naive stage is traced
    worker.busy = True
    controller.space()  # while the trace runs, Space waits
    assert st.tour_stage == 0
    worker.busy = False
    controller.forward()
    controller.tour_next()
    assert st.tour_stage == 2 and controller.model.variant.id == "reg2d"
    assert v.execution.set_caption.call_args.args[0].startswith("3 · register-blocked")
    v.execution.clear.assert_called()  # the tiled stage's animation does not stay
    shown.run_finished.emit(worker.generation, result("reg2d"))
    assert tracer.trace.call_count == 2  # the tiled stage's run never came; reg2d is traced
    last_caption = v.execution.set_caption.call_args.args[0]
    controller.space()
    assert st.tour_stage == len(TOUR)
    v.result.set_badge.assert_called_with(CLOSING)
    v.execution.set_caption.assert_called_with(last_caption)  # the last caption stays
    controller.leave()
    assert not st.touring
    v.execution.set_caption.assert_called_with("")


def test_the_tour_waits_for_a_device(presenter):
    controller, worker, _v, _shown, _tracer, layout = presenter
    controller.model = ConfigModel()
    controller.start_tour()
    layout.assert_not_called()
    assert worker.requests == [] and not controller.state.touring
