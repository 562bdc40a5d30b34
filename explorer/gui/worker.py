"""OpenCL work off the GUI thread, through the executor; results carry a generation number."""

from __future__ import annotations

from PySide6.QtCore import QObject, QThread, Signal, Slot

from explorer.engine.devices import default_device
from explorer.engine.executor import Executor, ExecutorError
from explorer.engine.records import RunRequest, RunResult


class _Job(QObject):
    """Lives in the worker thread; each slot blocks there, never on the GUI thread."""

    devices_ready = Signal(list, object)  # devices, default key (or None)
    devices_failed = Signal(str)
    result_ready = Signal(int, object)  # generation, RunResult

    def __init__(self, executor: Executor) -> None:
        super().__init__()
        self._executor = executor

    @Slot()
    def discover(self) -> None:
        try:
            devices = self._executor.devices()
        except ExecutorError as exc:
            self.devices_failed.emit(str(exc))
            return
        default = default_device(devices).key if devices else None
        self.devices_ready.emit(devices, default)

    @Slot(int, object)
    def run(self, generation: int, request: RunRequest) -> None:
        self.result_ready.emit(generation, self._executor.run(request))


class RunController(QObject):
    """Starts runs and delivers only the newest result; stale ones are dropped."""

    devices_ready = Signal(list, object)
    devices_failed = Signal(str)
    started = Signal(int, object)  # generation, RunRequest
    finished = Signal(object)  # RunResult of the newest request
    _run_requested = Signal(int, object)
    _discover_requested = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._executor = Executor()
        self._thread = QThread()
        self._thread.setObjectName("opencl-worker")
        self._job = _Job(self._executor)
        self._job.moveToThread(self._thread)
        self._run_requested.connect(self._job.run)
        self._discover_requested.connect(self._job.discover)
        self._job.result_ready.connect(self._on_result)
        self._job.devices_ready.connect(self.devices_ready)
        self._job.devices_failed.connect(self.devices_failed)
        self._thread.start()
        self._generation = 0
        self._pending = 0

    @property
    def busy(self) -> bool:
        return self._pending > 0

    def discover_devices(self) -> None:
        self._discover_requested.emit()

    def run(self, request: RunRequest) -> int:
        self._generation += 1
        self._pending += 1
        self.started.emit(self._generation, request)
        self._run_requested.emit(self._generation, request)
        return self._generation

    def cancel(self) -> None:
        """Stop the run in flight; its result arrives as 'cancelled' and is dropped."""
        if self._pending:
            self._generation += 1
            self._executor.cancel()

    @Slot(int, object)
    def _on_result(self, generation: int, result: RunResult) -> None:
        self._pending -= 1
        if generation == self._generation:
            self.finished.emit(result)

    def shutdown(self) -> None:
        self._executor.cancel()
        self._thread.quit()
        self._thread.wait(10000)
        self._executor.close()
