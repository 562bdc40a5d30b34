"""Custom kernels and Oclgrind .sim files in the app: opened, sized, run, traced, swept,
reloaded and saved in sessions like the fixed families' kernels."""

import shutil

import numpy as np
import pytest
from PySide6.QtCore import Qt

from explorer.engine.records import figure_text
from tests.conftest import TEST_KERNELS
from tests.gui.conftest import (
    answer_file_dialogs,
    menu_action,
    run_and_wait,
    trace_and_wait,
    trigger,
)

CUSTOM = TEST_KERNELS / "custom"

# A tutorial-style SGEMM (column-major, B read as rows of Bᵀ) whose header says only
# "column-major": it verifies once B transposed is chosen in the panel.
NUGTEREN_STYLE = """/*---
name = "SGEMM reading B transposed"
family = "matmul"
kernel = "sgemm_bt"
args = ["M", "N", "K", "A", "B", "C"]
global = ["M", "N"]
local = ["8", "8"]
layout = "column-major"
---*/
__kernel void sgemm_bt(const int M, const int N, const int K,
                       const __global float* A, const __global float* B, __global float* C)
{
    const int row = get_global_id(0), col = get_global_id(1);
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += A[k * M + row] * B[k * N + col];
    C[col * M + row] = acc;
}
"""


@pytest.fixture(autouse=True)
def no_message_boxes(monkeypatch):
    """A message box would wait for a click that never comes: fail with its text instead."""
    from PySide6.QtWidgets import QMessageBox

    def shown(*args, **kwargs):
        raise AssertionError(f"message box: {args[1:3]}")

    monkeypatch.setattr(QMessageBox, "warning", staticmethod(shown))
    monkeypatch.setattr(QMessageBox, "question", staticmethod(shown))


def open_kernel(window, monkeypatch, path):
    """File ▸ Open kernel…, answering the file dialog with ``path``."""
    answer_file_dialogs(monkeypatch, path)
    trigger(window, "Open kernel…")
    assert window.model.variant.path == str(path)


def type_into(qtbot, spin, value):
    """Select a spin box's text, type a number and press Enter, as a person does."""
    spin.setFocus()
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), str(value))
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Return)


def test_open_a_custom_kernel_runs_and_traces(qtbot, window):
    assert window.controllers.kernels.open_kernel(str(CUSTOM / "local_sum.cl"))
    result = run_and_wait(qtbot, window)
    assert result.status == "verified", result.summary()
    trace_and_wait(qtbot, window)
    assert window.state.traced is not None


def test_open_a_sim_file_runs_unchecked_and_traces(qtbot, window):
    kernels = window.controllers.kernels
    assert kernels.accepts(str(CUSTOM / "sim" / "scaled_copy.sim"))
    assert kernels.open_kernel(str(CUSTOM / "sim" / "scaled_copy.sim"))
    result = run_and_wait(qtbot, window)
    assert result.status == "unchecked", result.summary()
    trace_and_wait(qtbot, window)
    assert window.state.traced is not None


def test_named_sizes_are_fields_used_by_run_and_trace(qtbot, window, monkeypatch, tmp_path):
    path = tmp_path / "transpose_int.cl"
    shutil.copy(CUSTOM / "transpose_int.cl", path)
    open_kernel(window, monkeypatch, path)
    spins = window.views.panel.size_spins
    assert list(spins) == ["ROWS", "COLS"]
    assert (spins["ROWS"].value(), spins["COLS"].value()) == (24, 40)
    type_into(qtbot, spins["ROWS"], 16)
    type_into(qtbot, spins["COLS"], 56)
    result = run_and_wait(qtbot, window)
    assert result.status == "verified", result.summary()
    assert result.sizes == {"ROWS": 16, "COLS": 56}
    assert result.global_size == (56, 16)
    trace_and_wait(qtbot, window)
    # The execution view draws each buffer in the shape its declaration gives.
    grids = {g.name: (g.rows, g.cols) for g in window.state.playback.grids}
    assert grids["src"] == (16, 56) and grids["dst"] == (56, 16)


