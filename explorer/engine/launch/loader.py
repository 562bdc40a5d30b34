"""The OpenCL runtime's two slowest calls of a new process, started ahead on threads.

Asking for the platforms the first time starts every driver the ICD loader finds (NVIDIA's
initialises CUDA: 0.12–0.2 s on an H100 host), and a GPU's first context takes another 0.1 s.
PyOpenCL holds the interpreter during both, so nothing else of the process moves meanwhile;
called through ctypes, which lets the interpreter go, they run on a thread while the executor
imports numpy, PyOpenCL and the engine. PyOpenCL then finds the drivers started, and takes
the context made ahead (:func:`take_context`) instead of making one.

The device a command names is known before the engine is imported: the thread that starts
the drivers reads each device's name and type, picks the device as the engine will
(picking.py), and makes a GPU's context right there, while the interpreter still imports
(a context on NVIDIA's driver takes 0.1 s). The executor checks the pick once it has
described the devices; a context made for another device is let go.

Standard library only: the executor starts this before it imports anything else. The loader
is the very library PyOpenCL is linked with (its wheel carries one), so both share one
start-up; it is reached through PyOpenCL's own extension, loaded as a library (not run):
the loader finds the drivers the wheel carries beside it through that extension's search
path, and an earlier start from elsewhere would find none of them, once and for all. Any
failure here only means that PyOpenCL does the work itself, later.
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import importlib.machinery
import importlib.util
import os
import threading
from functools import cache
from typing import Any

from explorer.engine import stage_times
from explorer.engine.launch.picking import NoDeviceError, is_simulator, pick_device

_CL_DEVICE_TYPE_ALL = 0xFFFFFFFF
_CL_PLATFORM_NAME = 0x0902
_CL_DEVICE_TYPE = 0x1000
_CL_DEVICE_NAME = 0x102B
# A device's types as the engine names them (devices.py), in its order.
_TYPE_BITS = (("ACCELERATOR", 1 << 3), ("CPU", 1 << 1), ("GPU", 1 << 2), ("CUSTOM", 1 << 4))
# The devices whose context the drivers thread makes: where one is slow to make. A CPU
# device's (PoCL's: milliseconds) is made once the devices are described (serve._context_ahead).
EARLY_CONTEXT_TYPES = (1 << 2) | (1 << 3)  # GPU, accelerator

# Contexts being made ahead, by device key: the thread and where it leaves the context.
_ahead: dict[str, tuple[threading.Thread, list[int]]] = {}


@cache
def _package() -> str:
    """PyOpenCL's folder ("" where it is not installed), found and not imported."""
    spec = importlib.util.find_spec("pyopencl")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    return folders[0] if folders else ""


def _extension() -> str | None:
    """PyOpenCL's compiled extension (``_cl``), whose search path finds its loader."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        found = glob.glob(os.path.join(_package(), "_cl" + suffix))
        if found:
            return found[0]
    return None


def _loader_path() -> str:
    """The ICD loader PyOpenCL's extension is linked with: the one its wheel carries where
    there is one (``pyopencl/.libs`` or ``pyopencl.libs``), else the system's."""
    folder = _package()
    if folder:
        for libs in (os.path.join(folder, ".libs"), folder.rstrip(os.sep) + ".libs"):
            found = sorted(glob.glob(os.path.join(libs, "libOpenCL*.so*")))
            if found:
                return found[0]
    return "libOpenCL.so.1"


