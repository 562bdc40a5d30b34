"""The result's badge after work that is not a run: once a comparison or a sweep is done,
it no longer says it is comparing; it gives back the verdict of the run on screen."""

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from tests.gui.conftest import run_and_wait


def small(window, qtbot):
    """The stencil family (three variants, cheap to compare) at a small image, the window
    on screen so that its keys reach it."""
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    window.model.set_family("stencil")
    for name in window.model.sizes:
        window.model.set_size(name, 32)


def test_compare_all_by_its_key_leaves_the_verdict_in_the_badge(window, qtbot):
    small(window, qtbot)
    run_and_wait(qtbot, window)
    badge = window.views.result_view.badge
    verdict = badge.text()
    assert verdict.startswith("✔ Verified")
    focus = QApplication.focusWidget() or window
    QTest.keyClick(
        focus, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    qtbot.waitUntil(lambda: len(window.state.comparison) == 3, timeout=60000)
    qtbot.waitUntil(lambda: not window.worker.busy, timeout=60000)
    assert "Comparing" not in badge.text()
    assert badge.text() == verdict  # the run on screen is still the one it was


def test_compare_all_with_nothing_run_says_it_is_done(window, qtbot):
    small(window, qtbot)
    assert window.state.result is None
    QTest.keyClick(
        QApplication.focusWidget() or window,
        Qt.Key.Key_R,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    qtbot.waitUntil(lambda: len(window.state.comparison) == 3, timeout=60000)
    qtbot.waitUntil(lambda: not window.worker.busy, timeout=60000)
    badge = window.views.result_view.badge.text()
    assert "Comparing" not in badge and "…" not in badge
    assert window.statusBar().currentMessage() in badge


def test_a_sweep_leaves_no_comparing_in_the_badge(window, qtbot):
    small(window, qtbot)
    run_and_wait(qtbot, window)
    badge = window.views.result_view.badge
    verdict = badge.text()
    sweep = window.views.sweep_view
    window.views.tabs.setCurrentWidget(sweep)
    sweep.x_axis.setCurrentText("local")
    sweep.x_values.setText("32,64")
    sweep.run_button.click()
    qtbot.waitUntil(lambda: all(r is not None for row in sweep.grid for r in row), timeout=120000)
    qtbot.waitUntil(lambda: not window.worker.busy, timeout=60000)
    assert "Comparing" not in badge.text()
    assert badge.text() == verdict
