"""The window's one way to run work off the GUI thread (a lane): work runs in order on a
thread of its own and its answer comes back on the GUI thread; an idle lane holds no thread;
a stopped lane, or one whose widget is gone, delivers nothing more."""

from __future__ import annotations

import ast
import threading
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QTimer

from explorer.gui.background import Lane, off_gui_thread, stop_all

ROOT = Path(__file__).resolve().parents[2]


def _threads(name: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == name]


def test_work_runs_in_order_off_the_gui_thread_and_answers_on_it(qtbot):
    lane = Lane("lane-under-test")
    ran_on: list[str] = []
    answered: list[tuple[int, str]] = []

    def work(n: int) -> int:
        ran_on.append(threading.current_thread().name)
        time.sleep(0.02)
        return n

    for n in range(3):
        lane.submit(
            lambda n=n: work(n), lambda v: answered.append((v, threading.current_thread().name))
        )
    assert lane.busy
    qtbot.waitUntil(lambda: len(answered) == 3, timeout=5000)
    assert ran_on == ["lane-under-test"] * 3
    assert answered == [(n, threading.main_thread().name) for n in range(3)]
    qtbot.waitUntil(lambda: not _threads("lane-under-test"), timeout=5000)  # idle: no thread
    assert not lane.busy


def test_a_stopped_lane_drops_waiting_work_and_delivers_nothing(qtbot):
    lane = Lane("lane-stopped")
    release = threading.Event()
    answered: list[str] = []
    lane.submit(lambda: release.wait(5) and "first", answered.append)
    lane.submit(lambda: answered.append("never ran"))
    releaser = threading.Timer(0.1, release.set)
    releaser.start()
    started = time.monotonic()
    assert lane.stop(5.0)  # the one in flight finished; the waiting one never ran
    assert time.monotonic() - started < 5.0
    releaser.join()
    qtbot.wait(100)
    assert answered == []
    assert not _threads("lane-stopped")
    lane.submit(lambda: answered.append("after"))  # refused
    qtbot.wait(50)
    assert answered == [] and not lane.busy


def test_nothing_reaches_a_widget_that_is_gone(qtbot):
    owner = QObject()
    lane = Lane("lane-owned", owner=owner)
    release = threading.Event()
    answered: list[object] = []
    lane.submit(lambda: release.wait(5), answered.append)
    owner.deleteLater()
    qtbot.wait(50)  # the deletion is processed
    release.set()
    qtbot.waitUntil(lambda: not _threads("lane-owned"), timeout=5000)
    qtbot.wait(50)
    assert answered == []


def test_an_error_in_the_work_is_raised_on_the_gui_thread(qtbot):
    lane = Lane("lane-raising")
    answered: list[object] = []

    def fails() -> None:
        raise ValueError("the file ends early")

    with qtbot.captureExceptions() as raised:
        lane.submit(fails, answered.append)
        qtbot.waitUntil(lambda: bool(raised), timeout=5000)
    (kind, error, _) = raised[0]
    assert kind is ValueError and str(error) == "the file ends early"
    assert answered == []


def test_a_caller_waits_for_the_answer_while_the_window_keeps_answering(qtbot):
    ticks: list[int] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(10)
    try:
        value = off_gui_thread(lambda: time.sleep(0.3) or threading.current_thread().name)
    finally:
        timer.stop()
    assert value == "file-reader"
    assert len(ticks) >= 5  # the event loop ran while it waited
    with pytest.raises(OSError, match="gone"):
        off_gui_thread(lambda: (_ for _ in ()).throw(OSError("gone")))
    assert not _threads("file-reader")


def test_stop_all_ends_every_lane_still_working():
    release = threading.Event()
    lane = Lane("lane-left")
    lane.submit(lambda: release.wait(0.3))
    assert stop_all(5.0) == []
    assert not _threads("lane-left")


def test_the_gui_makes_no_thread_but_through_a_lane():
    """One way: no module of the window starts a thread, a Qt thread or a pool of its own."""
    makers = {"Thread", "QThread", "QThreadPool", "ThreadPoolExecutor", "Timer", "QRunnable"}
    found = []
    for path in [*sorted((ROOT / "explorer" / "gui").rglob("*.py")), ROOT / "explorer" / "app.py"]:
        if path.name == "background.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            name = ""
            if isinstance(node, ast.Attribute):
                name = node.attr
            elif isinstance(node, ast.Name):
                name = node.id
            elif isinstance(node, ast.alias):
                name = node.name.split(".")[-1]
            if name in makers or name == "concurrent":
                found.append(f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}: {name}")
    assert found == []
