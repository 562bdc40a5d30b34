"""The animation: every highlighted cell is a record of the trace; stepping is reversible."""

import numpy as np
import pytest

from explorer.engine.header.catalog import find_variant
from explorer.trace.recorded import LOCAL, READ, RMW, WRITE
from tests.gui.conftest import (
    answer_file_dialogs,
    menu_action,
    trace_and_wait,
    trigger,
)


def trace_in_window(window, qtbot, family, variant, sizes, local=None):
    window.model.set_family(family)
    window.model.set_variant(find_variant(family, variant))
    for name, value in sizes.items():
        window.model.set_size(name, value)
    if local:
        window.model.set_local(local)
    view = trace_and_wait(qtbot, window)
    assert window.views.tabs.currentWidget() is view
    return view


@pytest.fixture
def tiled(window, qtbot):
    return trace_in_window(window, qtbot, "matmul", "tiled", {"M": 64, "N": 48, "K": 64})


def test_highlighted_cells_are_the_trace_records_of_that_step(tiled):
    tiled.controls.granularity.setCurrentText("Each line")  # one step per (phase, line)
    pb = tiled.playback
    trace = pb.trace
    group = pb.index.group_index(pb.group)
    lines = np.array([s.line for s in trace.sites])
    index = trace.index()
    for step in range(tiled.steps):
        tiled.set_step(step)
        s = pb.steps[step]
        mine = (
            (trace.group_linear()[trace.wi] == group)
            & (trace.phase == s.phase)
            & (lines[trace.site] == s.line)
        )
        for grid in pb.grids:
            reads, writes = tiled.highlighted(grid)
            sel = mine & (trace.buffer == grid.buffer)
            expect_r = np.zeros(grid.cell_rows * grid.cell_cols, dtype=bool)
            expect_w = np.zeros_like(expect_r)
            expect_r[grid.cell_of(index[sel & np.isin(trace.op, (READ, RMW))])] = True
            expect_w[grid.cell_of(index[sel & np.isin(trace.op, (WRITE, RMW))])] = True
            assert np.array_equal(reads.ravel(), expect_r), (step, grid.name)
            assert np.array_equal(writes.ravel(), expect_w), (step, grid.name)


def test_first_step_loads_the_groups_tile_of_a(tiled):
    tiled.set_step(0)
    a = tiled.playback.grids[0]
    reads, _ = tiled.highlighted(a)
    rows, cols = np.nonzero(reads)
    _gx, gy, _ = tiled.playback.group
    assert (rows.min(), rows.max()) == (16 * gy, 16 * gy + 15)  # the group's rows of A
    assert (cols.min(), cols.max()) == (0, 15)  # the first tile along K


def test_stepping_forward_and_back_gives_the_same_picture(tiled):
    tiled.set_step(5)
    before = {b: tiled.picture(b) for b in tiled.buffers.canvases}
    tiled.step_forward()
    tiled.step_forward()
    assert any(not np.array_equal(before[b], tiled.picture(b)) for b in tiled.buffers.canvases)
    tiled.step_back()
    tiled.step_back()
    assert all(np.array_equal(before[b], tiled.picture(b)) for b in tiled.buffers.canvases)


def test_hover_names_the_work_items_that_touched_a_cell(tiled):
    pb = tiled.playback
    tiled.set_step(0)  # line 52: Asub[ty][tx] = A[...]
    asub = next(g for g in pb.grids if g.name == "Asub" and g.space == LOCAL)
    tiled._cell_hovered(asub, 3, 5)
    text = tiled.info.text()
    assert "work-item (5, 3, 0)" in text and "write" in text
    assert tiled.playback.cursor.hover_wi == 5 + 16 * 3
    tiled._cell_hovered(asub, -1, -1)
    assert tiled.playback.cursor.hover_wi is None


def test_play_advances_and_pause_stops(tiled, qtbot):
    tiled.controls.speed.setCurrentText("8×")
    tiled.set_step(0)
    tiled.play()
    qtbot.waitUntil(lambda: tiled.current >= 3, timeout=5000)
    tiled.pause()
    stopped = tiled.current
    qtbot.wait(300)
    assert tiled.current == stopped


