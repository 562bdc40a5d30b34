"""The Execution tab at the desk on a 1280×720 projector: every title reads whole. Each
buffer's title (a second line where its canvas is narrower), the work-groups' title and
caption, and the overview's "whole" fit the rectangles they are drawn in, for a kernel with
five buffers (drawn in rows of three) and one whose local array has a long name."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFont, QFontMetrics

from explorer.engine.header.catalog import find_variant
from explorer.gui.tiling_view import OVERVIEW_LABEL
from tests.conftest import TEST_KERNELS
from tests.gui.conftest import answer_file_dialogs, trace_and_wait, trigger
from tests.gui.test_custom_kernels import type_into


def _at_720p(window, qtbot) -> None:
    window.resize(1280, 701)  # a 1280×720 projector's maximised window (its title bar above)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)


def _unreadable(view) -> list[str]:
    """Every title, caption of the work-groups or overview label not drawn whole in its
    rectangle, as painted now."""
    view.grab()  # painted at the window's size
    cut: list[str] = []
    groups = view.buffers.groups
    bold = QFont(groups.font())
    bold.setBold(True)
    if QFontMetrics(bold).horizontalAdvance(groups.title) > groups.width() - 8:
        cut.append(f"{groups.title!r} in {groups.width()} px")
    lines = groups.caption_lines()
    if " ".join(lines).replace(" · ", " ") != groups.caption.replace(" · ", " "):
        cut.append(f"{groups.caption!r} drawn as {lines}")
    cut += [
        f"{line!r}"
        for line in lines
        if groups.fontMetrics().horizontalAdvance(line) > groups.width() - 8
    ]
    for canvas in view.buffers.canvases.values():
        title, width = canvas.frame.title, canvas.width() - 8
        lines = canvas.title_lines()
        metrics = QFontMetrics(canvas._title_font())
        if " ".join(lines) != title:
            cut.append(f"{title!r} drawn as {lines}")
        cut += [
            f"{line!r} of {title!r} in {width} px"
            for line in lines
            if metrics.horizontalAdvance(line) > width
        ]
        _zoom, overview = canvas.areas()
        label = canvas.fontMetrics().horizontalAdvance(OVERVIEW_LABEL)
        if overview is not None and overview.left() + label > canvas.width():
            cut.append(f"{OVERVIEW_LABEL!r} of {title!r}")
    return cut


@pytest.mark.parametrize(
    ("family", "variant", "size", "titles"),
    [
        # result, vector, matrix, matrix2 and a local copy: the seed 004 lesson's layout
        ("rowdot", "local-vector", {"D": 64}, 5),
        ("matvec", "nvidia-coalesced3", {"WIDTH": 64, "HEIGHT": 64}, 4),  # local partialDotProduct
    ],
)
def test_every_title_of_the_execution_tab_reads_whole_at_1280x720(
    window, qtbot, family, variant, size, titles
):
    _at_720p(window, qtbot)
    window.model.set_family(family)
    window.model.set_variant(find_variant(family, variant))
    for name, value in size.items():
        type_into(qtbot, window.views.panel.size_spins[name], value)
    view = trace_and_wait(qtbot, window)  # the Trace action; the Execution tab in front
    assert window.views.tabs.currentWidget() is view
    assert len(view.buffers.canvases) == titles
    assert _unreadable(view) == []


def _presented_wholes(window, qtbot, family, variant, size):
    """The kernel traced at the desk, then presented at 1280×720: its whole buffers, laid
    out and painted."""
    _at_720p(window, qtbot)
    window.model.set_family(family)
    window.model.set_variant(find_variant(family, variant))
    for name, value in size.items():
        type_into(qtbot, window.views.panel.size_spins[name], value)
    trace_and_wait(qtbot, window)
    window.resize(1280, 720)
    window.controllers.presenter.set_presenter(True, full_screen=False)
    view = window.views.execution_view
    wholes = view.buffers.wholes
    # laid out: the whole buffers in a column beside the detailed ones, a quarter or less
    qtbot.waitUntil(lambda: all(w.width() < 1280 // 4 for w in wholes.values()))
    view.grab()
    return wholes


def _cut_titles(wholes) -> list[tuple[str, list[str], int]]:
    cut = []
    for whole in wholes.values():
        metrics, width = QFontMetrics(whole.title_font()), whole.width() - 8
        lines = whole.title_lines()
        if " ".join(lines) != whole.title or any(
            metrics.horizontalAdvance(line) > width for line in lines
        ):
            cut.append((whole.title, lines, width))
    return cut


def test_presenter_mode_at_1280x720_reads_every_whole_buffers_title_and_the_error_tab(
    window, qtbot
):
    """Presenter mode's column of whole buffers (seed 004's four) breaks a title too wide
    onto a second line ("vector 1000" above "(wrapped)", once "vector…"), and the side
    column's result tabs show "Result" and "Error" whole (once "Error |result − ref" cut
    at the column's edge)."""
    wholes = _presented_wholes(window, qtbot, "rowdot", "local-vector", {"D": 1000})
    assert len(wholes) == 4
    assert _cut_titles(wholes) == []
    assert any(len(w.title_lines()) == 2 for w in wholes.values())  # the case that was cut
    tabs = window.views.result_view.tabs
    bar = tabs.tabBar()
    titles = [tabs.tabText(i) for i in range(tabs.count())]
    assert titles[:2] == ["Result", "Error"]
    assert all(bar.rect().contains(bar.tabRect(i)) for i in (0, 1)), [
        bar.tabRect(i) for i in (0, 1)
    ]
    assert tabs.tabToolTip(1) == "Error |result − reference|"
    window.controllers.presenter.set_presenter(False, full_screen=False)
    assert tabs.tabText(1) == "Error |result − reference|"  # the desk's title again


