"""OpenCL work off the GUI thread, through the executor; results carry a generation number
so a stale result never overwrites a newer one."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QObject, QThread, QTimer, Signal, Slot

from explorer.engine.executor import Executor, ExecutorError, only_while
from explorer.engine.launch.devices import default_device
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.engine.remote.hosts import Host, host_of_key
from explorer.engine.remote.router import HostRouter


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


class _Job(QObject):
    """Lives in the worker thread; each slot blocks there, never on the GUI thread."""

    devices_ready = Signal(list, object)  # devices, default key (or None)
    devices_failed = Signal(str)
    hosts_failed = Signal(str)  # why a host's devices are missing, one line per host
    result_ready = Signal(int, object)  # generation, RunResult
    compare_step = Signal(int, int, int, object)  # generation, index, total, RunResult
    compare_done = Signal(int)
    trace_ready = Signal(int, object)  # generation, TracedRun
    limits_ready = Signal(object)  # dict, or None when they could not be measured
    oclgrind_ready = Signal(int, object)  # generation, OclgrindCheck or an error string
    call_ready = Signal(int, object)  # generation, what the work returned (or its exception)

    def __init__(self, executor: HostRouter) -> None:
        super().__init__()
        self._executor = executor
        self.cancelled_generation = -1
        self.checker: Executor | None = None  # a second process with Oclgrind's checks on
        self._checker_host = ""  # the machine it runs on

    @Slot()
    def discover(self) -> None:
        try:
            devices = self._executor.devices()
        except ExecutorError as exc:
            self.devices_failed.emit(str(exc))
            return
        default = default_device(devices).key if devices else None
        self.devices_ready.emit(devices, default)
        problems = self._executor.problems
        if problems:
            self.hosts_failed.emit("\n".join(f"{h}: {why}" for h, why in problems.items()))

    @Slot(object)
    def add_hosts(self, hosts: list[Host]) -> None:
        """Use ``hosts``' devices too: connect to them and list every device again, once."""
        for host in hosts:
            self._close_checker_on(host.label)  # a host added again replaces its executors
            self._executor.add(host)
        self.discover()

    @Slot(str)
    def remove_host(self, label: str) -> None:
        self._close_checker_on(label)
        self._executor.remove(label)
        self.discover()

    def _close_checker_on(self, label: str) -> None:
        """End the Oclgrind executor on host ``label``, with the host's other executor."""
        if self.checker is not None and self._checker_host == label:
            self.checker.close()
            self.checker = None

    def _wanted(self, generation: int) -> contextlib.AbstractContextManager[None]:
        """Requests of ``generation`` stop once it is cancelled, also one cancelled while it
        waited in this thread's queue."""
        return only_while(lambda: self.cancelled_generation < generation)

    @Slot(int, object)
    def run(self, generation: int, request: RunRequest) -> None:
        with self._wanted(generation):
            self.result_ready.emit(generation, self._executor.run(request))

    @Slot(int, object)
    def compare(self, generation: int, requests: list) -> None:
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
            self.compare_step.emit(generation, index, len(requests), outcome)
        self.compare_done.emit(generation)

    @Slot(int, object)
    def oclgrind(self, generation: int, request: RunRequest) -> None:
        from explorer.engine.record.oclgrind import CHECK_ENV, check

        where = host_of_key(request.device_key)  # Oclgrind runs where the device is
        if self.checker is not None and where != self._checker_host:
            self.checker.close()
            self.checker = None
        if self.checker is None:
            try:
                self.checker = self._executor.with_env(request.device_key, CHECK_ENV)
            except ExecutorError as exc:
                self.oclgrind_ready.emit(generation, str(exc))
                return
            self._checker_host = where
        try:
            with self._wanted(generation):
                outcome = self.checker.call(
                    check,
                    request,
                    timeout_s=request.timeout_s * 10,
                    what=f"Oclgrind check of {request.variant.qualified_id}",
                )
        except ExecutorError as exc:
            outcome = str(exc)
        self.oclgrind_ready.emit(generation, outcome)

    @Slot(object)
    def limits(self, device_key: str | None) -> None:
        try:
            from explorer.engine.measure.baselines import device_limits

            self.limits_ready.emit(
                self._executor.call(
                    device_limits, device_key, what="measuring the device's ceilings"
                )
            )
        except (ImportError, ExecutorError):
            self.limits_ready.emit(None)

    @Slot(int, object)
    def trace(self, generation: int, request: TraceRequest) -> None:
        with self._wanted(generation):
            self.trace_ready.emit(generation, self._executor.trace(request, keep_trace=True))

    @Slot(int, object)
    def call(self, generation: int, work: Callable[[HostRouter], object]) -> None:
        try:
            with self._wanted(generation):
                outcome = work(self._executor)
        except Exception as exc:  # handed to the one who asked, who says it
            outcome = exc
        self.call_ready.emit(generation, outcome)


