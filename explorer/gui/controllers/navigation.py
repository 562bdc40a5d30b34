"""The kernel on screen: its source follows the configuration, a finding or a build-log line
selected shows its line, and a new variant takes the old trace and its marks off the screen,
so nothing on screen belongs to another kernel. The Step menu: first and last step, the next
and previous phase (barrier) and source line, the next and previous finding, and the
work-item followed (typed, or the one beside it: the keyboard's click on a cell)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QInputDialog

from explorer.gui.actions import Action, Actions, AppContext
from explorer.gui.controllers.roles import (
    Animation,
    Page,
    Pages,
    ResultShower,
    SourceMarks,
    StatusLine,
    Worker,
)
from explorer.gui.controllers.traces import parse_ids
from explorer.gui.model import ConfigModel
from explorer.gui.state import AppState
from explorer.gui.value_text import DIGITS_KEY
from explorer.trace.recorded import Finding

MARK = "#f9e79f"  # a line chosen: the current step's, a finding's, a build message's


class Switches(Protocol):
    """The animation's switches and speed (its playback controls)."""

    def switch(self, name: str) -> None: ...

    def switched(self, name: str) -> bool: ...

    def change_speed(self, steps: int) -> None: ...


class Stepper(Animation, Protocol):
    """The execution view, with its phase and line keys and its switches."""

    @property
    def controls(self) -> Switches: ...

    def next_phase(self, count: int = 1) -> None: ...

    def previous_phase(self, count: int = 1) -> None: ...

    def next_line(self) -> None: ...

    def previous_line(self) -> None: ...

    @property
    def local_size(self) -> tuple[int, int] | None: ...

    @property
    def followed(self) -> tuple[int, int] | None: ...

    def select_work_item(self, local: tuple[int, int]) -> bool: ...

    def move_work_item(self, dx: int, dy: int) -> bool: ...

    @property
    def full_digits(self) -> bool: ...

    def switch_full_digits(self) -> None: ...


class FindingsList(Protocol):
    """The findings list: its selection moved (a finding selected is shown)."""

    def select_next(self, delta: int) -> bool: ...


