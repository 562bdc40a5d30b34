"""A capture in the window: File ▸ Open capture, or a capture folder dropped on the window,
lists the program's launches; choosing one replays it with its captured inputs, traces and
animates it, and the verdict says whether it matches the original run, naming the elements
where it does not."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QPushButton

from explorer.capture.folder import load_capture
from tests.capture.conftest import replace_contents
from tests.gui.conftest import trigger
from tests.robustness.helpers import cli

PROGRAM = Path(__file__).parents[1] / "capture" / "programs" / "pipeline.py"


@pytest.fixture(scope="module")
def pipeline(kept_executor, tmp_path_factory) -> Path:
    """The pipeline program (scale, relax four times, total) captured on the tests' device."""
    from explorer.engine.launch.devices import default_device

    device = default_device(kept_executor.devices())
    folder = tmp_path_factory.mktemp("pipeline")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYOPENCL_CTX", device.key)
        outcome = cli("capture", str(folder), "--launches", "5", "--", sys.executable, str(PROGRAM))
    assert outcome.code == 0, outcome.err
    return folder


def timeline(window):
    view = window.controllers.captures.view
    assert view is not None, "no capture timeline"
    return view


def rows(view) -> list[tuple[str, ...]]:
    table = view.table
    return [
        tuple(table.item(r, c).text() for c in range(table.columnCount()))
        for r in range(table.rowCount())
    ]


def wait_verdict(qtbot, view, words: str) -> str:
    qtbot.waitUntil(lambda: words in view.verdict.text(), timeout=60000)
    return view.verdict.text()


def button(view, text: str) -> QPushButton:
    return next(b for b in view.findChildren(QPushButton) if b.text() == text)


def click_row(view, row: int) -> None:
    table = view.table
    rect = table.visualItemRect(table.item(row, 1))
    QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_open_capture_lists_the_launches_and_replays_the_first(
    qtbot, window, pipeline, monkeypatch
):
    monkeypatch.setattr(
        QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(pipeline))
    )
    trigger(window, "Open capture…")
    view = timeline(window)
    listed = rows(view)
    assert [r[1] for r in listed] == [
        "scale#1",
        "relax#1",
        "relax#2",
        "relax#3",
        "relax#4",
        "total#1",
    ]
    assert [r[0] for r in listed] == ["1", "2", "3", "4", "5", "6"]
    assert listed[1][2:4] == ("128", "32")  # global and local size, as the program gave them
    assert listed[5][4].startswith("no data: past --launches 5")
    # The first launch is on screen with its captured inputs, traced and animated.
    text = wait_verdict(qtbot, view, "the original run")
    assert text.startswith("scale#1 matches the original run")
    assert window.model.variant.id == "scale#1"
    qtbot.waitUntil(lambda: window.state.playback is not None, timeout=60000)
    assert window.views.tabs.currentWidget() is window.views.execution_view

    # A click on the fourth launch replays relax#3: it starts from what relax#2 left.
    click_row(view, 3)
    assert view.chosen() == 4
    text = wait_verdict(qtbot, view, "relax#3 matches the original run")
    assert window.model.variant.id == "relax#3"
    assert window.state.traced.result.variant == "relax#3"
    assert window.state.traced.result.status == "verified"

    # Its buttons run it again (timed) and check it on Oclgrind, which finds the read past the
    # end of the source (line 21 of the program's own file).
    runs = len(window.state.history)
    button(view, "Run").click()
    qtbot.waitUntil(lambda: len(window.state.history) > runs, timeout=60000)
    assert window.state.result.variant == "relax#3" and window.state.result.timing is not None
    assert view.verdict.text().startswith("relax#3 matches the original run")
    button(view, "Check with Oclgrind").click()
    qtbot.waitUntil(lambda: window.state.oclgrind is not None, timeout=120000)
    assert {line for _kind, line, _count in window.state.oclgrind.problems()} == {21}

    # A launch recorded without its buffers says why, and nothing replays.
    click_row(view, 5)
    assert "recorded without its buffers: past --launches 5" in view.verdict.text()
    assert window.model.variant.id == "relax#3"