def test_selecting_a_finding_moves_to_its_phase_and_line(window, qtbot):
    view = trace_in_window(
        window, qtbot, "matvec", "nvidia-coalesced3", {"WIDTH": 300, "HEIGHT": 4}
    )
    tree = window.views.findings_view.findings
    item = next(
        tree.topLevelItem(i)
        for i in range(tree.topLevelItemCount())
        if tree.topLevelItem(i).text(0) == "race"
    )
    finding = window.views.findings_view.shown[tree.indexOfTopLevelItem(item)]
    tree.setCurrentItem(item)
    step = view.playback.steps[view.current]
    assert (step.phase, step.line) == (finding.phase, finding.line)
    assert window.views.tabs.currentWidget() is view
    assert view.playback.cursor.marked_elements.get(finding.buffer)


def test_heat_map_shows_loads_per_element(window, qtbot):
    naive = trace_in_window(window, qtbot, "matmul", "naive", {"M": 32, "N": 32, "K": 32}, (16, 16))
    heat_naive = naive.playback.index.heat(naive.playback.grids[0]).max()
    tiled = trace_in_window(window, qtbot, "matmul", "tiled", {"M": 32, "N": 32, "K": 32}, (16, 16))
    heat_tiled = tiled.playback.index.heat(tiled.playback.grids[0]).max()
    assert (heat_naive, heat_tiled) == (32, 2)
    tiled.controls.mode.setCurrentIndex(1)
    assert tiled.pictures.heat_mode


def test_clicking_an_untraced_group_traces_around_it(window, qtbot):
    window.controllers.traces.trace_budget = 64 * 1024  # room for a few groups only
    view = trace_in_window(
        window, qtbot, "matmul", "tiled", {"M": 128, "N": 128, "K": 32}, (16, 16)
    )
    far = (7, 7, 0)
    assert not view.playback.index.is_traced(far)
    first = window.state.playback
    view._group_clicked(7 + 8 * 7)
    qtbot.waitUntil(lambda: window.state.playback is not first, timeout=120000)
    assert window.state.playback.group == far


def test_presenter_mode_enters_and_leaves_cleanly(window, qtbot):
    tabs = window.views.tabs
    tabs_before = [tabs.tabText(i) for i in range(tabs.count())]
    trigger(window, "Presenter mode")
    assert window.state.presenting
    qtbot.waitUntil(window.isActiveWindow)  # keys reach a window's shortcuts once it is active
    assert window.views.stack.currentWidget() is window.views.presenter_split
    assert not window.menuBar().isVisible()
    assert window.views.execution_view.parent() is window.views.presenter_split
    trigger(window, "Presenter mode")
    assert not window.state.presenting and window.views.stack.currentWidget() is tabs
    assert [tabs.tabText(i) for i in range(tabs.count())] == tabs_before
    assert window.styleSheet() == ""


def _present(window, qtbot):
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    trigger(window, "Presenter mode")
    assert window.state.presenting
    qtbot.waitUntil(window.isActiveWindow)  # keys reach a window's shortcuts once it is active


@pytest.mark.parametrize("focus", ["execution", "speed", "slider"])
def test_esc_leaves_presenter_mode_wherever_the_focus_is(window, qtbot, focus):
    from PySide6.QtCore import Qt

    _present(window, qtbot)
    view = window.views.execution_view
    widget = {"execution": view, "speed": view.controls.speed, "slider": view.controls.slider}[
        focus
    ]
    widget.setFocus()
    qtbot.keyClick(widget, Qt.Key.Key_Escape)
    assert not window.state.presenting
    assert window.menuBar().isVisible() and window.views.stack.currentWidget() is window.views.tabs


def test_esc_cancels_a_hanging_run_first_then_leaves_presenter_mode(window, qtbot):
    from PySide6.QtCore import Qt

    from tests.conftest import TEST_KERNELS

    window.controllers.kernels.open_kernel(str(TEST_KERNELS / "hang.cl"))
    _present(window, qtbot)
    assert not menu_action(window, "Cancel").isEnabled()  # nothing runs: Esc leaves
    window.worker.run(window.model.request())
    qtbot.waitUntil(lambda: window.worker.busy and window.state.working, timeout=5000)
    assert "Esc cancel" in window.views.execution_view.key_strip.text()
    qtbot.keyClick(window.views.execution_view, Qt.Key.Key_Escape)
    assert window.state.presenting and not window.state.working  # the talk goes on
    assert "Cancelled" in window.views.result_view.badge.text()
    assert "Esc leave" in window.views.execution_view.key_strip.text()
    qtbot.keyClick(window.views.execution_view, Qt.Key.Key_Escape)
    assert not window.state.presenting
    window.worker.cancel()  # the hanging kernel's process is discarded before the next test
    qtbot.waitUntil(lambda: not window.worker.busy, timeout=30000)