def test_a_size_its_constraints_refuse_is_marked_before_anything_runs(
    qtbot, window, monkeypatch, tmp_path
):
    source = (CUSTOM / "local_sum.cl").read_text()
    path = tmp_path / "sums.cl"
    constrained = 'local = ["64"]\nconstraints = ["N % 64 == 0"]'
    path.write_text(source.replace('local = ["64"]', constrained))
    open_kernel(window, monkeypatch, path)
    spin = window.views.panel.size_spins["N"]
    type_into(qtbot, spin, 1000)
    validation = window.views.panel.validation.text()
    assert "Refused" in validation and "N % 64 == 0" in validation
    assert "c0392b" in spin.styleSheet()
    assert not menu_action(window, "Run").isEnabled()
    type_into(qtbot, spin, 1024)
    assert menu_action(window, "Run").isEnabled()
    assert run_and_wait(qtbot, window).status == "verified"


def test_a_custom_kernels_sizes_are_saved_in_a_session(qtbot, window, monkeypatch, tmp_path):
    path = tmp_path / "transpose_int.cl"
    shutil.copy(CUSTOM / "transpose_int.cl", path)
    open_kernel(window, monkeypatch, path)
    type_into(qtbot, window.views.panel.size_spins["ROWS"], 32)
    window.model.set_local((4, 8))
    session = tmp_path / "mine.kexp.json"
    answer_file_dialogs(monkeypatch, session)
    trigger(window, "Save session…")
    window.model.set_family("matmul")
    assert "ROWS" not in window.views.panel.size_spins
    trigger(window, "Open session…")
    assert window.model.variant.path == str(path)
    assert window.model.sizes == {"ROWS": 32, "COLS": 40}
    assert window.views.panel.size_spins["ROWS"].value() == 32
    assert window.model.local == (4, 8)
    assert run_and_wait(qtbot, window).status == "verified"


def test_b_transposed_chosen_in_the_panel_makes_a_tutorial_sgemm_verify(
    qtbot, window, monkeypatch, tmp_path
):
    path = tmp_path / "sgemm_bt.cl"
    path.write_text(NUGTEREN_STYLE)
    open_kernel(window, monkeypatch, path)
    for name, value in (("M", 40), ("N", 24), ("K", 32)):
        type_into(qtbot, window.views.panel.size_spins[name], value)
    panel = window.views.panel
    assert [c.currentText() for c in panel.layout_combos.values()] == ["column-major"] * 3
    assert run_and_wait(qtbot, window).status == "wrong"
    panel.b_transposed.click()
    assert panel.layout_combos["B"].currentText() == "row-major"
    assert run_and_wait(qtbot, window).status == "verified"

    session = tmp_path / "bt.kexp.json"
    answer_file_dialogs(monkeypatch, session)
    trigger(window, "Save session…")
    window.views.panel.b_transposed.click()
    assert window.model.layout == "column-major"
    trigger(window, "Open session…")
    assert window.views.panel.b_transposed.isChecked()
    assert run_and_wait(qtbot, window).status == "verified"


def test_the_execution_view_draws_each_matrix_in_its_own_order(
    qtbot, window, monkeypatch, tmp_path
):
    """A and C column-major, B transposed: what the view draws for C is the product of
    what it draws for A and B (a matrix drawn in the wrong order would scramble it)."""
    path = tmp_path / "sgemm_bt.cl"
    path.write_text(NUGTEREN_STYLE)
    open_kernel(window, monkeypatch, path)
    window.model.set_input("random")
    for name, value in (("M", 40), ("N", 24), ("K", 32)):
        type_into(qtbot, window.views.panel.size_spins[name], value)
    window.views.panel.b_transposed.click()
    assert window.model.layout == "A:column-major,B:row-major,C:column-major"
    trace_and_wait(qtbot, window)
    playback = window.state.playback
    drawn = {g.name: playback.values.buffer(g) for g in playback.grids if g.name in "ABC"}
    assert {name: array.shape for name, array in drawn.items()} == {
        "A": (40, 32),
        "B": (32, 24),
        "C": (40, 24),
    }
    assert np.allclose(drawn["A"] @ drawn["B"], drawn["C"], rtol=1e-4, atol=1e-4)
    # Work-group (0, 0) computes C's rows 0-7 and columns 0-7 from A's rows and B's
    # columns 0-7: where the view places what the group touched.
    assert playback.group == (0, 0, 0)
    touched = {
        g.name: playback.cursor.group_steps.extent(g)[0] for g in playback.grids if g.name in "ABC"
    }
    assert touched == {"A": (0, 8, 0, 32), "B": (0, 32, 0, 8), "C": (0, 8, 0, 8)}


