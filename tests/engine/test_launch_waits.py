"""A launch's wait is told as a build only where the device compiles at a kernel's first
launch (PoCL). NVIDIA's driver keeps a running kernel's event "submitted" until it ends:
told as a build, a kernel that never returns stopped the kernel's clock for good, and
`run --timeout 1` of a spinning kernel never timed out on an H100."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest

from explorer.engine.launch import build


class _Status:
    QUEUED, SUBMITTED, RUNNING, COMPLETE = 3, 2, 1, 0


class _Event:
    """An event that stays submitted for ``seconds``, then completes (as NVIDIA's does for
    a kernel that runs that long)."""

    def __init__(self, seconds: float) -> None:
        self._done = threading.Event()
        self._timer = threading.Timer(seconds, self._done.set)
        self._timer.start()

    @property
    def command_execution_status(self) -> int:
        return _Status.COMPLETE if self._done.is_set() else _Status.SUBMITTED

    def wait(self) -> None:
        self._done.wait()


def _cl(seconds: float) -> SimpleNamespace:
    return SimpleNamespace(
        command_execution_status=_Status,
        enqueue_nd_range_kernel=lambda queue, kernel, gsize, lsize: _Event(seconds),
    )


def _queue(platform: str, device: str) -> SimpleNamespace:
    return SimpleNamespace(
        device=SimpleNamespace(name=device, platform=SimpleNamespace(name=platform)),
        flush=lambda: None,
    )


@pytest.fixture
def heard():
    notices: list[str] = []
    build.listen(notices.append)
    yield notices
    build.listen(None)


def test_a_running_kernel_on_nvidia_is_never_told_as_a_build(heard):
    queue = _queue("NVIDIA CUDA", "NVIDIA H100 80GB HBM3")
    started = time.monotonic()
    build.launch_and_wait(_cl(0.3), queue, object(), (1,), (1,))
    assert time.monotonic() - started >= 0.29  # it waited for the kernel
    assert heard == []  # the kernel's clock ran all along


def test_a_launch_waiting_to_start_on_pocl_is_told_as_a_build(heard):
    queue = _queue("Portable Computing Language", "pthread-AMD EPYC 7B13")
    build.launch_and_wait(_cl(0.3), queue, object(), (1,), (1,))
    assert heard == ["building", "built"]


def test_a_queue_that_cannot_name_its_device_counts_its_wait_as_the_kernels(heard):
    queue = SimpleNamespace(flush=lambda: None)
    build.launch_and_wait(_cl(0.1), queue, object(), (1,), (1,))
    assert heard == []
