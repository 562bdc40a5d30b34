"""What a lecture hall sees: run anyway from the refusal, findings by root cause, the window
opening on something alive."""

from PySide6.QtCore import Qt

from explorer.engine.header.catalog import find_variant
from tests.gui.conftest import labels_inside_the_chart, menu_action, trigger


def _transpose_tile_larger_than_its_group(window):
    window.model.set_family("transpose")
    window.model.set_variant(find_variant("transpose", "tiled"))
    window.model.set_size("WIDTH", 64)
    window.model.set_size("HEIGHT", 64)
    window.model.set_define("TILE", 32)
    window.model.set_local((16, 16))


def test_the_refusal_offers_run_anyway_and_the_run_is_marked(window, qtbot):
    _transpose_tile_larger_than_its_group(window)
    panel = window.views.panel
    assert not menu_action(window, "Run").isEnabled()
    assert panel.anyway_button.isVisibleTo(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)  # keys reach a window's shortcuts once it is active
    before = len(window.state.history)
    qtbot.keyClick(
        window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
    )
    qtbot.waitUntil(lambda: len(window.state.history) > before, timeout=120000)
    result = window.state.result
    assert result.status == "wrong" and result.outside_constraints
    assert "Run anyway, outside the kernel's constraints: L0 == TILE" in (
        window.views.result_view.badge.text()
    )
    assert "tiled (outside its constraints)" in _timing_axis(window)  # the timing bar's name
    # The button does the same.
    before = len(window.state.history)
    qtbot.mouseClick(panel.anyway_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(window.state.history) > before, timeout=120000)
    assert window.state.history[-1].outside_constraints


def _timing_axis(window):
    ticks = window.views.timing_view.plot.getAxis("left")._tickLevels
    return " ".join(str(name) for level in ticks or [] for _, name in level)


def test_a_device_refusal_offers_no_run_anyway(window, qtbot):
    window.model.set_family("matmul")
    window.model.set_variant(find_variant("matmul", "seed003-func2"))
    window.model.set_size("M", 100)
    assert window.views.panel.anyway_button.isVisibleTo(window)  # constraints alone
    window.model.set_local((4096, 4096))  # beyond every device
    assert not window.views.panel.anyway_button.isVisibleTo(window)
    assert not menu_action(window, "Run anyway, outside the kernel's constraints").isEnabled()
    window.model.set_local(None)
    window.model.set_size("M", 96)
    assert not window.views.panel.anyway_button.isVisibleTo(window)  # nothing refused
    assert menu_action(window, "Run").isEnabled()


def test_findings_are_listed_by_root_cause_with_one_advice(window, qtbot):
    window.model.set_family("matvec")
    window.model.set_variant(find_variant("matvec", "nvidia-coalesced3"))
    window.model.set_size("WIDTH", 300)
    window.model.set_size("HEIGHT", 4)
    trigger(window, "Trace")
    qtbot.waitUntil(lambda: window.state.traced is not None, timeout=120000)
    tree = window.views.findings_view.findings
    findings = window.state.traced.analysis.findings
    assert tree.topLevelItemCount() < len(findings)
    heading = tree.topLevelItem(0)
    assert heading.text(0) == "race" and heading.childCount() >= 20
    assert "What to do:" in heading.text(4)
    assert "close the condition before the barrier" in heading.text(4)
    detail = window.views.findings_view.detail  # the advice in full, not cut at the column
    assert detail.text() == heading.text(4) and detail.isVisibleTo(window.views.findings_view)
    tree.setCurrentItem(heading.child(3))  # a finding under its cause jumps to its line
    line = int(heading.child(3).text(1))
    assert window.views.source_view.editor.marked == [line]
    assert detail.text() == heading.child(3).toolTip(4) != heading.text(4)