def test_a_matrix_order_chosen_per_matrix_changes_what_the_kernel_gets(qtbot, window):
    from explorer.engine.header.catalog import find_variant

    window.model.set_variant(find_variant("matmul", "naive"))
    window.model.set_input("random")  # the IOU input's A is the identity, the same both ways
    for name in ("M", "N", "K"):
        window.model.set_size(name, 32)
    combo = window.views.panel.layout_combos["A"]
    combo.setFocus()
    qtbot.keyClick(combo, Qt.Key.Key_Down)  # row-major → column-major
    assert window.model.layout == "A:column-major,B:row-major,C:row-major"
    assert run_and_wait(qtbot, window).status == "wrong"  # naive reads A by rows
    qtbot.keyClick(combo, Qt.Key.Key_Up)
    assert window.model.layout == "row-major" and window.model.chosen_layout is None
    assert run_and_wait(qtbot, window).status == "verified"


SCALE = """/*---
name = "Scaled copy, WPT elements a work-item"
family = "custom"
kernel = "scale"
global = ["N / WPT"]
local = ["64"]
constraints = ["N % (WPT * L0) == 0"]
[defines]
WPT = 1
[sizes]
N = 1536
[args.x]
buffer = "float"
count = "N"
access = "read"
[args.y]
buffer = "float"
count = "N"
access = "write"
result = true
[reference]
numpy = "2 * x"
---*/
__kernel void scale(__global const float* x, __global float* y)
{
    int base = get_global_id(0) * WPT;
    for (int i = 0; i < WPT; i++)
        y[base + i] = 2.0f * x[base + i];
}
"""


def test_the_sweep_runs_a_custom_kernel_over_its_defines_and_local_sizes(
    qtbot, window, monkeypatch, tmp_path
):
    path = tmp_path / "scale.cl"
    path.write_text(SCALE)
    open_kernel(window, monkeypatch, path)
    sweep = window.views.sweep_view
    window.views.tabs.setCurrentWidget(sweep)
    assert [sweep.y_axis.itemText(i) for i in range(sweep.y_axis.count())] == ["local", "WPT"]
    sweep.x_axis.setCurrentText("local")
    sweep.x_values.setText("64,256")
    sweep.y_axis.setCurrentText("WPT")
    sweep.y_values.setText("1,4")
    sweep.run_button.click()
    qtbot.waitUntil(lambda: all(r is not None for row in sweep.grid for r in row), timeout=120000)
    statuses = [[r.status for r in row] for row in sweep.grid]
    # 1536 is a multiple of 64, 256 and 4·64, not of 4·256.
    assert statuses == [["verified", "verified"], ["verified", "refused"]]
    assert all(r.sizes == {"N": 1536} for row in sweep.grid for r in row)


def test_saving_a_custom_kernels_header_reloads_its_sizes_and_declarations(
    qtbot, window, monkeypatch, tmp_path
):
    path = tmp_path / "scale.cl"
    path.write_text(SCALE)
    open_kernel(window, monkeypatch, path)
    type_into(qtbot, window.views.panel.size_spins["N"], 3072)
    assert run_and_wait(qtbot, window).status == "verified"

    # A second size in the header, and the reference changed: the panel grows a field, the
    # size typed before stays, and the run judges against the new reference.
    before = len(window.state.history)
    edited = SCALE.replace("N = 1536", "N = 1536\nREPEAT = 3").replace('"2 * x"', '"3 * x"')
    path.write_text(edited)
    qtbot.waitUntil(lambda: len(window.state.history) > before, timeout=60000)
    assert list(window.views.panel.size_spins) == ["N", "REPEAT"]
    assert window.model.sizes == {"N": 3072, "REPEAT": 3}
    assert window.state.result.status == "wrong"
    assert window.state.reloads == 1