def test_the_naive_stages_narrow_column_reads_each_matrix_whole(window, qtbot):
    """Naive's A, B and C drawn large side by side leave the whole matrices a narrow
    column at 1280×720: "C 768×768" reads whole (on two lines), never "C…"."""
    sizes = {"M": 768, "N": 768, "K": 16}
    wholes = _presented_wholes(window, qtbot, "matmul", "naive", sizes)
    assert sorted(w.title for w in wholes.values()) == ["A 768×16", "B 16×768", "C 768×768"]
    assert _cut_titles(wholes) == []


def test_before_a_trace_a_long_kernel_names_message_reads_whole(window, qtbot, monkeypatch):
    """ "<name>: trace it (Ctrl+T) to watch it run." above the empty animation, for a kernel
    of the person's own with a long name, once ran off the view's edge at "watch it ru"."""
    _at_720p(window, qtbot)
    answer_file_dialogs(monkeypatch, TEST_KERNELS / "custom" / "local_sum.cl")
    trigger(window, "Open kernel…")
    trigger(window, "Execution")
    label = window.views.execution_view.lines.step_label
    name = window.model.variant.name
    assert label.text() == f"{name}: trace it (Ctrl+T) to watch it run."
    qtbot.waitUntil(lambda: label.height() > label.fontMetrics().height() * 1.5)
    drawn = label.fontMetrics().boundingRect(
        QRect(0, 0, label.width(), 10_000), Qt.TextFlag.TextWordWrap, label.text()
    )
    assert drawn.width() <= label.width() and drawn.height() <= label.height()


def test_a_seeds_long_variant_name_reads_whole_in_the_configuration(window, qtbot):
    """ "Seed 004 #1: the vector in local memory (mem_fence)  ⚠ known bug" is wider than
    the variant box at 1280×720: it once showed "… (mem_fence)  ⚠ k"; now the whole name and
    its mark (the bug is written in red below), the whole text in the tooltip."""
    _at_720p(window, qtbot)
    window.model.set_family("rowdot")
    variant = find_variant("rowdot", "seed004-local-vector")
    window.model.set_variant(variant)
    combo = window.views.panel.variant_combo
    assert combo.currentText() == f"{variant.name}  ⚠ known bug"
    combo.grab()
    shown = combo.shown_text()
    assert shown == f"{variant.name} ⚠"
    _option, width = combo._field()
    assert combo.fontMetrics().horizontalAdvance(shown) <= width
    assert combo.toolTip() == combo.currentText()


def test_the_lines_above_the_animation_end_with_an_ellipsis_where_they_are_cut(window, qtbot):
    """The index anatomy of tiled's first step is wider than the Execution tab at 1280×720:
    it once stopped mid-word at the view's edge ("(t < numTiles) a"); now it ends with "…",
    whole in its tooltip."""
    _at_720p(window, qtbot)
    for name in ("M", "N", "K"):
        type_into(qtbot, window.views.panel.size_spins[name], 64)
    view = trace_and_wait(qtbot, window)
    lines = view.lines
    qtbot.waitUntil(lambda: lines.anatomy_label.width() > 500)
    for label in (lines.anatomy_label, lines.reads_label):
        whole, shown = label.text(), label.shown_text()
        width = label.contentsRect().width()
        assert label.fontMetrics().horizontalAdvance(shown) <= width
        if shown != whole:
            assert shown.endswith("…") and whole.startswith(shown[:-1])
            assert label.toolTip() == whole
    assert lines.anatomy_label.shown_text() != lines.anatomy_label.text()  # the case cut
