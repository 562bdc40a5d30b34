"""Doing an exercise in the app: the Exercises menu opens one on the person's own attempt
file, the fix is typed into the source editor and saved with Ctrl+S, the save is graded
(passed: the menu's check mark, kept in the settings; failed: the first differing access's
line marked and boxed in the execution view), and in presenter mode the keys typed in the
editor are text (tests/gui/test_room_view.py reads the exercise from the back row)."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDockWidget, QMessageBox, QTabWidget

from explorer.exercises import exercises, find_exercise
from explorer.gui import settings as store
from explorer.gui.cell_colours import DIFF_OUTLINE
from tests.gui.conftest import menu_action, trigger

CTRL = Qt.KeyboardModifier.ControlModifier
GRADE_S = 120000


def open_exercise(window, qtbot, name: str):
    """The exercise chosen in the Exercises menu; its editor focused."""
    exercise = find_exercise(name)
    trigger(window, f"{exercise.number}. {exercise.title}")
    editor = window.views.source_view.editor
    qtbot.waitUntil(lambda: window.controllers.exercises.exercise is exercise)
    editor.setFocus()
    return exercise, editor


def put_cursor(editor, text: str, offset: int = 0) -> None:
    """The text cursor moved to ``text`` (plus ``offset`` characters), as a click would."""
    found = editor.document().find(text)
    assert not found.isNull(), text
    cursor = QTextCursor(editor.document())
    cursor.setPosition(found.selectionStart() + offset)
    editor.setTextCursor(cursor)


def save_and_grade(window, qtbot, editor):
    """Ctrl+S in the editor; the grade of the saved attempt."""
    with qtbot.waitSignal(window.controllers.exercises.graded, timeout=GRADE_S) as graded:
        QTest.keyClick(editor, Qt.Key.Key_S, CTRL)
    return graded.args[0]


@pytest.fixture
def shown(window, qtbot):
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    return window


def test_an_exercise_fixed_in_the_editor_passes_and_is_checked_in_the_menu(shown, qtbot, settings):
    window = shown
    exercise, editor = open_exercise(window, qtbot, "naive-matmul")
    attempt = window.controllers.exercises.attempt_path(exercise)
    assert window.model.variant.path == str(attempt)
    assert attempt.parent.parent == Path(settings.fileName()).parent  # beside the settings
    dock = window.findChild(QDockWidget, "exercise")
    configuration = window.findChild(QDockWidget, "configuration")
    assert dock.isVisible() and configuration in window.tabifiedDockWidgets(dock)
    assert editor.toPlainText() == exercise.start_source
    panel = window.views.exercise_panel
    assert exercise.title in panel.title.text() and panel.text.text() == exercise.text
    assert not panel.hints.isVisibleTo(panel)
    panel.hint_button.click()  # the first hint, and only it
    assert exercise.hints[0] in panel.hints.text() and exercise.hints[1] not in panel.hints.text()
    assert store.hints_shown(settings, exercise.name) == 1
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)  # a window's shortcuts reach it once it is active
    QTest.keyClick(editor, Qt.Key.Key_H, CTRL | Qt.KeyboardModifier.AltModifier)  # Hint
    assert exercise.hints[1] in panel.hints.text() and editor.hasFocus()
    assert store.hints_shown(settings, exercise.name) == 2
    # the fix typed: B has N columns
    put_cursor(editor, "k * K + col", len("k * "))
    QTest.keyClick(editor, Qt.Key.Key_Delete)
    QTest.keyClicks(editor, "N")
    grade = save_and_grade(window, qtbot, editor)
    assert grade.passed and all(check.passed for check in grade.checks)
    assert "Passed" in panel.verdict.text()
    badge = window.views.result_view.badge.text()
    assert "grading" not in badge.lower() and "Verified" in badge  # the run's, not "Grading …"
    assert all(html.escape(check.sentence) in panel.checks.text() for check in grade.checks)
    assert "B[k * N + col]" in attempt.read_text()
    assert exercise.start_source.count("k * K + col") == 1  # the shipped kernel unchanged
    item = menu_action(window, f"{exercise.number}. {exercise.title}")
    assert item.isChecked()
    listed = [
        a.text()
        for entry in window.menuBar().actions()
        if entry.menu().title() == "E&xercises"
        for a in entry.menu().actions()
        if a.isCheckable()
    ]
    assert listed == [f"{e.number}. {e.title}" for e in exercises()]  # all, in order
    checked = [a for e in exercises() if (a := menu_action(window, f"{e.number}. {e.title}"))]
    assert [a for a in checked if a.isChecked()] == [item]  # only the one passed
    assert exercise.name in store.passed_exercises(settings)
    kept = QSettings(settings.fileName(), QSettings.Format.IniFormat)  # as the next start reads
    assert exercise.name in str(kept.value("exercises/passed"))


def test_a_wrong_attempt_fails_with_its_first_difference_marked(shown, qtbot):
    window = shown
    _exercise, editor = open_exercise(window, qtbot, "index-map")
    editor.moveCursor(QTextCursor.MoveOperation.End)
    QTest.keyClicks(editor, "// my first try")
    controller = window.controllers.trace_diff
    with qtbot.waitSignal(controller.compared, timeout=GRADE_S):
        grade = save_and_grade(window, qtbot, editor)
    assert not grade.passed and grade.parting_line is not None
    assert [c.name for c in grade.failed_checks][:1] == ["verified"]
    panel = window.views.exercise_panel
    assert "Not yet" in panel.verdict.text() and html.escape(grade.parting) in panel.parting.text()
    lines = editor.toPlainText().splitlines()
    assert "out[row * cols + col] =" in lines[grade.parting_line - 1]  # the mirrored write
    assert window.views.source_view.editor.marked == [grade.parting_line]
    differs = [f for f in window.views.findings_view.shown if f.kind == "differs"]
    assert grade.parting_line in [f.line for f in differs]
    view = window.views.execution_view
    boxed = set()
    for step in range(view.steps):
        view.set_step(step)
        boxed |= {
            box
            for canvas in view.buffers.canvases.values()
            for box, colour, _ in canvas.frame.outlines
            if colour == DIFF_OUTLINE
        }
    assert boxed  # the differing accesses are boxed in the execution view
    caption = view.lines.caption.text()
    assert caption.startswith("Parts from the solution first at line") and "custom/" not in caption
    assert window.state.traced is grade.traced  # the grade's own trace, no second one


def test_reopening_an_exercise_resumes_the_attempt(shown, qtbot, monkeypatch):
    window = shown
    exercise, editor = open_exercise(window, qtbot, "index-map")
    editor.moveCursor(QTextCursor.MoveOperation.End)
    QTest.keyClicks(editor, "// resumed")
    monkeypatch.setattr(
        QMessageBox, "question", staticmethod(lambda *a: QMessageBox.StandardButton.Save)
    )
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    alt_ctrl = CTRL | Qt.KeyboardModifier.AltModifier
    QTest.keyClick(editor, Qt.Key.Key_N, alt_ctrl)  # Next exercise: asks about the edit, saved
    assert window.controllers.exercises.exercise.number == exercise.number + 1
    open_exercise(window, qtbot, "index-map")
    assert editor.toPlainText().endswith("// resumed")


def test_presenting_an_exercise_the_editor_takes_space_and_arrows_esc_still_leaves(shown, qtbot):
    window = shown
    _exercise, editor = open_exercise(window, qtbot, "naive-matmul")
    window.controllers.presenter.set_presenter(True, full_screen=False)
    qtbot.wait(50)
    panel, source = window.views.exercise_panel, window.views.source_view
    assert panel.isVisible() and source.isVisible() and editor.hasFocus()
    with qtbot.waitSignal(window.controllers.exercises.compared, timeout=GRADE_S):
        grade = save_and_grade(window, qtbot, editor)
    assert not grade.passed and panel.checks.text()
    # the animation in front, with the differing accesses; the editor a tab away
    assert window.views.execution_view.isVisible() and not editor.isVisible()
    left = window.findChild(QTabWidget, "exercise-left")
    QTest.mouseClick(
        left.tabBar(), Qt.MouseButton.LeftButton, pos=left.tabBar().tabRect(1).center()
    )
    assert editor.isVisible()
    # Space and the arrows type in the editor; they step from the execution view
    editor.setFocus()
    qtbot.waitUntil(editor.hasFocus)
    view = window.views.execution_view
    before, text = view.current, editor.toPlainText()
    QTest.keyClick(editor, Qt.Key.Key_Space)
    QTest.keyClick(editor, Qt.Key.Key_Right)
    assert editor.toPlainText() != text and view.current == before
    assert not view.controls.playing
    editor.undo()
    editor.undo()
    left.setCurrentWidget(view)
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_Right)
    assert view.steps > 1 and view.current == before + 1
    QTest.keyClick(view, Qt.Key.Key_Space)
    assert view.controls.playing
    QTest.keyClick(view, Qt.Key.Key_Space)
    left.setCurrentWidget(source)
    editor.setFocus()
    qtbot.waitUntil(editor.hasFocus)
    QTest.keyClick(editor, Qt.Key.Key_Escape)  # Esc from the editor still leaves presenting
    assert not window.state.presenting
    assert window.views.tabs.indexOf(source) == 3 and not panel.isHidden()
    window.views.tabs.setCurrentWidget(source)
    editor.setFocus()
    qtbot.waitUntil(editor.hasFocus)
    QTest.keyClick(editor, Qt.Key.Key_F11)  # and F11 from it presents again
    assert window.state.presenting
    window.controllers.presenter.set_presenter(False)


def test_the_solution_is_shown_only_when_asked_and_confirmed(shown, qtbot, monkeypatch):
    window = shown
    exercise, editor = open_exercise(window, qtbot, "index-map")
    asked = []

    def question(parent, title, text, *rest):
        asked.append(title)
        return answer

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    answer = QMessageBox.StandardButton.No
    trigger(window, "Show solution…")
    assert asked == ["Show the solution?"] and window.controllers.exercises.solution is None
    answer = QMessageBox.StandardButton.Yes
    trigger(window, "Show solution…")
    dialog = window.controllers.exercises.solution
    assert dialog.isVisible() and dialog.code.toPlainText() == exercise.solution_source
    assert dialog.code.isReadOnly() and editor.toPlainText() == exercise.start_source
    dialog.close()


def test_a_save_in_the_persons_own_editor_is_graded_the_same_way(shown, qtbot):
    window = shown
    exercise, editor = open_exercise(window, qtbot, "naive-matmul")
    attempt = window.controllers.exercises.attempt_path(exercise)
    assert not save_and_grade(window, qtbot, editor).passed  # saved in the app first
    qtbot.waitUntil(lambda: not window.worker.busy, timeout=GRADE_S)
    fixed = exercise.start_source.replace("B[k * K + col]", "B[k * N + col]")
    with qtbot.waitSignal(window.controllers.exercises.graded, timeout=GRADE_S) as graded:
        attempt.write_text(fixed)  # another editor saves the file
    assert graded.args[0].passed
    assert editor.toPlainText() == fixed and not window.views.source_view.modified()
    assert menu_action(window, f"{exercise.number}. {exercise.title}").isChecked()


def test_cancel_stops_the_grading_of_a_save(shown, qtbot):
    window = shown
    _exercise, editor = open_exercise(window, qtbot, "naive-matmul")
    graded = []
    window.controllers.exercises.graded.connect(graded.append)
    QTest.keyClick(editor, Qt.Key.Key_S, CTRL)
    qtbot.waitUntil(lambda: window.state.working, timeout=GRADE_S)  # the reload, then grading
    trigger(window, "Cancel")
    assert "cancelled" in window.views.exercise_panel.verdict.text()
    qtbot.waitUntil(lambda: not window.worker.busy, timeout=GRADE_S)
    qtbot.wait(300)
    assert graded == []


def test_the_differences_listed_never_quote_the_solution(shown, qtbot):
    window = shown
    _exercise, editor = open_exercise(window, qtbot, "naive-matmul")
    traced = []
    window.worker.trace_finished.connect(traced.append)
    with qtbot.waitSignal(window.controllers.exercises.compared, timeout=GRADE_S):
        grade = save_and_grade(window, qtbot, editor)  # the starting kernel, as it is
    assert not grade.passed
    qtbot.waitUntil(lambda: not window.worker.busy, timeout=GRADE_S)
    assert traced == [] and window.state.traced is grade.traced  # graded from one trace
    differs = [f for f in window.views.findings_view.shown if f.kind == "differs"]
    assert differs and all("the solution reads B[" in f.message for f in differs)
    assert not any("k * N" in f.message for f in differs)  # the solution's own index
    assert any("B[k * K + col]" in f.message for f in differs)  # the attempt's, quoted


def test_the_exercise_open_at_closing_is_open_at_the_next_start(window, qtbot, settings):
    from explorer.gui.main_window import MainWindow

    exercise, _editor = open_exercise(window, qtbot, "tree-reduction")
    window.close()
    again = MainWindow(settings=settings)
    qtbot.addWidget(again)
    assert again.state.exercise == exercise.name
    assert again.model.variant.path == str(again.controllers.exercises.attempt_path(exercise))
    assert exercise.title in again.views.exercise_panel.title.text()
    again.close()


def test_check_now_asks_to_save_edits_first_and_grades_a_saved_attempt(shown, qtbot):
    window = shown
    _exercise, editor = open_exercise(window, qtbot, "naive-matmul")
    graded = []
    window.controllers.exercises.graded.connect(graded.append)
    put_cursor(editor, "k * K + col", len("k * "))
    QTest.keyClick(editor, Qt.Key.Key_Delete)
    QTest.keyClicks(editor, "N")  # the fix, not saved
    trigger(window, "Check now")
    assert "not saved yet" in window.views.exercise_panel.verdict.text()
    assert not window.worker.busy and graded == []
    editor.undo()
    editor.undo()
    assert not window.views.source_view.modified()
    with qtbot.waitSignal(window.controllers.exercises.graded, timeout=GRADE_S):
        # Ctrl+Alt+G in the editor: the starting kernel, as saved
        QTest.keyClick(editor, Qt.Key.Key_G, CTRL | Qt.KeyboardModifier.AltModifier)
    assert not graded[0].passed


def test_the_editor_opens_at_the_line_to_change_with_the_header_folded_away(shown, qtbot):
    window = shown
    exercise, editor = open_exercise(window, qtbot, "naive-matmul")
    header = exercise.header_lines
    assert header > 1 and exercise.start_source.splitlines()[header - 1].strip() == "---*/"
    document = editor.document()
    assert not any(document.findBlockByNumber(n).isVisible() for n in range(header))
    assert document.findBlockByNumber(header).isVisible()
    cursor = editor.textCursor()
    line = cursor.blockNumber() + 1  # numbered as in the file
    assert line == exercise.first_line_to_change
    assert "B[k * K + col]" in cursor.block().text()  # the line with the bug
    assert editor.firstVisibleBlock().blockNumber() >= header  # no header line on screen
    # keys never reach the hidden header: Ctrl+Home goes to the first line shown
    QTest.keyClick(editor, Qt.Key.Key_Home, CTRL)
    assert editor.textCursor().blockNumber() == header
    QTest.keyClick(editor, Qt.Key.Key_Backspace)
    QTest.keyClicks(editor, "// mine")
    QTest.keyClick(editor, Qt.Key.Key_Return)
    put_cursor(editor, "k * K + col", len("k * "))
    QTest.keyClick(editor, Qt.Key.Key_Delete)
    QTest.keyClicks(editor, "N")
    grade = save_and_grade(window, qtbot, editor)
    assert grade.passed, grade.text()
    saved = window.controllers.exercises.attempt_path(exercise).read_text()
    start = exercise.start_source.splitlines()
    assert saved.splitlines()[:header] == start[:header]  # the header, kept in the file
    assert saved.splitlines()[header] == "// mine"
    # another kernel opened: every line of it is shown
    trigger(window, f"{exercise.number + 1}. {find_exercise('coalesced-matvec').title}")
    qtbot.waitUntil(lambda: window.controllers.exercises.exercise.name == "coalesced-matvec")
    assert editor.document().findBlockByNumber(0).isVisible() is False  # its own header
    local = find_exercise("local-size")  # the line to change is in its header: nothing hidden
    trigger(window, f"{local.number}. {local.title}")
    qtbot.waitUntil(lambda: window.controllers.exercises.exercise is local)
    assert all(b.isVisible() for b in _blocks(editor.document()))
    assert 'local = ["128", "128"]' in editor.textCursor().block().text()


def _blocks(document):
    block = document.begin()
    while block.isValid():
        yield block
        block = block.next()


# The gap or the bug of each exercise: the editor opens on the first line holding it.
LINE_TO_CHANGE = {
    "index-map": "int row = get_global_id(0);",
    "naive-matmul": "B[k * K + col]",
    "coalesced-matvec": "for (int x = lid * chunk;",
    "tiled-matmul": "/* ? */",
    "tile-guard": "kA <= K",
    "transpose-tile": "__local float tile[TS][TS];",
    "tree-reduction": "for (int s = 1; s < items; s *= 2)",
    "stencil-halo": "/* ? the halo on the left */",
    "local-histogram": "local_bins[values[get_global_id(0)]] += 1;",
    "local-size": 'local = ["128", "128"]',  # in the header: nothing folded
    "seed004-mem-fence": "mem_fence(CLK_LOCAL_MEM_FENCE);",
    "coalesced3-warp-sync": "// Thread local ID within a warp",  # the racing reduction
}


def test_every_exercise_opens_at_its_gap_or_bug_with_the_header_folded(shown, qtbot):
    window = shown
    editor = window.views.source_view.editor
    assert sorted(LINE_TO_CHANGE) == sorted(e.name for e in exercises())
    for number, exercise in enumerate(exercises(), 1):
        if number == 1:
            trigger(window, f"{exercise.number}. {exercise.title}")
        else:  # Next exercise, Ctrl+Alt+N, wherever the focus is
            window.activateWindow()
            qtbot.waitUntil(window.isActiveWindow)
            QTest.keyClick(editor, Qt.Key.Key_N, CTRL | Qt.KeyboardModifier.AltModifier)
        qtbot.waitUntil(lambda e=exercise: window.controllers.exercises.exercise is e)
        lines = editor.toPlainText().splitlines()
        marker = LINE_TO_CHANGE[exercise.name]
        expected = next(n for n, text in enumerate(lines, 1) if marker in text)
        cursor = editor.textCursor()
        assert cursor.blockNumber() + 1 == expected, (exercise.name, cursor.block().text())
        header = exercise.header_lines
        document = editor.document()
        folded = [document.findBlockByNumber(n).isVisible() for n in range(header)]
        if expected > header:
            assert not any(folded), f"{exercise.name}: its header is on screen"
            assert editor.firstVisibleBlock().blockNumber() >= header
        else:
            assert all(folded), f"{exercise.name}: its line to change is folded away"
        assert cursor.block().isVisible()
        assert editor.viewport().rect().contains(editor.cursorRect()), exercise.name
        assert editor.hasFocus(), f"{exercise.name}: typing would not reach the editor"


def test_a_wrong_attempts_animation_draws_its_values(shown, qtbot):
    """The failed grade's own trace is what the Execution view animates: its buffers carry
    the values the attempt ran on, as any trace's do (the learner reads them to see what
    went wrong), and the Result tab has the attempt's wrong output."""
    import numpy as np

    window = shown
    _exercise, editor = open_exercise(window, qtbot, "index-map")
    editor.moveCursor(QTextCursor.MoveOperation.End)
    QTest.keyClicks(editor, "// as it came")
    with qtbot.waitSignal(window.controllers.trace_diff.compared, timeout=GRADE_S):
        grade = save_and_grade(window, qtbot, editor)
    assert not grade.passed and window.state.traced is grade.traced
    view = window.views.execution_view
    view.set_step(0)
    frames = [canvas.frame for canvas in view.buffers.canvases.values()]
    assert len(frames) == 2  # in and out
    for frame in frames:
        assert frame.values is not None and np.isfinite(frame.values).any(), frame.title
    assert grade.traced.result.outputs and "out" in grade.traced.result.outputs
