"""Readable from the back row: presenter mode's room view at 1280×720 (A, B and C whole with
the group's tiles boxed, the local tiles large with their values), 1-D buffers wrapped into
blocks, custom buffers in their declared shape, long messages cut with the whole text on
hover, and a Play button that keeps its width. Sizes are read from the views' own geometry
and fonts, never from screenshot pixels."""

from __future__ import annotations

import re

import numpy as np
import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QFontInfo, QFontMetrics
from PySide6.QtWidgets import QAbstractButton, QComboBox, QLabel, QTabBar, QWidget

from explorer.gui.tiling_view import ROOM_LABEL_PX, ROOM_SMALLEST_PX
from explorer.gui.value_text import CUT, exact_text, same_number
from explorer.trace.grids import make_grids
from explorer.trace.playback import Playback
from tests.trace import synthetic
from tests.trace.synthetic import GLOBAL, LOCAL, READ, WRITE, barrier, buf, site

N, TS = 32, 16  # four work-groups of 16×16, two tiles along K


def tiled_playback() -> Playback:
    """A traced 16×16-tile matmul whose A is 1.5·I (values of three characters) and whose B
    holds text (zeros and ones), as the IOU demo has them."""
    trace = synthetic.matmul_tiled(N, TS)
    shapes = {role: (N, N) for role in "ABC"}
    b = np.zeros((N, N))
    b[8:24, 4:8] = 1.0
    arrays = {"A": 1.5 * np.eye(N), "B": b, "C": 1.5 * b}
    return Playback(trace, make_grids(trace, shapes), arrays=arrays)


def vector_playback(length: int = 960, local: int = 64) -> Playback:
    """A 1-D kernel over ``length`` elements: each work-item copies x[i] into local memory,
    waits, and writes y[i] from it."""
    buffers = [
        buf("x", GLOBAL, length, "x"),
        buf("y", GLOBAL, length, "y"),
        buf("xs", LOCAL, local),
    ]
    sites = [
        site(0, 3, READ, GLOBAL, 0, "x[i]"),
        site(1, 3, WRITE, LOCAL, 2, "xs[l]"),
        barrier(2, 4),
        site(3, 5, READ, LOCAL, 2, "xs[l]"),
        site(4, 5, WRITE, GLOBAL, 1, "y[i]"),
    ]
    wi_group, wi_local = synthetic.grid((length,), (local,))
    count = len(wi_group)
    i = np.arange(count, dtype=np.int64)
    lid = wi_local[:, 0].astype(np.int64)
    offsets = np.stack([i, lid, 0 * i, lid, i], axis=1) * 4
    trace = synthetic.from_records(
        np.repeat(np.arange(count, dtype=np.int32), 5),
        np.tile(np.arange(5, dtype=np.int32), count),
        offsets.ravel(),
        wi_group=wi_group,
        wi_local=wi_local,
        buffers=buffers,
        sites=sites,
        global_size=(length,),
        local_size=(local,),
        output_role="y",
    )
    x = np.arange(length, dtype=np.float64) / 10
    return Playback(trace, make_grids(trace, {}), arrays={"x": x, "y": 2 * x})


def pixel_size(widget: QWidget) -> int:
    return QFontInfo(widget.font()).pixelSize()


@pytest.fixture
def presenting(window, qtbot):
    """The window at 1280×720 in presenter mode, showing the tiled trace at the step where
    the group loads its first tile of B."""
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    view = window.views.execution_view
    pb = tiled_playback()
    view.set_playback(pb, "\n".join(f"line {n}" for n in range(1, 20)))
    window.controllers.presenter.set_presenter(True, full_screen=False)
    qtbot.wait(50)
    load_b = next(i for i, s in enumerate(pb.steps) if s.line == 11)
    view.set_step(load_b)
    qtbot.wait(20)
    return window


