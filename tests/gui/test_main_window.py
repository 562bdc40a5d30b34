"""The window as a person uses it: pick, run, compare, trace, read the result."""

import numpy as np
import pytest

from explorer.engine.catalog import find_variant
from tests.conftest import TEST_KERNELS
from tests.gui.conftest import run_and_wait

SMALL = {"matmul": 48, "transpose": 40, "matvec": 64, "rowdot": 64}


@pytest.mark.parametrize("family", ["matmul", "transpose", "matvec", "rowdot"])
def test_full_flow_for_each_family(window, qtbot, family):
    window.panel.family_combo.setCurrentIndex(window.panel.family_combo.findData(family))
    assert window.model.family == family
    variant = [v for v in window.model.variants() if not v.bug][-1]
    window.model.set_variant(variant)
    for name in window.panel.size_spins:
        window.panel.size_spins[name].setValue(SMALL[family])
    result = run_and_wait(qtbot, window)
    assert result.status == "verified", result.summary()
    assert "Verified" in window.result_view.badge.text()
    assert window.result_view.showing == ("image" if family in ("matmul", "transpose") else "plot")
    assert window.timing_view.bar_count == 2
    assert any("kernel" in label for label in window.timing_view.labels)
    # sub-millisecond times: the axis still reads in plain milliseconds, as the labels do
    assert window.timing_view.plot.getAxis("bottom").labelString().endswith("(ms)</span>")
    assert variant.kernel in window.source_view.editor.toPlainText()


def test_iou_product_shows_the_text_in_the_window(window, qtbot):
    for name in ("M", "N", "K"):
        window.panel.size_spins[name].setValue(128)
    run_and_wait(qtbot, window)
    shown = window.result_view.image.getImageItem().image
    assert shown.shape == (128, 128)
    assert set(np.unique(shown)) == {0.0, 0.75}
    tabs = [window.result_view.tabs.tabText(i) for i in range(window.result_view.tabs.count())]
    assert tabs[:2] == ["Result", "Error |result − reference|"] and "Input B" in tabs


def test_compare_all_shows_every_variant_with_its_verdict(window, qtbot):
    for name in ("M", "N", "K"):
        window.model.set_size(name, 40)  # not a tile multiple: the seeds refuse it
    window.compare_action.trigger()
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=300000)
    variants = window.model.variants()
    assert [r.variant for r in window.compare_results] == [v.id for v in variants]
    refused = [r for r in window.compare_results if r.status == "refused"]
    assert refused and all(r.refused.reason for r in refused)
    assert window.timing_view.bar_count == sum(r.timing is not None for r in window.compare_results)
    assert sum("refused" in label for label in window.timing_view.labels) == len(refused)
    assert "Compared" in window.statusBar().currentMessage()


def test_refused_configuration_is_explained_before_running(window):
    window.model.set_variant(find_variant("matmul", "seed003-func2"))
    window.model.set_size("K", 100)
    assert not window.run_action.isEnabled()
    text = window.panel.validation.text()
    assert "Refused" in text and "K % 16 == 0" in text and "96" in text
    window.model.set_size("K", 96)
    window.model.set_size("M", 96)
    window.model.set_size("N", 96)
    assert window.run_action.isEnabled()


def test_build_error_in_a_user_kernel_points_at_its_line(window, qtbot, tmp_path):
    source = (
        (TEST_KERNELS / "hang.cl")
        .read_text()
        .replace("volatile float x = in[0];", "volatile float x = in[0] +;")
    )
    line = next(i + 1 for i, t in enumerate(source.splitlines()) if "in[0] +;" in t)
    path = tmp_path / "broken.cl"
    path.write_text(source)
    assert window.open_kernel(str(path))
    assert window.model.variant.path == str(path)
    result = run_and_wait(qtbot, window)
    assert result.error_kind == "build"
    assert window.tabs.currentWidget() is window.source_view
    log = window.source_view.build_log
    lines = [log.item(i).data(256) for i in range(log.count())]  # Qt.UserRole
    assert line in lines
    assert line in window.source_view.editor.marked


def test_crash_is_shown_and_the_app_carries_on(window, qtbot):
    assert window.open_kernel(str(TEST_KERNELS / "crash.cl"))
    window.model.set_size("WIDTH", 64)
    window.model.set_size("HEIGHT", 1)
    result = run_and_wait(qtbot, window)
    assert result.status == "crashed"
    assert "Crashed" in window.result_view.badge.text()
    assert "SIGSEGV" in window.result_view.badge.text()
    window.model.set_variant(find_variant("transpose", "naive"))
    assert run_and_wait(qtbot, window).status == "verified"


def test_event_loop_keeps_running_during_a_long_kernel_and_cancel_works(window, qtbot):
    from PySide6.QtCore import QTimer

    assert window.open_kernel(str(TEST_KERNELS / "hang.cl"))
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(20)
    window.run_action.trigger()
    qtbot.wait(1000)
    assert window.controller.busy
    assert len(ticks) >= 20  # the GUI thread kept processing events
    assert window.cancel_action.isEnabled()
    window.cancel_action.trigger()
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=30000)
    timer.stop()
    assert "Cancelled" in window.result_view.badge.text()
    window.model.set_variant(find_variant("transpose", "naive"))
    assert run_and_wait(qtbot, window).status == "verified"


