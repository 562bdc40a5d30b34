"""The window's cases of "nothing takes it down": cancel and close during work, a kernel
switched mid-trace, exports, files in other encodings, a session pointing elsewhere."""

from __future__ import annotations

import json
import time

import pytest

from explorer.engine.header.catalog import find_variant
from tests.conftest import TEST_KERNELS
from tests.gui.conftest import run_and_wait, trigger
from tests.robustness.helpers import KERNELS

pytest.importorskip("pytestqt")


def test_7_closing_the_window_during_a_hung_kernel_returns_within_a_second(window, qtbot):
    assert window.controllers.kernels.open_kernel(str(TEST_KERNELS / "hang.cl"))
    trigger(window, "Run")
    qtbot.wait(1500)
    assert window.worker.busy
    started = time.monotonic()
    window.close()
    assert time.monotonic() - started < 1.0


def test_7_cancel_also_reaches_the_oclgrind_process(window, qtbot):
    worker = window.worker
    worker._job.checker = checker = type(worker._executor)()  # a second process, as Oclgrind's
    try:
        cancelled = []
        checker.cancel = lambda: cancelled.append(True)
        worker._pending = 1
        worker.cancel()
        assert cancelled
    finally:
        worker._pending = 0
        checker.close()


def test_8_a_family_switch_mid_trace_discards_that_trace(window, qtbot):
    trigger(window, "Trace")
    window.model.set_family("rowdot")  # its sizes have no D in the traced family: KeyError before
    qtbot.waitUntil(lambda: not window.worker.busy, timeout=120000)
    qtbot.wait(200)
    assert window.state.traced is None and window.state.playback is None
    assert "Discarded the trace" in window.statusBar().currentMessage()


def test_9_a_non_utf8_kernel_opened_in_the_window_is_a_message(window, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    shown = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda *a: shown.append(a[2])))
    assert not window.controllers.kernels.open_kernel(str(KERNELS / "latin1.cl"))
    assert shown and "not UTF-8" in shown[0]


def test_9_a_kernel_reloaded_as_non_utf8_keeps_the_last_good_run(window, qtbot, tmp_path):
    path = tmp_path / "k.cl"
    path.write_bytes((KERNELS / "write_past_end.cl").read_bytes())
    assert window.controllers.kernels.open_kernel(str(path))
    path.write_bytes(path.read_bytes().replace(b"Transposes", b"Transpos\xe9s"))
    window.controllers.kernels._changed_path = str(path)
    window.controllers.kernels.reload_kernel()
    assert "not UTF-8" in window.statusBar().currentMessage()


def test_11_an_svg_export_into_a_missing_folder_says_so(window, tmp_path):
    exports = window.controllers.exports
    target = tmp_path / "missing" / "view.svg"
    assert not exports.view_svg(window.views.timing_view, str(target))
    assert "Could not write" in window.statusBar().currentMessage()


def test_12_the_window_history_holds_no_arrays(window, qtbot):
    window.model.set_variant(find_variant("transpose", "naive"))
    for _ in range(3):
        run_and_wait(qtbot, window)
    assert window.state.result.output is not None  # the image on screen
    assert all(r.output is None and r.inputs is None for r in window.state.history)


def test_13_a_session_running_a_kernel_from_elsewhere_asks_first(window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    asked = []

    def decline(*args):
        asked.append(args[2])
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr(QMessageBox, "question", staticmethod(decline))
    kernel = tmp_path / "elsewhere" / "k.cl"
    kernel.parent.mkdir()
    kernel.write_bytes((KERNELS / "write_past_end.cl").read_bytes())
    (tmp_path / "here").mkdir()
    path = tmp_path / "here" / "s.kexp.json"
    path.write_text(
        json.dumps(
            {
                "format": "kernel-explorer-session",
                "version": 1,
                "family": "transpose",
                "kernel_path": str(kernel),
            }
        )
    )
    before = window.model.variant
    assert not window.controllers.sessions.open(str(path))
    assert asked and str(kernel) in asked[0]
    assert window.model.variant == before


def test_11_every_export_into_a_missing_folder_says_so_and_writes_nothing(
    window, qtbot, monkeypatch, tmp_path
):
    from tests.gui.conftest import answer_file_dialogs, trace_and_wait

    window.model.set_variant(find_variant("transpose", "naive"))
    window.model.set_size("WIDTH", 32)
    window.model.set_size("HEIGHT", 32)
    run_and_wait(qtbot, window)
    trace_and_wait(qtbot, window)
    missing = tmp_path / "missing"
    for item, name in (
        ("Export timing history as CSV…", "h.csv"),
        ("Export timing history as JSON…", "h.json"),
        ("Export timing chart as PNG…", "t.png"),
        ("Export view as SVG…", "v.svg"),
        ("Export animation as GIF…", "a.gif"),
        ("Export animation as PNG frames…", "frame.png"),
    ):
        answer_file_dialogs(monkeypatch, missing / name)
        trigger(window, item)  # a raised error would fail the test here
        message = window.statusBar().currentMessage()
        assert "Could not write" in message and "Wrote" not in message, (item, message)
        assert not missing.exists(), item


def test_3_the_fix_search_runs_off_the_gui_thread_and_its_fix_arrives(window, qtbot, monkeypatch):
    import threading

    from explorer.engine.launch import plan as ndrange

    searched_on = []
    search = ndrange._suggest

    def recording(*args, **kwargs):
        searched_on.append(threading.current_thread())
        return search(*args, **kwargs)

    monkeypatch.setattr(ndrange, "_suggest", recording)
    window.model.set_variant(find_variant("matmul", "tiled"))
    window.model.set_local((2_000_001, 16))  # against the kernel's own L0 == TS
    panel = window.views.panel
    assert "Refused" in panel.validation.text()  # the reason, at once
    qtbot.waitUntil(lambda: "Try the local size L0 = 16" in panel.validation.text(), timeout=5000)
    assert threading.main_thread() not in searched_on
