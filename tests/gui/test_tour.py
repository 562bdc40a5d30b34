"""The guided tour quotes what its own runs and traces measured, looks at the group the
person picked (else the showcase group, which has contrast), and traces every stage; the
showcase group of the README and the lesson lies on an edge of the text."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from types import SimpleNamespace
from unittest.mock import MagicMock

import numpy as np
import pytest
from PySide6.QtCore import QObject, Signal

from explorer.families import FAMILIES
from explorer.gui.controllers import roles
from explorer.gui.controllers.presenter import PresenterController
from explorer.gui.controllers.tour_stages import SHOWCASE_GROUP, SHOWCASE_SIZE, SHOWCASE_TILE
from tests.gui.controllers.fakes import FakeWorker, model_on, result, state, traced_run, views

ROOT = Path(__file__).resolve().parents[2]


class Shown(QObject):
    run_finished = Signal(int, object)


def _at(run, size: int, global_size, local_size):
    """A result as a run at ``size``³ with this NDRange reports it."""
    shapes = {"A": (size, size), "B": (size, size), "C": (size, size)}
    return dataclasses.replace(
        run,
        sizes={"M": size, "N": size, "K": size},
        global_size=global_size,
        local_size=local_size,
        shapes=shapes,
    )


@pytest.fixture
def tour():
    v = views()
    worker, shown, tracer = FakeWorker(), Shown(), MagicMock(spec=roles.Tracer)
    controller = PresenterController(
        model_on(), state(), worker, v.execution, v.result, tracer, shown.run_finished, MagicMock()
    )
    for name in ("M", "N", "K"):
        controller.model.set_size(name, 768)
    return controller, worker, v, shown, tracer


def _caption(v) -> str:
    return v.execution.set_caption.call_args.args[0]


def test_the_captions_quote_the_runs_and_traces_the_tour_made(tour):
    controller, worker, v, shown, _tracer = tour
    controller.start_tour()
    assert "768³" in _caption(v) and "64³" not in _caption(v)
    naive = _at(result("naive", median_ms=377.3), 768, (768, 768), (16, 16))
    shown.run_finished.emit(worker.generation, naive)
    assert "kernel 377.3 ms" in _caption(v)
    traced = traced_run(naive)
    controller.state.traced = traced
    loads = traced.analysis.global_bytes_read / traced.analysis.global_bytes_written
    assert f"{loads:,.0f} global loads per element of C" in _caption(v)
    controller.tour_next()
    tiled = _at(result("tiled", median_ms=37.73), 768, (768, 768), (16, 16))
    shown.run_finished.emit(worker.generation, tiled)
    assert "kernel 37.7 ms" in _caption(v) and "10.0× as fast as naive" in _caption(v)
    controller.state.traced = traced_run(naive)  # a late trace of another stage: not quoted
    assert "global loads" not in _caption(v)


def test_the_tour_traces_every_stage_around_the_showcase_group(tour):
    controller, worker, _v, shown, tracer = tour
    controller.start_tour()
    shown.run_finished.emit(worker.generation, _at(result("naive"), 768, (768, 768), (16, 16)))
    assert tracer.trace.call_args.args[0] == SHOWCASE_GROUP
    controller.tour_next()
    controller.tour_next()
    # reg2d: 16×8 work-items of 8×8 outputs each, a 64×128 tile of C per group.
    shown.run_finished.emit(worker.generation, _at(result("reg2d"), 768, (96, 96), (16, 8)))
    assert tracer.trace.call_args.args[0] == (2, 4, 0)  # the same spot of C
    assert tracer.trace.call_count == 2


def test_the_tour_keeps_the_group_the_person_picked(tour):
    controller, worker, _v, shown, tracer = tour
    picked = _at(result("tiled"), 768, (768, 768), (16, 16))
    controller.state.traced = traced_run(picked)
    controller.state.playback = SimpleNamespace(group=(3, 40, 0))
    controller.start_tour()
    shown.run_finished.emit(worker.generation, _at(result("naive"), 768, (768, 768), (16, 16)))
    assert tracer.trace.call_args.args[0] == (3, 40, 0)


def test_a_failed_stage_is_not_traced_and_says_so(tour):
    controller, worker, v, shown, tracer = tour
    controller.start_tour()
    shown.run_finished.emit(worker.generation, result("naive", status="error", error_kind="build"))
    tracer.trace.assert_not_called()
    assert "This run: error" in _caption(v)


def test_the_showcase_group_has_contrast_and_the_readme_and_lesson_use_it():
    inputs = FAMILIES["matmul"].make_inputs(
        {"M": SHOWCASE_SIZE, "N": SHOWCASE_SIZE, "K": SHOWCASE_SIZE}, np.dtype(np.float32), "iou"
    )
    gx, gy, _ = SHOWCASE_GROUP
    rows = slice(gy * SHOWCASE_TILE, (gy + 1) * SHOWCASE_TILE)
    cols = slice(gx * SHOWCASE_TILE, (gx + 1) * SHOWCASE_TILE)
    tile = inputs["B"][rows, cols]  # the tile of B the group loads at its diagonal step (= C/1.5)
    text = float((tile == 0).mean())
    assert 0.25 < text < 0.75  # part text, part background: the values differ
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = re.search(r"--size 768 --input iou --group (\d+),(\d+)", readme)
    assert command and (int(command[1]), int(command[2])) == (gx, gy)
    lesson = next((ROOT / "resources" / "lessons").glob("*768*.kexp.json"))
    assert json.loads(lesson.read_text(encoding="utf-8"))["view"]["group"] == [gx, gy]


@pytest.mark.parametrize(
    ("defines", "said"),
    [
        # the CPU default (by_size): 4×4 blocks, 64×64 tiles of C
        (
            {"TSM": 64, "TSN": 64, "TSK": 16, "WPTM": 4, "WPTN": 4, "DBUF": 0},
            "a block of 4×4 elements of C from values held in registers, fed from 64×16 and "
            "16×64 tiles",
        ),
        # the GPU default: 8×8 blocks, 64×128 tiles of C
        (
            {"TSM": 64, "TSN": 128, "TSK": 16, "WPTM": 8, "WPTN": 8, "DBUF": 0},
            "a block of 8×8 elements of C from values held in registers, fed from 64×16 and "
            "16×128 tiles",
        ),
    ],
)
def test_a_stage_caption_gives_the_sizes_its_own_run_was_built_with(tour, defines, said):
    """The register-blocked stage on PoCL runs 4×4 blocks of a 64×64 tile (its header's rule
    for a CPU): the caption said 8×8 and 16×128, the GPU's, under a picture of Bsub 16×64."""
    controller, worker, v, shown, _tracer = tour
    controller.start_tour()
    shown.run_finished.emit(worker.generation, _at(result("naive"), 768, (768, 768), (16, 16)))
    controller.tour_next()
    tiled = dataclasses.replace(result("tiled"), defines={"TS": 8})
    shown.run_finished.emit(worker.generation, _at(tiled, 768, (768, 768), (8, 8)))
    assert "copies 8×8 tiles of A and of B" in _caption(v)
    controller.tour_next()
    idea = _caption(v).split("\n")[0]  # the run is not back: no sizes yet
    assert idea.endswith(
        "computes a block of C from values held in registers, fed from tiles of A and B in "
        "local memory."
    )
    reg2d = dataclasses.replace(result("reg2d"), defines=defines)
    local = (defines["TSN"] // defines["WPTN"], defines["TSM"] // defines["WPTM"])
    shown.run_finished.emit(worker.generation, _at(reg2d, 768, (768 // 4, 768 // 4), local))
    assert said in _caption(v)
