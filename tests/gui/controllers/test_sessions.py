"""The session controller with mocked views: a session saved with its view and reopened, one
that runs a kernel from elsewhere asks first, a missing device is a notice, a lesson traces,
and the window opens on something alive."""

from __future__ import annotations

import json
import os
from unittest.mock import MagicMock

import pytest

from explorer.engine.header.catalog import find_variant
from explorer.gui.controllers import roles
from explorer.gui.controllers.sessions import SessionController
from explorer.gui.model import ConfigModel
from explorer.paths import resources_dir
from explorer.session import load_session
from explorer.trace.grids import make_grids
from explorer.trace.playback import Playback
from tests.conftest import TEST_KERNELS
from tests.gui.controllers.fakes import device, model_on, said, state, traced_run, views


def _sessions(model=None):
    v = views()
    tracer = MagicMock(spec=roles.Tracer)
    controller = SessionController(
        model or model_on(), state(), tracer, v.execution, v.result, v.status, v.pages
    )
    return controller, tracer, v


def test_a_session_keeps_the_configuration_the_tab_and_the_step_shown(tmp_path):
    controller, _tracer, v = _sessions()
    model = controller.model
    model.set_family("transpose")
    model.set_variant(find_variant("transpose", "fast"))
    model.set_size("WIDTH", 300)
    model.set_local((32, 8))
    trace = traced_run().trace
    controller.state.playback = playback = Playback(trace, make_grids(trace, {}))
    v.pages.current_tab.return_value = "execution"
    v.execution.current = 4
    path = tmp_path / "s.kexp.json"
    assert controller.save(str(path))
    assert said(v.status) == f"Saved {path}"
    session = load_session(path)
    assert (session.family, session.variant, session.local) == ("transpose", "fast", (32, 8))
    assert session.sizes["WIDTH"] == 300 and session.device.name == device().name
    assert session.view == {
        "tab": "grid",
        "group": list(playback.group),
        "phase": playback.steps[4].phase,
    }
    again, _tracer, shown = _sessions()
    assert again.open(str(path))
    assert (again.model.family, again.model.variant.id) == ("transpose", "fast")
    assert again.model.sizes["WIDTH"] == 300 and again.model.local == (32, 8)
    shown.pages.show_page.assert_called_with("execution")
    assert said(shown.status) == f"Opened {path}"


def test_a_session_from_another_machine_says_its_device_is_missing(tmp_path):
    controller, _tracer, _v = _sessions()
    path = tmp_path / "s.kexp.json"
    assert controller.save(str(path))
    data = json.loads(path.read_text())
    data["device"] = "A100-SXM4-80GB"
    path.write_text(json.dumps(data))
    model = ConfigModel()  # the devices are not known yet
    again, _tracer, _v = _sessions(model)
    notices = []
    again.state.events.notice.connect(notices.append)
    assert again.open(str(path))
    assert notices == []
    model.set_devices([device()], device().key)
    assert len(notices) == 1 and "A100-SXM4-80GB" in notices[0]
    assert again.state.notice == notices[0]


def test_a_lesson_opens_and_traces_around_its_group():
    controller, tracer, _v = _sessions()
    path = next(p for p in (resources_dir() / "lessons").glob("*.kexp.json") if "768" in p.name)
    controller.open_lesson(str(path))
    assert controller.model.variant.id == "tiled" and controller.model.sizes["M"] == 768
    named = load_session(path).view["group"]
    tracer.trace.assert_called_once_with((named[0], named[1], 0))


def test_a_lesson_run_anyway_traces_anyway():
    controller, tracer, _v = _sessions()
    path = next(p for p in (resources_dir() / "lessons").glob("*.kexp.json") if "anyway" in p.name)
    controller.open_lesson(str(path))
    tracer.trace_anyway.assert_called_once()
    tracer.trace.assert_not_called()


@pytest.mark.parametrize("restored", [False, True])
def test_the_window_opens_on_the_iou_demo_or_the_last_session(restored):
    controller, _tracer, v = _sessions()
    controller.model.set_size("M", 64)
    controller.open_start(restored)
    v.pages.show_page.assert_called_with("result")
    hint = controller.state.hint  # the result adds how to run it (see test_freshness)
    if restored:
        assert hint == "The last session is open"
        assert controller.model.sizes["M"] == 64
    else:
        assert hint.startswith("The IOU demo is ready")
        model = controller.model
        assert (model.variant.id, model.sizes, model.input) == (
            "tiled",
            {"M": 768, "N": 768, "K": 768},
            "iou",
        )


def test_a_session_using_a_kernel_from_elsewhere_asks_before_reading_it(tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    kernel = elsewhere / "mine.cl"
    kernel.write_bytes((TEST_KERNELS / "tiled_off_by_one.cl").read_bytes())
    long_ago = 1_000_000_000
    os.utime(kernel, (long_ago, long_ago))
    (tmp_path / "shared").mkdir()
    path = tmp_path / "shared" / "s.kexp.json"
    session = {"format": "kernel-explorer-session", "version": 1, "family": "matmul"}
    path.write_text(json.dumps({**session, "kernel_path": str(kernel)}))
    controller, _tracer, v = _sessions()
    asked = []
    monkeypatch.setattr(controller, "confirm_outside", lambda files: asked.append(files) or False)
    assert not controller.open(str(path))
    assert asked == [f"kernel file: {kernel}"]
    assert kernel.stat().st_atime == long_ago  # refused: the kernel was never read
    assert said(v.status) == f"Did not open {path}"
    monkeypatch.setattr(controller, "confirm_outside", lambda files: True)
    assert controller.open(str(path))
    assert controller.model.variant.path == str(kernel)
