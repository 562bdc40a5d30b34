"""Work in flight: its elapsed time and a Cancel button in the status bar once it has taken a
second; a build that takes a second says so there; Cancel stops it and nothing of it is
shown; a trace that fails says so."""

import pytest

from tests.conftest import TEST_KERNELS
from tests.engine.slow_build import fresh_copy, slow_next_build
from tests.gui.conftest import trigger


@pytest.fixture
def hanging(window):
    """The window on a kernel that never returns."""
    assert window.controllers.kernels.open_kernel(str(TEST_KERNELS / "hang.cl"))
    return window


def shows_elapsed(window) -> bool:
    work = window.views.work
    return work.isVisibleTo(window) and work.label.text().endswith(" s")


@pytest.mark.parametrize("command", ["Run", "Trace"])
def test_a_slow_kernel_shows_its_elapsed_time_and_cancel_stops_it(hanging, qtbot, command):
    window = hanging
    window.show()
    v = window.views
    trigger(window, command)
    assert not v.work.isVisibleTo(window)  # not before a second has passed
    qtbot.waitUntil(lambda: shows_elapsed(window), timeout=10000)
    what = "Running" if command == "Run" else "Tracing"
    assert v.work.label.text().startswith(what)
    first = v.work.elapsed()
    qtbot.waitUntil(lambda: v.work.elapsed() > first + 0.3, timeout=5000)
    assert f"{v.work.elapsed():.1f}"[:-1] in v.work.label.text()  # it counts up

    v.work.cancel.click()  # the button beside it, as a person clicks it
    assert not v.work.isVisibleTo(window)
    assert "Cancelled" in v.result_view.badge.text()
    assert window.statusBar().currentMessage().startswith("Cancelled after")
    qtbot.waitUntil(lambda: not window.worker.busy, timeout=30000)
    # Nothing of the cancelled work is shown: no result, no trace, findings say cancelled.
    assert window.state.result is None and window.state.traced is None
    assert window.state.playback is None
    if command == "Trace":
        assert v.findings_view.summary.text().startswith("Cancelled")
    assert "Cancelled" in v.result_view.badge.text()


def test_a_slow_build_says_it_is_building_then_the_run_ends(window, qtbot, tmp_path, kept_executor):
    window.show()
    assert window.controllers.kernels.open_kernel(str(fresh_copy(tmp_path)))
    kept_executor.call(slow_next_build, 2.5)
    work = window.views.work
    trigger(window, "Run")
    qtbot.waitUntil(
        lambda: work.isVisibleTo(window) and work.label.text().startswith("Building"),
        timeout=20000,
    )
    text = work.label.text()
    assert "transpose/naive-copy" in text and "(first time; cached after) … " in text
    assert text.endswith(" s")  # the work's clock goes on
    qtbot.waitUntil(lambda: window.state.result is not None, timeout=60000)
    assert window.state.result.status == "verified", window.state.result.summary()
    assert not work.isVisibleTo(window)


BROKEN = """/*---
name = "Does not build"
family = "transpose"
kernel = "broken"
args = ["IN", "OUT", "WIDTH", "HEIGHT"]
global = ["WIDTH"]
local = ["1"]
---*/
__kernel void broken(const __global float* in, __global float* out, int width, int height)
{
    out[0] = in[0] +;
}
"""


def test_a_failed_trace_says_so_in_the_status_bar(window, qtbot, tmp_path):
    path = tmp_path / "broken.cl"
    path.write_text(BROKEN)
    assert window.controllers.kernels.open_kernel(str(path))
    trigger(window, "Trace")
    assert window.statusBar().currentMessage().startswith("Tracing")
    qtbot.waitUntil(lambda: window.state.traced is not None, timeout=120000)
    assert window.state.traced.analysis is None
    message = window.statusBar().currentMessage()
    assert "failed" in message and not message.startswith("Tracing")
    assert not window.views.work.isVisibleTo(window)


def test_the_run_button_says_why_it_is_disabled(window, qtbot):
    from PySide6.QtCore import Qt

    button = window.views.run_button
    assert button.isEnabled() and button.toolTip() == "Press Ctrl+R to run."
    edit = window.views.panel.local_edit
    edit.setFocus()
    qtbot.keyClicks(edit, "128x128")  # more work-items than any device's work-group takes
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert not button.isEnabled()
    assert button.toolTip().startswith("Run is disabled: ")


@pytest.mark.parametrize("name", ["anim.gif", "frame.png"])
def test_an_animation_export_shows_its_elapsed_time_and_cancel_leaves_no_file(
    window, qtbot, tmp_path, monkeypatch, name
):
    from tests.gui.conftest import answer_file_dialogs
    from tests.gui.test_execution import trace_in_window

    window.show()
    view = trace_in_window(window, qtbot, "matmul", "naive", {"M": 16, "N": 16, "K": 16})
    view.set_step(3)
    v = window.views
    said = []
    monkeypatch.setattr(type(v), "say", lambda self, text: said.append(text))
    clock = {"now": 0.0}

    class Clock:  # the export's clock: each frame drawn takes 0.2 s
        def start(self):
            clock["now"] = 0.0

        def isValid(self):
            return True

        def elapsed(self):
            return int(clock["now"] * 1000)

    monkeypatch.setattr(v.work, "_clock", Clock())
    frames, shown = [], []
    draw = type(view).set_step

    def slow_step(self, index):  # each frame takes a while: the export passes a second
        draw(self, index)
        frames.append(index)
        clock["now"] = 0.2 * len(frames)
        v.work._tick()
        if len(frames) == 8:
            shown.append(v.work.isVisibleTo(window) and v.work.label.text())
            v.work.cancel.click()  # as a person clicks it while the frames are drawn

    monkeypatch.setattr(type(view), "set_step", slow_step)
    answer_file_dialogs(monkeypatch, tmp_path / name)
    command = (
        "Export animation as GIF…" if name.endswith(".gif") else "Export animation as PNG frames…"
    )
    trigger(window, command)
    assert shown[0] and shown[0].startswith("Exporting") and shown[0].endswith("1.6 s")
    assert 8 <= len(frames) < view.steps  # stopped at the next frame, not at the end
    assert list(tmp_path.iterdir()) == []  # no file, no partial file, no frames
    assert said[-1].startswith("Export cancelled after")
    assert not v.work.isVisibleTo(window)
    assert window.state.playback is not None and view.current == 3  # the trace stays as it was


def test_a_run_cancelled_before_it_reached_the_device_never_starts(hanging, qtbot):
    """Cancel pressed while the run still waits behind other work on the worker's thread: the
    run is not sent at all (before, the request cleared the cancel as it started, and the
    kernel ran on until its timeout)."""
    import threading

    window = hanging
    worker = window.worker
    release = threading.Event()
    worker.call(lambda executors: release.wait(10), "holding the worker's thread")
    worker.run(window.model.request())  # the hanging kernel, queued behind it
    worker.cancel()
    release.set()
    qtbot.waitUntil(lambda: not worker.busy, timeout=5000)
