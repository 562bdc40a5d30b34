"""Measure the fix, and the sweep coloured by trace figures, in the window."""

from explorer.engine.header.catalog import find_variant
from tests.gui.conftest import trace_and_wait


def test_measure_the_fix_shows_the_measured_ratio_beside_a_bank_conflict(window, qtbot):
    window.model.set_family("transpose")
    window.model.set_variant(find_variant("transpose", "tiled"))
    for name in ("WIDTH", "HEIGHT"):
        window.model.set_size(name, 64)
    trace_and_wait(qtbot, window)
    view = window.views.findings_view
    items = [view.findings.topLevelItem(i) for i in range(view.findings.topLevelItemCount())]
    kinds = [item.text(0) for item in items]
    assert "bank-conflict" in kinds
    assert not view.measure_fix.isEnabled()  # nothing selected yet
    view.findings.setCurrentItem(view.findings.topLevelItem(kinds.index("bank-conflict")))
    assert view.measure_fix.isEnabled()
    view.measure_fix.click()
    assert not view.measure_fix.isEnabled()  # one measurement at a time
    qtbot.waitUntil(lambda: " on " in view.fix_result.text(), timeout=120000)
    text = view.fix_result.text()
    assert text.startswith("padding the tile makes it ")
    assert window.model.device.name in text and ("faster" in text or "slower" in text)
    assert view.measure_fix.isEnabled()


def test_the_sweep_colours_by_bank_conflict_degree_from_real_traces(window, qtbot):
    window.model.set_family("transpose")
    window.model.set_variant(find_variant("transpose", "tiled"))
    for name in ("WIDTH", "HEIGHT"):
        window.model.set_size(name, 64)
    sweep = window.views.sweep_view
    sweep.colour_by.setCurrentText("bank-degree")
    sweep.x_axis.setCurrentText("local")
    sweep.x_values.setText("8x8,16x16")
    sweep.y_axis.setCurrentText("TILE")
    sweep.y_values.setText("8,16")
    sweep.run_button.click()
    qtbot.waitUntil(lambda: all(r is not None for row in sweep.grid for r in row), timeout=120000)
    labels = sweep.canvas.cell_labels
    assert labels[0][1] == "refused" and labels[1][0] == "refused"
    # The unpadded column read: TILE words apart, a TILE/4-way conflict with 32 banks.
    assert labels[0][0] == "2.00" and labels[1][1] == "8.00"
    assert "bank-conflict degree" in sweep.canvas.title
    assert "lowest 2.00" in sweep.message.text()
