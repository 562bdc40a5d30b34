"""Every OpenCL platform and device, as :class:`DeviceInfo` records."""

from __future__ import annotations

from typing import Any

from explorer.capture.bootstrap.host_cpu import name_unknown_processors
from explorer.engine.launch.picking import (
    NO_PLATFORM_HELP,
    NoDeviceError,
    default_device,
    is_simulator,
    pick_device,
)
from explorer.engine.records import DeviceInfo

# Picking a device among them is picking.py's (the executor's drivers thread picks too, before
# this module is imported); its names are this module's as well.
__all__ = [
    "NO_PLATFORM_HELP",
    "NoDeviceError",
    "default_device",
    "is_simulator",
    "list_devices",
    "pick_device",
    "preferred_multiple",
    "probe_multiple",
]


def _platforms():  # type: ignore[no-untyped-def]
    import pyopencl as cl

    try:
        platforms = cl.get_platforms()
    except cl.Error:
        return []
    name_unknown_processors(cl, platforms)  # PoCL on a processor newer than its compiler
    return platforms


_listed: list[DeviceInfo] | None = None


def list_devices() -> list[DeviceInfo]:
    """Every device of every platform, in platform order; described once per process (each
    description builds a probe kernel), as the platforms an ICD loader found stay the same."""
    global _listed
    if _listed is None:
        _listed = _list_devices()
    return list(_listed)


def _list_devices() -> list[DeviceInfo]:
    import pyopencl as cl

    infos = []
    for p_index, platform in enumerate(_platforms()):
        try:
            devices = platform.get_devices()
        except cl.Error:
            continue
        for d_index, device in enumerate(devices):
            infos.append(_describe(cl, p_index, d_index, platform, device))
    return infos


def _type_name(cl: Any, bits: int) -> str:
    """``GPU``, ``CPU``, or the types a device reports together (a simulator reports them
    all), from the bits themselves: PyOpenCL's own listing names an internal attribute too."""
    kinds = cl.device_type
    names = [
        name
        for name in ("ACCELERATOR", "CPU", "GPU", "CUSTOM")
        if hasattr(kinds, name) and bits & int(getattr(kinds, name))
    ]
    return " | ".join(names) or "DEFAULT"


def _describe(cl: Any, p_index: int, d_index: int, platform: Any, device: Any) -> DeviceInfo:
    def get(attr: str, default: Any = 0) -> Any:  # a device attribute, or default
        try:
            return getattr(device, attr)
        except (cl.Error, AttributeError):
            return default

    multiple = preferred_multiple(cl, platform, device)
    return DeviceInfo(
        platform_index=p_index,
        device_index=d_index,
        name=str(get("name", "?")).strip(),
        vendor=str(get("vendor", "?")).strip(),
        platform=str(platform.name).strip(),
        type=_type_name(cl, int(get("type", 0))),
        opencl_version=str(get("version", "?")).strip(),
        driver_version=str(get("driver_version", "?")).strip(),
        compute_units=int(get("max_compute_units", 1)),
        max_work_group_size=int(get("max_work_group_size", 1)),
        max_work_item_sizes=tuple(int(v) for v in get("max_work_item_sizes", [1])),
        local_mem_bytes=int(get("local_mem_size", 0)),
        global_mem_bytes=int(get("global_mem_size", 0)),
        max_alloc_bytes=int(get("max_mem_alloc_size", 0)),
        clock_mhz=int(get("max_clock_frequency", 0)),
        preferred_multiple=int(multiple),
    )


def preferred_multiple(cl: Any, platform: Any, device: Any) -> int:
    """The device's preferred multiple of the work-group size, which only a built kernel
    tells: a probe kernel is built once per device and driver, and the answer kept on disk
    (``<cache folder>/devices``), keyed by the platform's, the device's and the driver's
    names and versions. Describing PoCL took a tenth of a second of every process's start
    (a context, a build, a kernel), Oclgrind half as much again."""
    from explorer.frontend import disk_cache  # the package's import is paid by its users

    try:
        identity = [platform.name, platform.version, device.name, device.version]
        identity += [device.driver_version, device.vendor]
    except cl.Error:
        identity = []
    key = disk_cache.digest("preferred-multiple", *map(str, identity)) if identity else ""
    kept = disk_cache.load(_DEVICE_FOLDER, key, int) if key else None
    if kept is not None:
        return kept
    try:
        multiple = probe_multiple(cl, device)
    except cl.Error:
        return 1
    if key:
        disk_cache.store(_DEVICE_FOLDER, key, multiple)
    return multiple


_DEVICE_FOLDER = "devices"


def probe_multiple(cl: Any, device: Any) -> int:
    """Build a probe kernel on ``device`` and ask it for the preferred multiple."""
    ctx = cl.Context([device])
    probe = cl.Program(ctx, "__kernel void probe(__global int* x) { x[0] = 1; }").build()
    return int(
        cl.Kernel(probe, "probe").get_work_group_info(
            cl.kernel_work_group_info.PREFERRED_WORK_GROUP_SIZE_MULTIPLE, device
        )
    )
