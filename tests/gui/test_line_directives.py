"""A kernel file whose code follows its header after `#line 1` (or more `#line` directives):
the trace and the compiler number its lines as the directives say, and the window shows each
such line where it stands in the file: the step line quotes its text, the source and the
execution view's code highlight it, a finding chosen (clicked or with the keyboard) and a
build error mark it, also while the text is being edited. A replayed launch whose program was
built with a `-D` macro shows the macro before `#line 1`: the same holds for its lines."""

from __future__ import annotations

import sys

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QFileDialog

from explorer.gui.source_view import CodeEditor
from tests.gui.conftest import answer_file_dialogs, run_and_wait, trace_and_wait, trigger
from tests.robustness.helpers import cli

HEADER = """/*---
name = "shift through local memory, no barrier"
family = "custom"
kernel = "shift"
global = ["64"]
local = ["64"]
[args.in]
buffer = "float"
count = "64"
access = "read"
[args.out]
buffer = "float"
count = "64"
contents = "zeros"
access = "write"
---*/
"""
RACE = """// shifts each group's values by one, through local memory
__kernel void shift(__global const float *in, __global float *out)
{
    __local float tile[64];
    int lid = get_local_id(0);
    tile[lid] = in[get_global_id(0)];
    // no barrier here: a neighbour's value may not be there yet
    out[get_global_id(0)] = tile[(lid + 1) % get_local_size(0)];
}
"""
# The trace's and the compiler's lines of RACE after `#line 1`, with their text.
RACE_LINES = dict(enumerate(RACE.splitlines(), 1))

# A helper numbered from 1, then the kernel from 40.
HELPER = """float neighbour(__local const float *tile, int lid)
{
    return tile[(lid + 1) % get_local_size(0)];
}
"""
KERNEL_AT_40 = """__kernel void shift(__global const float *in, __global float *out)
{
    __local float tile[64];
    int lid = get_local_id(0);
    tile[lid] = in[get_global_id(0)];
    out[get_global_id(0)] = neighbour(tile, lid);
}
"""
TWO_PARTS = HEADER + "#line 1\n" + HELPER + "#line 40\n" + KERNEL_AT_40
TWO_PARTS_LINES = {
    **dict(enumerate(HELPER.splitlines(), 1)),
    **dict(enumerate(KERNEL_AT_40.splitlines(), 40)),
}


def highlighted(editor) -> list[str]:
    """The text of the lines an editor highlights, as a person sees them."""
    return [selection.cursor.block().text() for selection in editor.extraSelections()]


