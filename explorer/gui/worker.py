"""OpenCL work off the GUI thread, through the executor, on the worker's lane
(:mod:`explorer.gui.background`); results carry a generation number so a stale result never
overwrites a newer one."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal

from explorer.engine.executor import Executor, ExecutorError, only_while
from explorer.engine.launch.devices import default_device
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import DeviceInfo, RunRequest
from explorer.engine.remote.hosts import Host, host_of_key
from explorer.engine.remote.router import HostRouter
from explorer.gui.background import Lane


class _GuiThreadCollection:
    """Python's cycle collector runs on whichever thread happens to allocate. When it frees
    a Qt object on the worker thread (a closed view's widgets, say, while a trace is being
    decoded there), the object's destructor waits for the GIL while the GUI thread waits
    for the object's lock: the application hangs. While a worker lives, automatic
    collection is off and the GUI thread collects on a timer, by the interpreter's own
    rules: a generation when its count passes its threshold, and the oldest only when it
    has grown by a quarter since it was last collected (a full collection walks every
    object of the application, and would otherwise run every few seconds)."""

    users = 0
    timer: QTimer | None = None
    long_lived = 0  # objects in the oldest generation after its last collection

    @classmethod
    def hold(cls) -> None:
        if cls.users == 0:
            gc.disable()
            cls.timer = QTimer(QCoreApplication.instance())
            cls.timer.timeout.connect(cls.collect)
            cls.timer.start(500)
        cls.users += 1

    @classmethod
    def release(cls) -> None:
        cls.users = max(0, cls.users - 1)
        if cls.users == 0 and cls.timer is not None:
            cls.timer.stop()
            cls.timer.deleteLater()
            cls.timer = None
            gc.enable()

    @classmethod
    def collect(cls) -> None:
        counts, limits = gc.get_count(), gc.get_threshold()
        if counts[0] <= limits[0]:
            return
        generation = 0
        if counts[1] > limits[1]:
            generation = 1
            if counts[2] > limits[2]:
                oldest = len(gc.get_objects(2))
                if oldest - cls.long_lived > cls.long_lived // 4:
                    generation = 2
        gc.collect(generation)
        if generation == 2:
            cls.long_lived = len(gc.get_objects(2))


class _Job:
    """What the worker's lane runs: each method blocks there, never on the GUI thread, and
    returns what it found (a comparison hands each step over as it comes)."""

    def __init__(self, executor: HostRouter) -> None:
        self._executor = executor
        self.cancelled_generation = -1
        self.checker: Executor | None = None  # a second process with Oclgrind's checks on
        self._checker_host = ""  # the machine it runs on

    def discover(self) -> tuple[list[DeviceInfo], str | None, str] | str:
        """(devices, the default's key, why hosts' devices are missing), or why none came."""
        try:
            devices = self._executor.devices()
        except ExecutorError as exc:
            return str(exc)
        default = default_device(devices).key if devices else None
        problems = self._executor.problems
        return devices, default, "\n".join(f"{h}: {why}" for h, why in problems.items())

    def add_hosts(self, hosts: list[Host]) -> tuple[list[DeviceInfo], str | None, str] | str:
        """Use ``hosts``' devices too: connect to them and list every device again, once."""
        for host in hosts:
            self._close_checker_on(host.label)  # a host added again replaces its executors
            self._executor.add(host)
        return self.discover()

    def remove_host(self, label: str) -> tuple[list[DeviceInfo], str | None, str] | str:
        self._close_checker_on(label)
        self._executor.remove(label)
        return self.discover()

    def _close_checker_on(self, label: str) -> None:
        """End the Oclgrind executor on host ``label``, with the host's other executor."""
        if self.checker is not None and self._checker_host == label:
            self.checker.close()
            self.checker = None

    def _wanted(self, generation: int) -> contextlib.AbstractContextManager[None]:
        """Requests of ``generation`` stop once it is cancelled, also one cancelled while it
        waited in the lane."""
        return only_while(lambda: self.cancelled_generation < generation)

    def run(self, generation: int, request: RunRequest) -> object:
        with self._wanted(generation):
            return self._executor.run(request)

    def compare(
        self, generation: int, requests: list, step: Callable[[int, int, object], None]
    ) -> None:
        for index, request in enumerate(requests):
            if self.cancelled_generation >= generation:
                break
            # A sweep coloured by trace figures sends traces: each step is then a TracedRun.
            with self._wanted(generation):
                outcome = (
                    self._executor.trace(request)
                    if isinstance(request, TraceRequest)
                    else self._executor.run(request)
                )
            step(index, len(requests), outcome)

    def oclgrind(self, generation: int, request: RunRequest) -> object:
        from explorer.engine.record.oclgrind import CHECK_ENV, check

        where = host_of_key(request.device_key)  # Oclgrind runs where the device is
        if self.checker is not None and where != self._checker_host:
            self.checker.close()
            self.checker = None
        if self.checker is None:
            try:
                self.checker = self._executor.with_env(request.device_key, CHECK_ENV)
            except ExecutorError as exc:
                return str(exc)
            self._checker_host = where
        try:
            with self._wanted(generation):
                return self.checker.call(
                    check,
                    request,
                    timeout_s=request.timeout_s * 10,
                    what=f"Oclgrind check of {request.variant.qualified_id}",
                )
        except ExecutorError as exc:
            return str(exc)

    def limits(self, device_key: str | None) -> object:
        try:
            from explorer.engine.measure.baselines import device_limits

            return self._executor.call(
                device_limits, device_key, what="measuring the device's ceilings"
            )
        except (ImportError, ExecutorError):
            return None

    def trace(self, generation: int, request: TraceRequest) -> object:
        with self._wanted(generation):
            return self._executor.trace(request, keep_trace=True)

    def call(self, generation: int, work: Callable[[HostRouter], object]) -> object:
        try:
            with self._wanted(generation):
                return work(self._executor)
        except Exception as exc:  # handed to the one who asked, who says it
            return exc