def test_the_window_opens_on_the_iou_demo_ready_to_run(qtbot, settings):
    from explorer.gui.main_window import MainWindow

    window = MainWindow(settings=settings)  # as main.py does with no arguments
    qtbot.addWidget(window)
    window.open_start()
    assert (window.model.variant.id, window.model.sizes, window.model.input) == (
        "tiled",
        {"M": 768, "N": 768, "K": 768},
        "iou",
    )
    assert window.views.tabs.currentWidget() is window.views.result_view
    qtbot.waitUntil(lambda: window.model.device is not None, timeout=60000)
    # once the configuration is checked on that device, the badge says how to run it
    badge = window.views.result_view.badge
    qtbot.waitUntil(lambda: "Press Ctrl+R to run" in badge.text(), timeout=10000)
    window.model.set_size("M", 64)
    window.close()  # the configuration is kept for the next start

    again = MainWindow(settings=settings)
    qtbot.addWidget(again)
    again.open_start()
    assert again.model.sizes["M"] == 64  # the last session, not the demo
    again_badge = again.views.result_view.badge
    assert again_badge.text().startswith("The last session is open.")
    qtbot.waitUntil(lambda: again.model.device is not None, timeout=60000)
    qtbot.waitUntil(
        lambda: "The last session is open. Press Ctrl+R to run." in again_badge.text(),
        timeout=10000,
    )
    again.close()


def test_the_run_anyway_lesson_traces_outside_the_constraints(window, qtbot):
    lesson = next(t for t in window.lessons if "anyway" in t.lower())
    window.lessons[lesson].trigger()
    qtbot.waitUntil(lambda: window.state.traced is not None, timeout=240000)
    traced = window.state.traced
    assert traced.result.outside_constraints and traced.result.status == "wrong"
    assert traced.result.verdict.not_a_number == traced.result.output.size * 3 // 4


def test_presenter_mode_at_1280x720_times_the_traced_kernel_and_keeps_the_cpu_notice(window, qtbot):
    window.resize(1280, 720)
    window.show()
    window.model.set_family("matmul")
    window.model.set_variant(find_variant("matmul", "tiled"))
    for name in ("M", "N", "K"):
        window.model.set_size(name, 64)
    window.controllers.presenter.set_presenter(True, full_screen=False)
    window.controllers.traces.trace((1, 1, 0))  # as --group does: a trace, no run
    timing = window.views.timing_view
    qtbot.waitUntil(lambda: timing.bar_count == 2, timeout=120000)  # timed after the trace
    qtbot.wait(200)
    assert window.state.result.timing is not None
    assert labels_inside_the_chart(timing)
    assert "download" in timing.details.text() and timing.details.isVisibleTo(window)
    notice = window.views.result_view.notice
    if window.model.device.type.upper() == "CPU":
        assert notice.isVisibleTo(window)
        assert notice.height() >= notice.heightForWidth(notice.width())  # not cut off


def test_presenter_mode_at_1280x720_the_timing_words_stay_inside_the_chart(window, qtbot):
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    window.controllers.presenter.set_presenter(True, full_screen=False)
    timing = window.views.timing_view
    timing.show_message("A kernel with a long name: run it (Ctrl+R) to time it, then compare.")
    qtbot.wait(50)
    assert labels_inside_the_chart(timing)  # wrapped, not cut at the pane's edge
    axis = timing.plot.getAxis("bottom")
    assert axis.style["tickFont"].pixelSize() >= 16 and axis.label.font().pixelSize() >= 16


def test_the_timing_labels_stay_inside_a_short_chart(window, qtbot):
    """Presenter mode at 1280×720 with the chart squeezed (the details under it wrapped over
    more lines, as on a loaded machine whose numbers are longer): each bar's label still
    ends inside the chart, the chart giving it the room above its bar."""
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)  # drawn: a squeeze is painted
    window.model.set_family("matmul")
    window.model.set_variant(find_variant("matmul", "tiled"))
    for name in ("M", "N", "K"):
        window.model.set_size(name, 64)
    window.controllers.presenter.set_presenter(True, full_screen=False)
    trigger(window, "Run")  # Ctrl+R's action
    timing = window.views.timing_view
    qtbot.waitUntil(lambda: timing.bar_count == 2, timeout=120000)
    for height in (160, 120, 90):
        # The chart places its items as it is drawn: until then they lie where the last
        # height put them, so the labels are looked at once the squeezed chart is painted.
        with qtbot.waitSignal(timing.plot.scene().sigPrepareForPaint, timeout=5000):
            timing.plot.setFixedHeight(height)
        assert timing.plot.height() == height
        assert labels_inside_the_chart(timing)
