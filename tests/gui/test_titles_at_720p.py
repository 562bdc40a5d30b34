"""The Execution tab at the desk on a 1280×720 projector: every title reads whole. Each
buffer's title (a second line where its canvas is narrower), the work-groups' title and
caption, and the overview's "whole" fit the rectangles they are drawn in, for a kernel with
five buffers (drawn in rows of three) and one whose local array has a long name."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFont, QFontMetrics

from explorer.engine.header.catalog import find_variant
from explorer.gui.tiling_view import OVERVIEW_LABEL
from tests.gui.conftest import trace_and_wait
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
