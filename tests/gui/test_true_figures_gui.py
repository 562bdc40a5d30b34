"""A figure the window shows is the true figure: a microsecond kernel's time and rate keep
three significant digits wherever they are written (the timing bars, the verdict, the status
bar, the sweep's cells); the grey bar is named for what it times; the roofline marks a wrong
run apart from the verified ones; the tour's tile of C is a whole number of rows. Each figure
is checked against one worked out here from the run's own samples and the problem's size."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt

from explorer.engine.header.catalog import find_variant
from tests.conftest import TEST_KERNELS
from tests.gui.conftest import answer_file_dialogs, run_and_wait, trace_and_wait, trigger
from tests.gui.test_custom_kernels import type_into

TINY = {"M": 16, "N": 16, "K": 16}  # 8,192 FLOPs: microseconds on any device


def _figures(pattern: str, text: str) -> list[float]:
    """Every number ``pattern`` (one group) finds in ``text``, as the figure it reads as."""
    return [float(m.replace(",", "")) for m in re.findall(pattern, text)]


def _reads_as(shown: float, true: float) -> bool:
    """``shown`` is ``true`` to three significant digits: rounding to fewer ("0.002" for
    0.00188, "0.1" for 0.0764) is off by more than half a unit of the third digit."""
    unit = 10 ** (math.floor(math.log10(abs(true))) - 2)
    return abs(shown - true) <= unit / 2 * (1 + 1e-9)


def _sizes(qtbot, window, sizes: dict[str, int]) -> None:
    for name, value in sizes.items():
        type_into(qtbot, window.views.panel.size_spins[name], value)
    assert {k: window.model.sizes[k] for k in sizes} == sizes


def _run_tiny_naive(qtbot, window):
    window.model.set_family("matmul")
    window.model.set_variant(find_variant("matmul", "naive"))
    _sizes(qtbot, window, TINY)
    result = run_and_wait(qtbot, window)  # the Run action, Ctrl+R's
    assert result.status == "verified" and result.timing is not None
    return result


def test_a_microsecond_kernel_reads_as_its_own_time_and_rate_everywhere(window, qtbot):
    result = _run_tiny_naive(qtbot, window)
    median = result.timing.median_ms
    # The rate from the problem's definition (2·M·N·K) and the median, not from the record.
    gflops = 2 * 16**3 / (median * 1e-3) / 1e9
    assert median < 0.1, "the check needs a kernel that takes microseconds"
    timing = window.views.timing_view
    kernel_label = next(t for t in timing.labels if "kernel" in t)
    [shown] = _figures(r"kernel ([\d,.]+) ms", kernel_label)
    assert _reads_as(shown, median), kernel_label
    details = timing.details.text()
    [shown] = _figures(r"kernel ([\d,.]+) ms, the median", details)
    assert _reads_as(shown, median), details
    [shown] = _figures(r"([\d,.]+) GFLOP/s", details)
    assert _reads_as(shown, gflops), details
    badge = window.views.result_view.badge.text()
    [shown] = _figures(r"kernel ([\d,.]+) ms", badge)
    assert _reads_as(shown, median), badge
    [shown] = _figures(r"([\d,.]+) GFLOP/s", badge)
    assert _reads_as(shown, gflops), badge
    status = window.statusBar().currentMessage()
    [shown] = _figures(r"kernel ([\d,.]+) ms", status)
    assert _reads_as(shown, median), status


def test_the_whiskers_figures_are_the_fastest_and_slowest_samples(window, qtbot):
    result = _run_tiny_naive(qtbot, window)
    details = window.views.timing_view.details.text()
    [(lo, hi)] = re.findall(r"min ([\d,.]+) – max ([\d,.]+) ms", details)
    assert _reads_as(float(lo), min(result.timing.kernel_ms)), details
    assert _reads_as(float(hi), max(result.timing.kernel_ms)), details


def test_the_sweep_cells_read_as_each_points_rate(window, qtbot):
    window.model.set_family("matmul")
    window.model.set_variant(find_variant("matmul", "naive"))
    _sizes(qtbot, window, TINY)
    window.views.show_page("sweep")
    sweep = window.views.sweep_view
    sweep.x_axis.setCurrentText("local")
    sweep.y_axis.setCurrentText("local")  # one row
    sweep.x_values.setText("8x8,16x16")
    qtbot.mouseClick(sweep.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: sweep.grid and all(r is not None for r in sweep.grid[0]), timeout=120000
    )
    row = sweep.grid[0]
    assert [r.status for r in row] == ["verified", "verified"]
    for cell, result in zip(sweep.canvas.cell_labels[0], row, strict=True):
        gflops = 2 * 16**3 / (result.timing.median_ms * 1e-3) / 1e9
        assert gflops < 10, "the check needs a rate that one decimal place would round"
        assert _reads_as(float(cell.replace(",", "")), gflops), cell
    best = max(row, key=lambda r: r.gflops)
    [shown] = _figures(r"best ([\d,.]+) GFLOP/s", sweep.message.text())
    assert _reads_as(shown, 2 * 16**3 / (best.timing.median_ms * 1e-3) / 1e9)
    # Every figure reads on its cell: near-black text at a contrast of 4.5:1 at least.
    for c in range(len(row)):
        assert _contrast(sweep.canvas.pixels[0, c, :3], (0x1B, 0x26, 0x31)) >= 4.5


def _contrast(one, other) -> float:
    """WCAG's contrast ratio of two sRGB colours."""

    def luminance(rgb) -> float:
        channels = [v / 255 for v in rgb]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    hi, lo = sorted((luminance(one), luminance(other)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_grey_bar_is_named_for_what_it_times_not_called_numpy(window, qtbot):
    """The grey bar times the check's answer (float64, with its tolerance's magnitudes: two
    products for matmul), not numpy doing the kernel's job: its label says which."""
    result = _run_tiny_naive(qtbot, window)
    timing = window.views.timing_view
    reference = next(t for t in timing.labels if "kernel" not in t)
    assert not reference.startswith("numpy")
    assert reference.startswith("check's answer (numpy)")
    [shown] = _figures(r": ([\d,.]+) ms", reference)
    assert _reads_as(shown, result.timing.reference_ms)
    details = timing.details.text()
    assert "not a numpy baseline" in details
    assert "numpy " + "{" not in details and "· numpy" not in details
    assert "magnitudes" in timing.details.toolTip()


def _legend(roof) -> dict[str, object]:
    """The roofline legend's entries: their text, with the symbol each is drawn with."""
    roof.plot.grab()
    return {label.text: sample.item for sample, label in roof.plot.getPlotItem().legend.items}


def test_a_wrong_kernel_is_marked_apart_on_the_roofline(window, qtbot, monkeypatch):
    _run_tiny_naive(qtbot, window)
    answer_file_dialogs(monkeypatch, TEST_KERNELS / "tiled_off_by_one.cl")
    trigger(window, "Open kernel…")
    _sizes(qtbot, window, TINY)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    before = len(window.state.history)
    qtbot.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: len(window.state.history) > before, timeout=120000)
    assert window.state.result.status == "wrong"
    window.views.show_page("roofline")
    roof = window.views.roofline_view
    entries = _legend(roof)
    verified = [t for t in entries if t.startswith("naive ")]
    wrong = [t for t in entries if t.startswith(window.state.result.variant + " ")]
    assert verified == ["naive 16x16x16"]  # no mark: a verified run
    assert len(wrong) == 1 and "WRONG" in wrong[0], list(entries)
    assert entries[wrong[0]].opts["symbol"] == "x"
    assert entries[verified[0]].opts["symbol"] == "o"
    assert "1 wrong (red ✘)" in roof.note.text()
    # The legend reads on the white chart: dark text, not pyqtgraph's pale grey.
    for _sample, label in roof.plot.getPlotItem().legend.items:
        assert pg.mkColor(label.opts["color"]).lightness() < 80, label.opts["color"]


def test_an_unchecked_run_is_called_neither_wrong_nor_verified(qtbot):
    """A run with nothing to compare against: "not checked" in the comparison's bars, and a
    hollow ring named so on the roofline, apart from the verified dots."""
    from explorer.gui.roofline_view import RooflineView
    from explorer.gui.timing_view import TimingView
    from tests.gui.controllers.fakes import result

    mine = result("mine")
    unchecked = replace(mine, verdict=replace(mine.verdict, checked=False))
    assert unchecked.status == "unchecked"
    view = TimingView()
    qtbot.addWidget(view)
    view.show_compare([result("naive"), unchecked])
    [label] = [t for t in view.labels if t.startswith("mine")]
    assert "wrong" not in label and "not checked" in label
    roof = RooflineView()
    qtbot.addWidget(roof)
    roof.show_results([result("naive"), unchecked])
    entries = _legend(roof)
    assert set(entries) == {"naive 16x16x16", "mine 16x16x16 · not checked"}
    assert entries["mine 16x16x16 · not checked"].opts["symbolBrush"] is None
    assert "1 not checked (hollow ring)" in roof.note.text()


def test_the_tour_looks_at_the_picked_rows_of_c_at_a_size_no_tile_divides(window, qtbot):
    """At 100³ naive's global size is rounded up to 112 (whole 16×16 groups), yet a group
    still computes 16 rows of C, not 100/112·16 = 14.3. Group (0, 3) picked in naive's trace
    holds rows 48-63; the tour's register-blocked stage (8×8 items of 8×8 each: 64-row tiles)
    traces the group holding those rows, group (0, 0), not its neighbour (0, 1)."""
    window.model.set_family("matmul")
    window.model.set_variant(find_variant("matmul", "naive"))
    _sizes(qtbot, window, {"M": 100, "N": 100, "K": 100})
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    view = trace_and_wait(qtbot, window)
    groups_across = view.playback.index.num_groups[0]
    assert groups_across == 7  # 112 / 16
    first = window.state.playback
    view._group_clicked(3 * groups_across + 0)  # a click on group (0, 3) of the map
    if window.state.playback is first and first.group != (0, 3, 0):
        qtbot.waitUntil(lambda: window.state.playback is not first, timeout=120000)
    assert window.state.playback.group == (0, 3, 0)
    trigger(window, "Guided tour")  # Ctrl+G
    state = window.state

    def traced(stage: int):
        return lambda: (
            len(state.tour_results) == stage
            and state.playback is not None
            and state.playback.group is not None
            and not window.worker.busy
            and "global loads per element of C" in view.lines.caption.text()
        )

    caption = view.buffers.groups
    qtbot.waitUntil(traced(1), timeout=120000)
    assert caption.caption.startswith("group (0, 3, 0)")
    for stage in (2, 3):
        shown = state.playback
        qtbot.keyClick(view, Qt.Key.Key_Space)  # the next stage
        moved = traced(stage)
        qtbot.waitUntil(lambda p=shown, m=moved: state.playback is not p and m(), timeout=120000)
    reg2d = state.tour_results[2]
    assert reg2d.variant == "reg2d" and reg2d.local_size[1] * reg2d.defines["WPTM"] == 64
    assert view.lines.caption.text().startswith("3 · register")
    assert caption.caption.startswith("group (0, 0, 0)"), caption.caption


def test_the_ceilings_of_a_slow_device_keep_their_digits(qtbot):
    """A simulator's ceilings (0.38 GB/s copy, 0.0921 GFLOP/s FMA) read as themselves in the
    legend and the ridge, not "0 GB/s, 0 GFLOP/s" and "0.2 FLOP/byte"."""
    from explorer.gui.roofline_view import RooflineView

    roof = RooflineView()
    qtbot.addWidget(roof)
    roof.set_limits({"device": "sim", "copy_gbps": 0.38, "fma_gflops": 0.0921, "measured": "now"})
    [ceiling] = [t for t in _legend(roof) if t.startswith("ceiling")]
    assert ceiling == "ceiling: 0.380 GB/s copy, 0.0921 GFLOP/s FMA"
    [ridge] = _figures(r"ridge \(([\d.]+) FLOP/byte\)", roof.note.text())
    assert _reads_as(ridge, 0.0921 / 0.38)


def _tick_texts(axis) -> list[tuple[object, str]]:
    """The figures an axis draws, with where it draws them."""
    from PySide6.QtGui import QImage, QPainter

    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        _axis, _ticks, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [(rect, text) for rect, _flags, text in texts if text]


@pytest.mark.parametrize("width", [900, 320])  # the tab at 1280×720; presenter mode's quarter
def test_the_roofline_axes_figures_do_not_run_into_each_other(qtbot, width):
    """Three decades of intensity under a CPU's ceilings: pyqtgraph wrote every multiple of
    each decade ("0.040.050.060.070.080.091"); each figure now stands apart and reads as a
    plain decimal."""
    from explorer.gui.roofline_view import RooflineView
    from tests.gui.controllers.fakes import result

    roof = RooflineView()
    qtbot.addWidget(roof)
    roof.resize(width, 560)
    roof.show()
    qtbot.waitExposed(roof)
    roof.show_results([result("naive"), result("tiled", median_ms=0.5)])
    roof.set_limits({"device": "cpu", "copy_gbps": 24.3, "fma_gflops": 56.0, "measured": "now"})
    roof.plot.grab()
    for side in ("bottom", "left"):
        texts = _tick_texts(roof.plot.getAxis(side))
        assert len(texts) >= 3, (side, texts)
        for i, (rect, text) in enumerate(texts):
            assert re.fullmatch(r"[\d,.]+", text), text  # "20", not "2·10¹"
            for other, other_text in texts[i + 1 :]:
                assert not rect.intersects(other), (side, text, other_text)
    bottom = [text for _rect, text in _tick_texts(roof.plot.getAxis("bottom"))]
    assert "1" in bottom and "10" in bottom
