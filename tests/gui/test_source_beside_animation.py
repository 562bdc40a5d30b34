"""The source beside the animation is the chosen kernel's from the moment it is chosen, before
any trace: the default kernel at start, a variant or family picked with the keyboard, a kernel
of the person's own opened from a file (with a header or without one), numbered as its file
is; after a trace, another variant takes the old text and its marked line away."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog

from explorer.frontend.line_directives import header_lines
from tests.conftest import TEST_KERNELS
from tests.gui.conftest import answer_file_dialogs, trace_and_wait, trigger

HEADERLESS = """// adds one to every element
__kernel void add_one(__global float *data)
{
    int i = get_global_id(0);
    data[i] = data[i] + 1.0f;
}
"""


def beside_animation(window) -> str:
    return window.views.execution_view.code.toPlainText()


def gutter(window) -> list[str]:
    code = window.views.execution_view.code
    return [code.gutter_label(n) for n in range(code.blockCount())]


def choose_next(qtbot, combo) -> None:
    """The next entry of a drop-down, chosen with the keyboard (Down on the focused box)."""
    before = combo.currentIndex()
    combo.setFocus()
    qtbot.waitUntil(combo.hasFocus)
    qtbot.keyClick(combo, Qt.Key.Key_Down)
    assert combo.currentIndex() == before + 1


def shown_at_720p(window, qtbot) -> None:
    window.resize(1280, 701)  # a 1280×720 projector's maximised window
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)


def first_line_shown(window) -> int:
    return window.views.execution_view.code.firstVisibleBlock().blockNumber() + 1


def test_the_default_kernels_source_is_beside_the_animation_before_any_trace(window, qtbot):
    shown_at_720p(window, qtbot)
    trigger(window, "Execution")  # Ctrl+2
    source = window.model.variant.source
    assert window.state.playback is None
    assert source.count("\n") > 10
    assert beside_animation(window) == source
    assert gutter(window)[:3] == ["1", "2", "3"]  # the file's own numbers, header included
    # Scrolled past the header's TOML to the code.
    header = header_lines(source)
    assert header > 5
    assert first_line_shown(window) == header + 1
    assert "__kernel" in "".join(source.split("\n")[header : header + 30])


def test_a_variant_or_family_picked_with_the_keyboard_brings_its_own_source(window, qtbot):
    shown_at_720p(window, qtbot)
    panel = window.views.panel
    first = window.model.variant
    choose_next(qtbot, panel.variant_combo)
    second = window.model.variant
    assert second.path != first.path
    assert beside_animation(window) == second.source != first.source
    choose_next(qtbot, panel.family_combo)
    third = window.model.variant
    assert third.family != first.family
    assert beside_animation(window) == third.source
    trigger(window, "Execution")  # behind another tab until now: scrolled as it is shown
    assert first_line_shown(window) == header_lines(third.source) + 1


def test_a_kernel_opened_from_a_file_is_shown_at_once_and_the_next_one_replaces_it(
    window, qtbot, monkeypatch, tmp_path
):
    own = TEST_KERNELS / "custom" / "double_it.cl"
    answer_file_dialogs(monkeypatch, own)
    trigger(window, "Open kernel…")
    assert beside_animation(window) == own.read_text()
    view = trace_and_wait(qtbot, window)
    assert view.code.marked  # the step's line

    # A file without a header, through the dialog's guesses (its header kept in memory).
    from explorer.gui.kernel_dialog import KernelMappingDialog

    def accept(dialog: KernelMappingDialog) -> QDialog.DialogCode:
        dialog.family.setCurrentText("custom")
        dialog.accept()
        assert dialog.variant is not None, dialog.error.text()
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(KernelMappingDialog, "exec", accept)
    bare = tmp_path / "add_one.cl"
    bare.write_text(HEADERLESS)
    answer_file_dialogs(monkeypatch, bare)
    trigger(window, "Open kernel…")
    assert window.model.variant.path == str(bare)
    assert window.state.playback is None
    assert beside_animation(window) == HEADERLESS  # the file as it is: no header in it
    lines = HEADERLESS.count("\n")
    assert gutter(window)[:lines] == [str(n) for n in range(1, lines + 1)]
    assert view.code.marked == []  # no line of the kernel before it


@pytest.fixture(autouse=True)
def no_message_boxes(monkeypatch):
    """A message box would wait for a click that never comes: fail with its text instead."""
    from PySide6.QtWidgets import QMessageBox

    def shown(*args, **kwargs):
        raise AssertionError(f"message box: {args[1:3]}")

    monkeypatch.setattr(QMessageBox, "warning", staticmethod(shown))
    monkeypatch.setattr(QMessageBox, "question", staticmethod(shown))
