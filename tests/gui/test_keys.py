"""The keys a lecturer and a learner drive the animation with: the next and previous phase
(Page Down/Up), source line ([ ] or Ctrl+↓/↑), finding (F8, Enter in the list), pressed with
the focus on the canvas, the source pane, a combo box of the configuration, the findings list;
never taken from a text field; nothing plays until Space; Alt mnemonics unique; Esc from
presenter mode gives back the layout the person had."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QFontInfo
from PySide6.QtWidgets import QApplication, QComboBox, QLabel

from explorer.engine.header.catalog import find_variant
from tests.gui.conftest import menu_action, trace_and_wait, trigger

PAGE_DOWN, PAGE_UP = Qt.Key.Key_PageDown, Qt.Key.Key_PageUp
CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


def _traced(window, qtbot, family="matmul", variant="tiled", sizes=None):
    """The window on screen, active, with a small trace (three tiles along K: six phases)."""
    window.model.set_family(family)
    window.model.set_variant(find_variant(family, variant))
    for name, value in (sizes or {"M": 16, "N": 16, "K": 48}).items():
        window.model.set_size(name, value)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    view = trace_and_wait(qtbot, window)
    assert window.state.presenting or window.views.tabs.currentWidget() is view
    return view


def _focus(qtbot, widget):
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus)
    return widget


def _phase(view):
    return view.playback.steps[view.current].phase


def _starts(view):
    """The first step of each phase, in order."""
    firsts: dict[int, int] = {}
    for step in view.playback.steps:
        firsts.setdefault(step.phase, step.index)
    return list(firsts.values())


def _panel_combo(window):
    return next(c for c in window.views.panel.findChildren(QComboBox) if c.count() > 1)


@pytest.mark.parametrize("where", ["canvas", "source pane", "configuration combo", "slider"])
def test_phase_and_line_keys_step_wherever_the_focus_is_but_a_text_field(window, qtbot, where):
    view = _traced(window, qtbot)
    starts = _starts(view)
    assert len(starts) >= 6  # a load phase and a compute phase per tile
    if where == "canvas":  # a click on the cells gives the view the focus
        canvas = next(iter(view.buffers.canvases.values()))
        qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=QPoint(5, 5))
        widget = QApplication.focusWidget()
        assert widget is view
    else:
        widget = {
            "source pane": view.code,
            "configuration combo": _panel_combo(window),
            "slider": view.controls.slider,
        }[where]
        _focus(qtbot, widget)
    combo = _panel_combo(window)
    chosen = combo.currentIndex()
    view.set_step(0)
    for phase_start in starts[1:4]:
        qtbot.keyClick(widget, PAGE_DOWN)
        assert view.current == phase_start
    qtbot.keyClick(widget, PAGE_UP)
    assert view.current == starts[2]
    qtbot.keyClick(widget, PAGE_UP)
    qtbot.keyClick(widget, PAGE_UP)
    assert view.current == 0
    qtbot.keyClick(widget, PAGE_UP)  # nothing before the first phase
    assert view.current == 0
    qtbot.keyClick(widget, PAGE_DOWN, SHIFT)  # ten phases on, or as far as there are
    assert view.current == starts[min(10, len(starts) - 1)]
    qtbot.keyClick(widget, PAGE_UP, SHIFT)
    assert view.current == starts[max(0, min(10, len(starts) - 1) - 10)]
    line = view.playback.steps[0].line
    qtbot.keyClick(widget, Qt.Key.Key_BracketRight)
    after = view.playback.steps[view.current]
    assert after.line != line and all(s.line == line for s in view.playback.steps[: view.current])
    qtbot.keyClick(widget, Qt.Key.Key_BracketLeft)
    assert view.current == 0
    qtbot.keyClick(widget, Qt.Key.Key_Down, CTRL)
    assert view.current == after.index
    qtbot.keyClick(widget, Qt.Key.Key_Up, CTRL)
    assert view.current == 0
    qtbot.keyClick(widget, Qt.Key.Key_End)
    assert view.current == view.steps - 1
    qtbot.keyClick(widget, Qt.Key.Key_Home)
    qtbot.keyClick(widget, Qt.Key.Key_Right)
    assert view.current == 1
    qtbot.keyClick(widget, Qt.Key.Key_Left)
    assert view.current == 0
    assert combo.currentIndex() == chosen  # the combo box took none of them


def test_a_text_field_keeps_its_keys_and_a_click_on_the_canvas_takes_them_back(window, qtbot):
    view = _traced(window, qtbot)
    field = window.views.panel.local_edit
    _focus(qtbot, field)
    field.setText("16x16")
    field.setCursorPosition(0)
    view.set_step(2)
    for key in (PAGE_DOWN, Qt.Key.Key_Right, Qt.Key.Key_End):
        qtbot.keyClick(field, key)
        assert view.current == 2, key
    assert field.cursorPosition() == len("16x16")  # → and End moved the text cursor
    qtbot.keyClick(field, Qt.Key.Key_BracketRight)
    assert view.current == 2 and field.text() == "16x16]"  # typed, not a line step
    qtbot.keyClick(field, Qt.Key.Key_Space)
    assert not view.controls.playing
    canvas = next(iter(view.buffers.canvases.values()))
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=QPoint(5, 5))
    assert QApplication.focusWidget() is view
    qtbot.keyClick(view, Qt.Key.Key_Right)
    assert view.current == 3


def test_the_keys_step_nothing_while_the_execution_view_is_not_on_screen(window, qtbot):
    view = _traced(window, qtbot)
    window.views.show_page("result")
    combo = _focus(qtbot, _panel_combo(window))
    view.set_step(1)
    for key in (PAGE_DOWN, Qt.Key.Key_Right, Qt.Key.Key_BracketRight):
        qtbot.keyClick(combo, key)
    assert view.current == 1
    assert window.views.tabs.currentWidget() is window.views.result_view


def test_the_step_menu_triggers_the_same_moves(window, qtbot):
    view = _traced(window, qtbot)
    starts = _starts(view)
    view.set_step(0)
    trigger(window, "Next phase")
    trigger(window, "Next phase")
    assert view.current == starts[2]
    trigger(window, "Previous phase")
    assert view.current == starts[1]
    trigger(window, "Next line")
    assert view.playback.steps[view.current].line != view.playback.steps[starts[1]].line
    trigger(window, "Last step")
    assert view.current == view.steps - 1
    trigger(window, "First step")
    assert view.current == 0
    trigger(window, "Play / pause")
    assert view.controls.playing
    trigger(window, "Play / pause")
    assert not view.controls.playing


def test_f8_and_enter_jump_to_a_finding_from_wherever_the_focus_is(window, qtbot):
    view = _traced(window, qtbot, "matvec", "nvidia-coalesced3", {"WIDTH": 300, "HEIGHT": 4})
    findings = window.views.findings_view
    assert findings.shown
    view.set_step(0)
    _focus(qtbot, _panel_combo(window))
    qtbot.keyClick(_panel_combo(window), Qt.Key.Key_F8)
    first = findings.shown[0]
    step = view.playback.steps[view.current]
    if first.phase is not None:
        assert step.phase == first.phase
    assert window.views.tabs.currentWidget() is view
    # in the list: Enter goes back to the selected finding after the view moved on
    window.views.show_page("findings")
    tree = _focus(qtbot, findings.findings)
    selected = findings.selected_finding()
    view.set_step(view.steps - 1)
    qtbot.keyClick(tree, Qt.Key.Key_Return)
    assert window.views.tabs.currentWidget() is view
    assert view.playback.steps[view.current].line == selected.line
    qtbot.keyClick(window, Qt.Key.Key_F8, Qt.KeyboardModifier.ShiftModifier)
    expected = findings.shown[-1] if len(findings.shown) > 1 else findings.shown[0]
    assert findings.selected_finding() == expected


def test_nothing_plays_until_space_in_presenter_mode(window, qtbot):
    trigger(window, "Presenter mode")
    view = _traced(window, qtbot)
    assert window.state.presenting
    assert view.current == 0 and not view.controls.playing
    qtbot.keyClick(view.controls.slider, Qt.Key.Key_Space)
    assert view.controls.playing
    qtbot.keyClick(view.controls.slider, Qt.Key.Key_Space)
    assert not view.controls.playing


def test_the_presenter_key_strip_names_the_keys_from_the_actions(window, qtbot):
    strip = window.views.execution_view.key_strip
    assert not strip.isVisibleTo(window)
    trigger(window, "Presenter mode")
    text = strip.text()
    for part in ("Space play / pause", "← → step", "PgUp PgDown phase", "[ ] line", "F8 finding"):
        assert part in text
    assert "Esc leave" in text
    assert strip.isVisibleTo(window)
    strip.ensurePolished()  # its own style over the presenter's smaller type
    assert QFontInfo(strip.font()).pixelSize() >= 18
    trigger(window, "Presenter mode")
    assert not strip.isVisibleTo(window)


def test_esc_from_presenter_mode_gives_back_the_tab_and_the_panels_widths(window, qtbot):
    from PySide6.QtWidgets import QDockWidget

    window.resize(1500, 900)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    window.views.show_page("timing")
    dock = window.findChild(QDockWidget, "configuration")
    window.resizeDocks([dock], [480], Qt.Orientation.Horizontal)
    qtbot.waitUntil(lambda: abs(dock.width() - 480) <= 4)
    window.controllers.presenter.set_presenter(True, full_screen=False)
    qtbot.keyClick(window.views.execution_view, Qt.Key.Key_Escape)
    assert not window.state.presenting
    assert window.views.tabs.currentWidget() is window.views.timing_view
    qtbot.waitUntil(lambda: abs(dock.width() - 480) <= 4)


def _mnemonic(text: str) -> str | None:
    found = re.search(r"&([^&])", text.replace("&&", ""))
    return found.group(1).lower() if found else None


def test_alt_mnemonics_are_unique_in_the_window_and_in_each_menu(window):
    bar = window.menuBar()
    titles = [a.text() for a in bar.actions()]
    labels = [
        label.text()
        for label in window.views.panel.findChildren(QLabel)
        if label.buddy() is not None
    ]
    top = [m for m in map(_mnemonic, titles + labels) if m]
    assert len(top) == len(set(top)), sorted(top)
    assert _mnemonic(next(t for t in titles if "Lessons" in t.replace("&", ""))) == "l"
    for entry in bar.actions():
        items = [a.text().split("\t")[0] for a in entry.menu().actions() if not a.isSeparator()]
        letters = [m for m in map(_mnemonic, items) if m]
        assert len(letters) == len(set(letters)), (entry.text(), sorted(letters))


def test_the_keyboard_shortcuts_window_lists_every_key(window, qtbot):
    assert menu_action(window, "Keyboard shortcuts").shortcut().toString() == "F1"
    assert menu_action(window, "Export animation as MP4…").shortcut().toString() == ("Ctrl+Shift+M")
    trigger(window, "Keyboard shortcuts")
    dialog = window.controllers.window.keys_dialog
    assert dialog is not None and dialog.isVisible()
    text = dialog.findChild(QLabel, "shortcuts").text()
    for wanted in ("Next phase", "PgDown", "Previous line", "Next finding", "F8", "Ctrl+Shift+M"):
        assert wanted in text
    assert dialog.frameGeometry().height() <= window.screen().availableGeometry().height()
    dialog.close()


def test_a_window_closed_in_presenter_mode_opens_with_its_panels(window, qtbot, settings):
    from PySide6.QtWidgets import QDockWidget

    from explorer.gui.main_window import MainWindow

    window.controllers.presenter.set_presenter(True, full_screen=False)
    window.close()
    again = MainWindow(settings=settings)
    qtbot.addWidget(again)
    again.show()
    qtbot.waitExposed(again)
    assert again.findChild(QDockWidget, "configuration").isVisible()
    assert again.menuBar().isVisible()
    again.close()


def test_ctrl_digits_bring_each_tab_forward_and_give_it_the_keys(window, qtbot):
    """Keyboard only: from a field of the configuration, Ctrl+5 opens the findings with the
    list taking the arrows and Enter (which jumps to the finding's line), Ctrl+4 the source
    and Ctrl+1 the result; each is in the View menu with its key."""
    view = _traced(window, qtbot, "matvec", "nvidia-coalesced3", {"WIDTH": 300, "HEIGHT": 4})
    findings = window.views.findings_view
    assert len(findings.shown) >= 1
    tabs = window.views.tabs
    combo = _focus(qtbot, _panel_combo(window))
    qtbot.keyClick(combo, Qt.Key.Key_5, CTRL)
    assert tabs.currentWidget() is findings
    assert QApplication.focusWidget() is findings.findings
    view.set_step(view.steps - 1)
    qtbot.keyClick(findings.findings, Qt.Key.Key_Down)
    selected = findings.selected_finding()
    assert selected is not None
    qtbot.keyClick(findings.findings, Qt.Key.Key_Return)
    assert tabs.currentWidget() is view
    assert view.playback.steps[view.current].line == selected.line
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_4, CTRL)
    assert tabs.currentWidget() is window.views.source_view
    assert QApplication.focusWidget() is window.views.source_view.editor
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_1, CTRL)
    assert tabs.currentWidget() is window.views.result_view
    for text, key in (("Result", "Ctrl+1"), ("Findings", "Ctrl+5"), ("Sweep", "Ctrl+7")):
        assert menu_action(window, text).shortcut().toString() == key


def test_f8_without_a_finding_to_go_to_says_why_in_the_status_bar(window, qtbot):
    """F8 before any trace, and F8 on a trace that found nothing, from a combo of the
    configuration and from the source pane: the status bar says why nothing moved."""
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    combo = _focus(qtbot, _panel_combo(window))
    window.statusBar().clearMessage()
    qtbot.keyClick(combo, Qt.Key.Key_F8)
    assert window.statusBar().currentMessage().startswith("Trace a kernel first (Ctrl+T)")
    view = _traced(window, qtbot, "matmul", "tiled")
    assert not window.views.findings_view.shown  # a clean tiled product: nothing found
    _focus(qtbot, view.code)
    window.statusBar().clearMessage()
    qtbot.keyClick(view.code, Qt.Key.Key_F8, SHIFT)
    assert window.statusBar().currentMessage().startswith("No findings in this trace")
    assert window.views.tabs.currentWidget() is view  # nothing else moved