def test_guided_tour_grows_the_timing_bars_stage_by_stage_with_space(window, qtbot):
    from PySide6.QtCore import Qt

    for name in ("M", "N", "K"):
        window.model.set_size(name, 64)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    trigger(window, "Guided tour")
    assert window.state.presenting
    qtbot.waitUntil(window.isActiveWindow)
    state, view = window.state, window.views.execution_view
    qtbot.waitUntil(
        lambda: (
            len(state.tour_results) == 1 and state.playback is not None and not window.worker.busy
        ),
        timeout=120000,
    )
    assert window.views.timing_view.bar_count == 1
    assert view.lines.caption.text().startswith("1 · naive") and view.lines.caption.isVisible()
    naive = state.playback
    view.controls.slider.setFocus()
    qtbot.keyClick(
        view.controls.slider, Qt.Key.Key_Right
    )  # → advances the stage, whatever has focus
    qtbot.waitUntil(
        lambda: state.playback not in (None, naive) and not window.worker.busy, timeout=120000
    )
    assert len(state.tour_results) == 2  # the tiled stage is traced as well
    assert view.lines.caption.text().startswith("2 · tiled")
    # It opens past the first barrier, the tiles in local memory loaded.
    qtbot.waitUntil(lambda: view.current == state.playback.first_step_of(1), timeout=5000)
    qtbot.keyClick(view.controls.speed, Qt.Key.Key_Space)  # Space advances whatever has the focus
    tiled = state.playback
    qtbot.waitUntil(lambda: len(state.tour_results) == 3, timeout=60000)
    assert [r.variant for r in state.tour_results] == ["naive", "tiled", "reg2d"]
    assert window.views.timing_view.bar_count == 3
    assert view.lines.caption.text().startswith("3 · register")
    # Every stage shows its own variant's trace: reg2d's, not the tiled one.
    qtbot.waitUntil(
        lambda: state.playback not in (None, tiled) and not window.worker.busy, timeout=120000
    )
    assert state.traced.result.variant == "reg2d"
    assert "global loads per element of C" in view.lines.caption.text()
    qtbot.keyClick(view, Qt.Key.Key_Space)
    assert "That was the ladder" in window.views.result_view.badge.text()
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert not state.presenting and not state.touring


def test_arrows_step_the_animation_in_presenter_mode(window, qtbot):
    from PySide6.QtCore import Qt

    view = trace_in_window(window, qtbot, "matmul", "tiled", {"M": 32, "N": 32, "K": 32})
    _present(window, qtbot)
    view.set_step(2)
    view.controls.speed.setFocus()
    qtbot.keyClick(view.controls.speed, Qt.Key.Key_Right)
    assert view.current == 3
    qtbot.keyClick(view.controls.slider, Qt.Key.Key_Left)
    assert view.current == 2


def test_bench_ui_command_runs(qapp):
    import json

    from tests.test_cli import cli

    out = cli("bench-ui", "--size", "64", "--json")  # in this process, as the command runs
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout.strip().splitlines()[-1])
    assert record["frames"] == 2 * record["steps"] > 0
    assert record["paint_ms_median"] > 0
    assert record["rss_mb_after_second_pass"] <= record["rss_mb_after_first_pass"] * 1.05


def test_view_and_animation_exports_from_the_file_menu(tiled, window, tmp_path, monkeypatch):
    from PIL import Image, ImageChops
    from PySide6.QtGui import QImageReader

    assert window.views.tabs.currentWidget() is tiled
    answer_file_dialogs(monkeypatch, tmp_path / "grid.png")
    trigger(window, "Export view as PNG…")
    assert QImageReader(str(tmp_path / "grid.png")).read().size() == tiled.size()
    answer_file_dialogs(monkeypatch, tmp_path / "grid.svg")
    trigger(window, "Export view as SVG…")
    svg = (tmp_path / "grid.svg").read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    tiled.set_step(4)
    answer_file_dialogs(monkeypatch, tmp_path / "anim.gif")
    trigger(window, "Export animation as GIF…")
    assert tiled.current == 4  # the view is left where it was
    with Image.open(tmp_path / "anim.gif") as gif:
        assert gif.n_frames == tiled.steps and gif.info.get("loop") == 0
        first = gif.convert("RGB")
        gif.seek(1)
        second = gif.convert("RGB")
    assert ImageChops.difference(first, second).getbbox() is not None  # the frames move
    # About 60 KB a frame at 1000×850; the hand-written encoder it replaced wrote 960 KB.
    assert (tmp_path / "anim.gif").stat().st_size < 100_000 * tiled.steps
    answer_file_dialogs(monkeypatch, tmp_path / "frame.png")
    trigger(window, "Export animation as PNG frames…")
    assert len(list(tmp_path.glob("frame-*.png"))) == tiled.steps