class NavigationController:
    """Keeps the source, the animation and the result's badge on the current kernel, and
    moves between a finding, its line and its step."""

    def __init__(
        self,
        model: ConfigModel,
        state: AppState,
        worker: Worker,
        source: SourceMarks,
        execution: Stepper,
        result: ResultShower,
        status: StatusLine,
        pages: Pages,
        findings: FindingsList | None = None,
    ) -> None:
        self.model = model
        self.state = state
        self.worker = worker
        self.source = source
        self.execution = execution
        self.result = result
        self.status = status
        self.pages = pages
        self.findings = findings
        self._variant_key = self._key()
        model.variant_changed.connect(self._variant_changed)
        self._show_source()

    def _key(self) -> tuple[str, str]:
        variant = self.model.variant
        return (variant.qualified_id, str(variant.path))

    def _show_source(self, beside_animation: bool = True) -> None:
        """The kernel's text in the source tab and (``beside_animation``) in the execution
        view, from the moment it is chosen."""
        v = self.model.variant
        self.source.show_source(f"<b>{v.name}</b> — {v.path}", v.source, v.log_name)
        if beside_animation:
            self.execution.show_source(v.source)

    def _variant_changed(self) -> None:
        """A new variant: the old trace, its highlighted line and banners leave the screen.
        A new version of the same kernel file (it was saved) keeps them: it is traced again
        and shown at the same group and phase, and its text comes beside the animation with
        that trace (the line marked until then is the old text's)."""
        key = self._key()
        same = key == self._variant_key
        self._show_source(beside_animation=not same or self.state.playback is None)
        if same:
            return
        self._variant_key = key
        variant = self.model.variant
        self.state.playback = None
        self.execution.clear(f"{variant.name}: trace it (Ctrl+T) to watch it run.")
        self.source.mark_lines([])
        if not self.worker.busy:
            self.result.set_badge(f"{variant.name}: press Run (Ctrl+R).")
            self.status.say("")

    def show_finding(self, finding: Finding) -> None:
        """A finding selected: the animation jumps to its phase and line, its work-items and
        elements marked; without a trace to play, the source shows the line."""
        if self.state.playback is None:
            return
        self.execution.show_finding(finding)
        if finding.line:
            self.source.mark_lines([finding.line], MARK)
        self.pages.show_page("execution")

    def goto_line(self, line: int) -> None:
        """A line named by a finding, a site or the build log: marked, the source in front."""
        self.source.mark_lines([line], MARK)
        self.pages.show_page("source")

    def step_shown(self, _phase: int, line: int) -> None:
        """The animation's step: its line marked in the source too."""
        self.source.mark_lines([line], MARK)

    # -- the Step menu ---------------------------------------------------------------------
    def first_step(self) -> None:
        self.execution.first_step()

    def last_step(self) -> None:
        self.execution.last_step()

    def next_phase(self) -> None:
        self.execution.next_phase()

    def previous_phase(self) -> None:
        self.execution.previous_phase()

    def ten_phases_on(self) -> None:
        self.execution.next_phase(10)

    def ten_phases_back(self) -> None:
        self.execution.previous_phase(10)

    def next_line(self) -> None:
        self.execution.next_line()

    def previous_line(self) -> None:
        self.execution.previous_line()

    # -- the work-item followed, for the keyboard (a click on a cell picks one) -----------
    def go_to_work_item(self) -> None:
        """The work-item whose reads are drawn, its local ids typed ("3, 5")."""
        size, now = self.execution.local_size, self.execution.followed
        group = self.state.playback.group if self.state.playback is not None else None
        if size is None or group is None:
            return
        lx, ly = size
        x, y = now if now is not None else (lx // 2, ly // 2)
        text, ok = QInputDialog.getText(
            QApplication.activeWindow(),
            "Go to work-item",
            f"Work-item (x, y) of work-group ({group[0]}, {group[1]}): "
            f"0 to {lx - 1}, 0 to {ly - 1}",
            text=f"{x}, {y}",
        )
        if not ok:
            return
        local = parse_ids(text, size)
        if local is None or not self.execution.select_work_item(local):
            self.status.say(
                f"No work-item {text.strip()!r} in this work-group: x from 0 to {lx - 1}, "
                f"y from 0 to {ly - 1}"
            )

    def work_item_left(self) -> None:
        self.execution.move_work_item(-1, 0)

    def work_item_right(self) -> None:
        self.execution.move_work_item(1, 0)

    def work_item_up(self) -> None:
        self.execution.move_work_item(0, -1)

    def work_item_down(self) -> None:
        self.execution.move_work_item(0, 1)

    # -- the switches of the animation, for the keyboard (the Step menu) ---------------
    def switch_lines(self) -> None:
        self.execution.controls.switch("lines")

    def switch_loop(self) -> None:
        self.execution.controls.switch("loop")

    def switch_warp(self) -> None:
        self.execution.controls.switch("warp")

    def switch_heat(self) -> None:
        self.execution.controls.switch("heat")

    def switch_full_digits(self) -> None:
        self.execution.switch_full_digits()

    def faster(self) -> None:
        self.execution.controls.change_speed(1)

    def slower(self) -> None:
        self.execution.controls.change_speed(-1)

    def next_finding(self) -> None:
        """The next finding selected, and shown at its phase and line."""
        self._step_finding(1)

    def previous_finding(self) -> None:
        self._step_finding(-1)

    def _step_finding(self, delta: int) -> None:
        """A finding ``delta`` on selected; without one, the status bar says why (F8 is never
        silent)."""
        if self.findings is not None and self.findings.select_next(delta):
            return
        traced = self.state.traced
        if traced is None or traced.analysis is None:
            self.status.say("Trace a kernel first (Ctrl+T): no findings to go to")
        else:
            self.status.say(f"No findings in this trace of {traced.result.variant}")

    # -- the View menu's tabs --------------------------------------------------------------
    def show_tab(self, page: Page) -> None:
        """A tab in front, its view taking the keys: the findings list its arrows and
        Enter, the source its cursor, the animation its stepping keys (a text field of the
        configuration would keep them)."""
        self.pages.show_page(page)
        self.pages.page(page).setFocus(Qt.FocusReason.ShortcutFocusReason)


def _tabbed(app: AppContext) -> bool:
    return not app.state.presenting  # presenter mode shows its views side by side


def _tab(
    key: str, text: str, page: Page, shortcut: str, order: int
) -> Action[NavigationController]:
    """A View menu command that brings one tab to the front."""
    return Action(
        key, text, "&View", lambda c: c.show_tab(page), (shortcut,),
        f"The {text.replace('&', '')} tab in front, its view taking the keys",
        section=2, order=order, enabled_when=_tabbed,
    )  # fmt: skip


def _animated(app: AppContext) -> bool:
    return app.state.playback is not None


def _step(
    key: str,
    text: str,
    handler: Callable[[NavigationController], object],
    keys: tuple[str, ...],
    tip: str,
    order: int,
    section: int = 1,
) -> Action[NavigationController]:
    """A command of the Step menu (section 1: stepping; 4: the work-item followed), enabled
    while there is an animation."""
    return Action(
        key, text, "&Step", handler, (), tip, section=section, order=order,
        enabled_when=_animated, keys=keys,
    )  # fmt: skip


def _switch(
    key: str,
    text: str,
    handler: Callable[[NavigationController], object],
    name: str,
    tip: str,
    order: int,
) -> Action[NavigationController]:
    """A switch of the animation (a check box or a two-way choice above it), checked in the
    Step menu while it is on: how a keyboard reaches it."""
    return Action(
        key, text, "&Step", handler, (), tip, section=3, order=order,
        checked=lambda controller: controller.execution.controls.switched(name),
    )  # fmt: skip


ACTIONS = Actions(
    NavigationController,
    _tab("tab_result", "&Result", "result", "Ctrl+1", 1),
    _tab("tab_execution", "&Execution", "execution", "Ctrl+2", 2),
    _tab("tab_timing", "Ti&ming", "timing", "Ctrl+3", 3),
    _tab("tab_source", "Kernel &source", "source", "Ctrl+4", 4),
    _tab("tab_findings", "&Findings", "findings", "Ctrl+5", 5),
    _tab("tab_roofline", "R&oofline", "roofline", "Ctrl+6", 6),
    _tab("tab_sweep", "S&weep", "sweep", "Ctrl+7", 7),
    _step(
        "first_step",
        "F&irst step",
        NavigationController.first_step,
        ("Home",),
        "The animation's first step",
        10,
    ),
    _step(
        "last_step",
        "La&st step",
        NavigationController.last_step,
        ("End",),
        "The animation's last step",
        11,
    ),
    _step(
        "next_phase",
        "&Next phase",
        NavigationController.next_phase,
        ("PgDown",),
        "Past the next barrier: the first step of the next phase",
        20,
    ),
    _step(
        "previous_phase",
        "&Previous phase",
        NavigationController.previous_phase,
        ("PgUp",),
        "The first step of the phase before this one",
        21,
    ),
    _step(
        "ten_phases_on",
        "&Ten phases on",
        NavigationController.ten_phases_on,
        ("Shift+PgDown",),
        "Ten barriers on: five tiles further along K in a tiled product",
        22,
    ),
    _step(
        "ten_phases_back",
        "Ten phases bac&k",
        NavigationController.ten_phases_back,
        ("Shift+PgUp",),
        "Ten barriers back",
        23,
    ),
    _step(
        "next_line",
        "Next &line",
        NavigationController.next_line,
        ("]", "Ctrl+Down"),
        "The next step at another source line (the rest of this line's passes skipped)",
        30,
    ),
    _step(
        "previous_line",
        "Previous lin&e",
        NavigationController.previous_line,
        ("[", "Ctrl+Up"),
        "The first step of the source line before this one",
        31,
    ),
    Action(
        "next_finding",
        "Next fin&ding",
        "&Step",
        NavigationController.next_finding,
        ("F8",),
        "The next finding of the trace, shown at its phase and line with its work-items marked",
        section=2,
    ),
    Action(
        "previous_finding",
        "Previous findin&g",
        "&Step",
        NavigationController.previous_finding,
        ("Shift+F8",),
        "The previous finding of the trace, shown at its phase and line",
        section=2,
    ),
    _switch(
        "each_line",
        "Step ea&ch line (not each pass)",
        NavigationController.switch_lines,
        "lines",
        "One step per source line and phase instead of one per pass of a loop body",
        40,
    ),
    _switch("loop", "Pla&y in a loop", NavigationController.switch_loop, "loop", "Round again", 41),
    _switch(
        "warp",
        "&Warp",
        NavigationController.switch_warp,
        "warp",
        "The selected work-item's warp: its 32 addresses, the sectors or banks they touch",
        42,
    ),
    _switch(
        "heat_map",
        "&Heat map",
        NavigationController.switch_heat,
        "heat",
        "Global loads per element over every traced group, instead of this step's accesses",
        43,
    ),
    Action(
        "full_digits",
        "&Values in full",
        "&Step",
        NavigationController.switch_full_digits,
        (DIGITS_KEY,),
        "The followed work-item's values in the line above the buffers with every digit (a "
        "cell writes the digits that fit it, then the mark)",
        section=3,
        order=44,
        checked=lambda controller: controller.execution.full_digits,
    ),
    Action(
        "faster",
        "Faste&r",
        "&Step",
        NavigationController.faster,
        (),
        "Play twice as fast (up to 8×)",
        section=3,
        order=44,
    ),
    Action(
        "slower",
        "Sl&ower",
        "&Step",
        NavigationController.slower,
        (),
        "Play half as fast (down to 0.5×)",
        section=3,
        order=45,
    ),
    Action(
        "go_to_work_item",
        "Go to work-ite&m…",
        "&Step",
        NavigationController.go_to_work_item,
        ("Ctrl+Shift+J",),
        "Follow another work-item of the group: its local x and y typed (a click on a cell "
        "it touched does the same)",
        section=4,
        order=110,
        enabled_when=_animated,
    ),
    _step(
        "work_item_left",
        "Work-item to the left",
        NavigationController.work_item_left,
        ("Shift+Left",),
        "Follow the work-item before this one along x",
        120,
        section=4,
    ),
    _step(
        "work_item_right",
        "Work-item to the right",
        NavigationController.work_item_right,
        ("Shift+Right",),
        "Follow the work-item after this one along x",
        121,
        section=4,
    ),
    _step(
        "work_item_up",
        "Work-item above",
        NavigationController.work_item_up,
        ("Shift+Up",),
        "Follow the work-item before this one along y",
        122,
        section=4,
    ),
    _step(
        "work_item_down",
        "Work-item below",
        NavigationController.work_item_down,
        ("Shift+Down",),
        "Follow the work-item after this one along y",
        123,
        section=4,
    ),
)
