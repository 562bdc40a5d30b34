"""A warp's view of one access: 32 lanes, their sectors (global) or banks (local)."""

import numpy as np

from explorer.gui.warp_view import WarpAccess
from tests.gui.test_execution import trace_in_window


def test_sectors_and_banks_of_simple_patterns():
    contiguous = WarpAccess("x", False, np.arange(32) * 4, 4)
    assert contiguous.sectors() == (4, 4)  # 128 bytes: four 32-byte sectors, the fewest
    strided = WarpAccess("x", False, np.arange(32) * 128, 4)
    assert strided.sectors() == (32, 4)
    column = WarpAccess("x", True, np.arange(32) * 16 * 4, 4)  # Asub[lane][0], 16 wide
    assert column.conflict() == 16
    broadcast = WarpAccess("x", True, np.zeros(32, dtype=np.int64), 4)
    assert broadcast.conflict() == 1 and "no bank conflict" in broadcast.summary()


def test_the_warp_view_follows_the_step_and_the_selected_work_item(window, qtbot):
    view = trace_in_window(window, qtbot, "matmul", "naive", {"M": 64, "N": 64, "K": 64}, (16, 16))
    view.controls.warp_box.setChecked(True)
    assert view.warp_view.isVisibleTo(view)
    view.playback.cursor.selected_wi = 0  # warp 0: local rows 0 and 1, 16 columns each
    view.set_step(5)  # k = 5: A[row*K + 5] and B[5*N + col]
    accesses = view.warp_view.accesses
    a = next(acc for acc in accesses if " A[" in acc.title)
    b = next(acc for acc in accesses if " B[" in acc.title)
    assert a.active.all() and b.active.all()
    # A: sixteen lanes share one element per row, two rows: 2 sectors; B: one row of 16
    # floats, the same for both rows: 64 bytes, 2 sectors
    assert a.sectors() == (2, 1)
    assert b.sectors() == (2, 2)
    pb = view.playback
    offsets = dict((site, off) for site, off, _size in pb.cursor.group_steps.warp_offsets(5, 0))
    assert any(np.array_equal(off, b.offsets) for off in offsets.values())


def test_the_tiled_inner_product_reads_local_memory_without_conflict(window, qtbot):
    view = trace_in_window(window, qtbot, "matmul", "tiled", {"M": 32, "N": 32, "K": 32})
    view.controls.warp_box.setChecked(True)
    view.playback.cursor.selected_wi = 0
    step = next(s for s in view.playback.steps if s.line == 62 and s.phase == 1)
    view.set_step(step.index)
    accesses = view.warp_view.accesses
    assert len(accesses) == 2 and all(a.local for a in accesses)
    assert all(a.conflict() == 1 for a in accesses)  # broadcasts and distinct banks