@pytest.mark.parametrize(
    "family, variant, sizes",
    [
        ("transpose", "tiled-padded", {"WIDTH": 40, "HEIGHT": 24}),
        ("matvec", "nvidia-coalesced1", {"WIDTH": 64, "HEIGHT": 4}),
        ("rowdot", "seed004-local-vector", {"D": 1000}),
        ("stencil", "tiled", {"WIDTH": 40, "HEIGHT": 24}),
    ],
)
def test_each_familys_last_step_shows_its_own_line_and_records(
    window, qtbot, family, variant, sizes
):
    view = trace_in_window(window, qtbot, family, variant, sizes)
    view.controls.granularity.setCurrentText("Each line")
    pb, trace = view.playback, view.playback.trace
    view.set_step(view.steps - 1)
    step = pb.steps[view.current]
    line_text = view.source_lines[step.line - 1].strip()
    assert view.lines.step_label.text() == f"phase {step.phase} · line {step.line}:  {line_text}"
    lines = np.array([s.line for s in trace.sites])
    mine = (
        (trace.group_linear()[trace.wi] == pb.index.group_index(pb.group))
        & (trace.phase == step.phase)
        & (lines[trace.site] == step.line)
    )
    assert mine.any()
    index = trace.index()
    for grid in pb.grids:
        reads, writes = view.highlighted(grid)
        sel = mine & (trace.buffer == grid.buffer)
        touched = np.zeros(grid.cell_rows * grid.cell_cols, dtype=bool)
        touched[grid.cell_of(index[sel])] = True
        assert np.array_equal((reads | writes).ravel(), touched), grid.name


def test_a_selected_findings_work_items_are_marked(window, qtbot):
    from explorer.gui.cell_colours import MARK_C

    view = trace_in_window(
        window, qtbot, "matvec", "nvidia-coalesced3", {"WIDTH": 300, "HEIGHT": 4}
    )
    race = next(f for f in window.views.findings_view.shown if f.kind == "race")
    view.show_finding(race)
    grid = next(g for g in view.playback.grids if g.name == race.buffer)
    w = race.work_items[0]
    lx = view.playback.trace.local_size[0]
    recs = view.playback.cursor.group_steps.work_item_records(
        w[3] + lx * w[4], view.playback.steps[view.current].phase
    )
    reads, writes = view.playback.index.window_masks(grid, recs, view.zoom_window(grid.buffer))
    picture = view.picture(grid.buffer)
    assert (reads | writes).any()
    assert (picture[reads | writes] == MARK_C).all(axis=-1).all()


def test_naive_walks_along_k_one_pass_at_a_time(window, qtbot):
    view = trace_in_window(window, qtbot, "matmul", "naive", {"M": 32, "N": 32, "K": 32}, (16, 16))
    pb = view.playback
    assert view.steps == 32 + 1  # one step per k, then the store of C
    a, b = pb.grids[0], pb.grids[1]
    _gx, gy, _ = pb.group
    for k in (0, 5, 31):
        view.set_step(k)
        assert pb.steps[k].iteration == k
        rows, cols = np.nonzero(view.highlighted(a)[0])
        assert set(cols) == {k} and (rows.min(), rows.max()) == (16 * gy, 16 * gy + 15)
        rows, _cols = np.nonzero(view.highlighted(b)[0])
        assert set(rows) == {k}  # B's row k: the column each work-item walks down


