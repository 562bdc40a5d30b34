"""The open-kernel dialog proposes only what it has checked, as a person meets it through
File ▸ Open kernel (Ctrl+O): a family only where a small run agrees with that family's
reference, a local size from the kernel's own text, a reference tried as it is typed, the
answers kept per file and at the next start; and Compare trace with (Ctrl+Shift+T) takes a
kernel without a header through the same dialog, saying in the window what stops it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QMessageBox

from explorer.gui.kernel_dialog import KernelMappingDialog
from explorer.paths import kernels_dir
from tests.gui.conftest import answer_file_dialogs, menu_action, run_and_wait, trigger

CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier

# A correct 3×3 box blur (the mean of nine, clamped at the edges) through a local tile with a
# one-pixel halo, for 8×8 work-groups: run with 16×16 groups it reads past its tile.
BOX_TILED = """// 3x3 box blur, clamped at the edges, through a local tile
#define TS 8

__kernel void box_blur(__global const float *src, __global float *dst, int width, int height)
{
    __local float tile[TS + 2][TS + 2];
    int gx = get_global_id(0), gy = get_global_id(1);
    int lx = get_local_id(0), ly = get_local_id(1);
    int x0 = get_group_id(0) * TS - 1, y0 = get_group_id(1) * TS - 1;
    for (int i = ly; i < TS + 2; i += TS)
        for (int j = lx; j < TS + 2; j += TS) {
            int x = clamp(x0 + j, 0, width - 1), y = clamp(y0 + i, 0, height - 1);
            tile[i][j] = src[y * width + x];
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gx < width && gy < height) {
        float s = 0.0f;
        for (int dy = 0; dy < 3; dy++)
            for (int dx = 0; dx < 3; dx++)
                s += tile[ly + dy][lx + dx];
        dst[gy * width + gx] = s / 9.0f;
    }
}
"""
# The same blur written plainly, straight from global memory: a reference to compare with.
BOX_PLAIN = """__kernel void box_blur(__global const float *src, __global float *dst,
                       int width, int height)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height) return;
    float s = 0.0f;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int xx = min(max(x + dx, 0), width - 1), yy = min(max(y + dy, 0), height - 1);
            s += src[yy * width + xx];
        }
    dst[y * width + x] = s / 9.0f;
}
"""
# The family's own blur ([1 2 1; 2 4 2; 1 2 1]/16, clamped), in a style of its own.
BINOMIAL = """kernel void smooth(global const float* in, global float* out,
                   const int w, const int h)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= w || y >= h) return;
    const float k[3] = {1.0f, 2.0f, 1.0f};
    float acc = 0.0f;
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) {
            int xx = clamp(x + i - 1, 0, w - 1);
            int yy = clamp(y + j - 1, 0, h - 1);
            acc += k[i] * k[j] * in[yy * w + xx];
        }
    out[y * w + x] = acc / 16.0f;
}
"""
# A reduction whose names (in, out, scratch, n) fit the matvec family's roles.
REDUCTION = """__kernel void reduce(__global const float *in, __global float *out,
                     __local float *scratch, int n)
{
    int l = get_local_id(0);
    int i = get_global_id(0);
    scratch[l] = i < n ? in[i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (l < s) scratch[l] += scratch[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) out[get_group_id(0)] = scratch[0];
}
"""


def _clamped_box(buffer="src"):
    """The clamped 3×3 box blur as a person types it: nine slices of the padded image."""
    padded = f"np.pad({buffer}, 1, mode='edge')"
    terms = [
        f"{padded}[{dy}:{dy} + height, {dx}:{dx} + width]" for dy in range(3) for dx in range(3)
    ]
    return "(" + " + ".join(terms) + ") / 9"


@pytest.fixture
def boxes(monkeypatch):
    """Message boxes are recorded (title, text) instead of shown."""
    shown = []

    def warning(parent, title, text, *rest):
        shown.append((title, text))
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QMessageBox, "warning", staticmethod(warning))
    return shown


def when_the_dialog_opens(act):
    """Run ``act(dialog)`` once the modal dialog is up and its proposal made, as the person
    in front of it would; the dialogs seen."""
    seen = []

    def poll():
        dialog = QApplication.activeModalWidget()
        if isinstance(dialog, KernelMappingDialog) and dialog.isEnabled():
            seen.append(dialog)
            act(dialog)
        else:
            QTimer.singleShot(20, poll)

    QTimer.singleShot(0, poll)
    return seen


def _ok(dialog):
    dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok).click()


def _type(qtbot, field, text):
    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, text)


def _open(window, monkeypatch, path, act):
    """Ctrl+O on ``path``, ``act(dialog)`` in the dialog; the dialogs seen."""
    answer_file_dialogs(monkeypatch, path)
    seen = when_the_dialog_opens(act)
    trigger(window, "Open kernel…")
    return seen


def _shown(window, qtbot):
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)


def test_a_box_blur_is_not_offered_the_stencil_family_and_runs_verified_with_its_tile(
    window, qtbot, monkeypatch, tmp_path, boxes
):
    path = tmp_path / "box_blur.cl"
    path.write_text(BOX_TILED)
    proposed = {}

    def declare(dialog):
        proposed["family"] = dialog.family.currentText()
        proposed["local"] = dialog.local_size.text()
        proposed["note"] = dialog.note.text()
        proposed["checked"] = dict(dialog.checked)
        # numpy as people write it: np.pad with a mode, a method, np.newaxis
        _type(qtbot, dialog.reference, "np.fft.fft(src)")
        qtbot.waitUntil(lambda: "np.fft.fft" in dialog.reference_note.text())
        proposed["refused"] = dialog.reference_note.text()
        _ok(dialog)  # refused: the dialog stays, saying why
        proposed["stayed"] = dialog.isVisible() and "np.fft.fft" in dialog.error.text()
        _type(qtbot, dialog.reference, _clamped_box())
        qtbot.waitUntil(lambda: dialog.reference_note.text().startswith("Computes"))
        proposed["computes"] = dialog.reference_note.text()
        _ok(dialog)

    seen = _open(window, monkeypatch, path, declare)
    assert seen and not boxes
    assert proposed["family"] == "custom"  # not the stencil family: its reference disagrees
    checked = proposed["checked"]["stencil"]
    assert checked is not None and checked.status == "wrong"
    note = proposed["note"]
    assert "stencil" in note and "does not agree" in note and "[1 2 1; 2 4 2; 1 2 1]" in note
    assert f"{checked.verdict.mismatches:,} of 4,096 elements differ" in note
    assert proposed["local"] == "8, 8"  # its tile's side, never 16×16
    assert proposed["refused"].startswith("Reference: 'np.fft.fft(src)': np.fft.fft()")
    assert "Call(" not in proposed["refused"] and "ast" not in proposed["refused"]
    assert proposed["stayed"]
    assert proposed["computes"] == "Computes 64 × 64 values for dst at width = 64, height = 64."
    assert window.model.variant.path == str(path)
    result = run_and_wait(qtbot, window)
    assert result.status == "verified", result.summary()
    assert result.local_size == (8, 8)
    assert result.verdict.not_a_number == 0


def test_reopening_the_file_proposes_the_answers_given_and_a_restart_reopens_it(
    window, qtbot, monkeypatch, tmp_path, boxes, settings
):
    from explorer.gui.main_window import MainWindow

    path = tmp_path / "blur.cl"
    path.write_text(BOX_TILED)
    reference = "np.pad((src[:-2, :-2] + src[1:-1, 1:-1] + src[2:, 2:]) / 3, 1, mode='edge')"

    def first(dialog):
        _type(qtbot, dialog.sizes, "width = 48, height = 40")
        _type(qtbot, dialog.reference, reference)
        _ok(dialog)

    _open(window, monkeypatch, path, first)
    assert window.model.sizes == {"width": 48, "height": 40}
    reopened = {}

    def again(dialog):
        reopened.update(
            family=dialog.family.currentText(),
            sizes=dialog.sizes.text(),
            reference=dialog.reference.text(),
            local=dialog.local_size.text(),
            note=dialog.note.text(),
            checks=len(dialog.checked),
        )
        _ok(dialog)

    _open(window, monkeypatch, path, again)
    assert reopened == {
        "family": "custom",
        "sizes": "width = 48, height = 40",
        "reference": reference,
        "local": "8, 8",
        "note": "Your answers from the last time you opened blur.cl.",
        "checks": 0,  # the answers are the person's own: nothing to check again
    }
    assert run_and_wait(qtbot, window).status == "wrong"  # that reference is not a box blur

    window.close()  # the settings keep the kernel and its header
    restarted = MainWindow(settings=settings)
    qtbot.addWidget(restarted)
    qtbot.waitUntil(lambda: restarted.model.device is not None, timeout=60000)
    try:
        assert restarted.model.variant.path == str(path)
        assert restarted.state.notice is None
        assert restarted.views.panel.size_spins["width"].value() == 48
        assert restarted.state.user_headers.get(str(path), "").startswith("/*---")
        assert "IOU" not in (restarted.state.hint or "")
        assert run_and_wait(qtbot, restarted).status == "wrong"
    finally:
        restarted.close()


@pytest.mark.parametrize(
    ("source", "family"),
    [(BINOMIAL, "stencil"), (REDUCTION, "custom")],
    ids=["binomial-blur-is-a-stencil", "reduction-is-not-matvec"],
)
def test_a_family_is_offered_only_where_a_run_agrees_with_it(
    window, qtbot, monkeypatch, tmp_path, boxes, source, family
):
    path = tmp_path / "mine.cl"
    path.write_text(source)
    proposed = {}

    def look(dialog):
        proposed.update(
            family=dialog.family.currentText(), note=dialog.note.text(), checked=dialog.checked
        )
        dialog.reject()

    _open(window, monkeypatch, path, look)
    assert proposed["family"] == family
    if family == "stencil":
        assert proposed["note"].startswith("Checked: a run on random data agrees with the stencil")
    else:  # its names fit matvec's but for the vector that family needs
        assert proposed["note"].startswith("Its names point at none of the families")


def test_picking_a_family_by_hand_says_whether_its_reference_agrees(qtbot, tmp_path):
    """Without a device nothing is offered as checked; a family picked by hand is said to be
    unchecked."""
    path = tmp_path / "blur.cl"
    path.write_text(BINOMIAL)
    dialog = KernelMappingDialog(path)
    qtbot.addWidget(dialog)
    assert dialog.family.currentText() == "custom"
    assert "no device to check that on" in dialog.note.text()
    dialog.family.setCurrentText("stencil")
    assert dialog.roles() == ["IN", "OUT", "WIDTH", "HEIGHT"]
    assert dialog.local_size.text() == "16, 16"  # nothing in the kernel asks for another
    assert dialog.note.text().startswith("Not proposed: there is no device to check that on")


def test_compare_trace_with_a_kernel_without_a_header(window, qtbot, monkeypatch, tmp_path, boxes):
    mine = tmp_path / "box_blur.cl"
    mine.write_text(BOX_TILED)

    def declare(dialog):
        _type(qtbot, dialog.sizes, "width = 16, height = 16")
        _type(qtbot, dialog.reference, _clamped_box())
        _ok(dialog)

    _open(window, monkeypatch, mine, declare)
    _shown(window, qtbot)
    plain = tmp_path / "plain_blur.cl"
    plain.write_text(BOX_PLAIN)
    mapped = {}

    def map_reference(dialog):
        mapped.update(
            title=dialog.windowTitle(),
            family=dialog.family.currentText(),
            locked=not dialog.family.isEnabled(),
            sizes=dialog.sizes.text(),
        )
        _ok(dialog)

    answer_file_dialogs(monkeypatch, plain)
    seen = when_the_dialog_opens(map_reference)
    controller = window.controllers.trace_diff
    with qtbot.waitSignal(controller.compared, timeout=120000) as signal:
        window.views.panel.setFocus()
        qtbot.keyClick(window.views.panel, Qt.Key.Key_T, CTRL | SHIFT)
    assert seen and not boxes
    assert mapped == {
        "title": "Compare with plain_blur.cl: map its parameters",
        "family": "custom",
        "locked": True,
        "sizes": "width = 16, height = 16",  # the kernel on screen's declarations
    }
    against = signal.args[0]
    assert against.diff is not None, against.refused
    assert not against.diff.identical  # the tile's loads are not the plain kernel's
    caption = window.views.execution_view.lines.caption.text()
    assert caption.startswith(f"Parts from {plain}")


def test_compare_trace_with_a_kernel_of_another_family_says_why_in_the_window(
    window, qtbot, monkeypatch, tmp_path, boxes
):
    mine = tmp_path / "blur.cl"
    mine.write_text(BINOMIAL)
    _open(window, monkeypatch, mine, _ok)
    assert window.model.variant.family == "stencil"
    _shown(window, qtbot)
    other = tmp_path / "mm.cl"
    other.write_text((kernels_dir() / "matmul" / "naive.cl").read_text())
    answer_file_dialogs(monkeypatch, other)
    traced = window.state.traced
    menu_action(window, "Compare trace with…").trigger()
    assert window.state.traced is traced  # nothing was traced
    assert len(boxes) == 1
    title, text = boxes[0]
    assert title == "Cannot compare the trace"
    assert text.startswith("mm.cl is a matmul kernel, and blur on screen a stencil kernel.")
    assert "--" not in text


def test_a_reduction_declared_with_a_reshape_reference_runs_verified(
    window, qtbot, monkeypatch, tmp_path, boxes
):
    """One sum per work-group: its result holds n / L0 values, and the reference a person
    writes for it is a method chain on a buffer named like a Python keyword."""
    path = tmp_path / "reduce.cl"
    path.write_text(REDUCTION)
    said = {}

    def declare(dialog):
        said["local"] = dialog.local_size.text()
        _type(qtbot, dialog.sizes, "n = 4096")
        row = next(
            r
            for r in range(dialog.declarations_table.rowCount())
            if dialog.declarations_table.cellWidget(r, 0).text() == "out"
        )
        _type(qtbot, dialog.declarations_table.cellWidget(row, 3), "n / L0")
        _type(qtbot, dialog.reference, "in.reshape(n // L0, L0).sum(axis=1)")
        qtbot.waitUntil(lambda: dialog.reference_note.text().startswith("Computes"))
        said["computes"] = dialog.reference_note.text()
        _ok(dialog)

    _open(window, monkeypatch, path, declare)
    assert said == {"local": "64", "computes": "Computes 64 values for out at n = 4096."}
    result = run_and_wait(qtbot, window)
    assert result.status == "verified", result.summary()


HOSTILE_ANSWERS = {
    "deep": "[" * 10_000 + "]" * 10_000,
    "cut": '{"',
    "a list": '["/*---\\n---*/"]',
    "not text": '{"PATH": 5}',
    "not a header": '{"PATH": "family = 1"}',
    "toml nested deep": '{"PATH": "/*---\\nx = ' + "[" * 5000 + "]" * 5000 + '\\n---*/\\n"}',
    "another kernel": '{"PATH": "/*---\\nname = \\"x\\"\\nfamily = \\"stencil\\"\\nkernel = '
    '\\"nothere\\"\\nargs = [\\"IN\\", \\"OUT\\", \\"WIDTH\\", \\"HEIGHT\\"]\\n---*/\\n"}',
}


@pytest.mark.parametrize("case", list(HOSTILE_ANSWERS))
def test_answers_kept_in_the_settings_are_read_as_untrusted(qtbot, settings, tmp_path, case):
    """A settings file is anyone's: kept answers that are not a header of this file reopen
    nothing and propose nothing, and say so where it matters (at start)."""
    import json

    from explorer.gui import settings as store
    from explorer.gui.model import ConfigModel

    path = tmp_path / "blur.cl"
    path.write_text(BINOMIAL)
    value = HOSTILE_ANSWERS[case].replace("PATH", json.dumps(str(path.resolve()))[1:-1])
    for key, stored in {"format": 1, "family": "custom", "variant": "blur"}.items():
        settings.setValue(key, stored)
    settings.setValue("kernel_file", str(path))
    settings.setValue("kernel_headers", value)
    headers: dict[str, str] = {}
    notice = store.restore(settings, ConfigModel(), headers)
    assert notice is not None and "defaults are used" in notice and "blur.cl" in notice
    assert headers == {}
    dialog = KernelMappingDialog(path, answers=store.remembered_header(settings, str(path)))
    qtbot.addWidget(dialog)
    assert not dialog.note.text().startswith("Your answers")
    assert dialog.kernel.currentText() == "smooth"
