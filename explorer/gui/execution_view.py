"""The Execution area: the selected work-group's steps, played, stepped or scrubbed.

This view lays out its panels and wires them: the controls above
(:mod:`~explorer.gui.playback_controls`), the lines of text
(:mod:`~explorer.gui.step_lines`), the work-groups and each buffer as focus and context
(:mod:`~explorer.gui.buffers_panel`, pictures from :mod:`~explorer.gui.buffer_pictures`)
beside the source, the warp (:mod:`~explorer.gui.warp_view`), the heat map's scale, the
timeline (:mod:`~explorer.gui.timeline_view`) and the legend. What is shown comes from a
:class:`~explorer.trace.playback.Playback`; its cursor says where the animation stands.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QMargins, Qt, Signal
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from explorer.engine.records import RunResult
from explorer.frontend.line_directives import header_lines, line_numbering, split_lines
from explorer.gui.buffer_pictures import COLOURING_TEXT, COLOURINGS, BufferPictures
from explorer.gui.buffers_panel import BuffersPanel
from explorer.gui.legend import execution_legend
from explorer.gui.playback_controls import PlaybackControls
from explorer.gui.source_view import CodeEditor
from explorer.gui.step_lines import READY, InfoLine, StepLines
from explorer.gui.tiling_view import HeatScale
from explorer.gui.timeline_view import Timeline
from explorer.gui.warp_view import WarpView
from explorer.trace.explain_marks import ExplainMarks
from explorer.trace.grids import Box, Grid
from explorer.trace.playback import Playback
from explorer.trace.recorded import Finding
from explorer.trace.steps import Step

LINE_MARK = "#f9e79f"  # the step's line in the source
# What the colours of an explained element mean (buffer_pictures draws them).
EXPLAIN_KEY = (
    "green: needed and came in · magenta: should not be there · yellow: credited through "
    "registers only · purple box: needed, never came"
)
# The key strip is read from the back of a room: never under 18 px, whatever the window's type.
KEY_STRIP_STYLE = (
    "QLabel { font-size: 18px; color: #1b2631; background: #eaf2f8; padding: 2px 6px; }"
)


class ExecutionView(QWidget):
    """Play, step or scrub through the selected work-group's steps."""

    step_changed = Signal(int, int)  # phase, line
    group_requested = Signal(int, int, int)  # an untraced group to trace
    shown = Signal(bool)  # on screen or not: where the stepping keys apply

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.playback: Playback | None = None
        self.source_lines: list[str] = []
        self.numbering = line_numbering("")  # the source's, through its #line directives
        self.pictures = BufferPictures()
        self.controls = PlaybackControls()
        self.lines = StepLines()
        self.buffers = BuffersPanel()
        self.code = CodeEditor()
        self.code.setMinimumWidth(200)
        self.code.setMaximumWidth(380)
        self.warp_view = WarpView()
        self.warp_view.setVisible(False)
        self.heat_scale = HeatScale()
        self.heat_scale.setVisible(False)
        self.timeline = Timeline()
        self.legend = execution_legend()
        self.info = InfoLine()
        self.key_strip = QLabel("")  # the stepping keys, in presenter mode
        self.key_strip.setObjectName("key-strip")
        self.key_strip.setWordWrap(True)
        self.key_strip.setStyleSheet(KEY_STRIP_STYLE)
        self.key_strip.setVisible(False)
        # A click anywhere in the view (a buffer's cells, the work-groups) gives it the focus,
        # out of a text field the stepping keys would otherwise type into.
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self._loose: tuple[QMargins, int, int] | None = None  # the desk's spacing
        self._lay_out()
        self._wire()

    def set_tight(self, on: bool) -> None:
        """The room view's spacing: its parts two pixels apart (at 1280×720 every row of
        pixels goes to the tiles, a talk's caption above them); the desk's as it was."""
        layout, lines = self._layout, self.lines.layout()
        assert lines is not None
        if self._loose is None:
            self._loose = (layout.contentsMargins(), layout.spacing(), lines.spacing())
        margins, spacing, between = self._loose
        if on:
            layout.setContentsMargins(2, 2, 2, 2)
            layout.setSpacing(2)
            lines.setSpacing(0)
        else:
            layout.setContentsMargins(margins)
            layout.setSpacing(spacing)
            lines.setSpacing(between)

    def _lay_out(self) -> None:
        """The controls and the lines of text above the buffers and the source; the warp,
        the heat map's scale, the timeline, the legend and the info line below."""
        layout = QVBoxLayout(self)
        self._layout = layout
        layout.addWidget(self.controls)
        layout.addWidget(self.lines)
        middle = QHBoxLayout()
        middle.addWidget(self.buffers, 5)
        middle.addWidget(self.code, 1)
        layout.addLayout(middle, 1)
        for widget in (
            self.warp_view,
            self.heat_scale,
            self.timeline,
            self.legend,
            self.info,
            self.key_strip,
        ):
            layout.addWidget(widget)

    def _wire(self) -> None:
        controls, buffers = self.controls, self.buffers
        controls.play_pressed.connect(self.toggle_play)
        controls.back.connect(self.step_back)
        controls.forward.connect(self.step_forward)
        controls.step_chosen.connect(self.set_step)
        controls.by_iteration_changed.connect(self._granularity_changed)
        controls.warp_toggled.connect(self._warp_toggled)
        controls.heat_toggled.connect(self._heat_toggled)
        self.timeline.step_clicked.connect(self.set_step)
        buffers.cell_hovered.connect(self._cell_hovered)
        buffers.cell_clicked.connect(self._cell_clicked)
        buffers.group_hovered.connect(self._group_hovered)
        buffers.group_clicked.connect(self._group_clicked)

    # -- set up ----------------------------------------------------------------------
    def set_playback(
        self,
        playback: Playback,
        source: str,
        arrays: dict[str, np.ndarray] | None = None,
    ) -> None:
        self.pause()
        self.playback = playback
        if arrays is not None:
            playback.set_arrays(arrays)
        playback.set_by_iteration(self.controls.by_iteration)
        self.show_source(source)
        self.pictures.forget()
        self.pictures.explained = None  # an explanation belongs to the trace it came from
        self.buffers.show_trace(playback)
        self._show_group()

    def set_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        """The run's inputs and output (role → array): the values drawn in the cells."""
        if self.playback is None:
            return
        held = self.playback.values.arrays
        if held.keys() == arrays.keys() and all(held[k] is arrays[k] for k in arrays):
            return  # the playback was made with these: nothing on screen changes
        self.playback.set_arrays(arrays)
        self.pictures.forget()
        self.redraw()

    def show_source(self, source: str) -> None:
        """The kernel's text beside the animation, numbered as its file is (through its
        ``#line`` directives), scrolled past its header to the code: shown from the moment
        the kernel is chosen, before any trace."""
        self.source_lines = split_lines(source)
        self.numbering = line_numbering(source)
        if self.code.toPlainText() != source:
            self.code.load(source)
            self.code.show_from(header_lines(source) + 1)  # the kernel, its header above

    def clear(self, message: str = READY) -> None:
        """Forget the trace (the configuration changed): nothing stale stays on screen. The
        source stays: it is the kernel's, which :meth:`show_source` is told of."""
        self.pause()
        self.playback = None
        self.pictures.explained = None
        self.buffers.clear()
        self.timeline.set_steps([], [])
        self.controls.show_steps(0)
        self.code.mark_lines([], LINE_MARK)
        self.warp_view.clear()
        self.lines.show_message(message)
        self.info.setText(" ")

    def set_caption(self, text: str) -> None:
        """A line above the animation that says what this stage of a talk shows."""
        self.lines.set_caption(text)

    def _show_group(self) -> None:
        """The selected group on the work-groups map, and its steps."""
        assert self.playback is not None
        self.buffers.show_groups(self.playback)
        self._show_steps()

    def _show_steps(self) -> None:
        """The selected group's steps on the timeline and the slider, at the cursor's."""
        pb = self.playback
        assert pb is not None
        group = pb.cursor.group_steps
        self.timeline.set_steps(
            [(s.phase, s.line) for s in pb.steps], group.barrier_steps() if group else []
        )
        self.controls.show_steps(len(pb.steps))
        self._show_step()

    # -- stepping ----------------------------------------------------------------------
    @property
    def current(self) -> int:
        """The step shown."""
        return self.playback.cursor.step if self.playback else 0

    @property
    def steps(self) -> int:
        return len(self.playback.steps) if self.playback else 0

    def set_step(self, index: int) -> None:
        if not self.playback or not self.playback.steps:
            return
        self.playback.cursor.go(index)
        self._show_step()

    def _show_step(self) -> None:
        """The cursor's step everywhere: slider, timeline, buffers, lines, source."""
        pb = self.playback
        if pb is None or not pb.steps:
            return
        cursor = pb.cursor
        self.controls.show_step(cursor.step)
        self.timeline.set_current(cursor.step)
        self.redraw()
        step = cursor.current
        self.lines.show_step(step, self._line_text(step.line))
        self.code.mark_lines([step.line], LINE_MARK)
        self.step_changed.emit(step.phase, step.line)

    def _line_text(self, line: int) -> str:
        """The text of the traced source's line ``line`` (as the trace numbers it, through the
        source's ``#line`` directives); "" where it has none."""
        physical = self.numbering.physical(line)
        return self.source_lines[physical - 1] if physical else ""

    def step_forward(self) -> None:
        pb = self.playback
        if pb is not None and pb.cursor.forward(self.controls.looping):
            self._show_step()
        else:
            self.pause()

    def step_back(self) -> None:
        if self.playback is not None and self.playback.steps:
            self.playback.cursor.back()
            self._show_step()

    def first_step(self) -> None:
        self.set_step(0)

    def last_step(self) -> None:
        self.set_step(self.steps - 1)

    def play(self) -> None:
        if self.steps:
            self.controls.play()

    def pause(self) -> None:
        self.controls.pause()

    def toggle_play(self) -> None:
        self.pause() if self.controls.playing else self.play()

    def _granularity_changed(self, by_iteration: bool) -> None:
        """Each pass or each line: the same phase stays on screen."""
        if self.playback is not None:
            self.playback.set_by_iteration(by_iteration)
            self._show_steps()

    def next_phase(self, count: int = 1) -> None:
        """To the first step of the next phase (past the next barrier), or ``count`` on
        (the last phase's first step at most)."""
        pb = self.playback
        if pb is None or not pb.steps:
            return
        at = pb.cursor.step
        for _ in range(count):
            phase = pb.steps[at].phase
            later = next((s.index for s in pb.steps[at + 1 :] if s.phase != phase), None)
            if later is None:
                break
            at = later
        if at != pb.cursor.step:
            self.set_step(at)

    def previous_phase(self, count: int = 1) -> None:
        """To the first step of the phase before this one, or ``count`` back (the first
        step at least)."""
        pb = self.playback
        if pb is None or not pb.steps:
            return
        at = _run_start(pb.steps, pb.cursor.step, lambda s: s.phase)
        for _ in range(count):
            if at == 0:
                break
            at = _run_start(pb.steps, at - 1, lambda s: s.phase)
        self.set_step(at)

    def next_line(self) -> None:
        """To the next step at another source line (the rest of this line's passes skipped)."""
        pb = self.playback
        if pb is None or not pb.steps:
            return
        now = pb.cursor.step
        line = pb.steps[now].line
        later = next((s.index for s in pb.steps[now + 1 :] if s.line != line), None)
        if later is not None:
            self.set_step(later)

    def previous_line(self) -> None:
        """To the first step of the source line run before this one."""
        pb = self.playback
        if pb is None or not pb.steps:
            return
        start = _run_start(pb.steps, pb.cursor.step, lambda s: s.line)
        self.set_step(_run_start(pb.steps, start - 1, lambda s: s.line) if start else 0)

    def set_key_strip(self, text: str) -> None:
        """The stepping keys under the animation (presenter mode); "" hides the strip."""
        self.key_strip.setText(text)
        self.key_strip.setVisible(bool(text))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.shown.emit(True)

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self.shown.emit(False)

    # -- what is drawn ------------------------------------------------------------------
    def _heat_toggled(self, on: bool) -> None:
        self.pictures.heat_mode = on
        self.heat_scale.setVisible(on)
        self.redraw()

    def _warp_toggled(self, on: bool) -> None:
        self.warp_view.setVisible(on)
        self.redraw()

    def cycle_colouring(self) -> None:
        """Colour every buffer's cells by this step's accesses (the default), by value, or
        by the work-item that last touched them; the next of the three each time."""
        colouring = COLOURINGS[(COLOURINGS.index(self.pictures.colouring) + 1) % len(COLOURINGS)]
        self.pictures.colouring = colouring
        self.info.setText("Colouring " + COLOURING_TEXT[colouring])
        self.redraw()

    @property
    def full_digits(self) -> bool:
        """Whether the followed work-item's values are written with every digit."""
        return self.lines.full_digits

    def switch_full_digits(self) -> None:
        """The followed work-item's values in its line with every digit (a cell shows the
        digits that fit it), or in five characters again: the keyboard's hover."""
        self.lines.full_digits = not self.lines.full_digits
        self.redraw()

    def redraw(self) -> None:
        """Every buffer, the watched work-item's reads and its warp at the cursor's step."""
        pb = self.playback
        if pb is None or not pb.steps:
            return
        scene = self.buffers.draw(pb, self.pictures)
        self.lines.show_reads(pb, scene.watched_now.records if scene.watched_now else None)
        who = pb.cursor.watched
        if who is not None and self.warp_view.isVisibleTo(self):
            self.warp_view.show_warp(pb, who)

    def highlighted(self, grid: Grid) -> tuple[np.ndarray, np.ndarray]:
        """(read, write) cells of the current step for one buffer (the binned grid)."""
        pb = self.playback
        assert pb is not None and pb.cursor.group_steps is not None
        records = pb.cursor.group_steps.step_records(pb.cursor.step)
        return pb.index.cell_masks(grid, records)

    def picture(self, buffer: int) -> np.ndarray:
        """The zoom window's picture of a buffer as drawn now: (rows, cols, 4)."""
        return self.buffers.canvases[buffer].pixels.copy()

    def zoom_window(self, buffer: int) -> Box:
        """The buffer's elements the zoom window shows now: (row0, row1, col0, col1)."""
        return self.buffers.canvases[buffer].frame.window

    # -- hover, clicks, findings -------------------------------------------------------------
    def _cell_hovered(self, grid: Grid, row: int, col: int) -> None:
        """Who touched the cell under the mouse; that work-item's accesses are drawn."""
        pb = self.playback
        if pb is None or not pb.steps:
            return
        if row < 0:
            pb.cursor.hover_wi = None
            self.info.setText(" ")
        else:
            pb.cursor.hover_wi = self.info.show_cell(pb, grid, row, col)
        self.redraw()

    def _cell_clicked(self, grid: Grid, row: int, col: int) -> None:
        """A click on a cell some work-item of the group touched selects that work-item:
        its reads are drawn at every step from now on."""
        pb = self.playback
        if pb is not None and pb.steps and pb.cursor.pick_work_item(grid, row, col):
            self.redraw()

    def _group_hovered(self, cell: int) -> None:
        pb = self.playback
        if pb is not None and cell >= 0:
            self.info.show_group(pb, _group_of_cell(pb, cell))

    def _group_clicked(self, cell: int) -> None:
        """A traced group is selected; another is asked to be traced."""
        pb = self.playback
        if pb is None:
            return
        group = _group_of_cell(pb, cell)
        if not self.select_group(group):
            self.group_requested.emit(*group)

    def select_group(self, group: tuple[int, int, int]) -> bool:
        if self.playback is None or not self.playback.select_group(group):
            return False
        self._show_group()
        return True

    # -- the work-item followed, for the keyboard -----------------------------------------
    @property
    def local_size(self) -> tuple[int, int] | None:
        """The work-group's size along x and y, or None without an animation."""
        if self.playback is None:
            return None
        lx, ly = (list(self.playback.trace.local_size) + [1, 1])[:2]
        return int(lx), int(ly)

    @property
    def followed(self) -> tuple[int, int] | None:
        """The local ids (x, y) of the work-item whose reads are drawn, or None."""
        size = self.local_size
        if self.playback is None or size is None or self.playback.cursor.selected_wi is None:
            return None
        wi = self.playback.cursor.selected_wi
        return wi % size[0], (wi // size[0]) % size[1]

    def select_work_item(self, local: tuple[int, int]) -> bool:
        """Follow the group's work-item with these local ids (x, y), as a click on a cell it
        touched does; False when the group has none such (outside its size, not traced)."""
        pb, size = self.playback, self.local_size
        if pb is None or size is None or pb.cursor.group_steps is None:
            return False
        x, y = local
        if not (0 <= x < size[0] and 0 <= y < size[1]):
            return False
        linear = x + size[0] * y
        if pb.cursor.group_steps.work_item(linear) is None:
            return False
        pb.cursor.selected_wi = linear
        pb.cursor.hover_wi = None
        self.redraw()
        return True

    def move_work_item(self, dx: int, dy: int) -> bool:
        """Follow the work-item next to the followed one (``dx``, ``dy`` local ids away),
        held inside the group; False when it stays (at the group's edge)."""
        size, now = self.local_size, self.followed
        if size is None:
            return False
        x, y = now if now is not None else (size[0] // 2, size[1] // 2)
        to = (max(0, min(x + dx, size[0] - 1)), max(0, min(y + dy, size[1] - 1)))
        return to != now and self.select_work_item(to)

    def show_finding(self, finding: Finding) -> None:
        """Jump to the finding's phase and line; mark its work-items and elements."""
        pb = self.playback
        if pb is None:
            return
        if pb.cursor.mark(finding):
            self._show_group()
        else:
            self._show_step()

    def show_explanation(self, marks: ExplainMarks) -> None:
        """Draw what flowed into an explained element over every buffer, at every step: the
        writing work-item's group selected, that work-item's reads drawn, the animation at
        the step where the first input that should not be there came in (else its store)."""
        pb = self.playback
        if pb is None:
            return
        self.pictures.explained = marks
        if marks.group is not None and pb.group != marks.group:
            self.select_group(marks.group)
        if marks.local is not None:
            pb.cursor.selected_wi = marks.local
            pb.cursor.hover_wi = None
        self.lines.set_caption(f"{marks.summary}  ·  {EXPLAIN_KEY}")
        step = _step_of(pb, marks.focus) if marks.focus is not None else None
        if step is not None:
            self.set_step(step)
        else:
            self.redraw()

    def clear_explanation(self) -> None:
        """No element explained any more: its marks and caption go."""
        if self.pictures.explained is None:
            return
        self.pictures.explained = None
        self.lines.set_caption("")
        self.redraw()

    @property
    def explained(self) -> ExplainMarks | None:
        return self.pictures.explained


def _step_of(pb: Playback, record: int) -> int | None:
    """The step of the selected group at which a record of it happens."""
    group = pb.cursor.group_steps
    if group is None:
        return None
    hit = np.flatnonzero(group.columns.records == record)
    return int(group.columns.step[hit[0]]) if hit.size else None


def _run_start(steps: list[Step], at: int, key: Callable[[Step], int]) -> int:
    """The first step of the run of steps, ending at ``at``, that share ``key`` (a phase, a
    line) with it."""
    value = key(steps[at])
    while at > 0 and key(steps[at - 1]) == value:
        at -= 1
    return at


def _group_of_cell(pb: Playback, cell: int) -> tuple[int, int, int]:
    """The work-group a cell of the work-groups map stands for."""
    gx = pb.index.num_groups[0]
    return cell % gx, cell // gx, 0


def run_arrays(result: RunResult) -> dict[str, np.ndarray]:
    """The arrays a run carries, by buffer name: its inputs, then every result as the run
    left it (what the execution view draws as values while ``Trace.values`` is empty)."""
    return {**(result.inputs or {}), **(result.outputs or {})}
