"""The kernel-files controller with fakes: a saved kernel is re-run and, when its animation
was showing, re-traced at the same group and phase; a file that is not UTF-8 keeps the last
good run; an image goes only where a family takes one."""

from __future__ import annotations

from pathlib import Path
from unittest.mock import MagicMock

import pytest
from PySide6.QtCore import QObject, Signal

from explorer.engine.header.catalog import load_variant_file
from explorer.gui.controllers import roles
from explorer.gui.controllers.kernel_files import KernelFilesController
from explorer.trace.grids import make_grids
from explorer.trace.playback import Playback
from tests.gui.controllers.fakes import model_on, result, said, state, traced_run, views

TILED = Path(__file__).parents[3] / "kernels" / "matmul" / "tiled.cl"


class FakeRunner(QObject):
    run_finished = Signal(int, object)

    def __init__(self) -> None:
        super().__init__()
        self.runs = 0

    def run(self) -> int:
        self.runs += 1
        return 100 + self.runs


@pytest.fixture
def kernels(qapp, tmp_path):
    v = views()
    runner, tracer = FakeRunner(), MagicMock(spec=roles.Tracer)
    controller = KernelFilesController(model_on(), state(), runner, tracer, v.execution, v.status)
    path = tmp_path / "tiles.cl"
    path.write_text(TILED.read_text())
    controller.use_kernel(load_variant_file(path))
    yield controller, runner, tracer, v, path
    controller.watcher.removePaths(controller.watcher.files())


def _showing_a_trace(controller, v, step):
    traced = traced_run()
    trace = traced.trace
    playback = Playback(trace, make_grids(trace, traced.result.shapes))
    assert playback.select_group((1, 0, 0))
    controller.state.traced, controller.state.playback = traced, playback
    v.execution.current = step
    return playback


def test_a_kernel_is_watched_once_opened(kernels):
    controller, _runner, _tracer, v, path = kernels
    assert controller.model.variant.path == str(path)
    assert controller.watcher.files() == [str(path)]
    assert said(v.status) == f"Opened {path}; saving it re-runs it"


def test_a_reload_after_a_trace_traces_again_at_the_same_group_and_phase(kernels):
    controller, runner, tracer, v, path = kernels
    playback = _showing_a_trace(controller, v, step=5)
    phase = playback.steps[5].phase
    path.write_text(TILED.read_text() + "\n// saved again\n")
    controller._changed_path = str(path)
    controller.reload_kernel()
    assert runner.runs == 1 and controller.state.reloads == 1
    assert controller.state.keep_view == ((1, 0, 0), phase)
    assert controller.model.variant.source.endswith("// saved again\n")
    runner.run_finished.emit(99, result("tiles"))  # another run's: not this reload's
    tracer.trace.assert_not_called()
    runner.run_finished.emit(101, result("tiles"))
    tracer.trace.assert_called_once_with((1, 0, 0))


def test_a_reload_that_does_not_build_leaves_the_animation_as_it_was(kernels):
    controller, runner, tracer, v, path = kernels
    _showing_a_trace(controller, v, step=0)
    controller._changed_path = str(path)
    controller.reload_kernel()
    runner.run_finished.emit(101, result("tiles", error_kind="build"))
    tracer.trace.assert_not_called()
    assert controller.state.keep_view is None


def test_an_image_goes_only_to_a_family_that_takes_one(kernels, tmp_path):
    controller, *_rest, v, _path = kernels
    controller.model.set_family("rowdot")
    assert not controller.open_image(str(tmp_path / "x.png"))
    assert said(v.status) == "Images are inputs of matmul and transpose only"
    controller.model.set_family("transpose")
    assert controller.open_image(str(tmp_path / "x.png"))
    assert controller.model.input == "image"
