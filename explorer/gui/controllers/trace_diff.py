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

Any kernel the window can open is a reference: one without a header goes through the
open-kernel dialog, as File ▸ Open kernel takes it (its answers proposed again next time).
What stops a comparison is said in a message box, in the window's words.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from explorer.engine.header.catalog import CatalogError, find_variant
from explorer.engine.record.trace_against import Against, reference_name
from explorer.engine.record.trace_launch import TracedRun
from explorer.engine.records import Variant
from explorer.gui.actions import Action, Actions
from explorer.gui.controllers.roles import Animation, StatusLine
from explorer.gui.controllers.traces import TraceController
from explorer.gui.model import ConfigModel
from explorer.gui.state import AppState
from explorer.paths import kernels_dir

FILTER = "OpenCL kernels (*.cl *.sim);;All files (*)"
TITLE = "Cannot compare the trace"


class KernelFiles(Protocol):
    """Reads a kernel file as File ▸ Open kernel does (the dialog for one without a header)."""

    def kernel_for(
        self, path: str, title: str, compared_with: Variant | None = None
    ) -> Variant | None: ...


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
        files: KernelFiles | None = None,
    ) -> None:
        super().__init__()
        self.files = files
        self._asked: Variant | None = None  # the reference of the comparison asked for here
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
        variant, a kernel file (with a header, an Oclgrind ``.sim`` file, or without a header:
        the open-kernel dialog asks what it needs), or ``FAMILY/VARIANT``. False (a message box
        says why) when it cannot be compared; otherwise the result comes through ``compared``
        once the trace is on screen."""
        mine = self.model.variant
        if not self.state.runnable:  # said before a reference is asked for
            why = self.state.refusal.reason if self.state.refusal is not None else ""
            return self._refuse(
                f"{mine.name} cannot be traced as it is set up"
                + (f": {why.rstrip('.')}." if why else ".")
                + " Change the configuration, then compare again."
            )
        if isinstance(reference, Variant):
            variant: Variant | None = reference
        elif Path(reference.strip()).is_file():
            variant = self._from_file(reference.strip())
            if variant is None:
                return False
        else:
            variant = self._from_catalog(reference.strip())
        if variant is None:
            return False
        if variant.family != mine.family:
            return self._refuse(
                f"{_named(variant)} is a {variant.family} kernel, and {mine.name} on screen a "
                f"{mine.family} kernel. A comparison traces both at the same launch (the same "
                "sizes, buffers and local size), so the reference must be a kernel of the same "
                "family."
            )
        self.status.say(f"Tracing {mine.qualified_id} and {variant.name} …")
        self._asked = variant
        self.traces.trace(against=variant)
        return True

    def _from_file(self, path: str) -> Variant | None:
        """A kernel file, read as File ▸ Open kernel reads it; None (said) where it is not."""
        if self.files is None:
            self._refuse(f"{Path(path).name} cannot be read here.")
            return None
        return self.files.kernel_for(path, TITLE, compared_with=self.model.variant)

    def _from_catalog(self, name: str) -> Variant | None:
        """``FAMILY/VARIANT``, or a variant of the family on screen."""
        family, _, variant_id = name.rpartition("/")
        try:
            return find_variant(family or self.model.variant.family, variant_id)
        except CatalogError as exc:
            self._refuse(f"No kernel file and no shipped kernel {name!r}: {exc}.")
            return None

    def _refuse(self, text: str) -> bool:
        """Say why there is no comparison, in a message box and on the status line."""
        self.status.say(f"Not compared: {text}")
        QMessageBox.warning(self.parent_widget, TITLE, text)
        return False

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
        asked, self._asked = self._asked, None
        if not isinstance(against, Against):
            if self._captioned:
                self.execution.set_caption("")
                self._captioned = False
            return
        text = verdict(against)
        self.execution.set_caption(text)
        self._captioned = True
        self.status.say(text)
        if against.diff is None and asked is not None:  # asked for here, and none came
            QMessageBox.warning(self.parent_widget, TITLE, text)
        self.compared.emit(against)


def _named(variant: Variant) -> str:
    """A kernel as the person chose it: its catalog id, or its file's name."""
    name = reference_name(variant)
    return Path(name).name if name == variant.path else name


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
