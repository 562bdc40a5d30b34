"""The open-kernel dialog's custom form: declarations guessed from the parsed parameter list,
edited, kept in memory (reloads and sessions use them) or written into the file."""

import json

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDialogButtonBox,
    QMessageBox,
)

from explorer.gui.kernel_dialog import KernelMappingDialog
from tests.gui.conftest import answer_file_dialogs, run_and_wait, trigger

GATHER = """// y = alpha * x[index] + y, no header yet
__kernel void gather_axpy(float alpha, __global const uint* index,
                          __global const float* x, __global float* y, int n)
{
    int i = get_global_id(0);
    if (i < n)
        y[i] = alpha * x[index[i]] + y[i];
}
"""

SUMS = """/* Each work-group sums its values through a scratch buffer the host sizes. */
__kernel void group_sums(__global const int* values, __global int* sums,
                         __local int* scratch)
{
    int lid = get_local_id(0);
    scratch[lid] = values[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = get_local_size(0) / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        sums[get_group_id(0)] = scratch[0];
}
"""


@pytest.fixture(autouse=True)
def no_message_boxes(monkeypatch):
    def shown(*args, **kwargs):
        raise AssertionError(f"message box: {args[1:3]}")

    monkeypatch.setattr(QMessageBox, "warning", staticmethod(shown))
    monkeypatch.setattr(QMessageBox, "question", staticmethod(shown))


def when_the_dialog_opens(act):
    """Run ``act(dialog)`` once the modal dialog is up, as the person in front of it would."""
    seen = []

    def poll():
        dialog = QApplication.activeModalWidget()
        if isinstance(dialog, KernelMappingDialog):
            seen.append(dialog)
            act(dialog)
        else:
            QTimer.singleShot(20, poll)

    QTimer.singleShot(0, poll)
    return seen


def rows(dialog):
    """Each declaration row as the person reads it: texts, choices and the result box."""

    def read(cell):
        if isinstance(cell, QComboBox):
            return cell.currentText()
        if isinstance(cell, QCheckBox):
            return cell.isChecked()
        return cell.text() if cell is not None else None

    table = dialog.declarations_table
    out = {}
    for row in range(table.rowCount()):
        name, *rest = (read(table.cellWidget(row, c)) for c in range(table.columnCount()))
        out[name] = tuple(rest)
    return out


def test_the_custom_form_is_guessed_from_the_parameter_list(qtbot, tmp_path):
    path = tmp_path / "gather.cl"
    path.write_text(GATHER)
    dialog = KernelMappingDialog(path)
    qtbot.addWidget(dialog)
    assert dialog.family.currentText() == "custom"  # a float by value: no fixed family
    assert dialog.sizes.text() == "n = 1024"
    assert (dialog.global_size.text(), dialog.local_size.text()) == ("n", "64")
    assert rows(dialog) == {
        "alpha": ("scalar", "float", "1.5", None, None, None, None, None),
        "index": ("buffer", "uint", "n", "random", "read", False, "", ""),
        "x": ("buffer", "float", "n", "random", "read", False, "", ""),
        "y": ("buffer", "float", "n", "random", "readwrite", True, "", ""),
        "n": ("scalar", "int", "n", None, None, None, None, None),
    }
    path.write_text(SUMS)
    dialog = KernelMappingDialog(path)
    qtbot.addWidget(dialog)
    dialog.family.setCurrentText("custom")
    assert rows(dialog) == {
        "values": ("buffer", "int", "N", "random", "read", False, "", ""),
        "sums": ("buffer", "int", "N", "zeros", "write", True, "", ""),  # written, never read
        "scratch": ("local", "int", "L0", None, None, None, None, None),
    }


def test_declared_in_memory_runs_reloads_and_is_saved_in_a_session(
    qtbot, window, monkeypatch, tmp_path
):
    path = tmp_path / "gather.cl"
    path.write_text(GATHER)

    def declare(dialog):
        dialog.sizes.setText("n = 500")
        dialog.reference.setText("alpha * x[index] + y")
        box = dialog.findChild(QDialogButtonBox)
        box.button(QDialogButtonBox.StandardButton.Ok).click()

    answer_file_dialogs(monkeypatch, path)
    seen = when_the_dialog_opens(declare)
    trigger(window, "Open kernel…")
    assert seen and path.read_text() == GATHER  # nothing written
    assert window.model.variant.custom is not None
    assert window.views.panel.size_spins["n"].value() == 500
    result = run_and_wait(qtbot, window)
    assert result.status == "verified", result.summary()
    assert result.global_size[0] >= 500

    session = tmp_path / "gather.kexp.json"
    answer_file_dialogs(monkeypatch, session)
    trigger(window, "Save session…")
    assert json.loads(session.read_text())["header"].startswith("/*---")
    window.model.set_family("matmul")
    trigger(window, "Open session…")
    assert window.model.variant.path == str(path) and window.model.sizes == {"n": 500}
    assert run_and_wait(qtbot, window).status == "verified"

    before = len(window.state.history)
    path.write_text(GATHER.replace("+ y[i];", "+ 2.0f * y[i];"))  # saved in an editor
    qtbot.waitUntil(lambda: len(window.state.history) > before, timeout=60000)
    assert window.state.result.status == "wrong"  # reloaded with the declarations in memory


