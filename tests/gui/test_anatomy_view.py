"""Index anatomy in the window: the step lines and the hover name, for the access shown,
each term of its index, its value and the definition it came from."""

from __future__ import annotations

from tests.conftest import TEST_KERNELS
from tests.gui.conftest import answer_file_dialogs, trace_and_wait, trigger

SWAPPED = TEST_KERNELS / "mutants" / "tiled_tx_swapped.cl"


def test_the_step_lines_and_the_hover_trace_tx_back_to_line_34(qtbot, window, monkeypatch):
    answer_file_dialogs(monkeypatch, SWAPPED)
    trigger(window, "Open kernel…")
    for name in ("M", "N", "K"):
        window.views.panel.size_spins[name].setValue(32)
    view = trace_and_wait(qtbot, window)
    traced = window.state.traced
    anatomy = traced.anatomy
    assert anatomy is not None and 52 in anatomy.lines  # its finding's line: values recorded
    # The group of the work-item the finding at line 52 names: recorded with values.
    (finding,) = [f for f in traced.analysis.findings if f.line == 52]
    gx, gy, gz = finding.work_items[0][:3]
    assert view.select_group((gx, gy, gz))
    pb = view.playback
    asub = next(g for g in pb.grids if g.name == "Asub")
    view.set_step(pb.first_step_of(0, 52))
    # Every work-item of tile row 2 writes Asub[2][2]: the mutant's tx is its ty.
    view._cell_clicked(asub, 2, 2)
    lx, ly = pb.cursor.selected_wi % 16, pb.cursor.selected_wi // 16
    assert ly == 2
    caption = view.lines.anatomy_label.text()
    assert caption.startswith("index of Asub[ty][tx]: ty = 2 ← get_local_id(1) at line 35")
    assert "tx = 2 ← get_local_id(1) at line 34" in caption
    assert view.lines.anatomy_label.toolTip() == caption  # whole, wherever the line is cut
    view._cell_hovered(asub, 2, 2)
    hover = view.info.text()
    assert f"({lx}, 2, 0): index of Asub[ty][tx]:" in hover
    assert "tx = 2 ← get_local_id(1) at line 34" in hover
    # The output: col = get_group_id(0) * 16 + tx at line 36, for tx = 2: C[16 gy + 2][16 gx + 2].
    c = next(g for g in pb.grids if g.name == "C")
    view.set_step(pb.first_step_of(pb.phases - 1, 72))
    view._cell_hovered(c, 16 * gy + 2, 16 * gx + 2)
    hover = view.info.text()
    assert f"col = {16 * gx + 2} ← get_group_id(0) * TS + tx at line 36" in hover
    assert "tx = 2 ← get_local_id(1) at line 34" in hover
    # A group whose values were not recorded still names the chain, without values.
    other = next(g for g in traced.trace.groups_traced if (g[0], g[1], g[2]) != (gx, gy, gz))
    if other not in _recorded_groups(anatomy):
        assert view.select_group(other)
        view.set_step(pb.first_step_of(0, 52))
        view._cell_hovered(asub, 2, 2)
        assert "tx ← get_local_id(1) at line 34" in view.info.text()


def _recorded_groups(anatomy):
    return {tuple(int(v) for v in g) for g in anatomy.values.wi_group}