def in_view(editor, text: str) -> bool:
    """Whether the editor's view is scrolled to show the line reading ``text``."""
    number = editor.toPlainText().split("\n").index(text)
    rows = max(1, editor.viewport().height() // max(1, editor.fontMetrics().lineSpacing()))
    top = editor.verticalScrollBar().value()
    return top <= number < top + rows


def open_file(window, monkeypatch, path, text):
    path.write_text(text)
    answer_file_dialogs(monkeypatch, path)
    trigger(window, "Open kernel…")
    assert window.model.variant.path == str(path)
    assert window.views.source_view.editor.toPlainText() == text


def check_every_step(window, lines: dict[int, str]) -> None:
    """Each step quotes and highlights its own line of the file, in the execution view's
    code and in the source."""
    execution = window.views.execution_view
    assert execution.steps > 1
    for index in range(execution.steps):
        execution.set_step(index)
        step = window.state.playback.steps[index]
        caption = execution.lines.step_label.text()
        assert caption == f"phase {step.phase} · line {step.line}:  {lines[step.line].strip()}"
        assert highlighted(execution.code) == [lines[step.line]]
        assert execution.code.textCursor().block().text() == lines[step.line]
        assert highlighted(window.views.source_view.editor) == [lines[step.line]]


def test_every_step_shows_its_line_after_the_header(qtbot, window, monkeypatch, tmp_path):
    open_file(window, monkeypatch, tmp_path / "race.cl", HEADER + "#line 1\n" + RACE)
    trace_and_wait(qtbot, window)
    check_every_step(window, RACE_LINES)


def test_two_line_directives_number_each_part(qtbot, window, monkeypatch, tmp_path):
    open_file(window, monkeypatch, tmp_path / "parts.cl", TWO_PARTS)
    trace_and_wait(qtbot, window)
    assert {3, 44, 45} <= {s.line for s in window.state.playback.steps}  # both parts
    check_every_step(window, TWO_PARTS_LINES)


def test_a_finding_chosen_shows_its_line_also_while_edited(qtbot, window, monkeypatch, tmp_path):
    open_file(window, monkeypatch, tmp_path / "race.cl", HEADER + "#line 1\n" + RACE)
    trace_and_wait(qtbot, window)
    findings = window.views.findings_view.findings
    editor = window.views.source_view.editor
    row = next(
        findings.topLevelItem(i)
        for i in range(findings.topLevelItemCount())
        if findings.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole + 1).kind == "race"
    )
    race = row.data(0, Qt.ItemDataRole.UserRole + 1)
    assert race.line in (6, 8)

    findings.setCurrentItem(row)  # as a click selects it
    assert highlighted(editor) == [RACE_LINES[race.line]]
    assert in_view(editor, RACE_LINES[race.line])

    # A line typed above the kernel, not saved: the finding still names its line of code.
    editor.mark_lines([])
    cursor = editor.textCursor()
    cursor.setPosition(editor.toPlainText().index("__kernel"))
    cursor.insertText("// a note typed after the trace\n")
    assert editor.document().isModified()
    findings.setFocus()
    try:
        qtbot.keyClick(findings, Qt.Key.Key_Return)  # the keyboard's choice: the same again
        assert highlighted(editor) == [RACE_LINES[race.line]]
        assert in_view(editor, RACE_LINES[race.line])
    finally:
        window.views.source_view.discard()  # the window closes without asking


def test_a_build_error_after_the_header_is_marked_at_its_line(qtbot, window, monkeypatch, tmp_path):
    broken = RACE.replace("int lid = get_local_id(0);", "int lid = get_local_id(0)")
    open_file(window, monkeypatch, tmp_path / "broken.cl", HEADER + "#line 1\n" + broken)
    assert run_and_wait(qtbot, window).error_kind == "build"
    source = window.views.source_view
    broken_lines = dict(enumerate(broken.splitlines(), 1))
    # The compiler points at the missing ';' (end of line 5) or the token after it (line 6).
    assert set(source.editor.marked) <= {5, 6} and source.editor.marked
    shown = highlighted(source.editor)
    assert shown and set(shown) <= {broken_lines[5], broken_lines[6]}
    assert "get_local_id(0)" in shown[0]

    # The build log's message, clicked: the same line of the file, in front.
    log = source.build_log
    item = next(
        log.item(i)
        for i in range(log.count())
        if "error" in log.item(i).text() and log.item(i).data(Qt.ItemDataRole.UserRole)
    )
    source.editor.mark_lines([])
    log.itemClicked.emit(item)
    assert highlighted(source.editor) == [broken_lines[item.data(Qt.ItemDataRole.UserRole)]]


def test_a_file_without_line_directives_is_shown_as_numbered(qtbot, window, monkeypatch, tmp_path):
    """The header is part of the numbering when no `#line` follows it: unchanged."""
    text = HEADER + RACE
    open_file(window, monkeypatch, tmp_path / "race.cl", text)
    trace_and_wait(qtbot, window)
    check_every_step(window, dict(enumerate(text.splitlines(), 1)))
    assert min(s.line for s in window.state.playback.steps) > len(HEADER.splitlines())


# A program of one's own, built with a define that is not a whole number: its replay shows
# the define, then `#line 1`, then the program's kernel, numbered as the program's file.
PROGRAM = """
import numpy as np
import pyopencl as cl

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, {source!r}).build(options=["-D", "GAIN=2.0f"])
x = np.arange(64, dtype=np.float32)
mf = cl.mem_flags
x_buf = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
y_buf = cl.Buffer(context, mf.WRITE_ONLY, size=x.nbytes)
program.shift(queue, (64,), (64,), x_buf, y_buf)
queue.finish()
"""