def test_the_room_view_reads_from_the_back_row_at_1280x720(presenting):
    window = presenting
    view = window.views.execution_view
    buffers = view.buffers
    # A, B and C whole, the local tiles beside them
    assert sorted(c.title.split()[0] for c in buffers.wholes.values()) == ["A", "B", "C"]
    assert sorted(c.frame.title for c in buffers.canvases.values()) == [
        "local As 16×16",
        "local Bs 16×16",
    ]
    assert not buffers.groups.isVisible()
    for canvas in buffers.canvases.values():
        frame = canvas.frame
        assert frame.window == (0, TS, 0, TS)  # the whole tile, not a part of it
        cell = canvas.cell_size()
        font = canvas.label_font(frame.labels, cell)
        assert font is not None and font.pixelSize() >= ROOM_SMALLEST_PX
        metrics = QFontMetrics(font)
        written = canvas.room_labels(frame.labels, metrics, cell)
        known = np.isfinite(frame.values)
        assert known.any()
        # every known value is written, and fits its cell at that size
        assert all(written[known]), "a local value left unwritten"
        whole = canvas.room_texts(frame.labels)
        assert (written[known] == whole[known]).all(), "1.5 cut at 18 px"  # condensed, whole
        assert max(metrics.horizontalAdvance(t) for t in written[known]) <= cell
        assert QFontInfo(canvas.caption_font()).pixelSize() >= ROOM_LABEL_PX
        zoom, overview = canvas.areas()
        assert overview is None and zoom.right() <= canvas.width()
        assert zoom.bottom() <= canvas.height()
    # the step loads B's tile: boxed in B, as large as a finger at least; C's tile marked
    b = next(c for c in buffers.wholes.values() if c.title.startswith("B"))
    c = next(c for c in buffers.wholes.values() if c.title.startswith("C"))
    (box, colour, _w), *_ = b.highlights()
    assert colour == "#c0392b" and box == (0, TS, 0, TS)
    rect = b.box_rect(box)
    assert rect.width() >= 14 and b.picture_rect().contains(rect.center())
    assert any(colour == "#e67e22" for _box, colour, _w in c.highlights())
    for whole in buffers.wholes.values():
        assert QFontInfo(whole.title_font()).pixelSize() >= ROOM_LABEL_PX
        assert whole.picture_rect().width() >= 100
    # the step line and the caption at 18 px at least; every other text at 16 px at least
    view.set_caption("1 · tiled: the group copies a tile of A and of B into local memory")
    assert pixel_size(view.lines.step_label) >= 18
    assert pixel_size(view.lines.caption) >= 18
    assert view.legend.text_pixel_size() >= 16
    small = [
        (type(w).__name__, w.objectName(), pixel_size(w))
        for w in window.findChildren(QWidget)
        if isinstance(w, QLabel | QAbstractButton | QComboBox | QTabBar)
        and w.isVisible()
        and pixel_size(w) < 16
    ]
    assert small == []
    # nothing pushed off the screen or squeezed: the right column keeps its quarter, the
    # execution view fits its three quarters, each control is as wide as its text
    side = window.views.presenter_side
    right = side.mapTo(window, side.rect().bottomRight()).x()
    assert right <= window.width() and side.width() >= window.width() // 4 - 10
    assert view.minimumSizeHint().width() <= view.width()
    for control in view.controls.findChildren(QWidget):
        if isinstance(control, QAbstractButton | QComboBox):
            assert control.width() >= control.sizeHint().width(), control


def test_a_long_failure_is_cut_to_lines_with_the_whole_text_on_hover(presenting, qtbot):
    window = presenting
    badge = window.views.result_view.badge
    long_message = (
        "⚠ Timeout: the trace of matmul/tiled did not finish in 60 s on Oclgrind Simulator "
        "with options -DTS=16 -I /a/very/long/path/to/the/site-packages/pyopencl/cl/include"
        "/and/more/of/it/without/any/space " * 4
    )
    side = window.views.presenter_side
    width_before = side.width()
    window.views.result_view.set_badge("✔ Verified")
    qtbot.wait(20)
    one_line = badge.height()
    window.views.result_view.set_badge(long_message)
    qtbot.wait(20)
    assert badge.text() == long_message
    assert badge.elided() and badge.toolTip() == long_message
    lines = QFontMetrics(badge.font()).lineSpacing()
    assert one_line + lines < badge.height() <= one_line + 2 * lines + 2  # three lines
    assert side.width() == width_before  # the column kept its place
    right = side.mapTo(window, side.rect().bottomRight()).x()
    assert right <= window.width()
    window.views.result_view.set_badge("✔ Verified")
    assert not badge.elided() and badge.toolTip() == ""


