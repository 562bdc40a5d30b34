"""The window as a person uses it: pick, run, compare, trace, read the result."""

import numpy as np
import pytest

from explorer.engine.header.catalog import find_variant
from tests.conftest import TEST_KERNELS
from tests.gui.conftest import menu_action, run_and_wait, trigger

SMALL = {"matmul": 48, "transpose": 40, "matvec": 64, "rowdot": 64}


@pytest.mark.parametrize("family", ["matmul", "transpose", "matvec", "rowdot"])
def test_full_flow_for_each_family(window, qtbot, family):
    window.views.panel.family_combo.setCurrentIndex(
        window.views.panel.family_combo.findData(family)
    )
    assert window.model.family == family
    variant = [v for v in window.model.variants() if not v.bug][-1]
    window.model.set_variant(variant)
    for name in window.views.panel.size_spins:
        window.views.panel.size_spins[name].setValue(SMALL[family])
    result = run_and_wait(qtbot, window)
    assert result.status == "verified", result.summary()
    assert "Verified" in window.views.result_view.badge.text()
    assert window.views.result_view.showing == (
        "image" if family in ("matmul", "transpose") else "plot"
    )
    assert window.views.timing_view.bar_count == 2
    assert any("kernel" in label for label in window.views.timing_view.labels)
    # sub-millisecond times: the axis still reads in plain milliseconds, as the labels do
    assert window.views.timing_view.plot.getAxis("bottom").labelString().endswith("(ms)</span>")
    assert variant.kernel in window.views.source_view.editor.toPlainText()


def test_iou_product_shows_the_text_in_the_window(window, qtbot):
    for name in ("M", "N", "K"):
        window.views.panel.size_spins[name].setValue(128)
    run_and_wait(qtbot, window)
    shown = window.views.result_view.image.getImageItem().image
    assert shown.shape == (128, 128)
    assert set(np.unique(shown)) == {0.0, 0.75}
    tabs = [
        window.views.result_view.tabs.tabText(i)
        for i in range(window.views.result_view.tabs.count())
    ]
    assert tabs[:2] == ["Result", "Error |result − reference|"] and "Input B" in tabs


def test_refused_configuration_is_explained_before_running(window, qtbot):
    window.model.set_variant(find_variant("matmul", "seed003-func2"))
    window.model.set_size("K", 100)
    assert not menu_action(window, "Run").isEnabled()
    text = window.views.panel.validation.text()
    assert "Refused" in text and "K % 16 == 0" in text
    # The values that satisfy the constraint are searched for off the GUI thread.
    qtbot.waitUntil(lambda: "96" in window.views.panel.validation.text(), timeout=5000)
    window.model.set_size("K", 96)
    window.model.set_size("M", 96)
    window.model.set_size("N", 96)
    assert menu_action(window, "Run").isEnabled()


def test_build_error_in_a_user_kernel_points_at_its_line(window, qtbot, tmp_path):
    source = (
        (TEST_KERNELS / "hang.cl")
        .read_text()
        .replace("volatile float x = in[0];", "volatile float x = in[0] +;")
    )
    line = next(i + 1 for i, t in enumerate(source.splitlines()) if "in[0] +;" in t)
    path = tmp_path / "broken.cl"
    path.write_text(source)
    assert window.controllers.kernels.open_kernel(str(path))
    assert window.model.variant.path == str(path)
    result = run_and_wait(qtbot, window)
    assert result.error_kind == "build"
    assert window.views.tabs.currentWidget() is window.views.source_view
    log = window.views.source_view.build_log
    lines = [log.item(i).data(256) for i in range(log.count())]  # Qt.UserRole
    assert line in lines
    assert line in window.views.source_view.editor.marked


def test_crash_is_shown_and_the_app_carries_on(window, qtbot):
    assert window.controllers.kernels.open_kernel(str(TEST_KERNELS / "crash.cl"))
    window.model.set_size("WIDTH", 64)
    window.model.set_size("HEIGHT", 1)
    result = run_and_wait(qtbot, window)
    assert result.status == "crashed"
    assert "Crashed" in window.views.result_view.badge.text()
    assert "SIGSEGV" in window.views.result_view.badge.text()
    window.model.set_variant(find_variant("transpose", "naive"))
    assert run_and_wait(qtbot, window).status == "verified"


