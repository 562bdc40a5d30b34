"""What a room reads at 1280×720 beyond the titles: a narrow buffer's caption keeps what
the step read and wrote, presenter mode's side column shows every result tab whole and
reachable by key, and every menu item's tip reads whole in the status bar."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QFont, QFontMetrics, QTextDocument
from PySide6.QtWidgets import QMenu, QToolButton

from explorer.engine.header.catalog import find_variant
from tests.gui.conftest import trace_and_wait
from tests.gui.test_custom_kernels import type_into
from tests.gui.test_titles_at_720p import _at_720p, _presented_wholes

COUNTS = re.compile(r"\d+ read, \d+ written")
SWATCH_AND_GAP = 40  # a legend entry's mark and the space around it, in pixels


def _seed_004_traced(window, qtbot):
    """Lesson 4's kernel (seed 004, D 1000) traced at the desk at 1280×720."""
    _at_720p(window, qtbot)
    window.model.set_family("rowdot")
    window.model.set_variant(find_variant("rowdot", "seed004-local-vector"))
    type_into(qtbot, window.views.panel.size_spins["D"], 1000)
    return trace_and_wait(qtbot, window)


def test_a_narrow_wrapped_vectors_caption_keeps_its_read_and_written_counts(window, qtbot):
    """Seed 004's result, vector and vectCopy are drawn wrapped in canvases too narrow for
    their caption in one line: it once shortened to "wrapped, 9 a row", the counts gone;
    now every caption shows its counts, each line whole within its canvas, and drawn clear
    of the overview beside a wide matrix's few rows."""
    view = _seed_004_traced(window, qtbot)
    canvases = view.buffers.canvases.values()
    wrapped = [c for c in canvases if c.frame.wrap]
    assert len(wrapped) == 3
    view.grab()
    for canvas in canvases:
        caption = canvas.frame.caption
        assert COUNTS.search(caption), caption
        lines = list(canvas.drawn_lines[1:])
        assert COUNTS.search(" · ".join(lines)), (canvas.frame.title, lines)
        metrics = QFontMetrics(canvas.caption_font())
        rect = canvas.caption_rect()
        assert all(metrics.horizontalAdvance(line) <= rect.width() for line in lines), lines
        assert all(line in caption for line in lines), (caption, lines)
        assert rect.bottom() <= canvas.height(), canvas.frame.title
        _zoom, overview = canvas.areas()
        if overview is not None:  # the caption is not written over the overview
            assert rect.right() < overview.left() or rect.top() > overview.bottom()
    for canvas in wrapped:
        assert f"wrapped, {canvas.frame.wrap} a row" in " ".join(canvas.drawn_lines[1:])
    # the case that was cut: the caption does not fit one line of its canvas
    assert any(len(c.drawn_lines) == 3 for c in wrapped)


def test_presenter_modes_side_column_shows_every_result_tab_whole_and_by_key(window, qtbot):
    """Seed 004 has three inputs: at 1280×720 the side column's tabs once ran behind
    scroll arrows ("Input VECTOR" cut, "Input MAT1" out of sight). Every tab now lies whole
    in the bar, its title drawn whole, the full name in its tooltip, and Ctrl+PgDown walks
    them all from the keyboard; back at the desk the full titles return."""
    _presented_wholes(window, qtbot, "rowdot", "seed004-local-vector", {"D": 1000})
    tabs = window.views.result_view.tabs
    bar = tabs.tabBar()
    qtbot.waitUntil(lambda: tabs.count() == 5)
    bar.grab()
    full = ["Result", "Error |result − reference|", "Input VECTOR", "Input MAT1", "Input MAT2"]
    assert [tabs.tabToolTip(i) or tabs.tabText(i) for i in range(5)] == full
    metrics = QFontMetrics(bar.font())
    for i in range(5):
        rect = bar.tabRect(i)
        assert bar.rect().contains(rect), (tabs.tabText(i), rect, bar.rect())
        assert metrics.horizontalAdvance(tabs.tabText(i)) <= rect.width() - 8, tabs.tabText(i)
    assert not any(arrow.isVisible() for arrow in bar.findChildren(QToolButton))  # no scrolling
    tabs.setCurrentIndex(0)
    bar.setFocus()
    qtbot.waitUntil(bar.hasFocus)
    ctrl = Qt.KeyboardModifier.ControlModifier
    for key, walked in ((Qt.Key.Key_PageDown, [1, 2, 3, 4, 0]), (Qt.Key.Key_Tab, [1, 2, 3, 4, 0])):
        seen = []
        for _ in range(5):
            qtbot.keyClick(bar, key, ctrl)
            seen.append(tabs.currentIndex())
        assert seen == walked, key
    qtbot.keyClick(bar, Qt.Key.Key_PageUp, ctrl)
    assert tabs.currentIndex() == 4
    window.controllers.presenter.set_presenter(False, full_screen=False)
    assert [tabs.tabText(i) for i in range(5)] == full


