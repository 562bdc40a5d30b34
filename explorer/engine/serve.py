"""The executor's process: its loop, one request in, one reply out (see executor.py), and
what a process serving a remote window shares with it (:func:`handle`, :func:`prepare_process`).

Started by :mod:`explorer.engine.early`; it imports the engine itself, so the process that
starts it need not have.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

_WATCH_S = 0.2
_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent_pid: int, death_signal: bool) -> None:
    """Make this process end when ``parent_pid`` does.

    ``death_signal``: ask Linux for SIGKILL at the parent's death. Linux sends it when the
    *thread* that started this process ends, so the parent asks only from its main thread.
    The watch thread covers every other case (and other systems): an orphan is re-parented,
    so ``getppid`` changes.
    """
    if death_signal and sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(_WATCH_S)
        os._exit(1)

    if os.getppid() != parent_pid:  # the parent died before the death signal was set
        os._exit(1)
    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _writable_folder(folder: str) -> bool:
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def _without_unwritable_caches() -> None:
    """Build without the on-disk caches where their folder cannot be written (a read-only
    ``XDG_CACHE_HOME``): PyOpenCL would fail every build with ``KeyError:
    'PYOPENCL_CACHE_FAILURE_FATAL'`` and PoCL would fail to store its kernels. Slower builds,
    the same results. Called before PyOpenCL is imported (it reads the switch then)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not _writable_folder(os.path.join(base, "pyopencl")):
        os.environ["PYOPENCL_NO_CACHE"] = "1"
    os.environ.setdefault("PYOPENCL_CACHE_FAILURE_FATAL", "")  # its lookup has no default
    pocl = os.environ.get("POCL_CACHE_DIR") or os.path.join(base, "pocl")
    if not _writable_folder(pocl):
        os.environ["POCL_KERNEL_CACHE"] = "0"


def prepare_process(env: dict[str, str] | None = None) -> None:
    """What an executor process does before it touches OpenCL: ``env`` (a simulator's
    switches) applied, and the on-disk caches left alone where they cannot be written."""
    if env:
        os.environ.update(env)
    _without_unwritable_caches()
    _roomy_thread_stacks()


# A CPU device (PoCL) runs a work-group on one of its threads, keeping every work-item's
# private values that live across a barrier on that thread's stack: 4,096 work-items keeping
# 1,600 bytes each (a traced build keeps the trace's state besides) pass the 8 MiB a thread
# gets by default and end the process with SIGSEGV. The threads are made after this.
THREAD_STACK_BYTES = 64 << 20