def test_tiled_inner_product_draws_the_selected_work_items_row_and_column(tiled):
    from explorer.gui.cell_colours import HOVER_C

    pb = tiled.playback
    asub = next(g for g in pb.grids if g.name == "Asub")
    bsub = next(g for g in pb.grids if g.name == "Bsub")
    tiled.playback.cursor.selected_wi = 5 + 16 * 3  # work-item (5, 3)
    inner = [s for s in pb.steps if s.phase == 1 and s.line == 62]  # after barrier 1
    assert [s.iteration for s in inner] == list(range(16))  # the loop over k, pass by pass
    for s in (inner[0], inner[7]):
        tiled.set_step(s.index)
        k = s.iteration
        assert f"read Asub[3][{k}]" in tiled.lines.reads_label.text()
        assert f"read Bsub[{k}][5]" in tiled.lines.reads_label.text()
        with_wi = tiled.picture(asub.buffer), tiled.picture(bsub.buffer)
        tiled.playback.cursor.selected_wi = None
        tiled.redraw()
        without = tiled.picture(asub.buffer), tiled.picture(bsub.buffer)
        tiled.playback.cursor.selected_wi = 5 + 16 * 3
        changed_a = (with_wi[0] != without[0]).any(axis=-1)
        changed_b = (with_wi[1] != without[1]).any(axis=-1)
        # drawn without hovering: the whole row 3 of Asub and column 5 of Bsub it reads in
        # this phase, the element of this pass in its strongest colour
        assert np.array_equal(np.nonzero(changed_a.any(axis=1))[0], [3]) and changed_a[3].all()
        assert np.array_equal(np.nonzero(changed_b.any(axis=0))[0], [5]) and changed_b[:, 5].all()
        teal = HOVER_C[:3].astype(int)
        dist = np.abs(with_wi[0][3, :, :3].astype(int) - teal).sum(axis=-1)
        assert dist[k] < np.delete(dist, k).min()