class Worker(QObject):
    """Starts runs, comparisons and traces on its lane, and delivers only the newest one's
    results."""

    devices_ready = Signal(list, object)
    devices_failed = Signal(str)
    hosts_failed = Signal(str)
    transfer = Signal(str)  # a long transfer from or to a host, in words
    started = Signal(str)  # what is running, in words
    # A build of a second or more within it, in words ("" once over): not the kernel's time.
    building = Signal(str)
    # Each carries the generation its request returned, so the one who asked knows it is theirs.
    finished = Signal(int, object)  # generation, RunResult of the newest run
    compare_progress = Signal(int, int, int, object)  # generation, index, total, RunResult
    compare_finished = Signal(int)  # generation
    trace_finished = Signal(object)  # TracedRun
    limits_ready = Signal(object)
    oclgrind_finished = Signal(object)
    call_finished = Signal(int, object)  # generation, what the work returned (or raised)
    idle = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._executor = HostRouter(
            Executor(on_build=self.building.emit),
            progress=lambda text, _done: self.transfer.emit(text),
        )
        self._lane = Lane("opencl-worker", owner=self)
        self._job = _Job(self._executor)
        self._generation = 0
        self._pending = 0
        _GuiThreadCollection.hold()
        self._collecting = True

    @property
    def busy(self) -> bool:
        return self._pending > 0

    @property
    def generation(self) -> int:
        """The newest request's generation (a cancel counts as one)."""
        return self._generation

    def discover_devices(self) -> None:
        self._lane.submit(self._job.discover, self._on_devices)

    def add_hosts(self, hosts: list[Host]) -> None:
        """List ``hosts``' devices beside this machine's (their executors start there);
        ``devices_ready`` follows, once, with every device."""
        chosen = list(hosts)
        self._lane.submit(lambda: self._job.add_hosts(chosen), self._on_devices)

    def remove_host(self, label: str) -> None:
        self._lane.submit(lambda: self._job.remove_host(label), self._on_devices)

    def _on_devices(self, found: tuple[list[DeviceInfo], str | None, str] | str) -> None:
        if isinstance(found, str):
            self.devices_failed.emit(found)
            return
        devices, default, problems = found
        self.devices_ready.emit(devices, default)
        if problems:
            self.hosts_failed.emit(problems)

    def _next(self, what: str) -> int:
        self._generation += 1
        self._pending += 1
        self.started.emit(what)
        return self._generation

    def measure_limits(self, device_key: str | None) -> None:
        """The device's copy bandwidth and FMA peak, for the roofline (cached per device)."""
        self._lane.submit(lambda: self._job.limits(device_key), self.limits_ready.emit)

    def run(self, request: RunRequest) -> int:
        generation = self._next(f"running {request.variant.qualified_id}")
        self._lane.submit(
            lambda: self._job.run(generation, request),
            lambda result: self._on_result(generation, result),
        )
        return generation

    def compare(self, requests: list[RunRequest] | list[TraceRequest]) -> int:
        generation = self._next(f"comparing {len(requests)} variants")
        listed = list(requests)

        def step(index: int, total: int, outcome: object) -> None:
            self._lane.post(self._on_compare_step, generation, index, total, outcome)

        self._lane.submit(
            lambda: self._job.compare(generation, listed, step),
            lambda _: self._on_compare_done(generation),
        )
        return generation

    def trace(self, request: TraceRequest) -> int:
        generation = self._next(f"tracing {request.run.variant.qualified_id}")
        self._lane.submit(
            lambda: self._job.trace(generation, request),
            lambda traced: self._on_trace(generation, traced),
        )
        return generation

    def oclgrind(self, request: RunRequest) -> int:
        generation = self._next(f"checking {request.variant.qualified_id} with Oclgrind")
        self._lane.submit(
            lambda: self._job.oclgrind(generation, request),
            lambda outcome: self._on_oclgrind(generation, outcome),
        )
        return generation

    def call(self, work: Callable[[HostRouter], object], what: str) -> int:
        """``work(executors)`` on the worker's lane, as a run is (grading an exercise runs and
        traces through the executor of its device); ``call_finished`` tells what it returned
        or raised."""
        generation = self._next(what)
        self._lane.submit(
            lambda: self._job.call(generation, work),
            lambda outcome: self._on_call(generation, outcome),
        )
        return generation

    def _on_call(self, generation: int, outcome: object) -> None:
        if generation == self._generation:
            self.call_finished.emit(generation, outcome)
        self._done()

    def _on_oclgrind(self, generation: int, outcome: object) -> None:
        if generation == self._generation:
            self.oclgrind_finished.emit(outcome)
        self._done()

    def cancel(self) -> None:
        """Stop what is in flight; its results are dropped."""
        if self._pending:
            self._job.cancelled_generation = self._generation
            self._generation += 1
            self._cancel_processes()

    def _cancel_processes(self) -> None:
        """Abandon whatever either process is doing: a run, a trace or an Oclgrind check."""
        self._executor.cancel()
        checker = self._job.checker
        if checker is not None:
            checker.cancel()

    def _done(self) -> None:
        self._pending = max(0, self._pending - 1)
        if not self._pending:
            self.idle.emit()

    def _on_result(self, generation: int, result: object) -> None:
        if generation == self._generation:
            self.finished.emit(generation, result)
        self._done()

    def _on_compare_step(self, generation: int, index: int, total: int, result: object) -> None:
        if generation == self._generation:
            self.compare_progress.emit(generation, index, total, result)

    def _on_compare_done(self, generation: int) -> None:
        if generation == self._generation:
            self.compare_finished.emit(generation)
        self._done()

    def _on_trace(self, generation: int, traced: object) -> None:
        if generation == self._generation:
            self.trace_finished.emit(traced)
        self._done()

    def shutdown(self) -> None:
        """Stop everything within a second or two: the request in flight is abandoned (its
        process killed), the lane's thread ended and joined; nothing more is delivered."""
        self._job.cancelled_generation = self._generation
        self._cancel_processes()
        self._lane.stop(2.0)
        if self._collecting:
            self._collecting = False
            _GuiThreadCollection.release()
        self._executor.close()
        if self._job.checker is not None:
            self._job.checker.close()