def test_trace_lists_findings_that_select_their_source_line(window, qtbot):
    window.model.set_family("matvec")
    window.model.set_variant(find_variant("matvec", "nvidia-coalesced3"))
    window.model.set_size("WIDTH", 300)
    window.model.set_size("HEIGHT", 4)
    window.trace_action.trigger()
    qtbot.waitUntil(lambda: window.last_trace is not None, timeout=120000)
    tree = window.findings_view.findings
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
    assert window.tabs.currentWidget() is window.execution_view
    assert window.source_view.editor.marked == [line]
    assert line in window.execution_view.code.marked
    assert "p[0]" in window.model.variant.source.splitlines()[line - 1]


def test_exports_write_readable_files(window, qtbot, tmp_path):
    import csv

    from PySide6.QtGui import QImage

    run_and_wait(qtbot, window)
    assert window.export_history(str(tmp_path / "t.csv"))
    with open(tmp_path / "t.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert rows[0]["variant"] == window.model.variant.id and rows[0]["verified"] == "True"
    assert window.export_view_png(window.timing_view, str(tmp_path / "t.png"))
    assert not QImage(str(tmp_path / "t.png")).isNull()


def test_settings_round_trip(qtbot, settings):
    from explorer.gui.main_window import MainWindow

    first = MainWindow(settings=settings)
    qtbot.addWidget(first)
    first.model.set_family("transpose")
    first.model.set_variant(find_variant("transpose", "fast"))
    first.model.set_size("WIDTH", 300)
    first.model.set_local((32, 8))
    first.model.set_input("random")
    first.close()
    second = MainWindow(settings=settings)
    qtbot.addWidget(second)
    assert second.notice is None
    assert (second.model.family, second.model.variant.id) == ("transpose", "fast")
    assert second.model.sizes["WIDTH"] == 300 and second.model.local == (32, 8)
    assert second.model.input == "random"
    second.close()


def test_corrupt_settings_fall_back_to_defaults_with_a_notice(qtbot, settings):
    from explorer.gui.main_window import MainWindow

    settings.setValue("format", 1)
    settings.setValue("family", "matmul")
    settings.setValue("variant", "no-such-variant")
    settings.setValue("sizes", "{not json")
    settings.sync()
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    assert window.notice and "defaults" in window.notice
    assert window.model.variant.id == "naive"
    assert "defaults" in window.statusBar().currentMessage()
    window.close()


def test_no_device_still_opens_and_explains(qtbot, settings, monkeypatch):
    from explorer.engine.executor import Executor
    from explorer.gui.main_window import MainWindow

    monkeypatch.setattr(Executor, "devices", lambda self, timeout_s=60: [])
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    qtbot.waitUntil(
        lambda: "No OpenCL device" in window.statusBar().currentMessage(), timeout=30000
    )
    assert "pip install pocl-binary-distribution" in window.result_view.message.text()
    assert not window.run_action.isEnabled()
    window.close()


def test_no_variant_makes_the_configuration_scroll_sideways(window, qtbot):
    from explorer.engine.catalog import catalog

    window.resize(1600, 1000)
    window.show()
    bar = window.panel_scroll.horizontalScrollBar()
    for variant in catalog():
        window.model.set_variant(variant)
        qtbot.wait(20)
        assert bar.maximum() == 0, variant.qualified_id


def test_refusal_marks_the_fields_it_names(window):
    window.model.set_variant(find_variant("matmul", "seed003-func2"))
    window.model.set_size("K", 100)
    assert "#c0392b" in window.panel.size_spins["K"].styleSheet()
    assert window.panel.size_spins["M"].styleSheet() == ""
    window.model.set_size("K", 96)
    assert window.panel.size_spins["K"].styleSheet() == ""


def test_an_image_becomes_the_b_operand(window, qtbot, tmp_path):
    from explorer.families.images import save_png
    from explorer.families.text_image import text_mask

    path = tmp_path / "hi.png"
    save_png(np.where(text_mask("HI", 64, 64), 0.0, 1.0), path)
    assert window.open_image(str(path))
    assert window.model.input == "image" and window.model.image_path == str(path)
    for name in ("M", "N", "K"):
        window.model.set_size(name, 64)
    result = run_and_wait(qtbot, window)
    assert result.status == "verified"
    shown = window.result_view.image.getImageItem().image
    assert np.array_equal(shown == 0, text_mask("HI", 64, 64))


def test_printf_output_is_shown_beside_the_source(window, qtbot):
    window.model.set_variant(find_variant("matmul", "seed000-tiled"))
    for name in ("M", "N", "K"):
        window.model.set_size(name, 32)
    run_and_wait(qtbot, window)
    assert "acc = " in window.source_view.output.toPlainText()
