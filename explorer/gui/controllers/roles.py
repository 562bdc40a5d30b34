"""What a controller needs of a view, by the role the view plays: one small protocol each.

A controller is handed the few roles it uses, never the window's widgets: it says what it
means ("show this result", "mark these lines") and the view decides how. The window passes
its views, which satisfy these protocols as they are; a controller test passes
``MagicMock(spec=Role)`` or a small fake, and needs no window.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, Protocol

import numpy as np
from PySide6.QtCore import SignalInstance
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QWidget

from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import Refusal, RunRequest, RunResult, Variant
from explorer.engine.remote.hosts import Host
from explorer.engine.remote.router import HostRouter
from explorer.trace.playback import Playback
from explorer.trace.recorded import Finding

# The pages of the window's tabs, by name.
Page = Literal["result", "execution", "timing", "source", "findings", "roofline", "sweep"]
PAGES: tuple[Page, ...] = (
    "result",
    "execution",
    "timing",
    "source",
    "findings",
    "roofline",
    "sweep",
)


class StatusLine(Protocol):
    """The status bar: a message, work in flight with its elapsed time and a Cancel button,
    and a progress bar for batches of runs."""

    def say(self, text: str) -> None: ...

    def work_started(self, what: str) -> None:
        """Work began (the elapsed time shows once it has taken a second)."""

    def work_building(self, text: str) -> None:
        """A build within the work has taken a second (``text`` says which; "" once over)."""

    def work_ended(self) -> float:
        """No work in flight any more; the seconds it took."""

    def start_progress(self, total: int) -> None: ...

    def set_progress(self, done: int) -> None: ...

    def end_progress(self) -> None: ...


class Pages(Protocol):
    """Which page is in front."""

    def show_page(self, page: Page) -> None:
        """Bring a tab to the front (nothing for a view that presenter mode shows)."""

    def current_tab(self) -> Page | None:
        """The page of the tab in front."""

    def current_page(self) -> QWidget:
        """What is on screen: the tab in front, or the presenter layout."""

    def page(self, page: Page) -> QWidget:
        """The widget of a page (what an export draws)."""


class ConfigCheck(Protocol):
    """The configuration panel's verdict before anything runs."""

    def validate(self) -> bool:
        """Check the configuration now (and say why it is refused); whether it may run."""

    @property
    def refusal(self) -> Refusal | None: ...


class ResultShower(Protocol):
    """The result view: the verdict's badge, the image or plot, messages."""

    def show_result(self, result: RunResult) -> None: ...

    def show_running(self, text: str) -> None: ...

    def show_message(self, title: str, text: str) -> None: ...

    def show_hint(self, text: str) -> None: ...

    def set_badge(self, text: str) -> None:
        """A sentence in the badge, in the badge's present colours."""

    def set_device_type(self, device_type: str | None) -> None: ...


class TimingShower(Protocol):
    """The timing bars."""

    def show_run(self, result: RunResult) -> None: ...

    def show_message(self, text: str) -> None: ...


class SourceMarks(Protocol):
    """The kernel source: what is shown and which lines are marked."""

    def show_source(self, title: str, source: str, file_name: str = "") -> None: ...

    def mark_lines(self, lines: list[int], colour: str = ...) -> None: ...


class FindingsShower(Protocol):
    """The findings list, its "Measure the fix" line and the Oclgrind pane."""

    def clear(self, message: str = "") -> None: ...

    def set_oclgrind_available(self, available: bool) -> None:
        """Whether an Oclgrind platform is installed: the pane says how to check, or how
        to install it."""

    def show_checking(self, text: str) -> None:
        """What the Oclgrind pane says while a check runs."""

    def show_fix(self, text: str, measuring: bool = False) -> None: ...


