"""The value plane in the execution view: local memory shows the values the trace recorded,
says where each came from, and any buffer can be coloured by value or by who touched it."""

import numpy as np
from PySide6.QtCore import Qt

from explorer.gui.cell_colours import hues
from tests.gui.conftest import trigger
from tests.gui.test_execution import trace_in_window


def _asub(view):
    return next(g for g in view.playback.grids if g.name == "Asub")


def test_local_cells_show_the_recorded_values_and_where_they_came_from(window, qtbot):
    view = trace_in_window(window, qtbot, "matmul", "tiled", {"M": 64, "N": 64, "K": 64})
    pb = view.playback
    assert pb.trace.values is not None  # the app asks for values
    a = window.state.traced.result.inputs["A"]
    view.set_step(1)  # after the first copy into Asub
    asub = _asub(view)
    frame = view.buffers.canvases[asub.buffer].frame
    r0, r1, c0, c1 = frame.window
    gy = pb.group[1]
    shown = np.array([[float(t) if t else np.nan for t in row] for row in frame.labels])
    expected = a[16 * gy + r0 : 16 * gy + r1, c0:c1]  # Asub[ty][tx] = A[row][tx] at k = 0
    assert np.allclose(shown, expected, atol=1e-6)
    view._cell_hovered(asub, 2, 3)
    text = view.info.text()
    assert f"copied from A[{16 * gy + 2}][3]" in text
    assert "by work-item (3, 2, 0) at step 1 (line 52)" in text


def test_colour_cells_by_cycles_value_and_who_touched_them(window, qtbot):
    view = trace_in_window(window, qtbot, "matmul", "tiled", {"M": 64, "N": 64, "K": 64})
    pb = view.playback
    view.set_step(0)  # the copy into Asub: its cells are tinted as written this step
    asub = _asub(view)
    by_step = view.buffers.canvases[asub.buffer].frame.pixels.copy()
    trigger(window, "Colour cells by…")
    assert view.pictures.colouring == "value" and "by value" in view.info.text()
    by_value = view.buffers.canvases[asub.buffer].frame.pixels
    assert not np.array_equal(by_step, by_value)  # no read/write tints: values alone
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)  # keys reach a window's shortcuts once it is active
    shift_ctrl = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(view, Qt.Key.Key_C, shift_ctrl)  # the command's key, from the view
    assert view.pictures.colouring == "who"
    frame = view.buffers.canvases[asub.buffer].frame
    r0, r1, c0, c1 = frame.window
    writers = pb.cursor.group_steps.touched_by(asub, view.current)[r0:r1, c0:c1]
    assert (writers >= 0).all()  # every cell of the tile was written at the first copy
    matching = (frame.pixels == hues(writers, 256)).all(axis=-1)
    # every cell in its writer's hue (the selected work-item's own cells are still tinted)
    assert matching.mean() > 0.9 and matching[2, 3]
    assert writers[2, 3] == 3 + 16 * 2  # Asub[2][3] by work-item (3, 2)
    trigger(window, "Colour cells by…")
    assert view.pictures.colouring == "step"