def test_cells_carry_values_and_the_output_tile_is_marked_from_the_start(window, qtbot):
    from explorer.gui.cell_colours import WRITE_OUTLINE

    window.model.set_input("iou")
    view = trace_in_window(window, qtbot, "matmul", "tiled", {"M": 64, "N": 64, "K": 64})
    pb = view.playback
    b, c = pb.grids[1], pb.grids[2]
    result = window.state.traced.result
    view.set_step(0)
    frame = view.buffers.canvases[b.buffer].frame
    r0, r1, c0, c1 = frame.window
    expected = result.inputs["B"][r0:r1, c0:c1]
    assert [[float(t) for t in row] for row in frame.labels] == expected.tolist()
    # the overview of the whole of B shows the IOU: text (0) lighter than the background (0.5)
    overview = frame.overview[..., 0].astype(int)
    assert overview.max() - overview.min() > 80
    c_frame = view.buffers.canvases[c.buffer].frame
    group_tile = pb.cursor.group_steps.extent(c)[1]
    assert (group_tile, WRITE_OUTLINE, 3.0) in c_frame.outlines
    assert group_tile == (
        16 * pb.group[1],
        16 * pb.group[1] + 16,
        16 * pb.group[0],
        16 * pb.group[0] + 16,
    )
    # Before the group writes C, its tile shows the sums so far of the products each
    # work-item formed from the values it read: nothing yet at the first step
    w0, _w1, v0, _v1 = c_frame.window
    rows = slice(group_tile[0] - w0, group_tile[1] - w0)
    cols = slice(group_tile[2] - v0, group_tile[3] - v0)
    assert all(t in ("", "0") for t in c_frame.labels[rows, cols].ravel())
    # half way along K, each element holds A's row times B's column over the first k
    inner = [s for s in pb.steps if s.line == 62]
    half = inner[len(inner) // 2]
    view.set_step(half.index)
    a_in, b_in = result.inputs["A"], result.inputs["B"]
    k_done = 16 * (half.phase // 2) + half.iteration + 1
    tr, tc = group_tile[0], group_tile[2]
    expected = a_in[tr : tr + 16, :k_done] @ b_in[:k_done, tc : tc + 16]
    c_frame = view.buffers.canvases[c.buffer].frame
    shown = np.array([[float(t or 0) for t in row] for row in c_frame.labels[rows, cols]])
    assert np.allclose(shown, expected, atol=1e-3)
    view.set_step(view.steps - 1)
    c_frame = view.buffers.canvases[c.buffer].frame
    w0, _w1, v0, _v1 = c_frame.window
    tile = c_frame.labels[
        group_tile[0] - w0 : group_tile[1] - w0, group_tile[2] - v0 : group_tile[3] - v0
    ]
    out = result.output[group_tile[0] : group_tile[1], group_tile[2] : group_tile[3]]
    assert [[float(t) for t in row] for row in tile] == out.tolist()
    # local memory holds the values copied from A, and says where they came from
    asub = next(g for g in pb.grids if g.name == "Asub")
    view._cell_hovered(asub, 2, 3)
    assert "copied from A[" in view.info.text()


def test_heat_map_gives_absolute_loads_on_one_scale(window, qtbot):
    naive = trace_in_window(window, qtbot, "matmul", "naive", {"M": 64, "N": 64, "K": 64}, (16, 16))
    naive.controls.mode.setCurrentIndex(1)
    a = naive.playback.grids[0]
    assert int(naive.playback.index.element_heat(a).max()) == 64
    assert "up to 64" in naive.buffers.canvases[a.buffer].frame.caption
    assert set(naive.buffers.canvases[a.buffer].frame.labels.ravel()) == {"64"}
    assert naive.heat_scale.isVisibleTo(naive)
    naive_colour = naive.picture(a.buffer)[0, 0].copy()
    tiled = trace_in_window(window, qtbot, "matmul", "tiled", {"M": 64, "N": 64, "K": 64}, (16, 16))
    assert tiled.pictures.heat_mode
    assert set(tiled.buffers.canvases[a.buffer].frame.labels.ravel()) == {"4"}
    assert not np.array_equal(tiled.picture(a.buffer)[0, 0], naive_colour)


@pytest.mark.parametrize("focus", ["speed", "slider", "mode", "timeline"])
def test_stage_keys_work_wherever_the_focus_is_in_presenter_mode(window, qtbot, focus):
    from PySide6.QtCore import Qt

    view = trace_in_window(window, qtbot, "matmul", "tiled", {"M": 32, "N": 32, "K": 32})
    _present(window, qtbot)
    widget = {
        "speed": view.controls.speed,
        "slider": view.controls.slider,
        "mode": view.controls.mode,
        "timeline": view.timeline,
    }[focus]
    widget.setFocus()
    mode_before = view.controls.mode.currentIndex()
    qtbot.keyClick(widget, Qt.Key.Key_End)
    assert view.current == view.steps - 1
    qtbot.keyClick(widget, Qt.Key.Key_Home)
    assert view.current == 0
    qtbot.keyClick(widget, Qt.Key.Key_Right)
    qtbot.keyClick(widget, Qt.Key.Key_Right)
    assert view.current == 2
    qtbot.keyClick(widget, Qt.Key.Key_Left)
    assert view.current == 1
    assert view.controls.mode.currentIndex() == mode_before  # the combo box did not take the arrows
    qtbot.keyClick(widget, Qt.Key.Key_Space)
    assert view.controls.timer.isActive()
    qtbot.keyClick(widget, Qt.Key.Key_Space)
    assert not view.controls.timer.isActive()
    qtbot.keyClick(widget, Qt.Key.Key_F11)
    assert not window.state.presenting
    assert window.views.stack.currentWidget() is window.views.tabs


def test_outside_presenter_mode_the_keys_step_where_the_focus_is_in_the_execution_view(
    window, qtbot
):
    """Focus on the execution view's slider, arrows and Space drive the animation; focus
    moved back to the configuration, the same key edits the configuration again."""
    from PySide6.QtCore import Qt

    view = trace_in_window(window, qtbot, "matmul", "tiled", {"M": 32, "N": 32, "K": 32})
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    view.set_step(1)
    view.controls.slider.setFocus()
    qtbot.waitUntil(lambda: view.controls.slider.hasFocus())
    qtbot.keyClick(view.controls.slider, Qt.Key.Key_Right)
    assert view.current == 2
    qtbot.keyClick(view.controls.slider, Qt.Key.Key_End)
    assert view.current == view.steps - 1
    qtbot.keyClick(view.controls.slider, Qt.Key.Key_Home)
    assert view.current == 0
    qtbot.keyClick(view.controls.slider, Qt.Key.Key_Space)
    assert view.controls.timer.isActive()
    qtbot.keyClick(view.controls.slider, Qt.Key.Key_Space)
    assert not view.controls.timer.isActive()
    combo = next(
        c
        for c in window.views.panel.findChildren(type(view.controls.speed))
        if c.objectName() == "layout-A"
    )
    combo.setFocus()
    before = combo.currentIndex()
    key = Qt.Key.Key_Up if before == combo.count() - 1 else Qt.Key.Key_Down
    qtbot.keyClick(combo, key)
    assert combo.currentIndex() != before  # the key went to the combo box
    # ... and never stepped the animation: the configuration changed, so its trace, of the
    # configuration before, left the screen instead of moving on from step 3.
    assert view.playback is None and window.state.playback is None
