"""Which device a ``--device`` names (or the default one), among every device of every
platform: by ``platform:device`` key, list index, or a substring of its name or platform's.

Standard library only, and over any record with a device's names and place (a
:class:`~explorer.engine.records.DeviceInfo`, or what the executor's drivers thread reads
of each device before the engine is imported: see launch/loader.py), so that both pick the
same device the same way.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Protocol, TypeVar

NO_PLATFORM_HELP = (
    "No OpenCL platform was found. To run kernels on the CPU, install PoCL from pip:\n"
    "    pip install pocl-binary-distribution\n"
    "For a GPU, install the vendor's OpenCL driver (NVIDIA, AMD or Intel). On Linux, NVIDIA's\n"
    "driver may need registering for pip-installed PyOpenCL:\n"
    "    echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd"
)


class NoDeviceError(RuntimeError):
    """No OpenCL platform or device is available, or the one asked for does not exist."""


# In an executor serving a window on another machine: the window names this machine's
# devices ``host/platform:device`` (see :mod:`explorer.engine.remote.server`).
serving_a_window_elsewhere = False


class Named(Protocol):
    """What picking reads of a device."""

    @property
    def platform_index(self) -> int: ...
    @property
    def device_index(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def platform(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def host(self) -> str: ...
    @property
    def key(self) -> str: ...
    @property
    def label(self) -> str: ...


D = TypeVar("D", bound=Named)


def default_device(devices: Sequence[D]) -> D:
    """``PYOPENCL_CTX`` if set, else the first GPU, else the first CPU, else the first."""
    if not devices:
        raise NoDeviceError(NO_PLATFORM_HELP)
    wanted = os.environ.get("PYOPENCL_CTX", "").strip()
    if wanted:
        platform, _, index = wanted.partition(":")
        if platform.isdigit() and (index == "" or index.isdigit()):
            for device in devices:
                if device.platform_index == int(platform) and (
                    index == "" or device.device_index == int(index)
                ):
                    return device
        else:
            try:
                return pick_device(devices, wanted)
            except NoDeviceError:
                pass  # An unusable PYOPENCL_CTX falls back to the usual order.
    # A simulator (Oclgrind) reports every device type; it is for checking, never a default.
    real = [d for d in devices if not is_simulator(d)] or devices
    for kind in ("GPU", "CPU"):
        for device in real:
            if kind in device.type:
                return device
    return real[0]


def is_simulator(device: Named) -> bool:
    """Oclgrind: a device that simulates kernels to check them, slowly."""
    return "oclgrind" in device.platform.lower()


def pick_device(devices: Sequence[D], selector: str | None) -> D:
    """A device by ``platform:device`` key, list index, or a substring of its name."""
    if not devices:
        raise NoDeviceError(NO_PLATFORM_HELP)
    if selector is None or selector == "":
        return default_device(devices)
    selector = selector.strip()
    for device in devices:  # a host's device by its own key there too: --host s --device 0:1
        if device.key in (selector, f"{device.host}/{selector}"):
            return device
    _, slash, here = selector.rpartition("/")
    if slash and serving_a_window_elsewhere:  # the window's key of a device of this machine
        for device in devices:
            if not device.host and device.key == here:
                return device
    if selector.isdigit():
        index = int(selector)
        if index < len(devices):
            return devices[index]
    lowered = selector.lower()
    for device in devices:
        if lowered in device.name.lower() or lowered in device.platform.lower():
            return device
    names = "; ".join(f"[{i}] {d.label}" for i, d in enumerate(devices))
    raise NoDeviceError(f"no device matches {selector!r}. Devices: {names}")