def test_every_menu_items_status_tip_reads_whole_in_the_status_bar_at_1280x720(window, qtbot):
    """A menu item's tip in the status bar is one line: the exercises' tips were their
    whole texts (up to 3,500 px at the status bar's font) cut at the window's edge mid-word.
    Every action's tip now fits the 1280 px status bar, an exercise's being its first
    sentences, whole; hovering an item shows it there as it is."""
    _at_720p(window, qtbot)
    bar = window.statusBar()
    menu = next(m for m in window.findChildren(QMenu) if m.title() == "E&xercises")
    menu.aboutToShow.emit()  # the menu opened: its tips fitted to the bar as it is now
    metrics = QFontMetrics(bar.font())
    width = bar.width() - 18  # Qt writes the message inside margins
    tips = {a.statusTip() for a in window.findChildren(QAction) if a.statusTip()}
    assert len(tips) > 50
    too_long = [t for t in tips if metrics.horizontalAdvance(t) > width]
    assert too_long == []
    first = next(a for a in menu.actions() if a.objectName().startswith("exercise:"))
    tip = first.statusTip()
    assert tip.endswith(".") and tip.startswith("Mirror a ROWS × COLS image left to right")
    first.showStatusText(window)  # as the menu does for the item under the keyboard
    qtbot.waitUntil(lambda: bar.currentMessage() == tip)


def test_after_presenter_mode_the_configuration_still_fits_its_dock(window, qtbot):
    """Seed 004's long variant name once widened the configuration panel past its dock on
    leaving presenter mode (F11, then Esc): a sideways scroll bar, the variant's box, the
    description and every field cut at the dock's edge. The panel fits its dock after as
    before, the variant's name shortened in its box, whole in the tooltip."""
    _at_720p(window, qtbot)
    window.model.set_family("rowdot")
    window.model.set_variant(find_variant("rowdot", "seed004-local-vector"))
    scroll = window.views.panel_scroll
    combo = window.views.panel.variant_combo

    def fits() -> bool:
        inside = scroll.viewport().width()
        return scroll.widget().width() <= inside and combo.geometry().right() < inside

    qtbot.waitUntil(fits)
    for name in ("presenter", "leave_presenter"):  # F11, then Esc
        action = window.findChild(QAction, name)
        qtbot.waitUntil(action.isEnabled)
        action.trigger()
        qtbot.wait(100)
    assert not window.state.presenting
    qtbot.waitUntil(lambda: scroll.isVisible() and scroll.viewport().width() > 300)
    qtbot.wait(100)
    assert fits(), (scroll.widget().width(), scroll.viewport().width())
    assert not scroll.horizontalScrollBar().isVisible()
    combo.grab()
    assert combo.shown_text() != combo.currentText() and combo.toolTip() == combo.currentText()


def test_one_sum_forming_is_said_in_the_singular(window, qtbot):
    """Lesson 5 (Coalesced3, 4 rows of 300): a group's one output element forms in a
    register, and its caption once read "1 sums so far, in registers"."""
    _at_720p(window, qtbot)
    window.model.set_family("matvec")
    window.model.set_variant(find_variant("matvec", "nvidia-coalesced3"))
    for name, value in {"WIDTH": 300, "HEIGHT": 4}.items():
        type_into(qtbot, window.views.panel.size_spins[name], value)
    view = trace_and_wait(qtbot, window)
    view.grab()
    captions = [c.frame.caption for c in view.buffers.canvases.values()]
    said = [c for c in captions if "so far, in registers" in c]
    assert said and all(" 1 sums " not in c for c in said), captions
    assert any(" · 1 sum so far, in registers" in c for c in said), captions


