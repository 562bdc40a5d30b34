"""What the application knows besides the configuration: results, trace, history, tour.

No widgets here. The configuration (device, variant, sizes, …) lives in
:class:`explorer.gui.model.ConfigModel`; this is everything the session has produced or is
in the middle of, which the controllers write and the views are told to show.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from explorer.engine.record.trace_launch import TracedRun
from explorer.engine.records import RunResult
from explorer.trace.playback import Playback

Group = tuple[int, int, int]


@dataclass
class AppState:
    """The session's results and modes; one instance per window."""

    notice: str | None = None  # a note kept in the status bar (settings reset, session device)
    result: RunResult | None = None  # the newest run shown
    last_good: RunResult | None = None  # the newest run that verified or came out wrong
    history: list[RunResult] = field(default_factory=list)  # every run, for exports
    comparison: list[RunResult] = field(default_factory=list)  # the current "compare all"
    traced: TracedRun | None = None  # the newest trace
    playback: Playback | None = None  # the animation of that trace
    pending_group: Group | None = None  # the group the running trace was asked to centre on
    keep_view: tuple[Group | None, int] | None = None  # group and phase to restore after reload
    oclgrind: object | None = None  # the newest Oclgrind verdict (or the error text)
    presenting: bool = False
    tour_stage: int = -1  # -1: no tour; past the last stage: the tour's closing words
    tour_results: list[RunResult] = field(default_factory=list)
    user_headers: dict[str, str] = field(default_factory=dict)  # headers of header-less files
    reloads: int = 0  # how often a watched kernel was reloaded

    def remember(self, result: RunResult) -> None:
        """Add a run to the history: its figures, never its arrays (a 768³ run's arrays are
        megabytes, and a session runs hundreds of times)."""
        self.history.append(result.without_arrays())

    @property
    def touring(self) -> bool:
        """Whether the guided tour owns the timing bars."""
        return self.tour_stage >= 0
