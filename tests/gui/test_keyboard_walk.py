"""A lecturer's keyboard-only walk through the window at 1280×720: Tab goes down the
configuration in the order it is drawn, whatever family or variant rebuilt its fields;
presenter mode and back leaves a window that still fits the projector, whichever tab is in
front; the open-kernel dialog for a file without a header starts with its first field focused
and Tab goes through its table of parameters and out to the reference and OK; the switches
above the animation (each line, loop, warp, heat map, speed), which take no focus, are in the
Step menu with a check mark; Ctrl+J goes to a work-group typed, the keyboard's click on the
work-groups map, in presenter mode too. Every key is
pressed on the widget that has the focus, as a person presses it."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDialogButtonBox,
    QInputDialog,
    QLineEdit,
    QWidget,
)

from explorer.gui.kernel_dialog import KernelMappingDialog
from tests.gui.conftest import menu_action, trace_and_wait

TAB = Qt.Key.Key_Tab
CTRL = Qt.KeyboardModifier.ControlModifier


def _shown(window, qtbot, size=(1280, 701)):
    """A 1280×720 projector's maximised window (its title bar takes the rest)."""
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)


def _press(qtbot, key, modifier=Qt.KeyboardModifier.NoModifier):
    """A key pressed on whatever has the focus (the window where nothing has)."""
    focused = QApplication.focusWidget()
    assert focused is not None, "nothing has the focus"
    qtbot.keyClick(focused, key, modifier)
    qtbot.wait(20)


def _fields_in_drawn_order(panel) -> list[QWidget]:
    """The configuration's fields top to bottom, as a person reads them."""
    fields: list[QWidget] = [panel.device_combo, panel.family_combo, panel.variant_combo]
    fields += list(panel.size_spins.values())
    fields.append(panel.local_edit)
    fields += list(panel.launch.define_spins.values())
    fields += list(panel.layout_combos.values())
    if panel.b_transposed is not None:
        fields.append(panel.b_transposed)
    fields += [panel.inputs.preset, panel.inputs.text]
    return [f for f in fields if f.isEnabled()]


def _tabbed_from_device(window, qtbot, count: int) -> list[QWidget]:
    panel = window.views.panel
    panel.device_combo.setFocus()
    qtbot.waitUntil(panel.device_combo.hasFocus)
    seen = [QApplication.focusWidget()]
    for _ in range(count - 1):
        _press(qtbot, TAB)
        seen.append(QApplication.focusWidget())
    return seen


def test_tab_walks_the_configuration_in_the_order_it_is_drawn(window, qtbot):
    _shown(window, qtbot)
    expected = _fields_in_drawn_order(window.views.panel)
    assert len(expected) >= 10  # matmul: M, N, K, TS, three layouts, Bᵀ among them
    assert _tabbed_from_device(window, qtbot, len(expected)) == expected


def test_tab_order_follows_the_fields_a_new_family_and_variant_rebuild(window, qtbot):
    _shown(window, qtbot)
    panel = window.views.panel
    # Family and variant changed with the keyboard: arrows in their combo boxes.
    panel.family_combo.setFocus()
    qtbot.waitUntil(panel.family_combo.hasFocus)
    start = panel.family_combo.currentIndex()
    _press(qtbot, Qt.Key.Key_Down)
    assert panel.family_combo.currentIndex() == start + 1
    _press(qtbot, Qt.Key.Key_Up)
    assert panel.family_combo.currentIndex() == start
    panel.variant_combo.setFocus()
    qtbot.waitUntil(panel.variant_combo.hasFocus)
    _press(qtbot, Qt.Key.Key_Down)
    expected = _fields_in_drawn_order(panel)
    assert _tabbed_from_device(window, qtbot, len(expected)) == expected