def test_a_replayed_launch_built_with_a_define_shows_the_programs_lines(
    qtbot, window, monkeypatch, tmp_path, kept_executor
):
    from explorer.engine.launch.devices import default_device

    kernel = RACE.replace("in[get_global_id(0)]", "GAIN * in[get_global_id(0)]")
    program = tmp_path / "shift.py"
    program.write_text(PROGRAM.format(source=kernel))
    folder = tmp_path / "capture"
    monkeypatch.setenv("PYOPENCL_CTX", default_device(kept_executor.devices()).key)
    outcome = cli("capture", str(folder), "--", sys.executable, str(program))
    assert outcome.code == 0, outcome.err
    monkeypatch.setattr(
        QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(folder))
    )
    trigger(window, "Open capture…")
    qtbot.waitUntil(lambda: window.state.playback is not None, timeout=60000)
    shown = window.views.source_view.editor.toPlainText()
    assert shown.startswith("#define GAIN 2.0f\n#line 1\n") and shown.endswith(kernel)
    check_every_step(window, dict(enumerate(kernel.splitlines(), 1)))


def test_a_build_error_in_another_files_lines_marks_none_of_the_kernels(
    qtbot, window, monkeypatch, tmp_path
):
    """Lines under `#line 1 "helper.h"` are helper.h's: its error marks no line of the kernel
    that happens to have its number; the kernel's own error is marked where it stands."""
    broken = RACE.replace("int lid = get_local_id(0);", "int lid = get_local_id(0)")
    helper = "float helper(float x)\n{\n    return x * undefined_name;\n}\n"
    text = HEADER + "#line 1\n" + broken + '#line 1 "helper.h"\n' + helper
    open_file(window, monkeypatch, tmp_path / "broken.cl", text)
    assert run_and_wait(qtbot, window).error_kind == "build"
    source = window.views.source_view
    log = [source.build_log.item(i) for i in range(source.build_log.count())]
    helper_error = next(item for item in log if "helper.h:3:" in item.text())
    assert "undefined_name" in helper_error.text()
    assert helper_error.data(Qt.ItemDataRole.UserRole) is None  # nothing to click through to
    broken_lines = dict(enumerate(broken.splitlines(), 1))
    shown = highlighted(source.editor)
    assert shown and set(shown) <= {broken_lines[5], broken_lines[6]}, shown


def test_oclgrind_quotes_the_line_it_names(qtbot, window, monkeypatch, tmp_path):
    open_file(window, monkeypatch, tmp_path / "race.cl", HEADER + "#line 1\n" + RACE)
    trigger(window, "Check with Oclgrind")
    qtbot.waitUntil(lambda: window.state.oclgrind is not None, timeout=120000)
    first = window.state.oclgrind.messages[0]
    assert first.line in (6, 8)
    shown = window.views.findings_view.oclgrind.toPlainText()
    assert f"At line {first.line}" in shown
    quoted = shown.split(f"At line {first.line}", 1)[1].splitlines()[1]
    assert quoted.strip() == RACE_LINES[first.line].strip()


def ink_rows(editor, blocks: range) -> list[bool]:
    """Whether the gutter, as painted, shows anything beside each of ``blocks``."""
    picture = editor.numbers.grab().toImage()
    background = picture.pixelColor(1, 1)
    offset = editor.contentOffset()
    inked = []
    for number in blocks:
        box = editor.blockBoundingGeometry(editor.document().findBlockByNumber(number))
        top, bottom = int(box.translated(offset).top()), int(box.translated(offset).bottom())
        inked.append(
            any(
                picture.pixelColor(x, y) != background
                for y in range(max(0, top), min(picture.height(), bottom))
                for x in range(picture.width())
            )
        )
    return inked


