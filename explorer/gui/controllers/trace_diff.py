"""Compare with…: trace the configuration on screen and a reference kernel at the same launch,
and show where the kernel's accesses part from the reference's (the trace diff).

What a person sees comes from the trace itself: each work-group's first difference is a
``differs`` finding at its line (the Findings tab; F8 and Enter jump to it), and the execution
view boxes the cells of each work-item's first differing access at the step it happens
(:meth:`Playback.set_differing`). This controller starts the comparison, says its verdict
on the status line and above the animation, and tells whoever asked (``compared``).

For another piece of the app, the entry is :meth:`TraceDiffController.compare_with`: a
reference kernel (a :class:`~explorer.engine.records.Variant`, a kernel file or
``FAMILY/VARIANT``) in, the comparison out through the ``compared`` signal once the trace is
on screen; :meth:`TraceDiffController.show_compared` shows a trace run made against a
reference elsewhere (an exercise's grade), told the same way.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from explorer.engine.record.trace_against import Against
from explorer.engine.record.trace_launch import TracedRun
from explorer.engine.records import Variant
from explorer.gui.actions import Action, Actions
from explorer.gui.controllers.roles import Animation, StatusLine
from explorer.gui.controllers.traces import TraceController
from explorer.gui.model import ConfigModel
from explorer.gui.state import AppState
from explorer.paths import kernels_dir
from explorer.selection import UsageError, reference_variant

FILTER = "OpenCL kernels (*.cl *.sim);;All files (*)"


class TraceDiffController(QObject):
    """Starts a trace compared with a reference kernel and reports the comparison."""

    # The comparison (an explorer.engine.record.trace_against.Against) of the trace now on
    # screen: its ``diff`` (None with ``refused`` saying why) names the first difference.
    compared = Signal(object)

    def __init__(
        self,
        model: ConfigModel,
        state: AppState,
        traces: TraceController,
        execution: Animation,
        status: StatusLine,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__()
        self.model = model
        self.state = state
        self.traces = traces
        self.execution = execution
        self.status = status
        self.parent_widget = parent
        self._captioned = False  # the caption above the animation is this controller's
        traces.trace_shown.connect(self._shown)

    def compare_with(self, reference: Variant | str) -> bool:
        """Trace the configuration on screen and ``reference`` at the same launch (sizes,
        local size, defines, input, device) and show where they part. ``reference``: a
        variant, a kernel file with a header, an Oclgrind ``.sim`` file, or
        ``FAMILY/VARIANT``. False (and the status line says why) when it cannot be compared;
        otherwise the result comes through ``compared`` once the trace is on screen."""
        try:
            variant = (
                reference
                if isinstance(reference, Variant)
                else reference_variant(reference, self.model.variant)
            )
        except UsageError as exc:
            self.status.say(f"Cannot compare: {exc}")
            return False
        if not self.state.runnable:
            self.status.say(f"Cannot compare: {self.model.variant.name} cannot be traced as set up")
            return False
        if variant.family != self.model.variant.family:
            self.status.say(
                f"Cannot compare with a {variant.family} kernel: this one is a "
                f"{self.model.variant.family} kernel"
            )
            return False
        self.status.say(f"Tracing {self.model.variant.qualified_id} and {variant.name} …")
        self.traces.trace(against=variant)
        return True

    def show_compared(self, traced: TracedRun) -> None:
        """Show a trace run made against a reference elsewhere (an exercise's grade): its
        comparison comes through ``compared`` once it is on screen, as after
        :meth:`compare_with`."""
        self.traces.show_traced(traced)

    def choose_reference(self) -> None:
        """Compare with…: ask for a reference kernel file, then compare with it."""
        folder = kernels_dir() / self.model.variant.family
        path, _ = QFileDialog.getOpenFileName(
            self.parent_widget, "Compare the trace with a reference kernel", str(folder), FILTER
        )
        if path:
            self.compare_with(path)

    def _shown(self) -> None:
        """A trace is on screen: the comparison's verdict, or no caption of ours."""
        traced = self.state.traced
        against = getattr(traced, "against", None)
        if not isinstance(against, Against):
            if self._captioned:
                self.execution.set_caption("")
                self._captioned = False
            return
        text = verdict(against)
        self.execution.set_caption(text)
        self._captioned = True
        self.status.say(text)
        self.compared.emit(against)


def verdict(against: Against) -> str:
    """One line for the status bar and above the animation."""
    diff = against.diff
    if diff is None:
        return f"Not compared with {against.reference}: {against.refused}"
    if diff.identical and not diff.complete:
        return (
            f"No difference from {against.reference} in the accesses recorded: a trace is "
            "incomplete, so accesses it did not record were not compared."
        )
    if diff.identical:
        return (
            f"Same accesses as {against.reference}: every work-item of "
            f"{diff.groups_compared} work-group(s) made them in the same order and phases."
        )
    first = diff.first
    assert first is not None
    # No line where the first work-item that parts makes no access at all.
    where = f"line {first.line}" if first.line is not None else "its first access"
    return (
        f"Parts from {against.reference} first at {where}, phase {first.phase} "
        f"({diff.groups_differing} of {diff.groups_compared} work-group(s)): "
        "boxed cells are each work-item's first access that differs."
    )


ACTIONS = Actions(
    TraceDiffController,
    Action(
        "compare_trace",
        "Co&mpare trace with…",
        "&Run",
        TraceDiffController.choose_reference,
        ("Ctrl+Shift+T",),
        "Trace this configuration and a reference kernel at the same launch; mark where the "
        "accesses part from the reference's",
        order=35,
        enabled_when=lambda app: app.state.runnable,
    ),
)
