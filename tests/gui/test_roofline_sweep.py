"""The roofline and the parameter sweep: the views alone, and Oclgrind in the window."""

from dataclasses import replace

import numpy as np

from explorer.engine.header.catalog import find_variant
from tests.gui.conftest import trigger


def test_roofline_places_each_run_under_the_ceilings(qtbot):
    from explorer.gui.roofline_view import RooflineView
    from tests.gui.controllers.fakes import result

    roof = RooflineView()
    qtbot.addWidget(roof)
    size = {"M": 64, "N": 64, "K": 64}
    runs = [result("naive", sizes=size, median_ms=2.0), result("tiled", sizes=size)]
    untimed = result("broken", error_kind="build")
    roof.show_results((*runs, untimed))
    assert [p[0] for p in roof.points] == ["naive 64x64x64", "tiled 64x64x64"]
    intensity = runs[0].flops / runs[0].bytes_moved
    assert all(np.isclose(p[1], intensity) for p in roof.points)
    assert roof.points[1][2] == 2 * roof.points[0][2] == runs[1].gflops
    roof.set_limits({"device": "test", "copy_gbps": 10.0, "fma_gflops": 100.0, "measured": "today"})
    assert "ridge (10.0 FLOP/byte)" in roof.note.text()


def test_the_sweep_grid_shows_refusals_and_a_clicked_cell_names_its_parameters(qtbot):
    from explorer.engine.records import Refusal
    from explorer.gui.sweep_view import SweepView
    from tests.gui.controllers.fakes import result

    sweep = SweepView()
    qtbot.addWidget(sweep)
    sweep.set_variant(find_variant("matmul", "tiled"))
    sweep.x_axis.setCurrentText("local")
    sweep.x_values.setText("8x8,16x16")
    sweep.y_axis.setCurrentText("TS")
    sweep.y_values.setText("8,16")
    asked = []
    sweep.run_requested.connect(lambda *axes: asked.append(axes))
    sweep.run_button.click()
    assert asked == [("local", [(8, 8), (16, 16)], "TS", [8, 16])]
    assert sweep.configurations() == [
        {"local": (8, 8), "TS": 8},
        {"local": (16, 16), "TS": 8},
        {"local": (8, 8), "TS": 16},
        {"local": (16, 16), "TS": 16},
    ]
    refused = replace(result("tiled"), timing=None, verdict=None, refused=Refusal("L0 == TS", ""))
    for cell, outcome in enumerate((result("tiled"), refused, refused, result("tiled"))):
        sweep.show_cell(cell, outcome)
    assert [[r.status for r in row] for row in sweep.grid] == [
        ["verified", "refused"],
        ["refused", "verified"],
    ]
    assert sweep.canvas.cell_labels[0][1] == "refused"
    assert "refused" in sweep.message.text()
    chosen = []
    sweep.cell_chosen.connect(lambda params, shown: chosen.append((params, shown)))
    sweep._clicked(3)  # TS=16, local 16x16
    assert chosen[0][0] == {"local": (16, 16), "TS": 16} and chosen[0][1] is sweep.grid[1][1]


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


def test_roofline_axes_keep_their_units_at_any_scale(qtbot):
    """A GPU's ceilings (tens of thousands of GFLOP/s) must not turn the axis into kGFLOP/s,
    nor a low intensity into mFLOP/byte."""
    from explorer.gui.roofline_view import RooflineView

    roof = RooflineView()
    qtbot.addWidget(roof)
    roof.resize(900, 600)
    roof.show()
    qtbot.waitExposed(roof)
    for limits, points in (
        ({"copy_gbps": 4000.0, "fma_gflops": 60000.0}, [("big", 100.0, 50000.0)]),
        ({"copy_gbps": 1.0, "fma_gflops": 2.0}, [("small", 0.001, 0.002)]),
    ):
        roof.points = points
        roof.set_limits(limits)
        qtbot.wait(50)
        assert roof.plot.getAxis("left").labelString().endswith("(GFLOP/s)</span>")
        assert roof.plot.getAxis("bottom").labelString().endswith("(FLOP/byte)</span>")
