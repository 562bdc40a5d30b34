"""A kernel opened without a header (the dialog's default keeps the header in memory): every
line on screen is the file's own. The source view shows the file, the build error's marker,
the finding's line, the execution caption's quoted line and Oclgrind's quoted line all count
lines of the file, not of the header and the file."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QDialog

from tests.gui.conftest import answer_file_dialogs, trigger

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
READ_LINE = 8  # out[...] = tile[...]: reads what another work-item wrote, unordered
STORE_LINE = 6


def line(number: int, text: str = RACE) -> str:
    return text.splitlines()[number - 1]


@pytest.fixture
def open_bare(window, monkeypatch, tmp_path):
    """Open a header-less file through File ▸ Open kernel…, as the custom form with the
    dialog's guesses as they come (the header kept in memory, the dialog's default)."""
    from explorer.gui.kernel_dialog import KernelMappingDialog

    def accept(dialog: KernelMappingDialog) -> QDialog.DialogCode:
        dialog.family.setCurrentText("custom")
        dialog.accept()
        assert dialog.variant is not None, dialog.error.text()
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(KernelMappingDialog, "exec", accept)

    def open_file(name: str, text: str):
        path = tmp_path / name
        path.write_text(text)
        answer_file_dialogs(monkeypatch, path)
        trigger(window, "Open kernel…")
        assert path.read_text() == text  # the header was not written into it
        assert window.model.variant.path == str(path)
        return path

    return open_file


def test_a_traced_race_names_the_files_lines_everywhere(qtbot, window, open_bare):
    open_bare("race.cl", RACE)
    views = window.views
    assert views.source_view.editor.toPlainText() == RACE
    trigger(window, "Trace")
    qtbot.waitUntil(lambda: window.state.playback is not None, timeout=60000)
    races = [f for f in window.state.traced.analysis.findings if f.kind == "race"]
    assert races and {f.line for f in races} <= {STORE_LINE, READ_LINE}

    # The execution view's code and caption quote the file's line of the step shown.
    execution = views.execution_view
    assert execution.code.toPlainText() == RACE
    for index in range(execution.steps):
        execution.set_step(index)
        step = window.state.playback.steps[index]
        caption = execution.lines.step_label.text()
        assert caption.endswith(f"line {step.line}:  {line(step.line).strip()}"), caption

    # Choosing the finding marks its line in the source: the file's line with the read.
    views.findings_view.finding_selected.emit(races[0])
    marked = views.source_view.editor.marked
    assert marked == [races[0].line]
    assert "tile[" in line(marked[0])


def test_oclgrind_quotes_the_files_line(qtbot, window, open_bare):
    open_bare("race.cl", RACE)
    trigger(window, "Check with Oclgrind")
    qtbot.waitUntil(lambda: window.state.oclgrind is not None, timeout=120000)
    check = window.state.oclgrind
    assert check.messages, window.views.findings_view.oclgrind.toPlainText()
    shown = window.views.findings_view.oclgrind.toPlainText()
    first = check.messages[0]
    assert first.line in (STORE_LINE, READ_LINE)
    assert line(first.line).strip() in shown  # the quoted text is that line of the file
    assert "[args." not in shown and "scalar =" not in shown


def test_a_build_error_is_marked_at_the_files_line(qtbot, window, open_bare):
    broken = RACE.replace("int lid = get_local_id(0);", "int lid = get_local_id(0)")
    open_bare("broken.cl", broken)
    assert window.views.source_view.editor.toPlainText() == broken
    before = len(window.state.history)
    trigger(window, "Run")
    qtbot.waitUntil(lambda: len(window.state.history) > before, timeout=60000)
    assert window.state.result.error_kind == "build"
    marked = window.views.source_view.editor.marked
    # The compiler points at the missing ';' (end of line 5) or the token after it (line 6).
    assert marked and set(marked) <= {5, 6}, marked
    assert "get_local_id(0)" in line(min(marked), broken)
