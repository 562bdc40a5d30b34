"""The first window: pick, run, see the verdict and the result image."""

import numpy as np
import pytest

from explorer.engine.catalog import find_variant


@pytest.fixture
def window(qtbot):
    from explorer.gui.main_window import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    qtbot.waitUntil(lambda: w.model.device is not None, timeout=60000)
    yield w
    w.close()


def test_iou_run_shows_verified_and_the_text(window, qtbot):
    for name in ("M", "N", "K"):
        window.panel.size_spins[name].setValue(128)
    assert window.model.sizes == {"M": 128, "N": 128, "K": 128}
    window.run_action.trigger()
    qtbot.waitUntil(lambda: window.last_result is not None, timeout=60000)
    assert window.last_result.status == "verified"
    assert "Verified" in window.result_view.badge.text()
    shown = window.result_view.image.getImageItem().image
    assert shown.shape == (128, 128)
    assert set(np.unique(shown)) == {0.0, 0.75}


def test_refused_configuration_is_explained_before_running(window):
    window.model.set_variant(find_variant("matmul", "seed003-func2"))
    window.model.set_size("K", 100)
    assert not window.run_action.isEnabled()
    assert "Refused" in window.panel.validation.text()
    assert "K" in window.panel.validation.text()
    window.model.set_size("K", 96)
    assert window.run_action.isEnabled()


def test_family_switch_rebuilds_sizes_and_keeps_working(window, qtbot):
    window.panel.family_combo.setCurrentIndex(window.panel.family_combo.findData("rowdot"))
    assert window.model.family == "rowdot"
    assert list(window.panel.size_spins) == ["D"]
    window.model.set_variant(find_variant("rowdot", "fast"))
    window.model.set_size("D", 64)
    window.run_action.trigger()
    qtbot.waitUntil(lambda: window.last_result is not None, timeout=60000)
    assert window.last_result.status == "verified"