def test_leaving_presenter_mode_gives_the_desk_view_back(presenting):
    window = presenting
    buffers = window.views.execution_view.buffers
    window.controllers.presenter.set_presenter(False)
    assert buffers.wholes == {} and not buffers.groups.isHidden()
    assert not any(c.room for c in buffers.canvases.values())
    assert not window.views.execution_view.info.isHidden()


def test_a_long_vector_is_a_block_of_rows_marked_wrapped(qtbot):
    from explorer.gui.execution_view import ExecutionView

    view = ExecutionView()
    qtbot.addWidget(view)
    view.resize(1400, 800)
    view.show()
    pb = vector_playback(960, 64)
    view.set_playback(pb, "a\nb\nc\nd\ne")
    x = next(g for g in pb.grids if g.name == "x")
    canvas = view.buffers.canvases[x.buffer]
    frame = canvas.frame
    assert frame.wrap == 32 and frame.shape == (30, 32)  # 960 elements, 32 a row
    assert "(wrapped)" in frame.title and "wrapped, 32 a row" in frame.caption
    rows, cols = frame.pixels.shape[:2]
    assert cols == 32 and rows > 1
    assert canvas.cell_size() >= 8  # a block of cells, not a strip of 1-4 px
    # the overview is the whole block, the window is marked in it
    assert frame.overview is not None and frame.overview.shape[:2] == (30, 32)
    # a cell of the block stands for its element of the vector
    zoom, _ = canvas.areas()
    step = zoom.width() / 32
    r, c = canvas.buffer_element_at(zoom.left() + 5.5 * step, zoom.top() + 1.5 * step)
    assert (r, c) == (0, (frame.window[0] + 1) * 32 + 5)
    # a work-group of 16 gives a row per group
    pb16 = vector_playback(256, 16)
    view.set_playback(pb16, "a\nb\nc\nd\ne")
    x16 = next(g for g in pb16.grids if g.name == "x")
    assert view.buffers.canvases[x16.buffer].frame.wrap == 16


def test_a_custom_kernels_2d_buffer_is_drawn_in_its_declared_shape(qtbot):
    """A custom buffer declared [rows, cols] is a matrix on screen, not a strip."""
    from explorer.gui.execution_view import ExecutionView

    trace = synthetic.matmul_tiled(N, TS)  # renamed: a custom kernel's own buffers
    rename = {"A": "img", "B": "mask", "C": "out"}
    buffers = tuple(
        b.__class__(
            **{**b.__dict__, "name": rename.get(b.name, b.name), "role": rename.get(b.name)}
        )
        for b in trace.buffers
    )
    trace = trace.__class__(**{**trace.__dict__, "buffers": buffers})
    shapes = {"img": (N, N), "mask": (N, N), "out": (N, N)}
    grids = make_grids(trace, shapes)
    assert {g.name: (g.rows, g.cols) for g in grids if g.space == GLOBAL} == shapes
    view = ExecutionView()
    qtbot.addWidget(view)
    view.set_playback(Playback(trace, grids), "x")
    img = next(g for g in grids if g.name == "img")
    assert view.buffers.canvases[img.buffer].frame.shape == (N, N)


IMAGE_KERNEL = """__kernel void scale(__global const float* src, __global float* dst, float k,
                    int W, int H)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x < W && y < H)
        dst[y * W + x] = k * src[y * W + x];
}
"""


