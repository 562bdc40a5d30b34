"""A build error in a file the kernel `#include`s (beside it, or in an `-I` folder) is that
file's line, not the kernel's: the build log names the file and its line, and no line of the
kernel that happens to have the same number is marked in the source, nor when the message is
clicked. The kernel's own error in the same build is still marked at its line. The command
line prints the included file's name and line too."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.gui.conftest import answer_file_dialogs, run_and_wait, trigger
from tests.robustness.helpers import cli

# A helper file as people keep them: a banner, a guard, a few inline functions. Its error
# (`gain` is not declared) is on line 14.
HELPERS = """/*
 * common.h - small helpers shared by the image kernels
 *
 * Keep these inline: they are included in several kernels.
 */
#ifndef COMMON_H
#define COMMON_H

#define IDX(x, y, w) ((y) * (w) + (x))

inline float luma(float4 rgba)
{
    return 0.299f * rgba.x + 0.587f * rgba.y
         + 0.114f * rgba.z * gain;
}

#endif
"""
HELPERS_ERROR_LINE = 14

HEADER = """/*---
name = "Grey levels"
family = "custom"
kernel = "grey"
global = ["W", "H"]
local = ["8", "8"]
[sizes]
W = 64
H = 32
[args.rgba]
buffer = "float4"
count = "W * H"
access = "read"
[args.out]
buffer = "float"
count = "W * H"
result = true
shape = ["H", "W"]
{options}---*/
"""
KERNEL = """{include}