@cache
def _loader() -> Any:
    extension = _extension()
    if extension is None:
        raise OSError("PyOpenCL's extension was not found")
    ctypes.CDLL(extension)  # loads the loader as PyOpenCL will (see the module)
    lib = ctypes.CDLL(_loader_path())
    uint, pointer = ctypes.c_uint32, ctypes.c_void_p
    lib.clGetPlatformIDs.argtypes = [uint, pointer, ctypes.POINTER(uint)]
    lib.clGetPlatformIDs.restype = ctypes.c_int32
    lib.clGetDeviceIDs.argtypes = [pointer, ctypes.c_uint64, uint, pointer, ctypes.POINTER(uint)]
    lib.clGetDeviceIDs.restype = ctypes.c_int32
    lib.clCreateContext.argtypes = [
        pointer,
        uint,
        ctypes.POINTER(pointer),
        pointer,
        pointer,
        ctypes.POINTER(ctypes.c_int32),
    ]
    lib.clCreateContext.restype = pointer
    size = ctypes.c_size_t
    for name in ("clGetPlatformInfo", "clGetDeviceInfo"):
        getattr(lib, name).argtypes = [pointer, uint, size, pointer, ctypes.POINTER(size)]
        getattr(lib, name).restype = ctypes.c_int32
    lib.clReleaseContext.argtypes = [pointer]
    lib.clReleaseContext.restype = ctypes.c_int32
    return lib


class _Seen:
    """A device as the drivers thread reads it: what picking.py reads of a device."""

    host = ""

    def __init__(
        self, platform_index: int, device_index: int, name: str, platform: str, kinds: int
    ) -> None:
        self.platform_index = platform_index
        self.device_index = device_index
        self.name = name
        self.platform = platform
        self.kinds = kinds
        names = [name for name, bit in _TYPE_BITS if kinds & bit]
        self.type = " | ".join(names) or "DEFAULT"

    @property
    def key(self) -> str:
        return f"{self.platform_index}:{self.device_index}"

    @property
    def label(self) -> str:
        return f"{self.name} ({self.type}, {self.platform})"


def _text(lib: Any, getter: str, handle: Any, what: int) -> str:
    """A string the driver tells of a platform or device, stripped as PyOpenCL's reading of
    it is in devices.py."""
    size = ctypes.c_size_t()
    if getattr(lib, getter)(handle, what, 0, None, ctypes.byref(size)) != 0:
        raise OSError(f"{getter} failed")
    text = ctypes.create_string_buffer(max(1, size.value))
    if getattr(lib, getter)(handle, what, size.value, text, None) != 0:
        raise OSError(f"{getter} failed")
    return text.value.decode("utf-8", "replace").strip()


def _kinds(lib: Any, device: Any) -> int:
    kinds = ctypes.c_uint64()
    size = ctypes.sizeof(kinds)
    if lib.clGetDeviceInfo(device, _CL_DEVICE_TYPE, size, ctypes.byref(kinds), None) != 0:
        raise OSError("clGetDeviceInfo failed")
    return int(kinds.value)


def _start_drivers(ahead: str | None, early: int, started: threading.Event) -> Any:
    """Start every driver (``started`` is set after, whatever happens); the context to make
    next, as a call, where ``ahead`` names a device of the ``early`` types (else None)."""
    seen: list[tuple[_Seen, int]] = []
    try:
        with contextlib.suppress(Exception):  # PyOpenCL meets and reports any problem itself
            lib = _loader()
            count = ctypes.c_uint32()
            if lib.clGetPlatformIDs(0, None, ctypes.byref(count)) != 0 or not count.value:
                return None
            platforms = (ctypes.c_void_p * count.value)()
            if lib.clGetPlatformIDs(count.value, platforms, None) != 0:
                return None
            stage_times.mark(f"{count.value} platforms found", who="drivers")
            for p_index, platform in enumerate(platforms):
                found = ctypes.c_uint32()
                if lib.clGetDeviceIDs(platform, _CL_DEVICE_TYPE_ALL, 0, None, ctypes.byref(found)):
                    continue
                stage_times.mark(f"platform {p_index} started", who="drivers")
                if ahead is None or not found.value:
                    continue
                devices = (ctypes.c_void_p * found.value)()
                if lib.clGetDeviceIDs(platform, _CL_DEVICE_TYPE_ALL, found.value, devices, None):
                    continue
                name = _text(lib, "clGetPlatformInfo", platform, _CL_PLATFORM_NAME)
                for d_index, device in enumerate(devices):
                    seen_name = _text(lib, "clGetDeviceInfo", device, _CL_DEVICE_NAME)
                    kinds = _kinds(lib, device)
                    seen.append((_Seen(p_index, d_index, seen_name, name, kinds), int(device)))
            if ahead is not None:
                _last_seen[:] = [device for device, _ in seen]
                return _pick_early(seen, ahead, early)
    finally:
        started.set()  # the drivers are started: the engine may call them now
    return None


