"""The presenter's keys as a lecturer presses them: Esc cancels the work in flight first and
leaves presenter mode only once nothing runs; the key strip says what the keys do now (the
tour's stages, work running); one Esc after the tour, its closing words gone with it; the
window's panels exactly as they were after presenter round trips."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QWidget

from explorer.gui.controllers.tour_stages import CLOSING, TOUR
from tests.gui.conftest import menu_action

ESC = Qt.Key.Key_Escape


def _shown(window, qtbot):
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)


def _press(qtbot, widget, key):
    widget.setFocus()
    qtbot.keyClick(widget, key)
    qtbot.wait(20)


def test_esc_cancels_running_work_first_then_leaves(window, qtbot):
    _shown(window, qtbot)
    window.controllers.presenter.set_presenter(True, full_screen=False)
    strip = window.views.execution_view.key_strip
    assert "Esc leave" in strip.text()
    window.state.working = True  # a run in flight, as the worker reports it
    assert "Esc cancel" in strip.text() and "Esc leave" not in strip.text()
    assert menu_action(window, "Cancel").isEnabled()
    assert not menu_action(window, "Leave presenter mode").isEnabled()
    _press(qtbot, window.views.execution_view.controls.slider, ESC)
    assert not window.state.working and window.state.presenting  # cancelled, still presenting
    assert window.views.result_view.badge.text() == "Cancelled"
    assert "Esc leave" in strip.text()
    _press(qtbot, window.views.result_view, ESC)
    assert not window.state.presenting


def test_the_strip_says_what_space_does_in_the_tour_and_one_esc_leaves_after_it(
    window, qtbot, monkeypatch
):
    _shown(window, qtbot)
    controller = window.controllers.presenter
    calls = []
    monkeypatch.setattr(window.worker, "run", lambda request: calls.append(request) or 7)
    menu_action(window, "Guided tour").trigger()
    assert window.state.presenting and window.state.tour_stage == 0 and len(calls) == 1
    strip = window.views.execution_view.key_strip
    assert "Space → next stage" in strip.text() and "play / pause" not in strip.text()
    view = window.views.execution_view
    for stage in range(1, len(TOUR)):
        _press(qtbot, view.controls.slider, Qt.Key.Key_Space)  # the strip's word: next stage
        assert window.state.tour_stage == stage
    _press(qtbot, view, Qt.Key.Key_Space)
    assert window.views.result_view.badge.text() == CLOSING
    # the stages are over: Space plays again, and the strip says so
    assert "Space play / pause" in strip.text() and "next stage" not in strip.text()
    _press(qtbot, view, ESC)
    assert not window.state.presenting  # one Esc
    assert window.views.result_view.badge.text() != CLOSING  # its words went with it
    assert controller.state.tour_stage == -1


def _geometries(window) -> dict[str, tuple[int, int, int, int]]:
    dock = window.findChild(QDockWidget, "configuration")
    found = {"window": window.geometry().getRect(), "dock": dock.geometry().getRect()}
    for i, widget in enumerate(dock.findChildren(QWidget)):
        if widget.isVisible():
            found[f"{i} {type(widget).__name__} {widget.objectName()}"] = (
                widget.geometry().getRect()
            )
    return found


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_the_panels_are_exactly_as_they_were_after_five_round_trips(window, qtbot, size):
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.wait(100)
    before = _geometries(window)
    for _ in range(5):
        _press(qtbot, window, Qt.Key.Key_F11)
        assert window.state.presenting
        qtbot.wait(50)
        _press(qtbot, window.views.execution_view, ESC)
        assert not window.state.presenting
        qtbot.wait(50)
    after = _geometries(window)
    changed = {
        k: (before.get(k), after.get(k)) for k in before | after if before.get(k) != after.get(k)
    }
    assert changed == {}
