"""The animation: every highlighted cell is a record of the trace; stepping is reversible."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from explorer.engine.catalog import find_variant
from explorer.trace.records import LOCAL, READ, RMW, WRITE


def trace_in_window(window, qtbot, family, variant, sizes, local=None):
    window.model.set_family(family)
    window.model.set_variant(find_variant(family, variant))
    for name, value in sizes.items():
        window.model.set_size(name, value)
    if local:
        window.model.set_local(local)
    before = window.playback
    window.trace_action.trigger()
    qtbot.waitUntil(
        lambda: window.playback is not None and window.playback is not before, timeout=120000
    )
    assert window.tabs.currentWidget() is window.execution_view
    return window.execution_view


@pytest.fixture
def tiled(window, qtbot):
    return trace_in_window(window, qtbot, "matmul", "tiled", {"M": 64, "N": 48, "K": 64})


def test_highlighted_cells_are_the_trace_records_of_that_step(tiled):
    pb = tiled.playback
    trace = pb.trace
    group = pb.group_index(pb.group)
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
    before = {b: tiled.picture(b) for b in tiled.canvases}
    tiled.step_forward()
    tiled.step_forward()
    assert any(not np.array_equal(before[b], tiled.picture(b)) for b in tiled.canvases)
    tiled.step_back()
    tiled.step_back()
    assert all(np.array_equal(before[b], tiled.picture(b)) for b in tiled.canvases)


def test_hover_names_the_work_items_that_touched_a_cell(tiled):
    pb = tiled.playback
    tiled.set_step(0)  # line 52: Asub[ty][tx] = A[...]
    asub = next(g for g in pb.grids if g.name == "Asub" and g.space == LOCAL)
    tiled._cell_hovered(asub, 3 * asub.cell_cols + 5)
    text = tiled.info.text()
    assert "work-item (5, 3, 0)" in text and "write" in text
    assert tiled.hover_wi == 5 + 16 * 3
    tiled._cell_hovered(asub, -1)
    assert tiled.hover_wi is None


def test_play_advances_and_pause_stops(tiled, qtbot):
    tiled.speed.setCurrentText("8×")
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
    tree = window.findings_view.findings
    item = next(
        tree.topLevelItem(i)
        for i in range(tree.topLevelItemCount())
        if tree.topLevelItem(i).text(0) == "race"
    )
    finding = window.findings_view.shown[tree.indexOfTopLevelItem(item)]
    tree.setCurrentItem(item)
    step = view.playback.steps[view.current]
    assert (step.phase, step.line) == (finding.phase, finding.line)
    assert window.tabs.currentWidget() is view
    assert view.marked_elements.get(finding.buffer)


def test_heat_map_shows_loads_per_element(window, qtbot):
    naive = trace_in_window(window, qtbot, "matmul", "naive", {"M": 32, "N": 32, "K": 32}, (16, 16))
    heat_naive = naive.playback.heat(naive.playback.grids[0]).max()
    tiled = trace_in_window(window, qtbot, "matmul", "tiled", {"M": 32, "N": 32, "K": 32}, (16, 16))
    heat_tiled = tiled.playback.heat(tiled.playback.grids[0]).max()
    assert (heat_naive, heat_tiled) == (32, 2)
    tiled.mode.setCurrentIndex(1)
    assert tiled.heat_mode


def test_clicking_an_untraced_group_traces_around_it(window, qtbot):
    from explorer.gui import main_window

    budget = main_window.GUI_TRACE_BUDGET
    main_window.GUI_TRACE_BUDGET = 64 * 1024  # room for a few groups only
    try:
        view = trace_in_window(
            window, qtbot, "matmul", "tiled", {"M": 128, "N": 128, "K": 32}, (16, 16)
        )
        far = (7, 7, 0)
        assert not view.playback.is_traced(far)
        first = window.playback
        view._group_clicked(7 + 8 * 7)
        qtbot.waitUntil(lambda: window.playback is not first, timeout=120000)
        assert window.playback.group == far
    finally:
        main_window.GUI_TRACE_BUDGET = budget


def test_presenter_mode_enters_and_leaves_cleanly(window, qtbot):
    tabs_before = [window.tabs.tabText(i) for i in range(window.tabs.count())]
    window.set_presenter(True, full_screen=False)
    assert window.presenting and window.stack.currentWidget() is window.presenter_split
    assert not window.menuBar().isVisible()
    assert window.execution_view.parent() is window.presenter_split
    window.set_presenter(False)
    assert not window.presenting and window.stack.currentWidget() is window.tabs
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == tabs_before
    assert window.styleSheet() == ""


def test_guided_tour_grows_the_timing_bars(window, qtbot):
    for name in ("M", "N", "K"):
        window.model.set_size(name, 64)
    window.start_tour()
    qtbot.waitUntil(lambda: len(window.tour_results) == 1, timeout=60000)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=60000)
    window.tour_next()
    qtbot.waitUntil(
        lambda: len(window.tour_results) == 2 and window.playback is not None, timeout=120000
    )
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=60000)
    window.tour_next()
    qtbot.waitUntil(lambda: len(window.tour_results) == 3, timeout=60000)
    assert [r.variant for r in window.tour_results] == ["naive", "tiled", "reg2d"]
    assert window.timing_view.bar_count == 3
    window.set_presenter(False)


def test_bench_ui_command_runs():
    import json

    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-m", "explorer", "bench-ui", "--size", "64", "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=root,
    )
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout.strip().splitlines()[-1])
    assert record["frames"] == 2 * record["steps"] > 0
    assert record["paint_ms_median"] > 0
    assert record["rss_mb_after_second_pass"] <= record["rss_mb_after_first_pass"] * 1.05


def test_exports_of_views_and_the_animation_are_readable(tiled, window, tmp_path):
    from PySide6.QtGui import QImageReader

    assert window.export_view_png(tiled, str(tmp_path / "grid.png"))
    assert QImageReader(str(tmp_path / "grid.png")).read().width() > 100
    assert window.export_view_svg(tiled, str(tmp_path / "grid.svg"))
    svg = (tmp_path / "grid.svg").read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert window.export_animation(str(tmp_path / "anim.gif"), max_frames=5)
    reader = QImageReader(str(tmp_path / "anim.gif"))
    assert reader.imageCount() == 5
    assert window.export_animation(str(tmp_path / "frames.png"), max_frames=3)
    assert len(list(tmp_path.glob("frames-*.png"))) == 3
    window.history.append(tiled.playback and window.last_trace.result)
    assert window.export_history_json(str(tmp_path / "t.json"))
    import json

    records = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    assert records and records[-1]["variant"] == "tiled"


def test_every_catalog_variant_animates(window, qtbot):
    from explorer.engine.catalog import catalog

    sizes = {
        "matmul": {"M": 32, "N": 32, "K": 32},
        "transpose": {"WIDTH": 40, "HEIGHT": 24},
        "matvec": {"WIDTH": 64, "HEIGHT": 4},
        "rowdot": {"D": 1000},
        "stencil": {"WIDTH": 40, "HEIGHT": 24},
    }
    for variant in catalog():
        view = trace_in_window(window, qtbot, variant.family, variant.id, sizes[variant.family])
        assert view.steps > 0, variant.qualified_id
        assert len(view.canvases) == len(view.playback.grids), variant.qualified_id
        view.set_step(view.steps - 1)
        assert view.step_label.text().startswith("phase "), variant.qualified_id


def test_a_selected_findings_work_items_are_marked(window, qtbot):
    from explorer.gui.execution_view import MARK_C

    view = trace_in_window(
        window, qtbot, "matvec", "nvidia-coalesced3", {"WIDTH": 300, "HEIGHT": 4}
    )
    race = next(f for f in window.findings_view.shown if f.kind == "race")
    view.show_finding(race)
    grid = next(g for g in view.playback.grids if g.name == race.buffer)
    w = race.work_items[0]
    lx = view.playback.trace.local_size[0]
    recs = view.playback.work_item_records(
        w[3] + lx * w[4], view.playback.steps[view.current].phase
    )
    reads, writes = view.playback.cell_masks(grid, recs)
    picture = view.picture(grid.buffer)
    assert (reads | writes).any()
    assert (picture[reads | writes] == MARK_C).all(axis=-1).all()
