"""Presenter mode on a projector: type scaled to the screen, nothing cut off, and leaving it
gives the window back as it was."""

import pytest

from explorer.gui.main_window import presenter_style
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