def test_the_open_kernel_dialog_offers_a_shape_per_buffer(qtbot, tmp_path):
    from PySide6.QtWidgets import QLineEdit

    from explorer.gui.kernel_dialog import DECLARATION_COLUMNS, KernelMappingDialog

    path = tmp_path / "blur.cl"
    path.write_text(IMAGE_KERNEL)
    dialog = KernelMappingDialog(path)
    qtbot.addWidget(dialog)
    assert dialog.family.currentText() == "custom"
    table = dialog.declarations_table
    column = DECLARATION_COLUMNS.index("Shape")
    shapes = {
        table.cellWidget(r, 0).text(): table.cellWidget(r, column)
        for r in range(table.rowCount())
        if isinstance(table.cellWidget(r, column), QLineEdit)
    }
    # the guess from the index pattern y * W + x: rows of H, columns of W
    assert {name: edit.text() for name, edit in shapes.items()} == {
        "src": "H, W",
        "dst": "H, W",
    }
    assert 'shape = ["H", "W"]' in dialog.header()
    shapes["dst"].setText("")  # the person wants dst as a vector
    header = dialog.header()
    assert header.count("shape = ") == 1
    shapes["src"].setText("W")  # one figure is not a shape: refused, with the reason
    dialog.accept()
    assert dialog.variant is None and "shape" in dialog.error.text()


def test_play_and_pause_keep_the_buttons_in_place(qtbot):
    from explorer.gui.playback_controls import PlaybackControls

    controls = PlaybackControls()
    qtbot.addWidget(controls)
    controls.resize(1200, 40)
    controls.show()
    qtbot.waitExposed(controls)
    back = next(b for b in controls.findChildren(QAbstractButton) if "◀ Step" in b.text())
    before = (controls.play_button.width(), back.geometry())
    controls.play()
    qtbot.wait(10)
    assert (controls.play_button.width(), back.geometry()) == before
    controls.setStyleSheet("QWidget { font-size: 20px; }")  # presenter type: still steady
    qtbot.wait(10)
    wide = (controls.play_button.width(), back.geometry())
    controls.pause()
    qtbot.wait(10)
    assert (controls.play_button.width(), back.geometry()) == wide
    controls.pause()


def test_the_c_caption_names_the_sums_its_cells_show(qtbot):
    """While the group accumulates in registers, C's cells show the sums so far: its caption
    says so instead of a bare "0 written"."""
    from explorer.gui.execution_view import ExecutionView

    view = ExecutionView()
    qtbot.addWidget(view)
    pb = tiled_playback()
    view.set_playback(pb, "x")
    c = next(g for g in pb.grids if g.name == "C")
    inner = next(i for i, s in enumerate(pb.steps) if s.line == 14)
    view.set_step(inner)
    frame = view.buffers.canvases[c.buffer].frame
    forming = pb.values.partial_sums(pb.cursor.group_steps, c, inner, frame.window)
    shown = int(np.isfinite(forming).sum())
    assert shown == TS * TS  # the group's tile of C shows its sums...
    assert f"0 written · {shown} sums so far, in registers" in frame.caption  # ...and says so
    view.set_step(len(pb.steps) - 1)
    caption = view.buffers.canvases[c.buffer].frame.caption
    assert f"{TS * TS} written" in caption and "sums so far" not in caption


def test_the_c_caption_counts_every_sum_the_group_holds_not_the_cells_shown(qtbot, monkeypatch):
    """A window showing only part of the group's tile (11 of its 16 columns) still says how
    many sums the group holds in registers: all of its work-items', not the visible ones."""
    from explorer.gui.buffer_pictures import BufferPictures
    from explorer.gui.execution_view import ExecutionView

    whole = BufferPictures.window

    def narrow(self, pb, grid, step):
        r0, r1, c0, c1 = whole(self, pb, grid, step)
        return r0, r1, c0, min(c1, c0 + 11)

    monkeypatch.setattr(BufferPictures, "window", narrow)
    view = ExecutionView()
    qtbot.addWidget(view)
    pb = tiled_playback()
    view.set_playback(pb, "x")
    c = next(g for g in pb.grids if g.name == "C")
    inner = next(i for i, s in enumerate(pb.steps) if s.line == 14)
    view.set_step(inner)
    frame = view.buffers.canvases[c.buffer].frame
    _r0, _r1, c0, c1 = frame.window
    visible = pb.values.partial_sums(pb.cursor.group_steps, c, inner, frame.window)
    assert c1 - c0 == 11 and int(np.isfinite(visible).sum()) < TS * TS
    assert f"{TS * TS} sums so far, in registers" in frame.caption


