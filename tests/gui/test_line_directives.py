"""A kernel file whose code follows its header after `#line 1` (or more `#line` directives):
the trace and the compiler number its lines as the directives say, and the window shows each
such line where it stands in the file: the step line quotes its text, the source and the
execution view's code highlight it, a finding chosen (clicked or with the keyboard) and a
build error mark it, also while the text is being edited."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.gui.conftest import answer_file_dialogs, run_and_wait, trace_and_wait, trigger

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
