"""The window's cases of "nothing takes it down": cancel and close during work, a kernel
switched mid-trace, exports, files in other encodings, a session pointing elsewhere. Those
that are a controller's are tested on the controller alone, with a fake worker and mocked
views (tests/gui/controllers/fakes.py); those of the window itself on the window."""

from __future__ import annotations

import json
import time

import pytest

from explorer.engine.header.catalog import find_variant
from tests.conftest import TEST_KERNELS
from tests.gui.conftest import run_and_wait, trigger
from tests.gui.controllers.fakes import FakeWorker, model_on, result, said, state, traced_run, views
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


def test_7_cancel_also_reaches_the_oclgrind_process(qapp):
    from explorer.gui.worker import Worker

    worker = Worker()
    worker._job.checker = checker = type(worker._executor)()  # a second process, as Oclgrind's
    try:
        cancelled = []
        checker.cancel = lambda: cancelled.append(True)
        worker._pending = 1
        worker.cancel()
        assert cancelled
    finally:
        worker._pending = 0
        worker.shutdown()
        checker.close()


def test_8_a_family_switch_mid_trace_discards_that_trace():
    from explorer.gui.controllers.traces import TraceController

    v, worker = views(), FakeWorker()
    v.panel.validate.return_value = True
    traces = TraceController(
        model_on(),
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
    traces.trace()
    traces.model.set_family("rowdot")  # its sizes have no D in the traced family: KeyError before
    worker.trace_finished.emit(traced_run())
    assert traces.state.traced is None and traces.state.playback is None
    v.execution.set_playback.assert_not_called()
    assert "Discarded the trace" in said(v.status)


def test_9_a_non_utf8_kernel_opened_in_the_window_is_a_message(qapp, monkeypatch):
    from unittest.mock import MagicMock

    from PySide6.QtWidgets import QMessageBox

    from explorer.gui.controllers import roles
    from explorer.gui.controllers.kernel_files import KernelFilesController

    shown = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda *a: shown.append(a[2])))
    v = views()
    kernels = KernelFilesController(
        model_on(),
        state(),
        MagicMock(spec=roles.Runner),
        MagicMock(spec=roles.Tracer),
        v.execution,
        v.status,
    )
    assert not kernels.open_kernel(str(KERNELS / "latin1.cl"))
    assert shown and "not UTF-8" in shown[0]
    assert kernels.watcher.files() == []


def test_9_a_kernel_reloaded_as_non_utf8_keeps_the_last_good_run(qapp, tmp_path):
    from unittest.mock import MagicMock

    from explorer.engine.header.catalog import load_variant_file
    from explorer.gui.controllers import roles
    from explorer.gui.controllers.kernel_files import KernelFilesController

    path = tmp_path / "k.cl"
    path.write_bytes((KERNELS / "write_past_end.cl").read_bytes())
    v, runner = views(), MagicMock(spec=roles.Runner)
    kernels = KernelFilesController(
        model_on(), state(), runner, MagicMock(spec=roles.Tracer), v.execution, v.status
    )
    kernels.use_kernel(load_variant_file(path))
    path.write_bytes(path.read_bytes().replace(b"Transposes", b"Transpos\xe9s"))
    kernels._changed_path = str(path)
    kernels.reload_kernel()
    assert "not UTF-8" in said(v.status)
    runner.run.assert_not_called()
    kernels.watcher.removePaths(kernels.watcher.files())


def test_12_the_window_history_holds_no_arrays():
    from explorer.gui.controllers.runs import RunsController

    v, worker = views(), FakeWorker()
    runs = RunsController(
        model_on(), state(), worker, v.panel, v.result, v.timing, v.status, v.pages
    )
    for generation in range(3):
        worker.finished.emit(generation, result("naive", arrays=True))
    assert runs.state.result.output is not None  # the image on screen
    assert len(runs.state.history) == 3
    assert all(r.output is None and r.inputs is None for r in runs.state.history)


def test_13_a_session_running_a_kernel_from_elsewhere_asks_first(tmp_path, monkeypatch):
    from unittest.mock import MagicMock

    from PySide6.QtWidgets import QMessageBox

    from explorer.gui.controllers import roles
    from explorer.gui.controllers.sessions import SessionController

    v = views()

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
    sessions = SessionController(
        model_on(),
        state(),
        MagicMock(spec=roles.Tracer),
        v.execution,
        v.result,
        v.status,
        v.pages,
    )
    before = sessions.model.variant
    assert not sessions.open(str(path))
    assert asked and str(kernel) in asked[0]
    assert sessions.model.variant == before


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


@pytest.mark.long
def test_fuzz_the_window_opens_generated_sim_files_and_sessions_without_freezing(
    window, qtbot, tmp_path, monkeypatch
):
    """File ▸ Open on generated .sim files and sessions (FIFOs, devices, huge sizes, other
    encodings, files outside the session's folder): each ends in the window or in a message,
    no exception escapes a slot, the window keeps drawing meanwhile, and a session that uses
    a file outside its folder is asked about, naming it."""
    import random

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QMessageBox

    from tests.robustness.generated import FUZZ_SCALE, session_cases, sim_cases

    warned, asked = [], []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warned.append(a[2]))

    def question(parent, title, text, *rest):
        asked.append(text)
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr(QMessageBox, "question", question)
    ticks = []
    beat = QTimer()
    beat.timeout.connect(lambda: ticks.append(time.monotonic()))
    beat.start(50)
    rng = random.Random(29)
    sims = sim_cases(rng, tmp_path, 8 * FUZZ_SCALE)
    sessions = session_cases(rng, tmp_path, 8 * FUZZ_SCALE)
    try:
        for case in sims:
            started, beats = time.monotonic(), len(ticks)
            window.controllers.kernels.open_kernel(case.args[2])
            took = time.monotonic() - started
            assert took < 10, case.args
            assert took < 0.5 or len(ticks) > beats, case.args  # it drew meanwhile
        for case in sessions:
            asked.clear()
            refused = len(warned)
            opened = window.controllers.sessions.open(case.args[2])
            if len(warned) > refused:  # not a usable session: refused before using any file
                assert not opened
                continue
            for path in case.outside:
                assert not opened and any(path in text for text in asked), (case.args, asked)
    finally:
        beat.stop()
    assert all(len(text) < 2000 for text in warned)


def test_1_opening_a_slow_sim_file_keeps_the_window_drawing(window, tmp_path, monkeypatch):
    """The .sim file is read and expanded off the GUI thread: while it takes a second, the
    window's timers still fire; an exception in the reader ends as a message, not in the slot."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QMessageBox

    from explorer.gui.controllers import kernel_files

    def slow(path):
        time.sleep(1.0)
        raise MemoryError  # what expanding a huge field used to end in

    monkeypatch.setattr(kernel_files, "load_variant_file", slow)
    warned = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warned.append(a[2]))
    ticks = []
    beat = QTimer()
    beat.timeout.connect(lambda: ticks.append(1))
    beat.start(50)
    try:
        opened = window.controllers.kernels.open_kernel(str(tmp_path / "huge.sim"))
    finally:
        beat.stop()
    assert not opened and len(ticks) >= 10
    assert warned and "huge.sim" in warned[0] and "cannot be opened" in warned[0]
