"""The kernel on screen: its source follows the configuration, a finding or a build-log line
selected shows its line, and a new variant takes the old trace and its marks off the screen,
so nothing on screen belongs to another kernel."""

from __future__ import annotations

from explorer.gui.controllers.roles import (
    Animation,
    Pages,
    ResultShower,
    SourceMarks,
    StatusLine,
    Worker,
)
from explorer.gui.model import ConfigModel
from explorer.gui.state import AppState
from explorer.trace.recorded import Finding

MARK = "#f9e79f"  # a line chosen: the current step's, a finding's, a build message's


class NavigationController:
    """Keeps the source, the animation and the result's badge on the current kernel, and
    moves between a finding, its line and its step."""

    def __init__(
        self,
        model: ConfigModel,
        state: AppState,
        worker: Worker,
        source: SourceMarks,
        execution: Animation,
        result: ResultShower,
        status: StatusLine,
        pages: Pages,
    ) -> None:
        self.model = model
        self.state = state
        self.worker = worker
        self.source = source
        self.execution = execution
        self.result = result
        self.status = status
        self.pages = pages
        self._variant_key = self._key()
        model.variant_changed.connect(self._variant_changed)
        self._show_source()

    def _key(self) -> tuple[str, str]:
        variant = self.model.variant
        return (variant.qualified_id, str(variant.path))

    def _show_source(self) -> None:
        v = self.model.variant
        self.source.show_source(f"<b>{v.name}</b> — {v.path}", v.source)

    def _variant_changed(self) -> None:
        """A new variant: the old trace, its highlighted line and banners leave the screen.
        A new version of the same kernel file (it was saved) keeps them: it is traced again
        and shown at the same group and phase."""
        self._show_source()
        key = self._key()
        if key == self._variant_key:
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