def _roomy_thread_stacks(size: int = THREAD_STACK_BYTES) -> None:
    """Threads this process makes from now on get ``size`` bytes of stack (a 64th of an
    address-space limit at most), or the process's stack limit where that is larger. Address
    space only: a thread's stack takes memory as it is used. Where the C library has no such
    call (not glibc), nothing changes."""
    if not sys.platform.startswith("linux"):
        return
    import resource

    with contextlib.suppress(OSError, AttributeError, ValueError):
        space = resource.getrlimit(resource.RLIMIT_AS)[0]
        if space != resource.RLIM_INFINITY:  # under an address-space limit: a share of it
            size = min(size, space // 64)
        soft = resource.getrlimit(resource.RLIMIT_STACK)[0]
        if soft != resource.RLIM_INFINITY and soft >= size:
            return
        libc = ctypes.CDLL(None, use_errno=True)
        attr = ctypes.create_string_buffer(128)  # pthread_attr_t: 56 bytes on x86-64 and arm64
        if libc.pthread_attr_init(attr) != 0:
            return
        try:
            if libc.pthread_attr_setstacksize(attr, ctypes.c_size_t(size)) == 0:
                libc.pthread_setattr_default_np(attr)
        finally:
            libc.pthread_attr_destroy(attr)


def handle(kind: str, payload: Any) -> tuple[str, Any]:
    """One request's reply, ``("ok", value)`` or ``("error", message)``; the same in a local
    executor process and in one serving a remote window."""
    from explorer.engine.launch import run as runner
    from explorer.engine.launch.devices import list_devices

    try:
        if kind == "run":
            return ("ok", runner.run_request(payload))
        if kind == "trace":
            from explorer.engine.record.trace_launch import trace_and_analyse

            return ("ok", trace_and_analyse(*payload))
        if kind == "devices":
            return ("ok", list_devices())
        if kind == "call":
            from explorer.engine import calls

            name, args = payload
            return ("ok", calls.resolve(name)(*args))
        return ("error", f"unknown request {kind!r}")
    except Exception as exc:  # Reported to the caller, never lost.
        return ("error", _error_text(exc))


def serve_requests(
    conn: Connection,
    parent_pid: int = 0,
    death_signal: bool = False,
    warm: tuple[str, ...] = (),
    ahead: str | None = None,
) -> None:
    """The executor process's loop: one request in, one reply out (reply.py's messages, data
    only). The devices are described before the first request (every caller asks for them
    first), and the ``warm`` modules imported, while the caller is still starting (after the
    requests that came meanwhile are answered). The
    caller's notice ``("allow", names)`` (no reply) names functions besides the engine's own
    that it will ask for (:func:`explorer.engine.calls.allow`). ``ahead`` (a device as
    ``--device`` names it, "" for the default device) is the device of a command's run or
    trace: the drivers start on a thread meanwhile, and that device's context is made ahead
    on another (launch/loader.py)."""
    # Ctrl+C reaches every process of the terminal's group: the command that started this
    # one decides what to do (it ends this process), so the interrupt is not this one's.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from explorer.engine import stage_times

    stage_times.role = "executor"
    stage_times.mark("process started")
    if parent_pid:
        _die_with_parent(parent_pid, death_signal)
    prepare_process()
    from explorer.engine.launch import loader

    # Only in a command's first executor (``ahead`` given): an executor started again after
    # a failure, and the window's, start the drivers as PyOpenCL does.
    drivers = loader.start_drivers(ahead) if ahead is not None else None
    import importlib

    from explorer.engine.codec import ProtocolError, check_request
    from explorer.engine.launch import build
    from explorer.engine.launch.devices import list_devices
    from explorer.engine.reply import MAX_MESSAGE_BYTES, pack, read_request

    stage_times.mark("engine imported")
    if drivers is not None:
        # While the drivers thread starts the drivers (a GPU's take 0.1-0.2 s, the
        # interpreter let go), the modules of the command's first request are imported:
        # after the devices reply, the request would wait for them.
        warm = _import_while(warm, lambda: not drivers[1].is_set())
        drivers[1].wait()  # the loader's own start is not safe beside another call
        stage_times.mark("drivers started")
        # and while it makes a GPU's context (0.1 s), before the devices are described:
        # PyOpenCL's questions to that driver wait for the context, holding the interpreter.
        warm = _import_while(warm, loader.busy)
    with contextlib.suppress(Exception):  # a failure is reported when the caller asks
        devices = list_devices()
        stage_times.mark("devices described")
        if ahead is not None:
            _context_ahead(devices, ahead)

    def tell(notice: str) -> None:
        """A build began or ended (see codec.NOTICES); the caller's clock for the kernel
        stops meanwhile."""
        with contextlib.suppress(OSError):  # a caller that is gone hears nothing more
            conn.send_bytes(pack((notice, "")))

    build.listen(tell)

    while True:
        # The warm modules while nothing waits: a request that came meanwhile (the devices,
        # asked as soon as the caller started) is answered first.
        if warm and not _waiting(conn):
            for module in warm:
                importlib.import_module(module)
            warm = ()
            stage_times.mark("warm modules imported")
        try:
            data = conn.recv_bytes(MAX_MESSAGE_BYTES)
        except (EOFError, OSError):
            return
        try:
            kind, payload = check_request(read_request(data), local=True)
            if kind == "allow":
                from explorer.engine import calls

                with contextlib.suppress(Exception):  # the call itself says it is unknown
                    calls.allow_named(payload)
                continue
        except ProtocolError as exc:
            reply: tuple[str, Any] = ("error", f"the request could not be read: {exc}")
        else:
            stage_times.mark(f"request {kind} read")
            reply = handle(kind, payload)
        del data
        conn.send_bytes(pack(reply))
        stage_times.mark("reply sent")
        del reply  # a trace's planes go back to their pool before the next request
        staging = sys.modules.get("explorer.engine.record.staging")
        if staging is not None:  # while the caller reads the reply
            staging.grow_pending()


def _import_while(modules: tuple[str, ...], busy: Callable[[], bool]) -> tuple[str, ...]:
    """Import ``modules`` in order while ``busy()`` (a driver at work on another thread);
    those left, which the request loop imports once the devices are described."""
    import importlib

    for at, module in enumerate(modules):
        if not busy():
            return modules[at:]
        importlib.import_module(module)
    if modules:
        from explorer.engine import stage_times

        stage_times.mark("warm modules imported")
    return ()


def _waiting(conn: Connection) -> bool:
    """Whether a request (or the end of the connection) is there to be read now."""
    try:
        return bool(conn.poll(0))
    except (EOFError, OSError):
        return True


def _context_ahead(devices: list[Any], selector: str) -> None:
    """Make the context of the device ``selector`` picks (the default one for "") on a
    thread, not a simulator's (Oclgrind is not safe to call from two threads at once)."""
    from explorer.engine.launch import loader
    from explorer.engine.launch.devices import NoDeviceError, is_simulator, pick_device

    try:
        device = pick_device(devices, selector or None)
    except NoDeviceError:
        loader.keep_only(None)  # the command is told when it asks
        return
    if is_simulator(device) or device.host:
        loader.keep_only(None)
        return
    loader.keep_only(device.key)  # the drivers thread's, where it picked this device
    if loader.making(device.key):
        # Asking PyOpenCL for the platforms now would wait, holding the interpreter, for
        # the driver to finish that context (NVIDIA's: 40 ms on an H100 host).
        return
    import pyopencl as cl

    platform = cl.get_platforms()[device.platform_index]
    loader.make_context(device.key, platform.get_devices()[device.device_index].int_ptr)


def _error_text(exc: Exception) -> str:
    """What the caller is told of an exception in the executor: the explorer's own errors say
    what is wrong in their message (shortened); another library's text is a detail a person
    cannot act on, so only its kind is named."""
    if type(exc).__module__.startswith("explorer."):
        text = str(exc)
        return text if len(text) <= 600 else text[:300] + " … " + text[-200:]
    if isinstance(exc, MemoryError):
        return "the host ran out of memory; use smaller sizes"
    return f"an unexpected {type(exc).__name__} stopped the work; the executor carries on"