class Worker(QObject):
    """Starts runs, comparisons and traces, and delivers only the newest one's results."""

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
    _limits_requested = Signal(object)
    _oclgrind_requested = Signal(int, object)
    _run_requested = Signal(int, object)
    _compare_requested = Signal(int, object)
    _trace_requested = Signal(int, object)
    _call_requested = Signal(int, object)
    _discover_requested = Signal()
    _add_hosts_requested = Signal(object)
    _remove_host_requested = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._executor = HostRouter(
            Executor(on_build=self.building.emit),
            progress=lambda text, _done: self.transfer.emit(text),
        )
        self._thread = QThread()
        self._thread.setObjectName("opencl-worker")
        self._job = _Job(self._executor)
        self._job.moveToThread(self._thread)
        self._run_requested.connect(self._job.run)
        self._compare_requested.connect(self._job.compare)
        self._trace_requested.connect(self._job.trace)
        self._call_requested.connect(self._job.call)
        self._job.call_ready.connect(self._on_call)
        self._discover_requested.connect(self._job.discover)
        self._add_hosts_requested.connect(self._job.add_hosts)
        self._remove_host_requested.connect(self._job.remove_host)
        self._job.hosts_failed.connect(self.hosts_failed)
        self._limits_requested.connect(self._job.limits)
        self._oclgrind_requested.connect(self._job.oclgrind)
        self._job.oclgrind_ready.connect(self._on_oclgrind)
        self._job.limits_ready.connect(self.limits_ready)
        self._job.result_ready.connect(self._on_result)
        self._job.compare_step.connect(self._on_compare_step)
        self._job.compare_done.connect(self._on_compare_done)
        self._job.trace_ready.connect(self._on_trace)
        self._job.devices_ready.connect(self.devices_ready)
        self._job.devices_failed.connect(self.devices_failed)
        self._thread.start()
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
        self._discover_requested.emit()

    def add_hosts(self, hosts: list[Host]) -> None:
        """List ``hosts``' devices beside this machine's (their executors start there);
        ``devices_ready`` follows, once, with every device."""
        self._add_hosts_requested.emit(list(hosts))

    def remove_host(self, label: str) -> None:
        self._remove_host_requested.emit(label)

    def _next(self, what: str) -> int:
        self._generation += 1
        self._pending += 1
        self.started.emit(what)
        return self._generation

    def measure_limits(self, device_key: str | None) -> None:
        """The device's copy bandwidth and FMA peak, for the roofline (cached per device)."""
        self._limits_requested.emit(device_key)

    def run(self, request: RunRequest) -> int:
        generation = self._next(f"running {request.variant.qualified_id}")
        self._run_requested.emit(generation, request)
        return generation

    def compare(self, requests: list[RunRequest] | list[TraceRequest]) -> int:
        generation = self._next(f"comparing {len(requests)} variants")
        self._compare_requested.emit(generation, list(requests))
        return generation

    def trace(self, request: TraceRequest) -> int:
        generation = self._next(f"tracing {request.run.variant.qualified_id}")
        self._trace_requested.emit(generation, request)
        return generation

    def oclgrind(self, request: RunRequest) -> int:
        generation = self._next(f"checking {request.variant.qualified_id} with Oclgrind")
        self._oclgrind_requested.emit(generation, request)
        return generation

    def call(self, work: Callable[[HostRouter], object], what: str) -> int:
        """``work(executors)`` on the worker thread, as a run is (grading an exercise runs and
        traces through the executor of its device); ``call_finished`` tells what it returned
        or raised."""
        generation = self._next(what)
        self._call_requested.emit(generation, work)
        return generation

    @Slot(int, object)
    def _on_call(self, generation: int, outcome: object) -> None:
        if generation == self._generation:
            self.call_finished.emit(generation, outcome)
        self._done()

    @Slot(int, object)
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

    @Slot(int, object)
    def _on_result(self, generation: int, result: object) -> None:
        if generation == self._generation:
            self.finished.emit(generation, result)
        self._done()

    @Slot(int, int, int, object)
    def _on_compare_step(self, generation: int, index: int, total: int, result: object) -> None:
        if generation == self._generation:
            self.compare_progress.emit(generation, index, total, result)

    @Slot(int)
    def _on_compare_done(self, generation: int) -> None:
        if generation == self._generation:
            self.compare_finished.emit(generation)
        self._done()

    @Slot(int, object)
    def _on_trace(self, generation: int, traced: object) -> None:
        if generation == self._generation:
            self.trace_finished.emit(traced)
        self._done()

    def shutdown(self) -> None:
        """Stop everything within a second: the request in flight is abandoned (its process
        killed), then the thread ends."""
        self._job.cancelled_generation = self._generation
        self._cancel_processes()
        self._thread.quit()
        self._thread.wait(2000)
        if self._collecting:
            self._collecting = False
            _GuiThreadCollection.release()
        self._executor.close()
        if self._job.checker is not None:
            self._job.checker.close()
