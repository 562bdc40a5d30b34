"""The source view as an editor: a person's own kernel is typed into, highlighted, saved with
Ctrl+S (and re-run by the same path a save in another editor takes); a shipped kernel is
read-only with a way to copy it; unsaved edits are never lost to a switch of kernel."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCharFormat, QTextCursor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox

from explorer.session import Session, save_session
from tests.gui.conftest import answer_file_dialogs, run_and_wait, trigger

NAIVE = Path(__file__).parents[2] / "kernels/matmul/naive.cl"


def format_at(editor, line: int, column: int):
    """The character format the highlighter gave the text at (line, column), 0-based."""
    block = editor.document().findBlockByNumber(line)
    for span in block.layout().formats():
        if span.start <= column < span.start + span.length:
            return QTextCharFormat(span.format)  # a copy: the layout's goes with its list
    return None


def type_text(widget, text: str) -> None:
    for character in text:
        QTest.keyClick(widget, character if character != " " else Qt.Key.Key_Space)


@pytest.fixture
def own_kernel(window, tmp_path, monkeypatch):
    """The naive matmul copied to a file of the person's own and opened (File ▸ Open), its
    source in front and the editor focused."""
    path = tmp_path / "mine.cl"
    path.write_text(NAIVE.read_text())
    answer_file_dialogs(monkeypatch, path)
    trigger(window, "Open kernel…")
    for name in ("M", "N", "K"):
        window.model.set_size(name, 16)
    window.show()
    window.views.tabs.setCurrentWidget(window.views.source_view)
    editor = window.views.source_view.editor
    editor.setFocus()
    return window, path, editor


def answer(monkeypatch, button) -> list[str]:
    """The next "unsaved changes" questions answer ``button``; the texts asked are kept."""
    asked: list[str] = []

    def question(parent, title, text, *rest):
        asked.append(text)
        return button

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    return asked


def test_opencl_is_highlighted_by_kind(qtbot):
    from explorer.gui.source_view import CodeEditor

    editor = CodeEditor()
    qtbot.addWidget(editor)
    editor.load(
        "__kernel void f(__global float* x) { // note\n  x[0] = 1.5f; barrier(0);\n"
        "  for (;;) {}\n}\n#define TS 16\n"
    )
    qualifier, type_ = format_at(editor, 0, 0), format_at(editor, 0, 9)
    plain = format_at(editor, 0, 14)  # the name f
    comment = format_at(editor, 0, 38)
    number, builtin = format_at(editor, 1, 9), format_at(editor, 1, 16)
    assert plain is None  # a name is plain text
    keyword, preprocessor = format_at(editor, 2, 2), format_at(editor, 4, 9)
    kinds = (qualifier, type_, comment, number, builtin, keyword, preprocessor)
    assert len({f.foreground().color().name() for f in kinds}) == 7  # each its own colour
    assert comment.fontItalic() and qualifier.fontWeight() > 400


def test_own_kernel_is_edited_undone_and_saved_with_ctrl_s(own_kernel, qtbot):
    window, path, editor = own_kernel
    view = window.views.source_view
    assert view.editable() and not view.copy_button.isVisibleTo(view)
    editor.moveCursor(QTextCursor.MoveOperation.End)
    type_text(editor, "// mine")
    assert view.modified() and "Unsaved" in view.editing.text()
    QTest.keyClick(editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # undo
    assert "// mine" not in editor.toPlainText()
    shift_ctrl = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    QTest.keyClick(editor, Qt.Key.Key_Z, shift_ctrl)  # redo
    assert editor.toPlainText().endswith("// mine")
    QTest.keyClick(editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    type_text(editor, "// kept")
    reloads = window.state.reloads
    QTest.keyClick(editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert path.read_text().endswith("// kept")  # written at once, the editor's text
    assert not view.modified() and "Unsaved" not in view.editing.text()
    qtbot.waitUntil(lambda: window.state.reloads > reloads, timeout=10000)
    qtbot.waitUntil(lambda: window.state.result is not None, timeout=60000)
    assert window.state.result.status == "verified"
    qtbot.wait(400)  # the watcher's report of the same write joined the one reload
    assert window.state.reloads == reloads + 1
    assert editor.toPlainText().endswith("// kept")


def test_switching_kernel_asks_about_unsaved_edits(own_kernel, monkeypatch):
    window, path, editor = own_kernel
    mine = window.model.variant
    type_text(editor, "/* x */")
    combo = window.views.panel.variant_combo
    other = next(i for i in range(combo.count()) if combo.itemData(i) != mine.path)
    asked = answer(monkeypatch, QMessageBox.StandardButton.Cancel)
    combo.setCurrentIndex(other)
    assert asked and mine.name in asked[0]
    assert window.model.variant is mine and combo.currentData() == mine.path  # stayed
    assert editor.toPlainText().startswith("/* x */")
    answer(monkeypatch, QMessageBox.StandardButton.Save)
    combo.setCurrentIndex(other)
    assert window.model.variant.path != mine.path
    assert path.read_text().startswith("/* x */")  # saved before leaving


def test_opening_a_session_over_unsaved_edits_asks_once_and_cancel_opens_nothing(
    own_kernel, monkeypatch, tmp_path
):
    window, path, editor = own_kernel
    mine = window.model.variant
    session_path = save_session(
        Session(family="transpose", variant="naive", sizes={"WIDTH": 32, "HEIGHT": 48}),
        tmp_path / "other.kexp.json",
    )
    type_text(editor, "/* x */")
    asked = answer(monkeypatch, QMessageBox.StandardButton.Cancel)
    answer_file_dialogs(monkeypatch, session_path)
    trigger(window, "Open session…")
    assert len(asked) == 1 and mine.name in asked[0]
    # Nothing of the session applied: the kernel, its family and its sizes are as they were.
    assert window.model.variant is mine and window.model.family == "matmul"
    assert window.model.sizes == {"M": 16, "N": 16, "K": 16}
    assert editor.toPlainText().startswith("/* x */")
    assert "Did not open" in window.statusBar().currentMessage()
    asked = answer(monkeypatch, QMessageBox.StandardButton.Discard)
    trigger(window, "Open session…")
    assert len(asked) == 1  # asked once, not again for each part of the session
    assert window.model.family == "transpose" and window.model.variant.id == "naive"
    assert window.model.sizes == {"WIDTH": 32, "HEIGHT": 48}
    assert not path.read_text().startswith("/* x */")  # discarded: the file as it was


def test_discarding_on_close_keeps_the_file_and_cancel_keeps_the_window(own_kernel, monkeypatch):
    window, path, editor = own_kernel
    saved = path.read_text()
    type_text(editor, "oops")
    answer(monkeypatch, QMessageBox.StandardButton.Cancel)
    window.close()
    assert window.isVisible()
    answer(monkeypatch, QMessageBox.StandardButton.Discard)
    window.close()
    assert not window.isVisible() and path.read_text() == saved


def test_a_shipped_kernel_is_read_only_and_copied_to_edit(window, tmp_path, monkeypatch):
    view = window.views.source_view
    assert not view.editable() and view.copy_button.isVisibleTo(view)
    before = view.text()
    view.editor.setFocus()
    QTest.keyClick(view.editor, "x")
    assert view.text() == before
    copy = tmp_path / "copy.cl"
    answer_file_dialogs(monkeypatch, copy)
    view.copy_button.click()
    assert copy.read_text() == before
    assert window.model.variant.path == str(copy) and view.editable()
    again = tmp_path / "again.cl"  # the File menu's item does the same
    answer_file_dialogs(monkeypatch, again)
    trigger(window, "Save a copy of the kernel to edit…")
    assert again.read_text() == before and window.model.variant.path == str(again)


def test_marks_follow_their_line_while_it_is_edited(own_kernel):
    window, _path, editor = own_kernel
    line = next(i + 1 for i, t in enumerate(editor.toPlainText().splitlines()) if "acc +=" in t)
    window.views.source_view.mark_lines([line])
    cursor = editor.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.Start)
    editor.setTextCursor(cursor)
    QTest.keyClick(editor, Qt.Key.Key_Return)  # a line above it
    assert editor.block_number(line) == line  # 0-based: one further down
    window.views.source_view.mark_lines([line])  # the animation marks it again
    (selection,) = editor.extraSelections()
    assert "acc +=" in selection.cursor.block().text()
    assert editor.textCursor().blockNumber() == 1  # the typing cursor stayed
    editor.undo()


def test_a_lesson_over_unsaved_edits_stays_away_when_the_person_stays(own_kernel, monkeypatch):
    window, _path, editor = own_kernel
    mine = window.model.variant
    type_text(editor, "/* x */")
    tab = window.views.tabs.currentIndex()
    asked = answer(monkeypatch, QMessageBox.StandardButton.Cancel)
    window.lessons[next(iter(window.lessons))].trigger()
    assert len(asked) == 1
    # None of the lesson applied (its sizes, its page), so nothing of it gets traced.
    assert window.model.variant is mine and window.model.sizes == {"M": 16, "N": 16, "K": 16}
    assert window.views.tabs.currentIndex() == tab
    assert editor.toPlainText().startswith("/* x */")


def test_a_build_error_saved_from_the_editor_keeps_the_source_in_front(
    own_kernel, qtbot, monkeypatch
):
    """Ctrl+S of a line that does not build, after a good run: the last good result stays,
    and the person stays in the source, where the build log names the line, and can type
    on (no key brings the source tab back)."""
    window, _path, editor = own_kernel
    assert run_and_wait(qtbot, window).status == "verified"
    window.views.tabs.setCurrentWidget(window.views.source_view)
    editor.setFocus()
    editor.moveCursor(QTextCursor.MoveOperation.End)
    type_text(editor, "oops")
    reloads = window.state.reloads
    QTest.keyClick(editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.state.reloads > reloads, timeout=10000)
    qtbot.waitUntil(
        lambda: window.state.result is not None and window.state.result.error_kind == "build",
        timeout=60000,
    )
    assert window.state.last_good is not None  # the good result stays on screen
    assert window.views.tabs.currentWidget() is window.views.source_view
    log = window.views.source_view.build_log
    assert any("oops" in log.item(i).text() for i in range(log.count()))
    assert QApplication.focusWidget() is editor  # the keys still type there
    answer(monkeypatch, QMessageBox.StandardButton.Discard)  # the window closes after
