"""The keyboard-only walk, continued: another work-item of the group is followed from the
keyboard (Ctrl+Shift+J takes its local ids typed, Shift and an arrow the one beside it) as a
click on a cell follows it; the tour's register-blocked stage opens past the barrier after its
local tiles are stored; the tour's closing words are read whole on a 1280×720 projector, where
nobody can hover to read the rest."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from explorer.gui.controllers.tour_stages import CLOSING, TOUR
from explorer.trace.recorded import LOCAL
from tests.gui.conftest import trace_and_wait
from tests.gui.test_keyboard_walk import CTRL, _answer_the_group_dialog, _back_to, _press, _shown

SHIFT = Qt.KeyboardModifier.ShiftModifier


def _traced(window, qtbot):
    """The tiled matmul traced at 64×64×32 (16×16 work-items a group), its animation
    focused as a click on it leaves it."""
    _shown(window, qtbot)
    for name, value in {"M": 64, "N": 64, "K": 32}.items():
        window.model.set_size(name, value)
    view = trace_and_wait(qtbot, window)
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    return view


def _followed(window) -> tuple[int, int]:
    """The local ids (x, y) of the work-item whose reads are drawn (16×16 a group)."""
    wi = window.state.playback.cursor.selected_wi
    return wi % 16, wi // 16


def test_ctrl_shift_j_follows_the_work_item_typed(window, qtbot):
    view = _traced(window, qtbot)
    pb = window.state.playback
    assert _followed(window) == (8, 8)  # the centre of the group to begin with
    step = view.current
    answered, focused = _answer_the_group_dialog(qtbot, "3, 5")
    _press(qtbot, Qt.Key.Key_J, CTRL | SHIFT)
    qtbot.waitUntil(lambda: answered == ["8, 8"])  # it proposed the one followed
    assert focused == [True]
    qtbot.waitUntil(lambda: _followed(window) == (3, 5))
    assert pb.cursor.selected_wi == 3 + 16 * 5
    assert view.lines.reads_label.text().startswith("work-item (3, 5) of group (0, 0, 0)")
    assert view.current == step and window.state.playback.group == (0, 0, 0)
    _back_to(window, qtbot)
    assert QApplication.focusWidget() is view
    answered, _ = _answer_the_group_dialog(qtbot, "16, 0")  # the group has x 0 to 15
    _press(qtbot, Qt.Key.Key_J, CTRL | SHIFT)
    qtbot.waitUntil(lambda: answered == ["3, 5"])
    qtbot.waitUntil(lambda: "0 to 15" in window.statusBar().currentMessage())
    assert _followed(window) == (3, 5)
    _back_to(window, qtbot)
    # Another group keeps the work-item followed (a click on the map does the same).
    answered, _ = _answer_the_group_dialog(qtbot, "1, 1")
    _press(qtbot, Qt.Key.Key_J, CTRL)
    qtbot.waitUntil(lambda: window.state.playback.group == (1, 1, 0))
    assert _followed(window) == (3, 5)


def test_shift_and_an_arrow_follow_the_work_item_beside_it(window, qtbot):
    view = _traced(window, qtbot)
    view.set_step(3)
    _press(qtbot, Qt.Key.Key_Right, SHIFT)
    assert _followed(window) == (9, 8)
    _press(qtbot, Qt.Key.Key_Down, SHIFT)
    _press(qtbot, Qt.Key.Key_Down, SHIFT)
    assert _followed(window) == (9, 10)
    _press(qtbot, Qt.Key.Key_Left, SHIFT)
    _press(qtbot, Qt.Key.Key_Up, SHIFT)
    assert _followed(window) == (8, 9)
    assert view.current == 3  # the animation did not step
    assert view.lines.reads_label.text().startswith("work-item (8, 9)")
    _press(qtbot, Qt.Key.Key_Right)  # an arrow alone still steps
    assert view.current == 4 and _followed(window) == (8, 9)
    for _ in range(10):  # held at the group's edge
        _press(qtbot, Qt.Key.Key_Up, SHIFT)
    assert _followed(window) == (8, 0)
    # From the slider, as from the animation (the stepping keys' rule).
    view.controls.slider.setFocus()
    qtbot.waitUntil(view.controls.slider.hasFocus)
    _press(qtbot, Qt.Key.Key_Left, SHIFT)
    assert _followed(window) == (7, 0)
    # In a text field of the configuration Shift+← selects text, as it should.
    local = window.views.panel.local_edit
    local.setFocus()
    qtbot.waitUntil(local.hasFocus)
    _press(qtbot, Qt.Key.Key_Left, SHIFT)
    assert _followed(window) == (7, 0)


def _presenting_at_1280x720(window, qtbot, size=(1280, 720)):
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    window.controllers.presenter.set_presenter(True, full_screen=False)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_the_tours_closing_words_are_read_whole_at_1280x720(window, qtbot, monkeypatch, size):
    """The badge shows at most three lines; the closing words once ended "Esc leaves
    pres…" at 1280×720, the rest only in a tooltip a keyboard cannot open."""
    _presenting_at_1280x720(window, qtbot, size)
    monkeypatch.setattr(window.worker, "run", lambda request: 7)  # the stages run nothing
    view = window.views.execution_view
    _press(qtbot, Qt.Key.Key_G, CTRL)  # the tour
    for _ in TOUR:
        _press(qtbot, Qt.Key.Key_Space)
    badge = window.views.result_view.badge
    assert badge.text() == CLOSING
    qtbot.wait(50)
    assert badge.isVisible() and badge.width() <= window.width() // 4 + 10
    assert not badge.elided(), badge.shown_text()
    assert badge.shown_text() == CLOSING
    assert badge.toolTip() == ""  # nothing left to hover for
    # with room to spare: a projector's font a little wider than this one still fits
    badge.resize(badge.width() * 9 // 10, badge.height())
    assert not badge.elided(), badge.shown_text()
    assert "Esc" in CLOSING  # the way out said where the eyes are
    assert view.isVisible()


def _register_blocked_stage(window, qtbot):
    """The tour walked with Space to its register-blocked stage at 64³ (one group), traced."""
    for name in ("M", "N", "K"):
        window.model.set_size(name, 64)
    _presenting_at_1280x720(window, qtbot)
    state, view = window.state, window.views.execution_view
    _press(qtbot, Qt.Key.Key_G, CTRL)

    def traced(stage: int):
        return lambda: (
            len(state.tour_results) == stage
            and state.playback is not None
            and state.traced is not None
            and state.traced.result.variant == TOUR[stage - 1].variant
            and not window.worker.busy
            and "global loads per element of C" in view.lines.caption.text()
        )

    qtbot.waitUntil(traced(1), timeout=120000)
    for stage in (2, 3):
        shown = state.playback
        _press(qtbot, Qt.Key.Key_Space)
        qtbot.waitUntil(
            lambda shown=shown, stage=stage: state.playback is not shown and traced(stage)(),
            timeout=120000,
        )
    assert view.lines.caption.text().startswith("3 · register")
    qtbot.waitUntil(lambda: view.current > 0, timeout=5000)
    qtbot.wait(50)
    return view


def test_the_register_blocked_stage_opens_after_its_tiles_are_stored(window, qtbot):
    view = _register_blocked_stage(window, qtbot)
    pb = window.state.playback
    group = pb.cursor.group_steps
    tiles = [g for g in pb.grids if g.space == LOCAL]
    assert {g.name for g in tiles} == {"Asub", "Bsub"}
    assert pb.steps[view.current].phase >= 1  # past a barrier
    for grid in tiles:  # the group stored every tile before this step
        assert group.writes_until(grid, view.current - 1).size, grid.name


def test_the_register_blocked_stage_shows_the_values_of_its_tiles(window, qtbot):
    view = _register_blocked_stage(window, qtbot)
    for canvas in view.buffers.canvases.values():
        if canvas.frame.title.startswith("local"):
            canvas.repaint()
            assert canvas.drawn is not None, canvas.frame.title
            assert all(t for t in canvas.drawn.flat), canvas.frame.title  # every cell
