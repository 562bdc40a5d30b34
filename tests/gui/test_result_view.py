"""The result: readable vectors, and a notice where the device cannot show what tiling buys."""

import pyqtgraph as pg

from explorer.engine.catalog import find_variant
from tests.gui.conftest import run_and_wait


def test_a_cpu_device_says_the_tiling_ladder_is_a_gpu_lesson(window):
    view = window.views.result_view
    assert window.model.device.type.upper() == "CPU"  # PoCL, the test device
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
