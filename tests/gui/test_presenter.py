"""Presenter mode on a projector: type scaled to the screen, nothing cut off, and leaving it
gives the window back as it was."""

import numpy as np
import pytest

from explorer.gui.main_window import presenter_style
from explorer.gui.value_text import CUT, exact_text
from tests.gui.test_execution import trace_in_window


def test_type_is_scaled_to_the_screen():
    assert "font-size: 20px" in presenter_style(1920, 1080)
    assert "font-size: 16px" in presenter_style(1280, 720)


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
def test_presenter_layout_fits_and_leaving_restores_the_panels(window, qtbot, size):
    from PySide6.QtWidgets import QDockWidget

    view = trace_in_window(window, qtbot, "matmul", "tiled", {"M": 64, "N": 64, "K": 64})
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    window.controllers.presenter.set_presenter(True, full_screen=False)
    qtbot.wait(50)
    pane = window.views.presenter_split.widget(0)
    assert pane is view and not view.code.isVisible()
    # nothing wider than its place: the view fits its pane, each buffer its panel
    assert view.minimumSizeHint().width() <= view.width()
    assert view.width() <= window.width()
    for canvas in view.buffers.canvases.values():
        zoom, overview = canvas.areas()
        assert zoom.right() <= canvas.width() and zoom.bottom() <= canvas.height()
        if overview is not None:
            assert overview.right() <= canvas.width()
            assert not overview.intersects(zoom)
    # the tiled kernel's 16×16 tiles: every row and column, each value whole at 18 px or more
    # (DESIGN: cell values under 18 px nowhere, on a 1280×720 projector too)
    view.set_step(view.steps // 2)
    for canvas in view.buffers.canvases.values():
        r0, r1, c0, c1 = canvas.frame.window
        assert (r1 - r0, c1 - c0) == (16, 16), canvas.frame.title
        canvas.repaint()
        font = canvas.label_font(canvas.frame.labels, canvas.cell_size())
        assert font is not None and font.pixelSize() >= 18, canvas.frame.title
        assert canvas.drawn is not None and not canvas.cut
    timeline = view.timeline
    assert timeline.height() >= timeline.fontMetrics().height() + 30  # text below the marks
    window.controllers.presenter.set_presenter(False)
    dock = window.findChild(QDockWidget, "configuration")
    assert dock.isVisible() and window.menuBar().isVisible()
    assert not view.code.isHidden()  # back beside the cells on the Execution tab
    assert window.styleSheet() == ""


def _every_tile_row_at_18_px(view) -> None:
    """Each local tile of the tiled kernel shown whole, its values at 18 px or more, whole."""
    for canvas in view.buffers.canvases.values():
        r0, r1, c0, c1 = canvas.frame.window
        assert (r1 - r0, c1 - c0) == (16, 16), canvas.frame.title
        canvas.repaint()
        font = canvas.label_font(canvas.frame.labels, canvas.cell_size())
        assert font is not None and font.pixelSize() >= 18, canvas.frame.title
        assert canvas.drawn is not None and not canvas.cut, canvas.frame.title


def test_the_tours_tiled_stage_shows_every_row_of_its_tiles_at_1280x720(window, qtbot):
    from PySide6.QtCore import Qt

    from tests.gui.conftest import trigger

    for name in ("M", "N", "K"):
        window.model.set_size(name, 64)
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    window.controllers.presenter.set_presenter(True, full_screen=False)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    trigger(window, "Guided tour")  # Ctrl+G
    state, view = window.state, window.views.execution_view

    def traced(stage: int):
        return lambda: (
            len(state.tour_results) == stage
            and state.playback is not None
            and not window.worker.busy
            and "global loads per element of C" in view.lines.caption.text()
        )

    qtbot.waitUntil(traced(1), timeout=120000)
    naive = state.playback
    qtbot.keyClick(view, Qt.Key.Key_Space)  # the next stage
    qtbot.waitUntil(lambda: state.playback is not naive and traced(2)(), timeout=120000)
    qtbot.wait(50)
    caption = view.lines.caption
    assert caption.text().startswith("2 · tiled") and caption.isVisible()
    assert caption.height() >= 3 * caption.fontMetrics().lineSpacing()  # three lines at least
    _every_tile_row_at_18_px(view)
    # a slower device's figures take a fourth line: the tiles still show every row
    caption.setText(caption.text() + " · 12,345.6 ms of the slowest launch on this device")
    qtbot.wait(50)
    assert caption.height() >= 4 * caption.fontMetrics().lineSpacing()
    _every_tile_row_at_18_px(view)


def test_presenter_mode_entered_over_a_trace_times_it(window, qtbot):
    """A lesson traced, then F11: the timing beside the animation is never empty, as for a
    trace made while presenting (the trace itself is not timed)."""
    from tests.gui.conftest import trigger

    trace_in_window(window, qtbot, "matmul", "tiled", {"M": 32, "N": 32, "K": 32})
    assert window.state.result is None  # traced, never run: nothing timed yet
    window.show()
    qtbot.waitExposed(window)
    trigger(window, "Presenter mode")
    qtbot.waitUntil(
        lambda: window.state.result is not None and window.state.result.timing is not None,
        timeout=60000,
    )
    assert window.views.timing_view.bar_count >= 1
    assert window.state.playback is not None  # the animation stays
    window.controllers.presenter.leave()


def test_the_tours_naive_stage_shows_whole_tiles_and_counts_every_sum_at_1280x720(window, qtbot):
    """Naive's A, B and C side by side at 1280×720: each window holds the group's whole
    16×16 tile, its boxes inside it, and C's caption counts the sums all 256 work-items hold
    in registers, not the cells that happen to be visible, under what the step read and
    wrote (the counts a teacher points at, in a line of their own)."""
    from PySide6.QtCore import Qt

    from explorer.gui.cell_colours import STEP_OUTLINE, WRITE_OUTLINE

    for name in ("M", "N", "K"):
        window.model.set_size(name, 64)
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    window.controllers.presenter.set_presenter(True, full_screen=False)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    view = window.views.execution_view
    qtbot.keyClick(view, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)  # the tour
    state = window.state
    qtbot.waitUntil(
        lambda: (
            len(state.tour_results) == 1
            and state.playback is not None
            and not window.worker.busy
            and "global loads per element of C" in view.lines.caption.text()
        ),
        timeout=120000,
    )
    assert view.lines.caption.text().startswith("1 · naive")
    pb = state.playback
    group = pb.cursor.group_steps
    ly, lx = pb.trace.local_size[1], pb.trace.local_size[0]
    c = next(g for g in pb.grids if g.name == "C")
    view.set_step(view.steps // 2)  # halfway along k: acc += A[…] * B[…]
    qtbot.wait(50)
    step = pb.cursor.step
    assert step == view.steps // 2 and pb.steps[step].line == pb.steps[0].line
    # the truth, from the trace: every work-item of the group forms its sum, none written yet
    assert not group.written_before(c, step, (0, c.rows, 0, c.cols)).any()
    true_sums = lx * ly
    for canvas in view.buffers.canvases.values():
        canvas.repaint()
        frame = canvas.frame
        r0, r1, c0, c1 = frame.window
        assert r1 - r0 >= ly and c1 - c0 >= lx, frame.title  # the tile whole
        zoom, _ = canvas.areas()
        cell = canvas.cell_size()
        boxes = [o for o in frame.outlines if o[1] in (WRITE_OUTLINE, STEP_OUTLINE)]
        assert boxes, frame.title
        for box, _colour, _width in boxes:
            b0, b1, d0, d1 = box
            assert r0 <= b0 and b1 <= r1 and c0 <= d0 and d1 <= c1, (frame.title, box)
            rect = canvas._box_rect(box, zoom, cell)
            assert zoom.adjusted(-1, -1, 1, 1).contains(rect), (frame.title, box)
        assert zoom.right() <= canvas.width() and zoom.bottom() <= canvas.height()
        # every value the cells write is the true number, or its leading digits and the mark
        font = canvas.label_font(frame.labels, cell)
        assert font is not None and font.pixelSize() >= 18, frame.title
        for (r, col), text in np.ndenumerate(canvas.drawn):
            if text:
                exact = exact_text(float(frame.values[r, col]))
                assert text == exact or (text.endswith(CUT) and exact.startswith(text[:-1]))
    caption = view.buffers.canvases[c.buffer].drawn_lines[1:]  # the counts kept: two lines
    assert f"{true_sums} sums so far, in registers" in caption
    assert any(line.endswith("read, 0 written") for line in caption), caption