def test_presenter_and_back_from_the_result_tab_still_fits_the_projector(window, qtbot):
    """F5, Esc with the Result tab in front (the Execution tab hidden behind it) leaves the
    window no taller than before: its status bar stays on a 1280×720 screen."""
    _shown(window, qtbot)
    for name, value in {"M": 64, "N": 64, "K": 64}.items():
        window.model.set_size(name, value)
    trace_and_wait(qtbot, window)
    _press(qtbot, Qt.Key.Key_2, CTRL)  # the animation laid out on screen
    qtbot.wait(200)
    _press(qtbot, Qt.Key.Key_1, CTRL)
    assert window.views.tabs.currentWidget() is window.views.result_view
    before = window.minimumSizeHint().height()
    assert before <= 701
    for _ in range(2):
        _press(qtbot, Qt.Key.Key_F5)
        assert window.state.presenting
        # The trace gets its timed run first (Esc would cancel that before leaving).
        qtbot.waitUntil(lambda: not window.state.working, timeout=60000)
        _press(qtbot, Qt.Key.Key_Escape)
        assert not window.state.presenting
        assert window.views.tabs.currentWidget() is window.views.result_view
        assert window.minimumSizeHint().height() <= before


SCALE = """__kernel void scale(__global const float* src, __global float* dst, const int n)
{
    int i = get_global_id(0);
    if (i < n)
        dst[i] = 2.0f * src[i];
}
"""


def _mapping_dialog(qtbot, tmp_path):
    """The dialog File ▸ Open kernel shows for a file without a header, after its check
    (the names point at the transpose family; a run disagrees: the custom form)."""
    path = tmp_path / "scale.cl"
    path.write_text(SCALE, encoding="utf-8")

    def checker(variant, sizes):
        qtbot.wait(200)  # the run on the device, the window's events going on meanwhile
        return None  # (cancelled)

    dialog = KernelMappingDialog(path, checker=checker)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    qtbot.waitUntil(dialog.isEnabled)  # the check has proposed the custom form
    assert dialog.pages.currentIndex() == 1
    return dialog


def test_the_mapping_dialog_opens_with_its_first_field_focused(qtbot, tmp_path):
    dialog = _mapping_dialog(qtbot, tmp_path)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is dialog.family)
    _press(qtbot, TAB)
    assert QApplication.focusWidget() is dialog.kernel


def test_tab_goes_through_the_parameters_and_on_to_the_reference_and_ok(qtbot, tmp_path):
    dialog = _mapping_dialog(qtbot, tmp_path)
    table = dialog.declarations_table
    editors = [
        table.cellWidget(row, column)
        for row in range(table.rowCount())
        for column in range(table.columnCount())
        if isinstance(table.cellWidget(row, column), QLineEdit | QComboBox | QCheckBox)
    ]
    assert len(editors) == 2 * 7 + 2  # src and dst: 7 fields each; n: type and value
    dialog.sizes.setFocus()
    qtbot.waitUntil(dialog.sizes.hasFocus)
    seen = []
    for _ in range(len(editors) + 3):
        _press(qtbot, TAB)
        seen.append(QApplication.focusWidget())
    assert seen[: len(editors)] == editors
    assert seen[len(editors)] is dialog.reference
    assert seen[len(editors) + 1] is dialog.write
    ok = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
    assert seen[len(editors) + 2] is ok


def _menu_item(qtbot, window, menu_letter, item_letter):
    """Alt+letter opens a menu; the item's letter chooses it (the popup has the keys)."""
    _press(qtbot, menu_letter, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None)
    qtbot.keyClick(QApplication.activePopupWidget(), item_letter)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None)


