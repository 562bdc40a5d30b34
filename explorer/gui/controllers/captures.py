"""Captures in the window: File ▸ Open capture (or a capture folder dropped on the window)
lists the launches of a captured program; choosing one makes it the kernel on screen with
exactly its captured inputs, traces and animates it, and says whether it matches what it
left in the original run, and where not."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import numpy as np
from PySide6.QtCore import QObject, Qt, QTimer, SignalInstance
from PySide6.QtWidgets import QDockWidget, QFileDialog, QMainWindow, QMessageBox

from explorer.capture.bootstrap.recorder import JOURNAL
from explorer.capture.folder import CAPTURE_FILE, Capture, CaptureError, load_capture
from explorer.capture.includes import capture_outside
from explorer.capture.replay import replay, save_launch
from explorer.engine.header.catalog import CatalogError
from explorer.engine.record.trace_launch import TracedRun
from explorer.engine.records import RunResult
from explorer.gui.actions import Action, Actions
from explorer.gui.capture_view import CaptureView
from explorer.gui.controllers.roles import Runner, StatusLine, Tracer
from explorer.gui.model import ConfigModel
from explorer.gui.state import AppState

# The elements a differing verdict names (the rest are counted).
NAMED_ELEMENTS = 4
DEVICE_WAIT_MS = 250
TIMELINE_HEIGHT = 260  # pixels
ROOM_BELOW = 860  # the window's height (pixels) under which the timeline is a tab on the left


class Timeline(Protocol):
    """What the controller needs of the capture's timeline (:class:`CaptureView`)."""

    launch_chosen: SignalInstance
    run_requested: SignalInstance
    trace_requested: SignalInstance
    check_requested: SignalInstance
    save_requested: SignalInstance

    def show_capture(self, capture: Capture) -> None: ...

    def select(self, number: int) -> None: ...

    def show_verdict(self, text: str, kind: str = ...) -> None: ...

    def show(self) -> None: ...

    def hide(self) -> None: ...

    def raise_(self) -> None: ...


class Checker(Protocol):
    def check_with_oclgrind(self) -> None: ...


def is_capture(path: str) -> bool:
    """Whether ``path`` is a capture folder (or its ``capture.json``)."""
    where = Path(path)
    if where.is_file() and where.name == CAPTURE_FILE:
        where = where.parent
    return where.is_dir() and ((where / CAPTURE_FILE).is_file() or (where / JOURNAL).is_file())


def differing_elements(result: RunResult, count: int) -> list[str]:
    """The ``count`` elements (at most) where the replay parts most from the original run,
    relative to the element's size (the order the verdict's tolerance ranks them in), e.g.
    ``W[3] = 7 (was 12)``."""
    outputs, references = result.outputs or {}, result.references or {}
    found: list[tuple[float, str]] = []
    for name, output in outputs.items():
        reference = references.get(name)
        if reference is None or np.shape(reference) != np.shape(output):
            continue
        got = np.asarray(output, dtype=np.float64)
        want = np.asarray(reference, dtype=np.float64)
        diff = np.where(np.isnan(got) & np.isnan(want), 0.0, np.abs(got - want))
        diff = np.where(np.isnan(diff), np.inf, diff)
        ratio = diff / (np.abs(want) + np.finfo(np.float64).tiny)
        flat = np.argsort(-ratio, axis=None, kind="stable")[:count]
        for index in flat:
            if diff.flat[index] == 0:
                break
            where = np.unravel_index(index, got.shape)
            cell = ", ".join(str(int(i)) for i in where)
            found.append(
                (
                    float(ratio.flat[index]),
                    f"{name}[{cell}] = {_value(output, where)} (was {_value(reference, where)})",
                )
            )
    found.sort(key=lambda pair: -pair[0])
    return [text for _, text in found[:count]]


def _value(array: np.ndarray, where: tuple[np.intp, ...]) -> str:
    value = np.asarray(array)[where]
    return f"{value:.6g}" if np.issubdtype(np.asarray(array).dtype, np.floating) else str(value)


