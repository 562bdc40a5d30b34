"""The OpenCL state one process keeps between runs: devices, contexts, queues, build cache.

The runner and the baselines both launch kernels through it; it imports neither of them.
"""

from __future__ import annotations

from typing import Any

from explorer.engine.launch.build import BuildCache
from explorer.engine.launch.devices import list_devices
from explorer.engine.launch.loader import take_context
from explorer.engine.records import DeviceInfo


class OpenCLRuntime:
    """Contexts, queues and the build cache: one per process, kept between runs."""

    def __init__(self) -> None:
        import pyopencl as cl

        self.cl = cl
        self.devices: list[DeviceInfo] = list_devices()
        self.queues: dict[str, tuple[Any, Any]] = {}
        self.cache = BuildCache()

    def queue(self, device: DeviceInfo) -> tuple[Any, Any]:
        """The profiling-enabled (context, queue) of ``device``, made on first use."""
        if device.key not in self.queues:
            cl = self.cl
            made = take_context(device.key)  # the executor may have made it ahead (loader.py)
            if made is not None:
                context = cl.Context.from_int_ptr(made, retain=False)
            else:
                platform = cl.get_platforms()[device.platform_index]
                context = cl.Context([platform.get_devices()[device.device_index]])
            queue = cl.CommandQueue(
                context, properties=cl.command_queue_properties.PROFILING_ENABLE
            )
            self.queues[device.key] = (context, queue)
        return self.queues[device.key]


_runtime: OpenCLRuntime | None = None


def runtime() -> OpenCLRuntime:
    """This process's OpenCL state, made on first use (PyOpenCL is imported then, not before)."""
    global _runtime
    if _runtime is None:
        _runtime = OpenCLRuntime()
    return _runtime