def test_the_animations_switches_are_in_the_step_menu(window, qtbot):
    _shown(window, qtbot)
    for name, value in {"M": 16, "N": 16, "K": 32}.items():
        window.model.set_size(name, value)
    view = trace_and_wait(qtbot, window)
    controls = view.controls
    view.setFocus()  # where a click on the animation leaves it
    qtbot.waitUntil(view.hasFocus)
    steps = view.steps
    assert controls.by_iteration and controls.looping and not controls.heat_map
    _menu_item(qtbot, window, Qt.Key.Key_S, Qt.Key.Key_C)
    assert not controls.by_iteration
    qtbot.waitUntil(lambda: view.steps != steps)  # one step per line and phase now
    assert menu_action(window, "Step each line (not each pass)").isChecked()
    _menu_item(qtbot, window, Qt.Key.Key_S, Qt.Key.Key_Y)
    assert not controls.looping
    assert not menu_action(window, "Play in a loop").isChecked()
    _menu_item(qtbot, window, Qt.Key.Key_S, Qt.Key.Key_H)
    assert controls.heat_map
    _menu_item(qtbot, window, Qt.Key.Key_S, Qt.Key.Key_W)
    assert controls.warp_box.isChecked()
    assert controls.speed.currentText() == "1×"
    _menu_item(qtbot, window, Qt.Key.Key_S, Qt.Key.Key_R)
    assert controls.speed.currentText() == "2×"
    _menu_item(qtbot, window, Qt.Key.Key_S, Qt.Key.Key_O)
    _menu_item(qtbot, window, Qt.Key.Key_S, Qt.Key.Key_O)
    assert controls.speed.currentText() == "0.5×"


def _answer_the_group_dialog(qtbot, keys):
    """Once Ctrl+J's dialog is up, type ``keys`` into it (text, or a key such as Esc): the
    text it proposed, and whether its field had the focus, are noted."""
    answered: list[str] = []
    focused: list[bool] = []
    tries: list[int] = []

    def answer():
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QInputDialog):
            QTimer.singleShot(20, answer)
            return
        field = dialog.findChild(QLineEdit)
        tries.append(1)
        if QApplication.focusWidget() is not field and len(tries) < 50:
            QTimer.singleShot(20, answer)  # the dialog is still being activated
            return
        answered.append(field.text())
        focused.append(QApplication.focusWidget() is field)  # typed into at once
        if isinstance(keys, str):
            field.selectAll()
            qtbot.keyClicks(field, keys)
            qtbot.keyClick(field, Qt.Key.Key_Return)
        else:
            qtbot.keyClick(field, keys)

    QTimer.singleShot(0, answer)
    return answered, focused


def _back_to(window, qtbot):
    """The window active again once a dialog closes, as the window manager makes it (the
    offscreen platform does not)."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)


def test_ctrl_j_goes_to_the_work_group_typed(window, qtbot):
    _shown(window, qtbot)
    for name, value in {"M": 64, "N": 64, "K": 32}.items():
        window.model.set_size(name, value)
    view = trace_and_wait(qtbot, window)
    assert window.state.playback.group == (0, 0, 0)
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    answered, focused = _answer_the_group_dialog(qtbot, "2, 3")
    _press(qtbot, Qt.Key.Key_J, CTRL)
    qtbot.waitUntil(lambda: answered == ["0, 0"])  # it proposed the group on screen
    assert focused == [True]
    qtbot.waitUntil(lambda: window.state.playback.group == (2, 3, 0))
    _back_to(window, qtbot)
    assert QApplication.focusWidget() is view  # the keys go on where they were
    answered, _ = _answer_the_group_dialog(qtbot, Qt.Key.Key_Escape)  # changed one's mind
    _press(qtbot, Qt.Key.Key_J, CTRL)
    qtbot.waitUntil(lambda: answered == ["2, 3"])
    assert window.state.playback.group == (2, 3, 0)
    _back_to(window, qtbot)
    answered, _ = _answer_the_group_dialog(qtbot, "4, 0")  # there are groups 0 to 3
    _press(qtbot, Qt.Key.Key_J, CTRL)
    qtbot.waitUntil(lambda: answered == ["2, 3"])
    assert window.state.playback.group == (2, 3, 0)
    assert "0 to 3" in window.statusBar().currentMessage()
    _back_to(window, qtbot)
    # In presenter mode, where the menus are hidden, the key still works.
    _press(qtbot, Qt.Key.Key_F5)
    assert window.state.presenting
    qtbot.waitUntil(lambda: not window.state.working, timeout=60000)
    answered, _ = _answer_the_group_dialog(qtbot, "1 1")
    _press(qtbot, Qt.Key.Key_J, CTRL)
    qtbot.waitUntil(lambda: window.state.playback.group == (1, 1, 0))