class Animation(Protocol):
    """The execution view: the traced steps of one work-group."""

    @property
    def current(self) -> int: ...

    @property
    def steps(self) -> int: ...

    def set_playback(
        self, playback: Playback, source: str, arrays: dict[str, np.ndarray] | None = None
    ) -> None: ...

    def set_arrays(self, arrays: dict[str, np.ndarray]) -> None: ...

    def show_source(self, source: str) -> None: ...

    def clear(self, message: str = ...) -> None: ...

    def select_group(self, group: tuple[int, int, int]) -> bool: ...

    def set_step(self, index: int) -> None: ...

    def play(self) -> None: ...

    def toggle_play(self) -> None: ...

    def step_forward(self) -> None: ...

    def step_back(self) -> None: ...

    def first_step(self) -> None: ...

    def last_step(self) -> None: ...

    def show_finding(self, finding: Finding) -> None: ...

    def set_caption(self, text: str) -> None: ...

    def cycle_colouring(self) -> None: ...

    def grab(self) -> QPixmap: ...


class RooflineShower(Protocol):
    """The roofline: the device's ceilings."""

    def set_limits(self, limits: dict[str, object] | None) -> None: ...


class SweepGrid(Protocol):
    """The sweep view: the axes it was given and the grid it fills."""

    @property
    def grid_metric(self) -> str: ...

    def configurations(self) -> list[dict[str, int | tuple[int, ...]]]: ...

    def show_cell(self, index: int, result: RunResult, figure: float | None = None) -> None: ...

    def set_variant(self, variant: Variant) -> None: ...

    def clear(self, message: str) -> None:
        """No grid: the configuration it was run for is gone."""


class Worker(Protocol):
    """Runs OpenCL work off the GUI thread (:class:`explorer.gui.worker.Worker`): a request
    returns its generation; what comes back is told by signal, with that generation."""

    @property
    def busy(self) -> bool: ...

    @property
    def generation(self) -> int: ...  # the newest request's

    def run(self, request: RunRequest) -> int: ...

    def compare(self, requests: list[RunRequest] | list[TraceRequest]) -> int: ...

    def trace(self, request: TraceRequest) -> int: ...

    def oclgrind(self, request: RunRequest) -> int: ...

    def cancel(self) -> None: ...

    def measure_limits(self, device_key: str | None) -> None: ...

    def add_hosts(self, hosts: list[Host]) -> None: ...  # their devices join the list, once

    def remove_host(self, label: str) -> None: ...  # its devices leave it

    @property
    def hosts_failed(self) -> SignalInstance: ...  # (why a host's devices are missing)

    @property
    def transfer(self) -> SignalInstance: ...  # (a long transfer's progress, in words)

    def call(self, work: Callable[[HostRouter], object], what: str) -> int: ...

    @property
    def call_finished(self) -> SignalInstance: ...  # (generation, what work returned/raised)

    @property
    def devices_ready(self) -> SignalInstance: ...  # (devices, default key)

    @property
    def devices_failed(self) -> SignalInstance: ...  # (message)

    @property
    def started(self) -> SignalInstance: ...  # (what, in words)

    @property
    def building(self) -> SignalInstance: ...  # (a build of a second or more, in words; "")

    @property
    def finished(self) -> SignalInstance: ...  # (generation, RunResult)

    @property
    def compare_progress(self) -> SignalInstance: ...  # (generation, index, total, outcome)

    @property
    def compare_finished(self) -> SignalInstance: ...  # (generation)

    @property
    def trace_finished(self) -> SignalInstance: ...  # (TracedRun)

    @property
    def oclgrind_finished(self) -> SignalInstance: ...  # (OclgrindCheck or error text)

    @property
    def limits_ready(self) -> SignalInstance: ...  # (limits or None)

    @property
    def idle(self) -> SignalInstance: ...


class Runner(Protocol):
    """What runs the configuration (the runs controller) and tells when a run is shown."""

    def run(self) -> int | None: ...

    @property
    def run_finished(self) -> SignalInstance: ...  # (generation, RunResult), once shown


class Tracer(Protocol):
    """What starts a trace of the configuration (the trace controller)."""

    def trace(self, center: tuple[int, int, int] | None = None) -> None: ...

    def trace_anyway(self, center: tuple[int, int, int] | None = None) -> None: ...

    def time_trace_shown(self) -> None:
        """The trace on screen timed, where no timed run of it is (presenter mode's timing
        beside its animation)."""