__kernel void grey(__global const float4 *rgba, __global float *out, int W)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    out[IDX(x, y, W)] = luma(rgba[IDX(x, y, W)]);
}
"""


def highlighted(editor) -> list[str]:
    return [selection.cursor.block().text() for selection in editor.extraSelections()]


def log_items(source):
    return [source.build_log.item(i) for i in range(source.build_log.count())]


def kernel_file(tmp_path, include: str, options: str = "") -> str:
    text = HEADER.replace("{options}", options) + KERNEL.replace("{include}", include)
    # The kernel's own line 14 exists: a mark there would be the wrong line.
    assert len(text.splitlines()) > HELPERS_ERROR_LINE
    return text


def open_file(window, monkeypatch, path, text):
    path.write_text(text)
    answer_file_dialogs(monkeypatch, path)
    trigger(window, "Open kernel…")
    assert window.views.source_view.editor.toPlainText() == text


def test_an_error_in_an_included_file_marks_no_line_of_the_kernel(
    qtbot, window, monkeypatch, tmp_path
):
    (tmp_path / "common.h").write_text(HELPERS)
    # The kernel's own mistake too (a missing ';'), so its own error is in the same log.
    text = kernel_file(tmp_path, '#include "common.h"').replace(
        "int y = get_global_id(1);", "int y = get_global_id(1)"
    )
    open_file(window, monkeypatch, tmp_path / "grey.cl", text)
    assert run_and_wait(qtbot, window).error_kind == "build"
    source = window.views.source_view
    included = next(item for item in log_items(source) if "common.h" in item.text())
    assert f"common.h:{HELPERS_ERROR_LINE}:" in included.text() and "gain" in included.text()
    assert included.data(Qt.ItemDataRole.UserRole) is None  # nothing of the kernel to show
    assert f"Line {HELPERS_ERROR_LINE} of" in included.toolTip()
    assert "common.h" in included.toolTip()

    lines = dict(enumerate(text.splitlines(), 1))
    own = next(n for n, line in lines.items() if "get_global_id(1)" in line)
    # The kernel's own error is marked (the missing ';' or the token after it) ...
    assert source.editor.marked and set(source.editor.marked) <= {own, own + 1}
    assert set(highlighted(source.editor)) <= {lines[own], lines[own + 1]}
    assert "get_global_id(1)" in highlighted(source.editor)[0]
    # ... and the kernel's line 14, the included error's number, is not.
    assert HELPERS_ERROR_LINE not in source.editor.marked
    source.editor.mark_lines([])
    source.build_log.itemClicked.emit(included)
    assert highlighted(source.editor) == []
    # Above the source: the error is in the included file, not a line shown there.
    assert_said_elsewhere(window)


def assert_said_elsewhere(window):
    """The source tab, in front, says the build error is in common.h at its line."""
    trigger(window, "Kernel source")
    source = window.views.source_view
    assert window.views.tabs.currentWidget() is source
    assert not source.elsewhere.isHidden()
    said = source.elsewhere.text()
    assert f"common.h, line {HELPERS_ERROR_LINE}" in said and "includes" in said


def test_an_error_in_a_header_from_an_include_folder_marks_no_line_of_the_kernel(
    qtbot, window, monkeypatch, tmp_path
):
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "common.h").write_text(HELPERS)
    text = kernel_file(tmp_path, "#include <common.h>", '[options]\nall = "-I include"\n')
    open_file(window, monkeypatch, tmp_path / "grey.cl", text)
    assert run_and_wait(qtbot, window).error_kind == "build"
    source = window.views.source_view
    included = next(item for item in log_items(source) if "common.h" in item.text())
    assert f"common.h:{HELPERS_ERROR_LINE}:" in included.text()
    assert included.data(Qt.ItemDataRole.UserRole) is None
    assert source.editor.marked == []
    assert highlighted(source.editor) == []
    assert_said_elsewhere(window)
    # Fixed, built again: the note goes with the error.
    (tmp_path / "include" / "common.h").write_text(HELPERS.replace(" * gain", ""))
    assert run_and_wait(qtbot, window).error_kind != "build"
    assert source.elsewhere.isHidden()


@pytest.mark.usefixtures("fast_cli")  # the command on the session's executor
def test_the_command_line_names_the_included_file_and_its_line(tmp_path):
    (tmp_path / "common.h").write_text(HELPERS)
    path = tmp_path / "grey.cl"
    path.write_text(kernel_file(tmp_path, '#include "common.h"'))
    outcome = cli("run", "--kernel-file", str(path))
    assert outcome.code != 0
    said = outcome.out + outcome.err
    assert f"common.h:{HELPERS_ERROR_LINE}:" in said and "gain" in said
    assert f"grey.cl:{HELPERS_ERROR_LINE}:" not in said


@pytest.mark.usefixtures("fast_cli")  # the command on the session's executor
def test_an_included_file_named_as_a_compilers_own_input_is_still_that_file(tmp_path):
    """A helper kept in input.cl, the name Oclgrind gives the text it is handed: PoCL names
    the helper by its path, and that path is the helper's, never the kernel's own text (it
    was read as grey.cl and its line 14 told as the kernel's)."""
    (tmp_path / "input.cl").write_text(HELPERS)
    path = tmp_path / "grey.cl"
    path.write_text(kernel_file(tmp_path, '#include "input.cl"'))
    outcome = cli("run", "--kernel-file", str(path))
    assert outcome.code != 0
    said = outcome.out + outcome.err
    assert f"input.cl:{HELPERS_ERROR_LINE}:" in said and "gain" in said
    assert f"grey.cl:{HELPERS_ERROR_LINE}:" not in said


def test_a_warning_in_an_included_file_is_no_build_error_above_the_source(qtbot):
    """A warning of common.h that quotes a variable named error_count was said above the
    source as a build error in common.h (the word "error" anywhere in the line)."""
    from explorer.gui.source_view import SourceView

    source = SourceView()
    qtbot.addWidget(source)
    source.show_build_log("/k/common.h:3:9: warning: unused variable 'error_count'\n")
    assert source.elsewhere.isHidden()
    source.show_build_log("/k/common.h:14:30: error: use of undeclared identifier 'gain'\n")
    assert not source.elsewhere.isHidden()
    assert "common.h, line 14" in source.elsewhere.text()