def test_hovering_a_rounded_value_gives_it_exactly(presenting, qtbot):
    view = presenting.views.execution_view
    canvas = next(c for c in view.buffers.canvases.values() if c.frame.title.endswith("As 16×16"))
    pb = view.playback
    view.set_step(next(i for i, s in enumerate(pb.steps) if s.line == 14))
    zoom, _ = canvas.areas()
    cell = canvas.cell_size()
    qtbot.mouseMove(
        canvas, QRect(int(zoom.left() + cell / 2), int(zoom.top() + cell / 2), 1, 1).topLeft()
    )
    assert canvas.toolTip() == "1.5"


def test_a_value_too_wide_for_its_cell_is_cut_with_the_mark_never_rounded():
    from explorer.gui.value_text import fitted_text, value_label

    def fits_in(chars):
        return lambda text: len(text) <= chars

    assert fitted_text(1.5, fits_in(3)) == "1.5"
    assert fitted_text(-0.4213, fits_in(4)) == "-.4…"
    assert fitted_text(0.3125, fits_in(4)) == ".31…"
    assert fitted_text(1.5, fits_in(2)) == "1…"  # never "2"
    assert fitted_text(1.5, fits_in(1)) == "…"
    assert fitted_text(0.0049, fits_in(3)) == ".0…"  # never "0"
    assert fitted_text(12345.5, fits_in(5)) == "…"  # never "1234…", a tenth of it
    assert fitted_text(np.float32(0.1), fits_in(3)) == ".1"  # the float32 0.1 reads back
    assert value_label(1234.5678) == "1234…" and value_label(2.0) == "2"
    assert value_label(123456.0) == "123456"  # wider than asked, but the same number


def test_an_unchecked_run_says_so_in_its_badge():
    from dataclasses import replace

    from explorer.gui.result_view import badge_text
    from tests.gui.controllers.fakes import result

    ran = result("tiled")
    ran = replace(ran, verdict=replace(ran.verdict, checked=False))
    assert ran.status == "unchecked"
    text = badge_text(ran)
    assert text.startswith("Ran, not checked") and "kernel 1.000 ms" in text
    assert "None" not in text


def test_a_wrapped_vector_in_the_room_view_writes_every_value(qtbot):
    from explorer.gui.execution_view import ExecutionView
    from explorer.gui.tiling_view import ROOM_WIDE_CELL

    view = ExecutionView()
    qtbot.addWidget(view)
    view.resize(960, 640)
    view.show()
    qtbot.waitExposed(view)
    pb = vector_playback(960, 64)
    pb.set_arrays({"x": np.linspace(-1, 1, 960), "y": np.zeros(960)})
    view.set_playback(pb, "a\nb\nc\nd\ne")
    view.buffers.set_room(True)
    qtbot.wait(20)
    view.set_step(1)  # the copy into local memory
    (canvas,) = view.buffers.canvases.values()  # the local copy, large
    frame = canvas.frame
    assert frame.wrap > 1 and "wrapped" in frame.caption
    cell = canvas.cell_size()
    assert cell >= ROOM_WIDE_CELL - 4
    font = canvas.label_font(frame.labels, cell)
    assert font is not None and font.pixelSize() >= ROOM_SMALLEST_PX
    written = canvas.room_labels(frame.labels, QFontMetrics(font), cell)
    known = np.isfinite(frame.values)
    assert known.sum() >= 32
    assert all(t not in ("", "…") for t in written[known])


