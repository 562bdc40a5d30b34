"""What a controller test hands a controller instead of a window: a worker that records its
requests (the test tells what comes back by emitting its signals), views as
``MagicMock(spec=Role)``, results and devices made by hand, a trace made in numpy."""

from __future__ import annotations

from types import SimpleNamespace
from unittest.mock import MagicMock

import numpy as np
from PySide6.QtCore import QObject, Signal

from explorer.engine.record.trace_launch import TracedRun
from explorer.engine.records import DeviceInfo, RunResult, Timing, Verdict
from explorer.gui.controllers import roles
from explorer.gui.model import ConfigModel
from explorer.gui.state import AppState
from explorer.trace.analysis import analyse
from tests.trace import synthetic


class FakeWorker(QObject):
    """The worker's signals and requests, and nothing runs: each request is recorded and
    returns a new generation, as the real one does."""

    devices_ready = Signal(list, object)
    devices_failed = Signal(str)
    started = Signal(str)
    building = Signal(str)
    finished = Signal(int, object)
    compare_progress = Signal(int, int, int, object)
    compare_finished = Signal(int)
    trace_finished = Signal(object)
    limits_ready = Signal(object)
    oclgrind_finished = Signal(object)
    call_finished = Signal(int, object)
    idle = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.busy = False
        self.requests: list[tuple[str, object]] = []
        self.cancelled = 0
        self.limits_asked: list[str | None] = []
        self.generation = 0

    def _request(self, kind: str, request: object) -> int:
        self.generation += 1
        self.requests.append((kind, request))
        return self.generation

    def run(self, request):
        return self._request("run", request)

    def compare(self, requests):
        return self._request("compare", requests)

    def trace(self, request):
        return self._request("trace", request)

    def oclgrind(self, request):
        return self._request("oclgrind", request)

    def cancel(self) -> None:
        self.cancelled += 1

    def measure_limits(self, device_key):
        self.limits_asked.append(device_key)

    def last(self, kind: str):
        """The newest request of that kind."""
        return next(r for k, r in reversed(self.requests) if k == kind)


def views() -> SimpleNamespace:
    """One mock per role, each refusing a call its protocol does not name."""
    status = MagicMock(spec=roles.StatusLine)
    status.work_ended.return_value = 0.0  # the seconds the work took
    return SimpleNamespace(
        status=status,
        pages=MagicMock(spec=roles.Pages),
        panel=MagicMock(spec=roles.ConfigCheck),
        result=MagicMock(spec=roles.ResultShower),
        timing=MagicMock(spec=roles.TimingShower),
        source=MagicMock(spec=roles.SourceMarks),
        findings=MagicMock(spec=roles.FindingsShower),
        execution=MagicMock(spec=roles.Animation),
        roofline=MagicMock(spec=roles.RooflineShower),
        sweep=MagicMock(spec=roles.SweepGrid),
    )


def said(status: MagicMock) -> str:
    """The newest message of a mocked status line."""
    return status.say.call_args.args[0]


def device(kind: str = "CPU", platform: str = "Portable Computing Language", index: int = 0):
    return DeviceInfo(
        platform_index=index,
        device_index=0,
        name=f"test {kind.lower()}",
        vendor="test",
        platform=platform,
        type=kind,
        opencl_version="OpenCL 3.0",
        driver_version="1",
        compute_units=4,
        max_work_group_size=1024,
        max_work_item_sizes=(1024, 1024, 1024),
        local_mem_bytes=64 << 10,
        global_mem_bytes=4 << 30,
        max_alloc_bytes=1 << 30,
        clock_mhz=1000,
        preferred_multiple=32,
    )


def model_on(*devices: DeviceInfo) -> ConfigModel:
    """The configuration model with these devices known, the first one chosen."""
    model = ConfigModel()
    found = list(devices) or [device()]
    model.set_devices(found, found[0].key)
    return model


def result(
    variant: str = "naive",
    status: str = "verified",
    family: str = "matmul",
    median_ms: float = 1.0,
    sizes: dict[str, int] | None = None,
    error_kind: str | None = None,
    arrays: bool = False,
    outside: tuple[str, ...] = (),
) -> RunResult:
    """A run's record as the executor sends it back: verified, wrong or a build error."""
    error = "error: expected ';'" if error_kind == "build" else None
    timed = error is None
    output = np.ones((4, 4)) if arrays else None
    return RunResult(
        family=family,
        variant=variant,
        device="test cpu",
        platform="Portable Computing Language",
        sizes=sizes or {"M": 16, "N": 16, "K": 16},
        global_size=(16, 16),
        local_size=(16, 16),
        defines={},
        verdict=None if error else Verdict(status == "verified", 0.0, 0.0, 0, "exact"),
        timing=Timing((median_ms,) * 3, 0.1, 0.1, 2.0) if timed else None,
        flops=2 * 16**3,
        bytes_moved=3 * 16 * 16 * 4,
        error=error,
        error_kind=error_kind,
        build_log="k.cl:3:5: error: expected ';'" if error else None,
        outputs={"C": output} if arrays else None,
        references={"C": output} if arrays else None,
        inputs={"A": np.ones((4, 4)), "B": np.ones((4, 4))} if arrays else None,
        outside_constraints=outside,
        shapes={"A": (16, 16), "B": (16, 16), "C": (16, 16)},
    )


def traced_run(run: RunResult | None = None, with_trace: bool = True) -> TracedRun:
    """A tiled 16×16 matmul's trace (TS = 8: four groups), analysed, as a trace comes back."""
    trace = synthetic.matmul_tiled(16, 8)
    analysis = analyse(trace)
    report = analysis.to_json(trace)
    return TracedRun(
        result=run or result("tiled"),
        analysis=analysis,
        trace=trace if with_trace else None,
        timings_ms={},
        report_json=report,
    )


def state() -> AppState:
    return AppState()