def test_a_step_line_wider_than_the_room_view_ends_with_an_ellipsis(window, qtbot):
    """The tour's reg2d reads a float4 of local memory at a line wider than presenter mode's
    view at 1280×720: the step line once stopped mid-expression at the edge ("[v * 4 *
    RTSM"); now it ends with "…" and its tooltip has it whole, every step's line fitting."""
    _at_720p(window, qtbot)
    window.model.set_variant(find_variant("matmul", "reg2d"))
    for name in ("M", "N", "K"):
        type_into(qtbot, window.views.panel.size_spins[name], 128)
    view = trace_and_wait(qtbot, window)
    window.resize(1280, 720)
    window.controllers.presenter.set_presenter(True, full_screen=False)
    label = view.lines.step_label
    qtbot.waitUntil(lambda: label.fontInfo().pixelSize() >= 18)  # the room's type
    cut = []
    firsts: dict[int, int] = {}  # the first step at each source line
    for index, step in enumerate(view.playback.steps):
        firsts.setdefault(step.line, index)
    for index in firsts.values():
        view.set_step(index)
        whole = label.text()
        shown = getattr(label, "shown_text", label.text)()  # what the label paints
        assert label.fontMetrics().horizontalAdvance(shown) <= label.contentsRect().width()
        if shown != whole:
            assert shown.endswith("…") and whole.startswith(shown[:-1])
            assert label.toolTip() == whole
            cut.append(whole)
    assert any("float4" in line for line in cut)  # the case that was cut


def _label_lines(label) -> list[str]:
    """A rich-text label's lines as laid out at its width (spaces plain)."""
    document = QTextDocument()
    document.setDefaultFont(label.font())
    document.setDocumentMargin(0)
    document.setHtml(label.text())
    document.setTextWidth(label.contentsRect().width())
    document.size()  # laid out
    lines = []
    block = document.begin()
    while block.isValid():
        layout, text = block.layout(), block.text().replace("\xa0", " ")
        for i in range(layout.lineCount()):
            line = layout.lineAt(i)
            lines.append(text[line.textStart() : line.textStart() + line.textLength()].strip())
        block = block.next()
    return [line.replace("\u2028", "").replace("\xa0", " ").strip() for line in lines]


def test_the_timing_legend_keeps_each_swatch_with_its_name_in_the_side_column(window, qtbot):
    """In presenter mode's side column at 1280×720 the legend under the timing bars once
    wrapped inside "check's answer", its "answer · kernel 1.090 ms" reading as the check's
    kernel time. Each colour's name now stays on one line with its swatch, and the figures
    start on a line of their own."""
    _presented_wholes(window, qtbot, "rowdot", "seed004-local-vector", {"D": 1000})
    details = window.views.timing_view.details
    qtbot.waitUntil(lambda: "the median" in details.text() and details.isVisible())
    assert details.width() < 1280 // 3  # the side column
    lines = _label_lines(details)
    for name in ("upload", "kernel", "download", "check's answer"):
        assert any(f"■ {name}" in line for line in lines), (name, lines)
    assert any(line.startswith("kernel ") and "the median" in line for line in lines), lines


def test_a_vector_results_legend_reads_whole_in_the_side_column(window, qtbot):
    """Lesson 5's result (four sums, drawn as bars with the reference's marks) in presenter
    mode at 1280×720: the legend's "numpy reference" once ran off the side column's edge
    ("numpy refer"); both entries now lie whole inside the chart, above its values."""
    _presented_wholes(window, qtbot, "matvec", "nvidia-coalesced3", {"WIDTH": 300, "HEIGHT": 4})
    view = window.views.result_view
    qtbot.waitUntil(lambda: view.tabs.currentWidget() is view.plot and view.plot.isVisible())
    view.plot.grab()
    item = view.plot.getPlotItem()
    names = [label.text for _, label in item.legend.items]
    assert names == ["kernel output", "numpy reference"]
    # The entries' text at the projector's size (12 pt at 96 dpi: 16 px; the offscreen
    # platform lays 12 pt out smaller), each row's entries with their swatches and gaps.
    font = QFont()
    font.setPixelSize(16)
    metrics = QFontMetrics(font)
    rows: dict[int, list[str]] = {}
    for _, label in item.legend.items:
        rows.setdefault(round(label.pos().y()), []).append(label.text)
    left = view.plot.mapFromScene(item.legend.sceneBoundingRect().topLeft()).x()
    for entries in rows.values():
        width = sum(metrics.horizontalAdvance(e) + SWATCH_AND_GAP for e in entries)
        assert left + width <= view.plot.width(), (entries, left + width, view.plot.width())
    values = item.getViewBox().sceneBoundingRect()
    assert item.legend.sceneBoundingRect().bottom() <= values.top() + 1  # not over the bars