def test_the_result_plots_have_no_small_print_while_presenting(presenting):
    window = presenting
    view = window.views.result_view
    plot, image = view.plot, view.image  # made while presenting
    for side in ("left", "bottom"):
        assert plot.getAxis(side).style["tickFont"].pixelSize() >= 16
    assert image.ui.histogram.isHidden()
    window.controllers.presenter.set_presenter(False)
    assert plot.getAxis("bottom").style["tickFont"] is None
    assert not image.ui.histogram.isHidden()


HARD_VALUES = (1.5, 1 / 3, 1234.5678, -0.0625)


def drawn_values(window, qtbot, size, a):
    """The texts the room view paints in the local tile of A at ``size``, A's diagonal
    holding ``a``: (value → text, whether some were cut, the font, the cell's side)."""
    window.resize(*size)
    qtbot.wait(50)
    view = window.views.execution_view
    pb = tiled_playback()
    diagonal = np.resize(np.array(a, dtype=np.float64), N)
    pb.set_arrays({"A": np.diag(diagonal), "B": np.eye(N), "C": np.diag(diagonal)})
    view.set_playback(pb, "\n".join(f"line {n}" for n in range(1, 20)))
    window.controllers.presenter.set_presenter(True, full_screen=False)
    qtbot.wait(50)
    view.set_step(next(i for i, s in enumerate(pb.steps) if s.line == 14))
    canvas = next(c for c in view.buffers.canvases.values() if "As" in c.frame.title)
    canvas.grab()  # painted as on screen
    drawn = canvas.drawn
    assert drawn is not None
    cell = canvas.cell_size()
    font = canvas.label_font(canvas.frame.labels, cell)
    values = canvas.frame.values.ravel()
    shown = {float(v): str(t) for v, t in zip(values, drawn.ravel(), strict=True)}
    cut = canvas.cut
    window.controllers.presenter.set_presenter(False)
    return shown, cut, font, cell


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_no_value_is_written_as_another_number(window, qtbot, size):
    """1.5 is written "1.5" at 1280×720 too (narrower, then smaller type, never under
    16 px); a value no cell can hold whole is its leading digits and the legend's mark,
    never a rounded number."""
    window.show()
    qtbot.waitExposed(window)
    legend = window.views.execution_view.legend
    shown, cut, font, cell = drawn_values(window, qtbot, size, [1.5])
    assert shown[1.5] == "1.5" and not cut  # A = 1.5·I, as the class must read it
    assert font.pixelSize() >= ROOM_SMALLEST_PX
    shown, cut, font, cell = drawn_values(window, qtbot, size, HARD_VALUES)
    assert font.pixelSize() >= ROOM_SMALLEST_PX
    metrics = QFontMetrics(font)
    for value in HARD_VALUES:
        text = shown[value]
        assert text, f"{value} left unwritten"
        assert metrics.horizontalAdvance(text) <= cell
        if not same_number(text, value):
            # the mark, after the value's own leading digits (or alone)
            assert text.endswith(CUT) and exact_text(value).startswith(text[:-1]), text
            assert f"{CUT}</b> more digits than the cell holds" in legend.label.text()
    assert shown[1.5] == "1.5"
    assert cut  # 0.333… is cut at any size: the title says what the mark means