# The devices as the drivers thread last read them (where it was given a device to pick).
_last_seen: list[_Seen] = []


def _pick_early(seen: list[tuple[_Seen, int]], ahead: str, early: int) -> Any:
    """The device ``ahead`` names among ``seen``, picked as the engine will; where it is of
    the ``early`` types, the call that makes its context on this thread, its entry in
    ``_ahead`` already (so that the executor waits for this one rather than make another)."""
    try:
        picked = pick_device([device for device, _ in seen], ahead or None)
    except NoDeviceError:
        return None
    if is_simulator(picked) or not picked.kinds & early:
        return None
    pointer = dict((device.key, at) for device, at in seen)[picked.key]
    made: list[int] = []
    _ahead[picked.key] = (threading.current_thread(), made)
    return lambda: _make(pointer, made, picked.key)


def start_drivers(
    ahead: str | None = None, early: int = EARLY_CONTEXT_TYPES
) -> tuple[threading.Thread, threading.Event]:
    """Ask the loader for every platform and its devices on a thread of its own, now (the
    process's environment must be final: a driver reads it as it starts), and the event set
    once they are started. ``ahead``: the device a command names ("" for the default one),
    whose context the thread makes next where it is of the ``early`` types."""
    if _package():  # where the wheel's loader looks for the drivers it carries, as PyOpenCL
        os.environ["PYOPENCL_HOME"] = _package()  # sets it when imported
    started = threading.Event()

    def run() -> None:
        make = _start_drivers(ahead, early, started)
        if make is not None:
            make()

    thread = threading.Thread(target=run, name="opencl-drivers", daemon=True)
    thread.start()
    return thread, started


def _make(device_pointer: int, made: list[int], key: str = "") -> None:
    with contextlib.suppress(Exception):
        error = ctypes.c_int32()
        device = ctypes.c_void_p(device_pointer)
        context = _loader().clCreateContext(
            None, 1, ctypes.byref(device), None, None, ctypes.byref(error)
        )
        if error.value == 0 and context:
            made.append(int(context))
            if key:
                stage_times.mark(f"context of {key} made", who="drivers")


def make_context(device_key: str, device_pointer: int) -> None:
    """Create the context of one device (``device_pointer``: PyOpenCL's ``Device.int_ptr``)
    on a thread of its own; :func:`take_context` gives it. Nothing where one is being made
    for that device already."""
    if device_key in _ahead:
        return
    made: list[int] = []
    thread = threading.Thread(target=_make, args=(device_pointer, made), name="opencl-context")
    thread.daemon = True
    _ahead[device_key] = (thread, made)
    thread.start()


def making(device_key: str) -> bool:
    """Whether a context of the device is made, or being made, ahead."""
    return device_key in _ahead


def busy() -> bool:
    """Whether a context is being made ahead now (the interpreter let go meanwhile)."""
    return any(thread.is_alive() for thread, _ in _ahead.values())


def keep_only(device_key: str | None) -> None:
    """Let go of every context made ahead but ``device_key``'s (the drivers thread picked a
    device the engine did not): each is released once made, on a thread of its own, as a
    GPU's context holds its memory."""
    for key in [key for key in _ahead if key != device_key]:
        thread, made = _ahead.pop(key)

        def release(thread: threading.Thread = thread, made: list[int] = made) -> None:
            thread.join()
            with contextlib.suppress(Exception):
                for context in made:
                    _loader().clReleaseContext(ctypes.c_void_p(context))

        threading.Thread(target=release, name="opencl-release", daemon=True).start()


def take_context(device_key: str) -> int | None:
    """The context made ahead for the device (its pointer, owned by the caller from now on),
    once it is ready; None where none was asked for or it could not be made."""
    ahead = _ahead.pop(device_key, None)
    if ahead is None:
        return None
    thread, made = ahead
    thread.join()
    return made[0] if made else None
