"""Why is this element wrong, in the window: a click on a wrong element of the error map
traces the kernel, writes the explanation under the result and draws what flowed in on the
buffers of the Execution view."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest

from explorer.gui.result_view import ERROR_TAB
from tests.conftest import TEST_KERNELS
from tests.gui.conftest import answer_file_dialogs, run_and_wait, trigger

SHIFTED = TEST_KERNELS / "explain" / "tiled_b_column_shift.cl"


def click_error_map(qtbot, window, row, col):
    """Click the middle of element (row, col) of the error map, as a person would."""
    view = window.views.result_view
    tabs = view.tabs
    titles = [tabs.tabText(i) for i in range(tabs.count())]
    tabs.setCurrentIndex(titles.index(ERROR_TAB))  # its tab, as a person picks it: made then
    qtbot.waitUntil(lambda: tabs.currentWidget() is view.error_map)
    qtbot.waitUntil(lambda: view.error_map.getImageItem().image is not None)
    graphics = view.error_map.ui.graphicsView
    scene_point = view.error_map.getImageItem().mapToScene(QPointF(col + 0.5, row + 0.5))
    QTest.mouseClick(
        graphics.viewport(), Qt.MouseButton.LeftButton, pos=graphics.mapFromScene(scene_point)
    )


def tinted(marked, plain, colour, amount):
    """The cell was drawn with the explanation's tint of ``colour`` over its plain picture."""
    from explorer.gui.cell_colours import mix

    return np.array_equal(marked, mix(plain[None], colour, amount)[0])


def test_a_click_on_a_wrong_element_explains_it_and_draws_its_inflow(qtbot, window, monkeypatch):
    from explorer.gui.buffer_pictures import EXPLAINED

    style = {kind: (colour, amount) for kind, colour, amount in EXPLAINED}
    window.show()
    qtbot.waitExposed(window)
    answer_file_dialogs(monkeypatch, SHIFTED)
    trigger(window, "Open kernel…")
    for name in ("M", "N", "K"):
        window.views.panel.size_spins[name].setValue(32)
    window.model.set_input("random")
    result = run_and_wait(qtbot, window)
    assert result.status == "wrong", result.summary()
    error = np.abs(result.output - result.reference)
    row, col = 3, 5
    assert error[row, col] > 1e-3  # a wrong element: B's column 6 came in, not column 5

    controller = window.controllers.explain
    shown = []
    controller.explained.connect(shown.append)
    click_error_map(qtbot, window, row, col)
    view = window.views.result_view
    qtbot.waitUntil(lambda: view.explanation.isVisible(), timeout=60000)  # traced first
    text = view.explanation.toPlainText()
    source = SHIFTED.read_text().splitlines()
    load_line = 1 + next(i for i, s in enumerate(source) if "B[kB * N + col + 1]" in s)
    read_line = 1 + next(i for i, s in enumerate(source) if "acc += Asub[ty][k]" in s)
    assert text.startswith(f"C[3, 5] = {result.output[3, 5]:.6g}")
    assert "The reference needs: A[3, 0:32] (32 elements); B[0:32, 5] (32 elements)." in text
    assert f"First offending input: B[0, 6], loaded at line {load_line}" in text
    # Under it, the index anatomy of the accesses that brought it in: at once from the trace
    # (the static chains, the values coming), then with the values an anatomy build of
    # their lines recorded over group (0, 0), in the same place.
    qtbot.waitUntil(lambda: controller.explanation.anatomy.recorded, timeout=60000)
    assert shown[0].anatomy.note == "recording the values …" and not shown[0].anatomy.recorded
    assert "(static only" in shown[0].text() and "recording the values …" in shown[0].text()
    text = view.explanation.toPlainText()
    col_line = 1 + next(i for i, s in enumerate(source) if "col = get_group_id(0) * TS + tx" in s)
    tx_line = 1 + next(i for i, s in enumerate(source) if "tx  = get_local_id(0)" in s)
    assert f"its load, B[kB * N + col + 1] at line {load_line}, work-item (0, 0, 0)/(5, 0, 0):" in (
        text
    )
    assert (
        f"col = 5 ← get_group_id(0) * TS + tx at line {col_line} (get_group_id(0) = 0, TS = 16, "
        f"tx = 5 ← get_local_id(0) at line {tx_line})"
    ) in text
    assert "its store into local memory, Bsub[ty][tx]" in text
    writer_read = f"its read by the writing work-item, Bsub[k][tx] at line {read_line}, work-item"
    assert writer_read + " (0, 0, 0)/(5, 3, 0):" in text
    assert "static only" not in text and "recording the values" not in text
    assert view.tabs.currentWidget() is view.error_map and view.explaining() == (3, 5)
    assert view.inflow_button.isVisible() and window.views.tabs.currentWidget() is view
    assert view.tabs.currentWidget() is view.error_map  # where the person clicked, still
    hook = window.controllers.explain.explanation.first_offending.load  # what more starts from
    assert (hook.line, hook.buffer, hook.where, hook.work_item) == (
        load_line,
        "B",
        (0, 6),
        (0, 0, 0, 5, 0, 0),
    )

    execution = window.views.execution_view
    marks = execution.explained
    assert marks is not None and marks.group == (0, 0, 0)
    pb = window.state.playback
    assert pb.cursor.selected_wi == 5 + 16 * 3  # the writing work-item's reads are drawn
    assert pb.steps[pb.cursor.step].line == read_line  # where Bsub[0][5] is read
    grids = {pb.trace.buffers[g.buffer].name: g.buffer for g in pb.grids}
    marked = {name: execution.picture(b) for name, b in grids.items()}
    windows = {name: execution.zoom_window(b) for name, b in grids.items()}

    def cell(pictures, name, row, col):
        r0, _r1, c0, _c1 = windows[name]
        return pictures[name][row - r0, col - c0]

    from explorer.gui.cell_colours import EXPLAINED_OUTLINE, MISSING_OUTLINE

    b_outlines = execution.buffers.canvases[grids["B"]].frame.outlines
    assert ((0, 1, 5, 6), MISSING_OUTLINE, 2.0) in b_outlines  # B[0, 5]: needed, never came
    c_outlines = execution.buffers.canvases[grids["C"]].frame.outlines
    assert ((3, 4, 5, 6), EXPLAINED_OUTLINE, 4.0) in c_outlines
    execution.clear_explanation()  # the same step without it: what the marks were drawn over
    plain = {name: execution.picture(b) for name, b in grids.items()}
    assert tinted(cell(marked, "B", 0, 6), cell(plain, "B", 0, 6), *style["offending"])
    assert tinted(cell(marked, "A", 3, 0), cell(plain, "A", 3, 0), *style["needed"])
    assert np.array_equal(cell(marked, "A", 4, 0), cell(plain, "A", 4, 0))  # did not come in
    # In local memory, what the writing work-item reads at this step: Bsub[0][5].
    assert tinted(cell(marked, "Bsub", 0, 5), cell(plain, "Bsub", 0, 5), *style["offending"])
    assert np.array_equal(cell(marked, "Bsub", 0, 4), cell(plain, "Bsub", 0, 4))

    QTest.mouseClick(view.inflow_button, Qt.MouseButton.LeftButton)
    assert window.views.tabs.currentWidget() is execution

    # Run ▸ Why is the worst element wrong? explains from the trace on screen.
    traced = window.state.traced
    trigger(window, "Why is the worst element wrong?")
    worst = np.unravel_index(int(np.argmax(error)), error.shape)
    assert window.state.traced is traced
    assert view.explanation.toPlainText().startswith(f"C[{worst[0]}, {worst[1]}] = ")
    assert f"B[0, {worst[1] + 1}], loaded at line {load_line}" in view.explanation.toPlainText()
    qtbot.waitUntil(lambda: controller.explanation.anatomy.recorded, timeout=60000)
    assert f"col = {worst[1]} ← get_group_id(0)" in view.explanation.toPlainText()

    # Where no values can be had (an executor that cannot record them), the static chains,
    # saying why.
    from explorer.gui.controllers import explain

    monkeypatch.setattr(explain, "record_anatomy", lambda *_: None)
    trigger(window, "Why is the worst element wrong?")
    qtbot.waitUntil(lambda: "values not recorded" in view.explanation.toPlainText(), timeout=60000)
    text = view.explanation.toPlainText()
    assert "Index anatomy of the accesses that brought it in (values not recorded: " in text
    assert "is not among the functions an executor calls" in text
    assert (
        f"col ← get_group_id(0) * TS + tx at line {col_line} (get_group_id(0), TS = 16, "
        f"tx ← get_local_id(0) at line {tx_line})"
    ) in text
    assert "(static only):" in text and "recording the values" not in text