def test_a_dropped_capture_whose_output_differs_names_the_elements(
    qtbot, window, pipeline, tmp_path
):
    """The captured "after" contents are the reference: where they differ from what the
    replay computes, the verdict names the elements, with both values."""
    folder = tmp_path / "altered"
    shutil.copytree(pipeline, folder)
    capture = load_capture(folder)
    scale = capture.launches[0]
    written = next(a for a in scale.args if a.kind == "buffer" and a.changed)
    values = np.load(capture.path(written.after))  # in the pack, or a file of its own
    values[7] += 1.0
    replace_contents(capture, written.after, values)

    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(folder))])
    enter = QDragEnterEvent(
        QPoint(20, 20),
        Qt.DropAction.CopyAction,
        data,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(
        QPointF(20, 20),
        Qt.DropAction.CopyAction,
        data,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(window, drop)
    view = timeline(window)
    assert view.windowTitle() == "Capture: altered"
    text = wait_verdict(qtbot, view, "differs from the original run")
    name = written.name
    assert text.startswith(f"scale#1 differs from the original run at 1 elements: {name}[7] = ")
    assert f"(was {values[7]:.6g})" in text
    assert window.state.traced.result.status == "wrong"


def test_the_arrow_keys_walk_the_timeline(qtbot, window, pipeline, monkeypatch):
    """With the focus in the timeline, Down replays the next launch."""
    monkeypatch.setattr(
        QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(pipeline))
    )
    trigger(window, "Open capture…")
    view = timeline(window)
    wait_verdict(qtbot, view, "scale#1 matches")
    view.table.setFocus()
    QTest.keyClick(view.table, Qt.Key.Key_Down)
    assert view.chosen() == 2
    wait_verdict(qtbot, view, "relax#1 matches the original run")
    assert window.model.variant.id == "relax#1"


@pytest.mark.parametrize(("height", "beside"), [(650, True), (950, False)])
def test_the_timeline_leaves_the_window_on_a_small_screen(qtbot, window, pipeline, height, beside):
    """On a 1280×720 projector the timeline is a tab beside the configuration (under the
    animation it would push the window past the screen); on a larger screen it is a strip
    under the views."""
    from PySide6.QtWidgets import QDockWidget

    window.resize(1264, height)
    window.controllers.captures.open_capture(str(pipeline))
    view = timeline(window)
    configuration = window.findChild(QDockWidget, "configuration")
    assert (view in window.tabifiedDockWidgets(configuration)) == beside
    area = window.dockWidgetArea(view)
    assert area == (
        Qt.DockWidgetArea.LeftDockWidgetArea if beside else Qt.DockWidgetArea.BottomDockWidgetArea
    )
    wait_verdict(qtbot, view, "scale#1 matches")
    assert window.minimumSizeHint().width() <= 1264


def test_a_chosen_launch_saves_as_a_kernel_file_that_opens_and_matches(
    qtbot, window, pipeline, tmp_path, monkeypatch
):
    from explorer.engine.header.catalog import load_variant_file

    window.controllers.captures.open_capture(str(pipeline))
    view = timeline(window)
    click_row(view, 2)  # relax#2
    wait_verdict(qtbot, view, "relax#2 matches")
    monkeypatch.setattr(
        QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(tmp_path))
    )
    button(view, "Save as kernel…").click()
    saved = tmp_path / "relax-3.cl"
    assert saved.is_file() and (tmp_path / "relax-3.src.npy").is_file()
    assert str(saved) in window.statusBar().currentMessage()
    variant = load_variant_file(saved)
    window.controllers.kernels.use_kernel(variant)
    before = len(window.state.history)
    trigger(window, "Run")
    qtbot.waitUntil(lambda: len(window.state.history) > before, timeout=60000)
    assert window.state.result.status == "verified"
    assert window.state.result.verdict.compared_with == "the original run"


def test_the_timeline_goes_when_another_kernel_opens_and_comes_back_with_a_capture(
    qtbot, window, pipeline, monkeypatch
):
    """The capture's timeline belongs to its launches: opening another kernel from the menu
    takes it off the layout, opening the capture again brings it back."""
    from tests.gui.conftest import answer_file_dialogs

    monkeypatch.setattr(
        QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(pipeline))
    )
    window.show()
    qtbot.waitExposed(window)
    trigger(window, "Open capture…")
    view = timeline(window)
    wait_verdict(qtbot, view, "scale#1 matches the original run")
    assert view.isVisible()

    answer_file_dialogs(monkeypatch, Path(__file__).parents[1] / "kernels" / "antidiagonal.cl")
    trigger(window, "Open kernel…")
    assert window.model.variant.kernel == "diag"
    qtbot.waitUntil(lambda: not view.isVisible(), timeout=5000)

    trigger(window, "Open capture…")
    qtbot.waitUntil(view.isVisible, timeout=5000)
    wait_verdict(qtbot, view, "scale#1 matches the original run")
    assert window.model.variant.id == "scale#1"


def test_quit_on_a_captured_launch_starts_again_on_the_kernel_before_it(
    qtbot, window, settings, pipeline, monkeypatch
):
    """Quit with a capture's launch on screen stored its program, which has no header of its
    own, as the kernel to open: the next start said "The saved settings could not be used"
    and threw the whole configuration away."""
    from explorer.gui.main_window import MainWindow

    window.model.set_family("transpose")
    window.model.set_size(window.model.size_names[0], 96)
    monkeypatch.setattr(
        QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(pipeline))
    )
    trigger(window, "Open capture…")
    wait_verdict(qtbot, timeline(window), "the original run")
    assert window.model.variant.id == "scale#1"
    trigger(window, "Quit")

    again = MainWindow(settings=settings)
    qtbot.addWidget(again)
    assert again.state.notice is None
    assert again.model.family == "transpose" and 96 in again.model.sizes.values()
    again.close()


def test_save_session_on_a_captured_launch_says_what_to_do_instead(
    qtbot, window, pipeline, monkeypatch, tmp_path
):
    """Save session with a capture's launch on screen was refused with "no catalog header
    … see the README's 'Writing your own kernel'", about a file the person never wrote."""
    session = tmp_path / "launch.kexp.json"
    monkeypatch.setattr(
        QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(pipeline))
    )
    monkeypatch.setattr(
        QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(session), ""))
    )
    trigger(window, "Open capture…")
    wait_verdict(qtbot, timeline(window), "the original run")
    trigger(window, "Save session…")
    said = window.statusBar().currentMessage()
    assert not session.exists()
    assert "a capture's launch is not saved in a session" in said
    assert "Save as kernel…" in said and "catalog header" not in said
    assert button(timeline(window), "Save as kernel…")  # the button it names is there
