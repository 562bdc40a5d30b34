"""The result: readable vectors, and a notice where the device cannot show what tiling buys."""

import pyqtgraph as pg

from explorer.engine.header.catalog import find_variant
from tests.gui.conftest import run_and_wait


def test_a_cpu_device_says_the_tiling_ladder_is_a_gpu_lesson(qtbot):
    from explorer.gui.result_view import ResultView

    view = ResultView()
    qtbot.addWidget(view)
    assert not view.notice.isVisibleTo(view)
    view.set_device_type("CPU")
    assert view.notice.isVisibleTo(view)
    assert "GPU lesson" in view.notice.text() and "TFLOP/s" in view.notice.text()
    view.set_device_type("GPU")
    assert not view.notice.isVisibleTo(view)


def test_a_vector_result_is_drawn_as_bars_with_its_error_beside_it(window, qtbot):
    window.model.set_family("matvec")
    window.model.set_variant(find_variant("matvec", "nvidia-coalesced1"))
    window.model.set_size("WIDTH", 64)
    window.model.set_size("HEIGHT", 40)
    result = run_and_wait(qtbot, window)
    assert result.status == "verified"
    view = window.views.result_view
    titles = [view.tabs.tabText(i) for i in range(view.tabs.count())]
    assert titles[:2] == ["Result", "Error |result − reference|"]
    bars = [i for i in view.plot.getPlotItem().items if isinstance(i, pg.BarGraphItem)]
    assert len(bars) == 1
    assert len(bars[0].opts["height"]) == result.output.size == 40
    errors = [i for i in view.error_plot.getPlotItem().items if isinstance(i, pg.BarGraphItem)]
    assert len(errors) == 1


def test_the_error_and_input_tabs_show_their_images_when_opened(window, qtbot):
    import numpy as np
    from PySide6.QtCore import Qt

    window.model.set_family("matmul")
    window.model.set_variant(find_variant("matmul", "tiled"))
    for name in ("M", "N", "K"):
        window.model.set_size(name, 32)
    result = run_and_wait(qtbot, window)
    assert result.status == "verified"
    view = window.views.result_view
    window.views.show_page("result")
    bar = view.tabs.tabBar()
    titles = [view.tabs.tabText(i) for i in range(view.tabs.count())]

    def open_tab(title: str):
        i = titles.index(title)
        qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(i).center())
        assert view.tabs.currentIndex() == i
        return view.tabs.widget(i).getImageItem().image

    error = open_tab("Error |result − reference|")
    assert error.shape == (32, 32)
    assert np.allclose(error, np.abs(result.output - result.reference))
    shown_a = open_tab("Input A")
    assert np.array_equal(shown_a, np.asarray(result.inputs["A"], dtype=np.float64))


def test_the_verdict_lists_the_kinds_that_explain_a_wrong_result_as_the_command_line_does():
    """A traced wrong result whose trace found three kinds of bug: the window's verdict lists
    them as a sentence does ("race, uninitialized and out-of-bounds"), the words the command
    line's verdict has."""
    import dataclasses

    from explorer.engine.records import RunResult, Verdict
    from explorer.gui.result_view import badge_text

    wrong = RunResult(
        "custom", "k", "cpu", "Portable Computing Language", {}, (64,), (16,), {},
        verdict=Verdict(False, 3.0, 1.0, 12, "1e-5"),
        explained_by=("race", "uninitialized", "out-of-bounds"),
    )  # fmt: skip
    says = "the trace's race, uninitialized and out-of-bounds findings can explain it"
    assert badge_text(wrong).endswith(f" · {says}")
    assert f"; {says}" in wrong.summary()
    right = dataclasses.replace(wrong, verdict=Verdict(True, 0.0, 0.0, 0, "1e-5"))
    assert "can explain" not in badge_text(right)


ROW_BLUR = """/*---
name = "Row blur"
family = "custom"
kernel = "row_blur"
global = ["N"]
local = ["8"]
[sizes]
N = 200
[args.src]
buffer = "float"
count = "N"
access = "read"
[args.dst]
buffer = "float"
count = "N"
result = true
[args.n]
scalar = "int"
value = "N"
[reference]
numpy = "(np.concatenate([src[:1], src[:-1]]) + src + np.concatenate([src[1:], src[-1:]])) / 3"
---*/
__kernel void row_blur(__global const float* src, __global float* dst, int n)
{
    int i = get_global_id(0);
    float l = src[max(i - 1, 0)];
    float r = src[min(i + 1, n - 1)];
    dst[i] = (l + src[i] + r) / 3.0f;
}
"""


def test_the_legend_of_a_row_result_is_drawn_above_its_values_not_over_them(
    window, qtbot, monkeypatch, tmp_path
):
    """A custom row blur opened and run (Ctrl+R) in a 1280×720 window: the legend's two
    entries sit above the plotted values, none of its area over them."""
    from PySide6.QtCore import Qt

    from tests.gui.conftest import answer_file_dialogs, trigger

    path = tmp_path / "row_blur.cl"
    path.write_text(ROW_BLUR)
    answer_file_dialogs(monkeypatch, path)
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    trigger(window, "Open kernel…")
    qtbot.waitUntil(lambda: window.commands["run"].isEnabled(), timeout=60000)
    before = len(window.state.history)
    qtbot.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: len(window.state.history) > before, timeout=60000)
    assert window.state.result.status == "verified"
    view = window.views.result_view
    window.views.show_page("result")
    assert view.tabs.currentWidget() is view.plot
    view.plot.grab()  # drawn: the chart lays out its items as it paints
    item = view.plot.getPlotItem()
    legend = item.legend
    names = [label.text for _, label in legend.items]
    assert names == ["kernel output", "numpy reference"]
    area = item.getViewBox().sceneBoundingRect()
    box = legend.sceneBoundingRect()
    assert box.height() > 0 and box.width() > 0
    assert box.bottom() <= area.top() + 1  # above the values, not over them
    assert view.plot.rect().contains(view.plot.mapFromScene(box.topLeft()))  # on screen
