"""What the application knows besides the configuration: results, trace, history, tour.

No widgets here, and no Qt: the configuration (device, variant, sizes, …) lives in
:class:`explorer.gui.model.ConfigModel`; this is everything the session has produced or is
in the middle of. Controllers write it; each field a view shows is observed
(:mod:`explorer.gui.events`): the window subscribes the views to ``state.events.<field>``
once, and the actions re-read their enablement on ``state.events.changed``.
"""

from __future__ import annotations

from explorer.engine.record.trace_launch import TracedRun
from explorer.engine.records import Refusal, RunResult
from explorer.gui.events import Event, Evented, Events, Observed
from explorer.trace.playback import Playback

Group = tuple[int, int, int]


class StateEvents(Events):
    """An event per observed field of :class:`AppState`, told the field's new value."""

    notice: Event[str | None]
    result: Event[RunResult | None]
    history: Event[tuple[RunResult, ...]]
    comparison: Event[tuple[RunResult, ...]]
    traced: Event[TracedRun | None]
    playback: Event[Playback | None]
    oclgrind: Event[object | None]
    presenting: Event[bool]
    tour_stage: Event[int]
    tour_results: Event[tuple[RunResult, ...]]
    runnable: Event[bool]
    refusal: Event[Refusal | None]
    working: Event[bool]
    hint: Event[str | None]
    exercise: Event[str | None]


class AppState(Evented):
    """The session's results and modes; one instance per window."""

    events: StateEvents

    notice = Observed[str | None](None)  # kept in the status bar (settings reset, device)
    result = Observed[RunResult | None](None)  # the newest run shown
    history = Observed[tuple[RunResult, ...]](())  # every run, for exports and the roofline
    comparison = Observed[tuple[RunResult, ...]](())  # the current "compare all"
    traced = Observed[TracedRun | None](None)  # the newest trace
    playback = Observed[Playback | None](None)  # the animation of that trace
    oclgrind = Observed[object | None](None)  # the newest Oclgrind verdict (or the error text)
    presenting = Observed[bool](False)
    tour_stage = Observed[int](-1)  # -1: no tour; past the last stage: the closing words
    tour_results = Observed[tuple[RunResult, ...]](())
    runnable = Observed[bool](False)  # the configuration passed validation: Run can act
    refusal = Observed[Refusal | None](None)  # why it did not, when it did not
    working = Observed[bool](False)  # work in flight that Cancel can stop
    # What is ready to run, said on the result while nothing has run in this configuration
    # (None once something runs); the result adds how to run it, or why Run is disabled.
    hint = Observed[str | None](None)
    exercise = Observed[str | None](None)  # the exercise open (its name), None when none

    def __init__(self) -> None:
        self.events = StateEvents(self.observed())
        self.last_good: RunResult | None = None  # the newest run that verified or was wrong
        self.pending_group: Group | None = None  # the group the running trace centres on
        self.keep_view: tuple[Group | None, int] | None = None  # group, phase after a reload
        self.user_headers: dict[str, str] = {}  # headers of header-less files, by path
        self.reloads = 0  # how often a watched kernel was reloaded
        # Work asked for up to this worker generation belongs to an earlier configuration:
        # what it returns is remembered, never shown.
        self.stale_up_to = 0

    def remember(self, result: RunResult) -> None:
        """Add a run to the history: its figures, never its arrays (a 768³ run's arrays are
        megabytes, and a session runs hundreds of times)."""
        self.history = (*self.history, result.without_arrays())

    @property
    def touring(self) -> bool:
        """Whether the guided tour owns the timing bars."""
        return self.tour_stage >= 0

    @property
    def overridable(self) -> bool:
        """Whether only the kernel's own constraints refuse the configuration (Run anyway)."""
        return not self.runnable and self.refusal is not None and self.refusal.overridable