def test_an_exercise_solved_live_reads_from_the_back_row_at_1280x720(window, qtbot):
    """Presenter mode with an exercise open: its text, hints and grade beside the editor and
    the execution view (two tabs, each the screen's height), in the presenter's type;
    nothing runs off the screen."""
    from PySide6.QtWidgets import QTabWidget

    from explorer.exercises import find_exercise

    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    controller = window.controllers.exercises
    assert controller.open(find_exercise("naive-matmul"))
    window.controllers.presenter.set_presenter(True, full_screen=False)
    panel, source = window.views.exercise_panel, window.views.source_view
    execution = window.views.execution_view
    assert panel.isVisible() and source.isVisible()  # the editor in front to begin with
    panel.hint_button.click()
    with qtbot.waitSignal(controller.compared, timeout=120000):
        controller.check()  # the starting kernel: not yet, traced against the solution
    qtbot.wait(50)
    assert execution.isVisible() and panel.checks.text() and panel.hints.text()

    def too_small():
        return [
            (type(w).__name__, w.objectName(), pixel_size(w))
            for w in window.findChildren(QWidget)
            if (isinstance(w, QLabel | QAbstractButton | QComboBox | QTabBar) or w is source.editor)
            and w.isVisible()
            and pixel_size(w) < 16
        ]

    assert too_small() == []
    left = window.findChild(QTabWidget, "exercise-left")
    left.setCurrentWidget(source)
    assert source.editor.isVisible() and too_small() == []
    for widget in (panel, source, left):
        right = widget.mapTo(window, widget.rect().bottomRight()).x()
        assert right <= window.width() and widget.width() >= 300, widget
    assert source.editor.height() >= 10 * source.editor.fontMetrics().lineSpacing()
    # the exercise's sentences wrap within the panel rather than run past it
    for label in (panel.text, panel.checks, panel.title):
        assert label.wordWrap() and label.width() <= panel.viewport().width()
    window.controllers.presenter.set_presenter(False)
    assert window.views.tabs.indexOf(source) >= 0 and not window.views.presenter_side.isHidden()
    assert window.views.tabs.indexOf(execution) >= 0


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_a_vector_in_the_normal_window_is_a_block_not_a_strip(window, qtbot, size):
    """Outside presenter mode too a 1-D buffer is wrapped into rows its canvas can hold at a
    readable cell (the lesson on seed 004 showed its vectors as strips 5-10 px high)."""
    from explorer.gui.tiling_view import DESK_CELL

    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    view = window.views.execution_view
    window.views.show_page("execution")
    pb = vector_playback(1000, 40)  # seed 004's D = 1000, local size 40
    pb.set_arrays({"x": np.linspace(-1, 1, 1000), "y": np.zeros(1000)})
    view.set_playback(pb, "a\nb\nc\nd\ne")
    qtbot.wait(50)
    x = next(g for g in pb.grids if g.name == "x")
    canvas = view.buffers.canvases[x.buffer]
    qtbot.waitUntil(lambda: canvas.frame.wrap > 0)
    zoom, _overview = canvas.areas()
    rows = canvas.frame.window[1] - canvas.frame.window[0]
    assert canvas.cell_size() >= DESK_CELL - 1  # cells, not a strip of 1-4 px
    assert zoom.height() >= 4 * DESK_CELL and rows >= 4  # a block: rows of cells
    assert zoom.height() >= canvas.height() / 3  # the picture fills its canvas
    assert "wrapped" in canvas.frame.caption


def naive_playback(n: int = 64) -> Playback:
    """A traced naive matmul on the IOU's kind of input: each work-item walks a row of A and
    a column of B, its sum forming in a register until it writes C at the end."""
    trace = synthetic.matmul_naive(n)
    b = np.zeros((n, n))
    b[8:56, 4:8] = 1.0
    arrays = {"A": 1.5 * np.eye(n), "B": b, "C": 1.5 * b}
    return Playback(trace, make_grids(trace, {r: (n, n) for r in "ABC"}), arrays=arrays)


def _assert_caption_fitted(canvas, must_keep: str) -> None:
    """The caption as painted: too long for one line, in two within the canvas, each made
    of whole parts of the caption (only its place in the buffer may go), never cut inside a
    word or after a number; it keeps what the step read and wrote, and ``must_keep``."""
    full = canvas.frame.caption
    lines = list(canvas.drawn_lines[1:])
    metrics = QFontMetrics(canvas.caption_font())
    assert metrics.horizontalAdvance(full) > canvas.width() - 8  # too long for one line
    assert len(lines) == 2, lines
    assert all(line and metrics.horizontalAdvance(line) <= canvas.width() - 8 for line in lines)
    drawn = " · ".join(lines)
    assert must_keep in drawn
    assert re.search(r"\d+ read, \d+ written", drawn), lines  # what a teacher points at
    parts = full.split(" · ")
    assert all(part in parts for line in lines for part in line.split(" · ")), lines
    assert not any(line.endswith(CUT) for line in lines), lines


