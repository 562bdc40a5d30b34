"""The OpenCL runtime's two slowest calls of a new process, started ahead on threads.

Asking for the platforms the first time starts every driver the ICD loader finds (NVIDIA's
initialises CUDA: 0.12–0.2 s on an H100 host), and a GPU's first context takes another 0.1 s.
PyOpenCL holds the interpreter during both, so nothing else of the process moves meanwhile;
called through ctypes, which lets the interpreter go, they run on a thread while the executor
imports numpy, PyOpenCL and the engine. PyOpenCL then finds the drivers started, and takes
the context made ahead (:func:`take_context`) instead of making one.

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

_CL_DEVICE_TYPE_ALL = 0xFFFFFFFF

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
    return lib


def _start_drivers() -> None:
    with contextlib.suppress(Exception):  # PyOpenCL meets and reports any problem itself
        lib = _loader()
        count = ctypes.c_uint32()
        if lib.clGetPlatformIDs(0, None, ctypes.byref(count)) != 0 or not count.value:
            return
        platforms = (ctypes.c_void_p * count.value)()
        if lib.clGetPlatformIDs(count.value, platforms, None) != 0:
            return
        for platform in platforms:
            devices = ctypes.c_uint32()
            lib.clGetDeviceIDs(platform, _CL_DEVICE_TYPE_ALL, 0, None, ctypes.byref(devices))


def start_drivers() -> threading.Thread:
    """Ask the loader for every platform and its devices on a thread of its own, now (the
    process's environment must be final: a driver reads it as it starts)."""
    if _package():  # where the wheel's loader looks for the drivers it carries, as PyOpenCL
        os.environ["PYOPENCL_HOME"] = _package()  # sets it when imported
    thread = threading.Thread(target=_start_drivers, name="opencl-drivers", daemon=True)
    thread.start()
    return thread


def make_context(device_key: str, device_pointer: int) -> None:
    """Create the context of one device (``device_pointer``: PyOpenCL's ``Device.int_ptr``)
    on a thread of its own; :func:`take_context` gives it."""
    if device_key in _ahead:
        return
    made: list[int] = []

    def make() -> None:
        with contextlib.suppress(Exception):
            error = ctypes.c_int32()
            device = ctypes.c_void_p(device_pointer)
            context = _loader().clCreateContext(
                None, 1, ctypes.byref(device), None, None, ctypes.byref(error)
            )
            if error.value == 0 and context:
                made.append(int(context))

    thread = threading.Thread(target=make, name="opencl-context", daemon=True)
    _ahead[device_key] = (thread, made)
    thread.start()


def take_context(device_key: str) -> int | None:
    """The context made ahead for the device (its pointer, owned by the caller from now on),
    once it is ready; None where none was asked for or it could not be made."""
    ahead = _ahead.pop(device_key, None)
    if ahead is None:
        return None
    thread, made = ahead
    thread.join()
    return made[0] if made else None
