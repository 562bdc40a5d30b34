"""Presenter mode's cut values, read from the keyboard: a room view's title whose values are
cut names the key that writes them whole (nobody hovers in a talk), and lesson 4's wrapped
local vector (seed 004) writes a leading digit of each value in its 32 px cells, never the
mark alone."""

from __future__ import annotations

import re

import numpy as np
import pytest
from PySide6.QtCore import Qt

from explorer.gui.value_text import CUT, exact_text, same_number
from tests.gui.conftest import menu_action
from tests.gui.test_titles_at_720p import _presented_wholes


def _vect_copy(window):
    view = window.views.execution_view
    canvas = next(c for c in view.buffers.canvases.values() if "vectCopy" in c.frame.title)
    return view, canvas


def _present_seed_004(window, qtbot, size):
    _presented_wholes(window, qtbot, "rowdot", "seed004-local-vector", {"D": 1000})
    if size != (1280, 720):
        window.controllers.presenter.set_presenter(False)
        window.resize(*size)
        window.controllers.presenter.set_presenter(True, full_screen=False)
    view, canvas = _vect_copy(window)
    view.set_step(5)  # the group has copied its part of the vector
    qtbot.waitUntil(lambda: canvas.drawn is not None and canvas.width() > 300)
    view.grab()
    return view, canvas


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_lesson_4s_local_vector_writes_a_digit_of_every_value(window, qtbot, size):
    """Random values such as -.87 once read "-…" or "…" in every cell of local vectCopy:
    each cell now writes the value's leading digits ("-.8…"), the true number's, never
    another; the type stays 18 px at least."""
    _view, canvas = _present_seed_004(window, qtbot, size)
    frame = canvas.frame
    drawn = canvas.drawn
    font = canvas.label_font(frame.labels, canvas.cell_size())
    assert font is not None and font.pixelSize() >= 18
    written = [(t, float(frame.values[r, c])) for (r, c), t in np.ndenumerate(drawn) if t]
    assert len(written) >= 40  # the group's 40 elements at least
    for text, value in written:
        assert re.search(r"\d", text), (text, value)  # a digit, not the mark alone
        exact = exact_text(value)
        assert text == exact or (text.endswith(CUT) and exact.startswith(text[:-1])), text


def test_presenter_titles_name_the_key_that_writes_cut_values_whole(window, qtbot):
    """The cut vector's title says "… more digits: Ctrl+Shift+D", never "hover"; the key
    (Step ▸ Values in full) writes the followed work-item's values with every digit in the
    line above the buffers, and again puts them back in five characters."""
    view, canvas = _present_seed_004(window, qtbot, (1280, 720))
    assert canvas.cut
    title = canvas.drawn_lines[0]
    assert "hover" not in title
    assert title.endswith(f"{CUT} more digits: Ctrl+Shift+D"), title
    action = menu_action(window, "Values in full")
    assert action.shortcut().toString() == "Ctrl+Shift+D"
    reads = view.lines.reads_label
    short = reads.text()
    values = re.findall(r"= (-?[\d.]+…?)", short)
    assert values and all(v.endswith(CUT) for v in values), short  # random floats: cut
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    modifiers = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(view, Qt.Key.Key_D, modifiers)
    whole = re.findall(r"= (-?[\d.]+…?)", reads.text())
    assert len(whole) == len(values) and not any(CUT in v for v in whole), reads.text()
    for cut, text in zip(values, whole, strict=True):
        assert text.startswith(cut.removesuffix(CUT))  # the same values, every digit now
    element = int(re.search(r"write vectCopy\[(\d+)\] = ", reads.text()).group(1))
    _r0, _r1, c0, _c1 = canvas.frame.window
    wrap = canvas.frame.wrap
    true = float(canvas.frame.values[(element - c0) // wrap, (element - c0) % wrap])
    assert same_number(whole[-1], true) and whole[-1] == exact_text(true), (whole, true)
    window.views.execution_view.grab()
    assert action.isChecked()
    qtbot.keyClick(view, Qt.Key.Key_D, modifiers)
    assert reads.text() == short
