"""Roofline and parameter sweep in the window."""

import numpy as np

from explorer.engine.header.catalog import find_variant
from tests.gui.conftest import run_and_wait, trigger


def test_roofline_places_each_run_under_the_ceilings(window, qtbot):
    for name in ("M", "N", "K"):
        window.model.set_size(name, 64)
    run_and_wait(qtbot, window)
    window.model.set_variant(find_variant("matmul", "tiled"))
    run_and_wait(qtbot, window)
    roof = window.views.roofline_view
    assert [p[0].split()[0] for p in roof.points] == ["naive", "tiled"]
    intensity = 2 * 64**3 / (4 * 3 * 64 * 64)
    assert all(np.isclose(p[1], intensity) for p in roof.points)
    roof.set_limits({"device": "test", "copy_gbps": 10.0, "fma_gflops": 100.0, "measured": "today"})
    assert "ridge (10.0 FLOP/byte)" in roof.note.text()


def test_sweep_shows_refusals_and_loads_a_clicked_cell(window, qtbot):
    window.model.set_variant(find_variant("matmul", "tiled"))
    for name in ("M", "N", "K"):
        window.model.set_size(name, 32)
    sweep = window.views.sweep_view
    sweep.x_axis.setCurrentText("local")
    sweep.x_values.setText("8x8,16x16")
    sweep.y_axis.setCurrentText("TS")
    sweep.y_values.setText("8,16")
    sweep.run_button.click()
    qtbot.waitUntil(lambda: all(r is not None for row in sweep.grid for r in row), timeout=120000)
    statuses = [[r.status for r in row] for row in sweep.grid]
    # The tiled kernel needs local == TS x TS: only the diagonal runs.
    assert statuses == [["verified", "refused"], ["refused", "verified"]]
    assert "refused" in sweep.message.text()
    assert sweep.canvas.cell_labels[0][1] == "refused"
    sweep._clicked(3)  # TS=16, local 16x16
    assert window.model.local == (16, 16) and window.model.defines["TS"] == 16


def test_check_with_oclgrind_gives_a_second_opinion(window, qtbot):
    from explorer.engine.record.oclgrind import find_oclgrind

    if find_oclgrind(window.model.devices) is None:
        import pytest

        pytest.skip('Oclgrind is not installed (pip install "pyopencl[oclgrind]")')
    assert window.model.device.platform != "Oclgrind"  # never the default device
    window.model.set_family("matvec")
    window.model.set_variant(find_variant("matvec", "nvidia-coalesced3"))
    window.model.set_size("WIDTH", 64)
    window.model.set_size("HEIGHT", 2)
    trigger(window, "Check with Oclgrind")
    qtbot.waitUntil(lambda: window.state.oclgrind is not None, timeout=300000)
    assert "data race" in window.state.oclgrind.verdict
    assert "line 55" in window.views.findings_view.oclgrind.toPlainText()


def test_roofline_axes_keep_their_units_at_any_scale(window, qtbot):
    """A GPU's ceilings (tens of thousands of GFLOP/s) must not turn the axis into kGFLOP/s,
    nor a low intensity into mFLOP/byte."""
    roof = window.views.roofline_view
    window.show()
    window.views.tabs.setCurrentWidget(roof)
    for limits, points in (
        ({"copy_gbps": 4000.0, "fma_gflops": 60000.0}, [("big", 100.0, 50000.0)]),
        ({"copy_gbps": 1.0, "fma_gflops": 2.0}, [("small", 0.001, 0.002)]),
    ):
        roof.points = points
        roof.set_limits(limits)
        qtbot.wait(50)
        assert roof.plot.getAxis("left").labelString().endswith("(GFLOP/s)</span>")
        assert roof.plot.getAxis("bottom").labelString().endswith("(FLOP/byte)</span>")
