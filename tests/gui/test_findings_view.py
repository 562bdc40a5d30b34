"""The findings view draws a finding's kind in its category's colour and offers "Measure the
fix" for the cost category: a kind added as one module is shown like the shipped ones."""

from __future__ import annotations

import itertools
import math

import pytest
from PySide6.QtCore import Qt

from explorer.gui.findings_view import CATEGORY_COLOURS, FindingsView
from explorer.trace.analysis import Category, analyse
from tests.trace.synthetic import transpose_naive
from tests.trace.toy_kind import KIND, add_toy_kind


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _rgb(colour: str) -> list[float]:
    return [_linear(int(colour[i : i + 2], 16)) for i in (1, 3, 5)]


def _contrast_on_white(colour: str) -> float:
    r, g, b = _rgb(colour)
    return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05)


def _lab(colour: str) -> tuple[float, float, float]:
    r, g, b = _rgb(colour)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def test_each_category_has_a_colour_readable_on_white_and_unlike_the_others():
    assert set(CATEGORY_COLOURS) == set(Category)
    for category, colour in CATEGORY_COLOURS.items():
        assert _contrast_on_white(colour) >= 4.5, category  # WCAG AA for body text
    for a, b in itertools.combinations(CATEGORY_COLOURS, 2):
        # CIE76 ΔE: 2 is just noticeable side by side; 25 tells them apart at a glance.
        distance = math.dist(_lab(CATEGORY_COLOURS[a]), _lab(CATEGORY_COLOURS[b]))
        assert distance >= 25, (a, b)


@pytest.mark.parametrize("category", list(Category))
def test_a_kind_in_one_module_of_its_own_is_shown_in_its_categorys_colour(
    qtbot, tmp_path, monkeypatch, category
):
    add_toy_kind(tmp_path, monkeypatch, category.name)
    trace = transpose_naive(64)
    analysis = analyse(trace)
    view = FindingsView()
    qtbot.addWidget(view)
    view.resize(900, 600)
    view.show()
    qtbot.waitExposed(view)
    view.show_trace(analysis.to_json(trace), analysis)

    tree = view.findings
    assert tree.topLevelItemCount() == 2  # the toy's one cause, then the uncoalesced write
    heading = tree.topLevelItem(0)
    assert heading.text(0) == KIND and heading.childCount() == 2
    assert heading.text(4).startswith("Toy cause: 2 global sites of in and out on line 5")
    assert "What to do: Toy advice: look at in and out." in heading.text(4)
    colour = CATEGORY_COLOURS[category]
    assert heading.foreground(0).color().name() == colour
    assert all(heading.child(i).foreground(0).color().name() == colour for i in range(2))
    uncoalesced = tree.topLevelItem(1)
    assert uncoalesced.foreground(0).color().name() == CATEGORY_COLOURS[Category.COST]
    # What the trace could not record is not counted as a finding about the kernel.
    counted = 1 if category is Category.TRACE else 3
    assert view.summary.text().startswith(f"<b>{counted} finding(s)</b>")

    # A person clicks the cause: "Measure the fix" is offered for a cost only.
    rect = tree.visualItemRect(heading)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert tree.currentItem() is heading
    assert view.measure_fix.isEnabled() == (category is Category.COST)