def test_compare_runs_each_open_custom_kernel_at_its_own_sizes(
    qtbot, window, monkeypatch, tmp_path
):
    scale = tmp_path / "scale.cl"
    scale.write_text(SCALE)
    open_kernel(window, monkeypatch, scale)
    transpose = tmp_path / "transpose_int.cl"
    shutil.copy(CUSTOM / "transpose_int.cl", transpose)
    open_kernel(window, monkeypatch, transpose)
    type_into(qtbot, window.views.panel.size_spins["ROWS"], 16)
    trigger(window, "Compare all variants")
    qtbot.waitUntil(lambda: len(window.state.comparison) == 2, timeout=120000)
    by_kernel = {r.variant: r for r in window.state.comparison}
    assert by_kernel["transpose_int"].sizes == {"ROWS": 16, "COLS": 40}
    assert by_kernel["scale"].sizes == {"N": 1536}
    assert all(r.status == "verified" for r in by_kernel.values())


def test_the_next_start_restores_a_custom_kernel_with_its_sizes(
    qtbot, window, monkeypatch, tmp_path, settings
):
    from explorer.gui import settings as stored
    from explorer.gui.model import ConfigModel

    path = tmp_path / "transpose_int.cl"
    shutil.copy(CUSTOM / "transpose_int.cl", path)
    open_kernel(window, monkeypatch, path)
    type_into(qtbot, window.views.panel.size_spins["COLS"], 48)
    stored.save(settings, window.model)
    later = ConfigModel()
    assert stored.restore(settings, later) is None  # no fallback notice
    assert later.variant.path == str(path) and later.sizes == {"ROWS": 24, "COLS": 48}


def test_choosing_the_custom_family_with_no_custom_kernel_open_keeps_the_configuration(window):
    panel = window.views.panel
    panel.family_combo.setCurrentIndex(panel.family_combo.findData("custom"))
    assert window.model.family == "matmul"
    assert panel.family_combo.currentData() == "matmul"


def test_sizes_the_reference_no_longer_fits_run_and_trace_with_the_check_not_done(
    qtbot, window, monkeypatch, tmp_path
):
    """A hand-written reference made for the header's own sizes: at others the kernel still
    runs, is timed and traced; only the check is not done, and the badge says why."""
    path = tmp_path / "transpose_24.cl"
    source = (CUSTOM / "transpose_int.cl").read_text()
    path.write_text(source.replace('numpy = "src.T"', 'numpy = "src.T[:, :24]"'))
    open_kernel(window, monkeypatch, path)
    assert run_and_wait(qtbot, window).status == "verified"  # at the header's sizes it fits
    type_into(qtbot, window.views.panel.size_spins["ROWS"], 32)
    result = run_and_wait(qtbot, window)
    why = f"{path}: [reference] numpy for 'dst' has 960 values; the buffer has 1280"
    assert result.status == "unchecked" and result.verdict.unreferenced == why
    badge = window.views.result_view.badge.text()
    assert f"not checked: {why}" in badge and "Verified" not in badge
    assert f"kernel {figure_text(result.timing.median_ms, 3)} ms" in badge
    said = window.statusBar().currentMessage()
    assert "unchecked, kernel" in said and "failed" not in said
    assert window.views.timing_view.bar_count == 2  # timed beside the numpy bar
    shown = window.views.result_view.image.getImageItem().image
    assert shown.shape == (40, 32) and np.array_equal(shown, result.inputs["src"].T)
    view = trace_and_wait(qtbot, window)
    assert window.state.playback is not None and view.isEnabled()
    assert window.state.traced.result.verdict.unreferenced == why
    assert f"not checked: {why}" in window.views.result_view.badge.text()


def test_a_kernel_of_your_own_is_never_said_to_be_the_explorers(window, monkeypatch, tmp_path):
    """A header of your own without an [about] source was titled "(explorer)" in the
    panel, as if the kernel shipped with the app."""
    path = tmp_path / "scale.cl"
    path.write_text(NUGTEREN_STYLE)  # its header names no source
    open_kernel(window, monkeypatch, path)
    assert window.model.variant.path == str(path)
    title = window.views.panel.about.title.text()
    assert title == "SGEMM reading B transposed  (your own kernel)"
    window.model.set_family("transpose")  # a shipped kernel: its header's own source
    shipped = window.model.variant
    assert shipped.source_ref and window.views.panel.about.title.text().endswith(
        f"({shipped.source_ref})"
    )