@pytest.mark.usefixtures("fast_cli")
def test_write_header_into_the_file_keeps_the_kernel_text_and_runs_from_the_command_line(
    qtbot, tmp_path
):
    from tests.robustness.helpers import cli

    path = tmp_path / "sums.cl"
    path.write_text(SUMS)
    dialog = KernelMappingDialog(path)
    qtbot.addWidget(dialog)
    dialog.family.setCurrentText("custom")
    dialog.sizes.setText("N = 4096")
    dialog.write_button.click()
    assert dialog.result() == KernelMappingDialog.DialogCode.Accepted and dialog.written
    text = path.read_text()
    assert text.startswith("/*---") and text.endswith(SUMS)
    assert text[: -len(SUMS)].endswith("---*/\n")
    command = ["run", "--kernel-file", str(path), "--json"]
    done = cli(*command)
    assert done.code == 0, done.err
    assert json.loads(done.out.splitlines()[-1])["status"] == "unchecked"
    plain = cli(*command[:-1])
    assert "ran, not checked" in plain.out.lower()

    # Declared again with a reference: the header is replaced, the kernel text still kept.
    dialog = KernelMappingDialog(path)
    qtbot.addWidget(dialog)
    dialog.family.setCurrentText("custom")
    sums_row = list(rows(dialog)).index("sums")
    count = dialog.declarations_table.cellWidget(sums_row, 3)
    count.selectAll()
    qtbot.keyClicks(count, "N / L0")  # one sum per work-group
    dialog.reference.setText("sum(reshape(values, (N // L0, L0)), axis=1)")
    dialog.write_button.click()
    text = path.read_text()
    assert text.count("/*---") == 1 and text.endswith(SUMS)
    done = cli(*command)
    assert json.loads(done.out.splitlines()[-1])["status"] == "verified", done.out


def test_a_promise_typed_in_the_writes_column_is_written_and_traced(qtbot, tmp_path, fast_cli):
    """One sum per work-group into a buffer of N: promising "all" of it makes the sums the
    kernel never writes a coverage finding; promising its first N / 64 elements, none."""
    from tests.robustness.helpers import cli

    path = tmp_path / "sums.cl"
    path.write_text(SUMS)
    found = {}
    for promise in ("all", "[:4]"):
        dialog = KernelMappingDialog(path)
        qtbot.addWidget(dialog)
        dialog.family.setCurrentText("custom")
        dialog.sizes.setText("N = 256")
        dialog.local_size.setText("64")
        writes = dialog.declarations_table.cellWidget(list(rows(dialog)).index("sums"), 8)
        writes.setFocus()
        writes.selectAll()
        qtbot.keyClicks(writes, promise)
        dialog.write_button.click()
        assert f'writes = "{promise}"' in path.read_text()
        done = cli("trace", "--kernel-file", str(path), "--json")
        assert done.code == 0, done.err
        found[promise] = [
            (f["kind"], f["buffer"], f["count"]) for f in json.loads(done.out)["findings"]
        ]
    assert found == {"all": [("coverage", "sums", 252)], "[:4]": []}


SHADE = """// A struct passed by value, helpers and macros: no header yet
#define CLAMP01(x) fmin(fmax((x), 0.0f), 1.0f)
typedef struct { float gain; float offset; } Params;

static float shape(float v, Params p) { return CLAMP01(v * p.gain + p.offset); }

__kernel void update(__global const float *pos, __global float *out, const Params p,
                     const int n)
{
    int i = get_global_id(0);
    if (i < n)
        out[i] = shape(pos[i], p);
}
"""


def test_a_struct_passed_by_value_is_proposed_as_bytes_the_form_accepts(
    qtbot, window, monkeypatch, tmp_path
):
    """The form proposed a struct's own type name ('Params'), which it then refused as an
    unknown element type: OK could never be pressed on what it had guessed."""
    path = tmp_path / "shade.cl"
    path.write_text(SHADE)
    errors = []

    def accept(dialog):
        assert rows(dialog)["p"] == ("scalar", "uchar", ", ".join(["0"] * 8)) + (None,) * 5
        box = dialog.findChild(QDialogButtonBox)
        box.button(QDialogButtonBox.StandardButton.Ok).click()
        if dialog.isVisible():  # refused what it proposed: say so, and leave
            errors.append(dialog.error.text())
            dialog.reject()

    answer_file_dialogs(monkeypatch, path)
    seen = when_the_dialog_opens(accept)
    trigger(window, "Open kernel…")
    assert seen and errors == []
    assert window.model.variant.custom is not None
    result = run_and_wait(qtbot, window)
    assert result.error is None and result.refused is None, result.summary()
    assert result.status == "unchecked"


def test_the_windows_kernel_file_option_opens_a_file_without_a_header_as_open_kernel_does(
    qtbot, window, tmp_path
):
    """`kernel-explorer --kernel-file mine.cl` on a file without a header showed "Cannot use
    the options: no catalog header", though File ▸ Open kernel maps it (and proposes the
    answers given for it before)."""
    from explorer.app import _open_with_options, build_parser

    path = tmp_path / "gather.cl"
    path.write_text(GATHER)

    def declare(dialog):
        assert dialog.sizes.text() == "n = 1024"
        dialog.reference.setText("alpha * x[index] + y")
        box = dialog.findChild(QDialogButtonBox)
        box.button(QDialogButtonBox.StandardButton.Ok).click()

    seen = when_the_dialog_opens(declare)
    args = build_parser().parse_args(["--kernel-file", str(path), "--set", "n=300"])
    _open_with_options(window, args)
    assert seen and window.model.variant.path == str(path)
    assert window.model.sizes == {"n": 300}  # the rest of the command line still applies
    assert run_and_wait(qtbot, window).status == "verified"