def verdict_line(label: str, result: RunResult) -> tuple[str, str]:
    """What the chosen launch's replay says, and its kind (match, differs, note)."""
    verdict = result.verdict
    if result.status not in ("verified", "wrong") or verdict is None:
        return f"{label}: {result.summary()}", "differs"
    if not verdict.comparison:
        return f"{label}: {result.summary()}", "note"
    if verdict.verified:
        return f"{label} {verdict.comparison} (its captured output)", "match"
    named = differing_elements(result, min(verdict.mismatches, NAMED_ELEMENTS))
    more = verdict.mismatches - len(named)
    tail = f", and {more} more" if more > 0 else ""
    return f"{label} {verdict.comparison}: {'; '.join(named)}{tail}", "differs"


class CapturesController(QObject):
    """Opens captures and replays the launch a person chooses. The timeline is made on the
    first capture opened (``make_view``), docked at the bottom of ``window``."""

    def __init__(
        self,
        model: ConfigModel,
        state: AppState,
        runner: Runner,
        tracer: Tracer,
        checker: Checker,
        status: StatusLine,
        window: QMainWindow,
        make_view: Callable[[], Timeline] | None = None,
    ) -> None:
        super().__init__(window)
        self.model = model
        self.state = state
        self.runner = runner
        self.tracer = tracer
        self.checker = checker
        self.status = status
        self.window = window
        self._make_view = make_view
        self.view: Timeline | None = None
        self.capture: Capture | None = None
        self.label: str | None = None  # the chosen launch's KERNEL#k (its variant's id)
        # Whether the person agreed to the capture's files outside its folder (#include).
        self.allow_outside = False
        self.notes = ""  # what the chosen launch's replay did not use, and why
        # Called before a launch replaces a kernel that is no capture's (the window keeps
        # that configuration for its next start: a launch's program cannot be reopened).
        self.before_replacing: Callable[[], None] | None = None
        state.events.result.connect(self._result)
        state.events.traced.connect(self._traced)
        model.variant_changed.connect(self._variant_changed)

    # -- commands ------------------------------------------------------------------------
    def open_capture_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self.window, "Open capture (the folder capture wrote)"
        )
        if folder:
            self.open_capture(folder)

    @staticmethod
    def accepts(path: str) -> bool:
        """Whether a dropped path is a capture this controller opens."""
        return is_capture(path)

    def open_capture(self, path: str) -> bool:
        """Show the capture's launches and replay the first one that has its buffers."""
        folder = Path(path)
        if folder.is_file():
            folder = folder.parent
        try:
            capture = load_capture(folder)
        except CaptureError as exc:
            QMessageBox.warning(self.window, "Cannot open the capture", str(exc))
            return False
        outside = capture_outside(capture)
        self.allow_outside = bool(outside) and self.confirm_outside("\n".join(outside))
        self.capture = capture
        view = self._timeline()
        view.show_capture(capture)
        view.show()
        view.raise_()
        first = next((launch for launch in capture.launches if launch.data), None)
        if first is None:
            self.status.say(f"{folder.name}: no launch was recorded with its buffers")
            view.show_verdict("No launch of this capture was recorded with its buffers.")
            return True
        view.select(first.number)
        self.choose(first.number)
        return True

    def choose(self, number: int) -> None:
        """Make launch ``number`` the kernel on screen, with its captured inputs, and trace
        it (the trace's run gives the verdict against the original run)."""
        capture, view = self.capture, self._timeline()
        assert capture is not None
        launch = capture.launches[number - 1]
        if not launch.data:
            self.label = None
            view.show_verdict(
                f"Launch {number} ({launch.label}) was recorded without its buffers: "
                f"{launch.why or 'no data'}. It cannot be replayed."
            )
            return
        try:
            replayed = replay(capture, launch, allow_outside=self.allow_outside)
        except (CaptureError, CatalogError) as exc:
            self.label = None
            view.show_verdict(f"Launch {number} ({launch.label}) cannot be replayed: {exc}")
            return
        variant = replayed.variant
        if self.label is None and self.before_replacing is not None:
            self.before_replacing()
        self.label = variant.id
        self.notes = " ".join(f"{n[0].upper()}{n[1:]}." for n in replayed.notes)
        self.model.add_user_variant(variant)
        view.show_verdict(
            f"Tracing launch {number}, {launch.label}, with its captured inputs … {self.notes}"
        )
        self.status.say(f"Launch {number} of {capture.folder.name}: {launch.label}")
        self._when_device_ready(self.tracer.trace)

    def _variant_changed(self) -> None:
        """Another kernel on screen than the capture's launch chosen: the timeline goes with
        it (it is back when a capture is opened again)."""
        if self.view is not None and self.model.variant.id != self.label:
            self.label = None
            self.view.hide()

    def confirm_outside(self, files: str) -> bool:
        """Ask before a capture's replays read files outside its folder (the program's own
        #include folders and files): a capture from someone else could name any file."""
        answer = QMessageBox.question(
            self.window,
            "Use files from outside the capture?",
            "This capture's programs build with #include files from outside its folder:\n\n"
            f"{files}\n\nUse them only if you trust them. Without them, a launch that needs "
            "them is not replayed.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def run(self) -> None:
        if self.label is not None:
            self.runner.run()

    def trace(self) -> None:
        if self.label is not None:
            self.tracer.trace()

    def check(self) -> None:
        if self.label is not None:
            self.checker.check_with_oclgrind()

    def save_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self.window, "Save the launch as a kernel file in"
        )
        if folder:
            self.save(folder)

    def save(self, folder: str) -> Path | None:
        """The chosen launch as a kernel file in ``folder`` (``capture-save``): its header,
        the program's source, its inputs and expected outputs beside it."""
        capture, label = self.capture, self.label
        if capture is None or label is None:
            return None
        try:
            path = save_launch(capture, label, Path(folder), allow_outside=self.allow_outside)
        except (CaptureError, OSError) as exc:
            QMessageBox.warning(self.window, "Cannot save the launch", str(exc))
            return None
        self.status.say(f"Saved {path} with its arrays beside it: File ▸ Open kernel opens it")
        return path

    # -- what comes back -----------------------------------------------------------------
    def _result(self, result: RunResult | None) -> None:
        if result is not None:
            self._show(result)

    def _traced(self, traced: TracedRun | None) -> None:
        if traced is not None:
            self._show(traced.result)

    def _show(self, result: RunResult) -> None:
        if self.view is None or self.label is None:
            return
        if result.family != "custom" or result.variant != self.label:
            return
        text, kind = verdict_line(self.label, result)
        self.view.show_verdict(f"{text} {self.notes}".strip(), kind)

    # -- the timeline --------------------------------------------------------------------
    def _timeline(self) -> Timeline:
        if self.view is None:
            view = self._make_view() if self._make_view else self._docked()
            view.launch_chosen.connect(self.choose)
            view.run_requested.connect(self.run)
            view.trace_requested.connect(self.trace)
            view.check_requested.connect(self.check)
            view.save_requested.connect(self.save_dialog)
            self.view = view
        return self.view

    def _docked(self) -> CaptureView:
        view = CaptureView(self.window)
        configuration = self.window.findChild(QDockWidget, "configuration")
        if self.window.height() < ROOM_BELOW and configuration is not None:
            # A 1280×720 projector has no room under the animation: a tab beside the
            # configuration instead.
            self.window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, view)
            self.window.tabifyDockWidget(configuration, view)
            return view
        # Under the views, beside the configuration (not under it too).
        self.window.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, view)
        # A strip under the views, not half the window: about six launches show at once.
        height = min(TIMELINE_HEIGHT, self.window.height() // 3)
        QTimer.singleShot(  # once it is shown: a hidden dock keeps its own size
            0, lambda: self.window.resizeDocks([view], [height], Qt.Orientation.Vertical)
        )
        return view

    def _when_device_ready(self, then: Callable[[], None]) -> None:
        if self.model.device is None:
            QTimer.singleShot(DEVICE_WAIT_MS, lambda: self._when_device_ready(then))
        else:
            then()


ACTIONS = Actions(
    CapturesController,
    Action(
        "open_capture",
        "Open cap&ture…",
        "&File",
        CapturesController.open_capture_dialog,
        (),
        "Open the folder `python -m explorer capture` wrote: replay any launch of your program",
        order=110,
    ),
)