def test_a_click_on_a_bar_of_a_vector_error_asks_for_that_element(qtbot):
    from explorer.gui.result_view import ResultView

    view = ResultView()
    qtbot.addWidget(view)
    view.resize(700, 500)
    view.show()
    qtbot.waitExposed(view)
    output = np.arange(20, dtype=np.float64)
    reference = output.copy()
    reference[7] += 3.0
    view._show_vector(output, reference)  # what show_result draws for a vector result
    view.tabs.setCurrentWidget(view.error_plot)
    plot = view.error_plot
    box = plot.getPlotItem().getViewBox()
    qtbot.waitUntil(lambda: box.viewRange()[0][1] > 19)
    asked = []
    view.element_clicked.connect(asked.append)
    point = plot.mapFromScene(box.mapViewToScene(QPointF(7.1, 1.5)))
    QTest.mouseClick(plot.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert asked == [(7,)]


def test_an_explanation_shown_again_keeps_its_place(qtbot):
    """The values of the index anatomy come after the explanation is shown (the result is
    drawn again when they do): the same element's explanation stays where it was scrolled."""
    from explorer.gui.result_view import ResultView

    view = ResultView()
    qtbot.addWidget(view)
    view.resize(700, 500)
    view.show()
    qtbot.waitExposed(view)
    text = "\n".join(f"line {i}" for i in range(200))
    view.show_explanation(text, (3, 5))
    bar = view.explanation.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 100)
    bar.setValue(100)
    view.clear_explanation()
    assert view.explaining() is None
    view.show_explanation(text + "\nwith values", (3, 5))
    assert view.explaining() == (3, 5) and bar.value() == 100
    view.show_explanation(text, (4, 4))  # another element: from its start
    assert bar.value() == 0