def test_event_loop_keeps_running_during_a_long_kernel_and_cancel_works(window, qtbot):
    from PySide6.QtCore import QTimer

    assert window.controllers.kernels.open_kernel(str(TEST_KERNELS / "hang.cl"))
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(20)
    trigger(window, "Run")
    qtbot.waitUntil(lambda: window.worker.busy, timeout=5000)
    ticks.clear()
    # The GUI thread keeps processing events while the kernel runs (on a loaded machine a
    # 20 ms timer may fire less often, but it fires).
    qtbot.waitUntil(lambda: len(ticks) >= 20, timeout=10000)
    assert window.worker.busy
    trigger(window, "Cancel")
    qtbot.waitUntil(lambda: not window.worker.busy, timeout=30000)
    timer.stop()
    assert "Cancelled" in window.views.result_view.badge.text()
    window.model.set_variant(find_variant("transpose", "naive"))
    assert run_and_wait(qtbot, window).status == "verified"


def test_trace_lists_findings_that_select_their_source_line(window, qtbot):
    window.model.set_family("matvec")
    window.model.set_variant(find_variant("matvec", "nvidia-coalesced3"))
    window.model.set_size("WIDTH", 300)
    window.model.set_size("HEIGHT", 4)
    trigger(window, "Trace")
    qtbot.waitUntil(lambda: window.state.traced is not None, timeout=120000)
    tree = window.views.findings_view.findings
    assert tree.topLevelItemCount() > 0
    races = [
        tree.topLevelItem(i)
        for i in range(tree.topLevelItemCount())
        if tree.topLevelItem(i).text(0) == "race"
    ]
    assert races
    tree.setCurrentItem(races[0])
    line = int(races[0].text(1))
    # With the trace at hand the animation takes over; the source marks the line too.
    assert window.views.tabs.currentWidget() is window.views.execution_view
    assert window.views.source_view.editor.marked == [line]
    assert line in window.views.execution_view.code.marked
    assert "p[0]" in window.model.variant.source.splitlines()[line - 1]


def test_corrupt_settings_fall_back_to_defaults_with_a_notice(qtbot, settings):
    from explorer.gui.main_window import MainWindow

    settings.setValue("format", 1)
    settings.setValue("family", "matmul")
    settings.setValue("variant", "no-such-variant")
    settings.setValue("sizes", "{not json")
    settings.sync()
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    assert window.state.notice and "defaults" in window.state.notice
    assert window.model.variant.id == "naive"
    assert "defaults" in window.statusBar().currentMessage()
    window.close()


def test_no_variant_makes_the_configuration_scroll_sideways(window, qtbot):
    from explorer.engine.header.catalog import catalog

    window.resize(1600, 1000)
    window.show()
    bar = window.views.panel_scroll.horizontalScrollBar()
    for variant in catalog():
        window.model.set_variant(variant)
        qtbot.wait(20)
        assert bar.maximum() == 0, variant.qualified_id


def test_an_image_becomes_the_b_operand(window, qtbot, tmp_path):
    from explorer.description.images import save_png
    from explorer.description.text_image import text_mask

    path = tmp_path / "hi.png"
    save_png(np.where(text_mask("HI", 64, 64), 0.0, 1.0), path)
    assert window.controllers.kernels.open_image(str(path))
    assert window.model.input == "image" and window.model.image_path == str(path)
    for name in ("M", "N", "K"):
        window.model.set_size(name, 64)
    result = run_and_wait(qtbot, window)
    assert result.status == "verified"
    shown = window.views.result_view.image.getImageItem().image
    assert np.array_equal(shown == 0, text_mask("HI", 64, 64))


def test_printf_output_is_shown_beside_the_source(window, qtbot):
    window.model.set_variant(find_variant("matmul", "seed000-tiled"))
    for name in ("M", "N", "K"):
        window.model.set_size(name, 32)
    run_and_wait(qtbot, window)
    assert "acc = " in window.views.source_view.output.toPlainText()


def test_the_command_lines_timeout_limits_the_windows_work(window, qtbot):
    from explorer.app import build_parser
    from explorer.gui.command_line import apply_selection

    argv = ["--kernel-file", str(TEST_KERNELS / "hang.cl"), "--timeout", "2"]
    args = build_parser().parse_args(argv)
    apply_selection(window.model, args)
    assert window.model.request().timeout_s == 2.0
    trigger(window, "Run")
    # stopped by its own limit, long before the 60 s a run gets by default
    qtbot.waitUntil(lambda: window.state.result is not None, timeout=40000)
    assert window.state.result.status == "timeout"
    assert "after 2 s" in window.state.result.summary()