def test_the_gutter_numbers_lines_as_the_directives_do(qtbot, window, monkeypatch, tmp_path):
    """The gutter beside the code says the numbers the step line and the findings say: the
    helper from 1, the kernel from 40; the header and the directives have none. An edited
    `#line` renumbers at once."""
    open_file(window, monkeypatch, tmp_path / "parts.cl", TWO_PARTS)
    editor = window.views.source_view.editor
    text = TWO_PARTS.split("\n")
    labels = {text[n]: editor.gutter_label(n) for n in range(len(text)) if text[n]}
    assert labels["#line 1"] == labels["#line 40"] == labels["---*/"] == ""
    assert labels[HELPER.splitlines()[0]] == "1"
    assert labels[KERNEL_AT_40.splitlines()[0]] == "40"
    assert labels["    out[get_global_id(0)] = neighbour(tile, lid);"] == "45"

    window.show()
    window.views.tabs.setCurrentWidget(window.views.source_view)
    qtbot.waitExposed(editor)
    editor.verticalScrollBar().setValue(0)
    header = len(HEADER.splitlines())
    inked = ink_rows(editor, range(0, header + 2))
    assert not any(inked[: header + 1]) and inked[header + 1]  # blank to `#line 1`, then "1"

    cursor = editor.textCursor()
    cursor.setPosition(editor.toPlainText().index("#line 40") + len("#line "))
    cursor.deleteChar()
    cursor.insertText("6")  # #line 60, not saved
    try:
        kernel = editor.toPlainText().split("\n").index(KERNEL_AT_40.splitlines()[0])
        assert editor.gutter_label(kernel) == "60"
    finally:
        window.views.source_view.discard()


def test_the_gutter_follows_every_edit_of_a_line_directive(qtbot):
    """Editing a `#line` again and again (past the numberings kept in memory), the gutter
    shows each time the numbers the text now gives, never a picture of earlier ones."""
    editor = CodeEditor()
    qtbot.addWidget(editor)
    editor.setReadOnly(False)
    editor.load("#line 1\nint a;\nint b;\n")
    editor.resize(400, 300)
    editor.show()
    qtbot.waitExposed(editor)
    for number in [*range(2, 40)] * 20:
        cursor = editor.textCursor()
        cursor.setPosition(len("#line "))
        cursor.movePosition(cursor.MoveOperation.EndOfBlock, cursor.MoveMode.KeepAnchor)
        cursor.insertText(str(number))
        shown = editor.numbers.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
        block = editor.firstVisibleBlock()
        top = editor.blockBoundingGeometry(block).translated(editor.contentOffset()).top()
        drawn = editor._draw_gutter(block, round(top), set(), editor._shown_numbering())
        assert shown == drawn.toImage().convertToFormat(QImage.Format.Format_RGB32), (
            f"the gutter after `#line {number}`"
        )


def test_the_gutter_takes_a_one_line_comment_for_no_header(qtbot):
    """A file that opens with a one-line `/*--- ... ---*/` comment has no catalog header
    (the catalog refuses it): the gutter numbers the kernel after its `#line 1` from 1, also
    where a later comment is written in the header's style."""
    text = (
        '/*--- name = "shift" ---*/\n#line 1\n'
        + RACE
        + "/*---\n  tried a barrier here: the race goes away\n---*/\n"
    )
    editor = CodeEditor()
    qtbot.addWidget(editor)
    editor.load(text)
    lines = text.split("\n")
    labels = {lines[n]: editor.gutter_label(n) for n in range(len(lines)) if lines[n]}
    assert labels["#line 1"] == ""
    assert labels[RACE.splitlines()[0]] == "1"
    assert labels["    tile[lid] = in[get_global_id(0)];"] == "6"


def test_write_header_into_a_file_saved_with_windows_line_ends_replaces_its_header():
    """The catalog reads a header with CRLF line ends: writing a new one replaces it, never
    puts a second header above the first."""
    from explorer.gui.kernel_dialog import with_written_header

    old = HEADER.replace("\n", "\r\n")
    kernel = RACE.replace("\n", "\r\n")
    new = HEADER.replace('"shift through local memory, no barrier"', '"shift"')
    written = with_written_header(old + kernel, new)
    assert written == new + kernel
    assert written.count("/*---") == 1