def test_a_slide_says_what_the_picture_shows_and_shortens_cs_caption_by_words(qtbot):
    """A 1280×720 slide of naive: the legend says what the colours and marks are, nothing
    about clicking or hovering (nobody does, in a video), and C's long caption keeps whole
    words, its read and written counts and its number of sums in two lines, instead of
    ending in "256 s…" or losing "0 read, 0 written": every work-item of the 16×16 group
    holds one, as many as its tile of C, shown whole."""
    from explorer.gui.execution_view import ExecutionView
    from explorer.gui.slide_view import slide

    view = ExecutionView()
    qtbot.addWidget(view)
    pb = naive_playback()
    view.set_playback(pb, "\n".join(f"line {n}" for n in range(1, 12)))
    with slide(view, (1280, 720)) as made:
        made.set_step(60)
        made.image()
        legend = made.view.legend.label.text()
        assert "work-item followed" in legend and "more digits" in legend
        for word in ("click", "hover", "pick"):
            assert word not in legend.lower()
        canvases = made.view.buffers.canvases.values()
        assert all("hover" not in c.drawn_lines[0] for c in canvases)
        c = next(c for c in canvases if c.frame.title.startswith("C"))
        sums = int(np.prod(pb.trace.local_size))  # nothing written yet: each holds its sum
        r0, r1, c0, c1 = c.frame.window
        assert sums == 256 and (r1 - r0) * (c1 - c0) >= sums  # the tile whole
        assert ", 0 written · " in c.frame.caption
        assert f"{sums} sums so far, in registers" in c.frame.caption
        _assert_caption_fitted(c, f"{sums} sums so far, in registers")


def test_cs_caption_in_presenter_mode_at_1280x720_keeps_its_counts_in_two_lines(window, qtbot):
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    view = window.views.execution_view
    view.set_playback(naive_playback(), "\n".join(f"line {n}" for n in range(1, 12)))
    window.controllers.presenter.set_presenter(True, full_screen=False)
    qtbot.wait(50)
    view.set_step(60)
    c = next(c for c in view.buffers.canvases.values() if c.frame.title.startswith("C"))
    c.repaint()
    assert "sums so far" in c.frame.caption
    _assert_caption_fitted(c, "sums so far")


def test_a_caption_is_shortened_by_whole_words_never_after_a_number():
    from explorer.gui.tiling_view import fitted_caption, fitted_words

    def fits_in(chars):
        return lambda text: len(text) <= chars

    caption = "[0:16][0:12] · 0 read, 0 written · 192 sums so far, in registers"
    assert fitted_caption(caption, fits_in(80)) == caption
    without_place = "0 read, 0 written · 192 sums so far, in registers"
    assert fitted_caption(caption, fits_in(60)) == without_place
    assert fitted_caption(caption, fits_in(45)) == "192 sums so far, in registers"
    assert fitted_caption(caption, fits_in(22)) == "192 sums so far…"  # never "… s…"
    assert fitted_caption(caption, fits_in(9)) == "192 sums…"
    assert fitted_caption(caption, fits_in(5)) == ""  # never "192…"
    assert fitted_words("local As 16×16", fits_in(10)) == "local As…"
    assert fitted_words("A 64×64", fits_in(5)) == "A…"  # never "A 64…"
    assert fitted_words("A 64×64", fits_in(1)) == ""  # nothing rather than a cut word


def test_a_whole_buffers_title_too_wide_is_shortened_by_words(qtbot):
    from explorer.gui.room_view import WholeCanvas

    canvas = WholeCanvas("A 256×256")
    qtbot.addWidget(canvas)
    canvas.resize(400, 200)
    canvas.grab()  # painted
    assert canvas.drawn_title == "A 256×256"
    canvas.resize(90, 200)  # the narrow column of the naive stage at 1280×720
    canvas.grab()
    assert canvas.drawn_title == f"A{CUT}"  # never "A 256×…", a number cut
