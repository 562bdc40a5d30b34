"""A long-lived process that runs OpenCL work, so a crash or a hang costs only that process.

The caller sends a request down a pipe and waits, with a deadline. If the process
dies (a segfault in the driver) or misses the deadline (a kernel that never returns),
the caller gets a result naming what happened, and the next request starts a fresh
process. Build caches live in the process and survive between requests.

A large reply (a trace of tens of millions of records) does not go through the pipe: its
arrays are written once into a file in shared memory (``/dev/shm``) that the caller maps
instead of copying; only the rest is pickled down the pipe (see :func:`_pack`).

The process never outlives the one that started it, whatever ends that one (Ctrl+C,
SIGTERM, SIGHUP, SIGKILL): on Linux the kernel sends it SIGKILL when its parent dies
(``PR_SET_PDEATHSIG``), and everywhere a watch thread in it exits as soon as its parent is
gone, even while the main thread is stuck in a kernel that never returns.
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import mmap
import multiprocessing as mp
import os
import pickle
import signal
import sys
import tempfile
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

from explorer.engine.records import (
    DeviceInfo,
    RunRequest,
    RunResult,
    check_timeout,
    failed_result,
)

_POLL_S = 0.05
SINGLE_THREADED = dict.fromkeys(("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"), "1")
# The first request also pays for starting Python and loading the OpenCL runtime.
_STARTUP_ALLOWANCE_S = 30.0


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


# Arrays at least this large leave a reply through shared memory instead of the pipe.
_SHARED_MIN_BYTES = 1 << 20
_SHARED_PREFIX = "opencl-explorer-reply-"


def _shared_dir() -> str:
    return "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()


def _pack(reply: Any) -> Any:
    """What goes down the pipe for ``reply``: the reply itself, or, when it holds large
    arrays, ``("shared", pickle, path, spans)``: the arrays (pickle protocol 5's out-of-band
    buffers) lie one after another in the file ``path``, at ``spans`` (offset, bytes).
    Pickling a 70 MB trace, pushing it through the pipe and unpickling it copied it three
    times; the file is written once and mapped by the caller."""
    large: list[pickle.PickleBuffer] = []

    def in_band(buffer: pickle.PickleBuffer) -> bool:
        if buffer.raw().nbytes < _SHARED_MIN_BYTES:
            return True
        large.append(buffer)
        return False

    try:
        data = pickle.dumps(reply, protocol=5, buffer_callback=in_band)
    except (pickle.PicklingError, TypeError, ValueError, BufferError):
        return reply  # let the pipe report what cannot be sent
    if not large:
        return reply
    spans: list[tuple[int, int]] = []
    end = 0
    for buffer in large:
        size = buffer.raw().nbytes
        spans.append((end, size))
        end += (size + 63) // 64 * 64
    try:
        fd, path = tempfile.mkstemp(prefix=f"{_SHARED_PREFIX}{os.getpid()}-", dir=_shared_dir())
        try:
            os.ftruncate(fd, end)
            with mmap.mmap(fd, end) as mapped:
                for buffer, (at, size) in zip(large, spans, strict=True):
                    mapped[at : at + size] = buffer.raw()
        finally:
            os.close(fd)
    except OSError:
        return reply  # no room in shared memory: through the pipe, as before
    return ("shared", data, path, spans)


def _unpack(message: Any) -> Any:
    """The reply :func:`_pack` sent. The arrays of a shared one are views of a private
    (copy-on-write) mapping of its file, which is removed at once: the memory goes when the
    last array does."""
    if not (isinstance(message, tuple) and len(message) == 4 and message[0] == "shared"):
        return message
    _, data, path, spans = message
    fd = os.open(path, os.O_RDONLY)
    try:
        os.unlink(path)
        size = os.fstat(fd).st_size
        mapped = mmap.mmap(fd, size, access=mmap.ACCESS_COPY)
    finally:
        os.close(fd)
    view = memoryview(mapped)
    return pickle.loads(data, buffers=[view[at : at + n] for at, n in spans])


def _remove_shared(pid: int) -> None:
    """Reply files a process left behind (it was stopped before its reply was read)."""
    for path in glob.glob(os.path.join(_shared_dir(), f"{_SHARED_PREFIX}{pid}-*")):
        with contextlib.suppress(OSError):
            os.unlink(path)


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
            function, args = payload
            return ("ok", function(*args))
        return ("error", f"unknown request {kind!r}")
    except Exception as exc:  # Reported to the caller, never lost.
        return ("error", _error_text(exc))


def _serve(conn: Connection, parent_pid: int = 0, death_signal: bool = False) -> None:
    """The executor process's loop: one request in, one reply out."""
    # Ctrl+C reaches every process of the terminal's group: the command that started this
    # one decides what to do (it ends this process), so the interrupt is not this one's.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if parent_pid:
        _die_with_parent(parent_pid, death_signal)
    prepare_process()
    while True:
        try:
            kind, payload = conn.recv()
        except (EOFError, OSError):
            return
        conn.send(_pack(handle(kind, payload)))


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


class ExecutorError(RuntimeError):
    """The executor process died, hung or was cancelled; ``kind`` says which."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


class Executor:
    """Runs requests in a child process; restarts it after a crash, timeout or cancel."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        """``env``: extra environment variables for the executor process (e.g. to switch on
        a simulator's checks)."""
        self._env = dict(env or {})
        self._mp = mp.get_context("spawn")
        self._process: Any = None
        self._conn: Any = None
        self._lock = threading.Lock()
        self._cancelled = threading.Event()
        self._started_at = 0.0
        self.working_on = ""  # the request in flight (or the last one), in words

    # -- lifecycle ---------------------------------------------------------------

    def _ensure_started(self) -> Any:
        if not self.alive:
            self._process, self._conn = self._start()
            self._started_at = time.monotonic()
        assert self._conn is not None
        return self._conn

    def _start(self) -> tuple[Any, Any]:
        """A fresh process and the connection to it (something with ``send``, ``poll``,
        ``recv`` and ``close``, as a pipe's end has)."""
        parent, child = self._mp.Pipe()
        process = self._mp.Process(
            target=_serve,
            args=(child, os.getpid(), threading.current_thread() is threading.main_thread()),
            name="opencl-executor",
            daemon=True,
        )
        # A CPU OpenCL device keeps its worker threads hot; a multi-threaded BLAS beside
        # them in the same process fights them for the cores and runs many times slower.
        extra = {**SINGLE_THREADED, **self._env}
        saved = {k: os.environ.get(k) for k in extra}
        os.environ.update(extra)
        try:
            process.start()
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        child.close()
        return process, parent

    def _discard(self) -> None:
        process, conn = self._process, self._conn
        self._process, self._conn = None, None
        if conn is not None:
            conn.close()
        if process is not None and process.pid is not None:  # None: it never started
            if process.is_alive():
                process.kill()
            process.join(5)
            if process.pid is not None:
                _remove_shared(process.pid)

    def close(self) -> None:
        """Stop the process; a later request starts a new one."""
        self._discard()

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.is_alive()

    def cancel(self) -> None:
        """Abandon the request in flight (from any thread); its caller gets 'cancelled'."""
        self._cancelled.set()

    # -- requests ----------------------------------------------------------------

    def _request(self, kind: str, payload: Any, timeout_s: float, what: str) -> Any:
        try:
            timeout_s = check_timeout(timeout_s)
        except ValueError as exc:
            raise ExecutorError(f"{exc} ({what})", "error") from None
        with self._lock:
            self._cancelled.clear()
            self.working_on = what
            fresh = not self.alive
            conn = self._ensure_started()
            deadline = time.monotonic() + timeout_s + (_STARTUP_ALLOWANCE_S if fresh else 0.0)
            try:
                conn.send((kind, payload))
            except (BrokenPipeError, OSError):
                self._discard()
                raise ExecutorError(
                    f"the executor process could not be reached ({what})", "crash"
                ) from None
            while True:
                if self._cancelled.is_set():
                    self._discard()
                    raise ExecutorError(f"cancelled while running {what}", "cancelled")
                try:
                    ready = conn.poll(_POLL_S)
                except (EOFError, OSError):
                    ready = True
                if ready:
                    try:
                        status, value = _unpack(conn.recv())
                    except (EOFError, OSError):
                        raise ExecutorError(self._crash_message(what), "crash") from None
                    if status == "error":
                        raise ExecutorError(value, "error")
                    if _left_damage(value):
                        self._discard()  # memory it wrote out of bounds must not outlive it
                    return value
                if time.monotonic() > deadline:
                    self._discard()
                    raise ExecutorError(
                        f"timed out after {timeout_s:g} s while running {what}; the kernel "
                        "was stopped and the executor restarted",
                        "timeout",
                    )

    def _crash_message(self, what: str) -> str:
        process = self._process
        code = None
        if process is not None:
            process.join(5)
            code = process.exitcode
        self._discard()
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = "unknown signal"
            how = f"signal {-code}, {name}"
        else:
            how = f"exit code {code}"
        return (
            f"the OpenCL runtime crashed ({how}) while running {what}; the executor was restarted"
        )

    def devices(self, timeout_s: float = 60.0) -> list[DeviceInfo]:
        return list(self._request("devices", None, timeout_s, "device discovery"))

    def call(self, function: Any, *args: Any, timeout_s: float = 600.0, what: str = "") -> Any:
        """Run a module-level function in the executor process (used by benchmarks)."""
        return self._request("call", (function, args), timeout_s, what or function.__name__)

    def trace(
        self,
        request: Any,
        warp: int = 32,
        banks: int = 32,
        keep_trace: bool = False,
        bank_bytes: int = 4,
    ) -> Any:
        """Trace and analyse one configuration (a :class:`TraceRequest`); returns a
        :class:`TracedRun`, whose result names any crash, timeout or cancel."""
        from explorer.engine.record.trace_launch import TracedRun

        what = "trace of " + _describe(request.run)
        both = 2 if getattr(request, "against", None) is not None else 1  # and the reference's
        try:
            return self._request(
                "trace",
                (request, warp, banks, keep_trace, bank_bytes),
                request.run.timeout_s * both,
                what,
            )
        except ExecutorError as exc:
            return TracedRun(failed_result(request.run, str(exc), exc.kind), None, None, {})

    def run(self, request: RunRequest) -> RunResult:
        """Run one configuration; a crash, timeout or cancel comes back as the result's error."""
        what = _describe(request)
        try:
            return self._request("run", request, request.timeout_s, what)
        except ExecutorError as exc:
            return failed_result(request, str(exc), exc.kind)


def _left_damage(value: Any) -> bool:
    """A result (or a traced run's result) of a kernel caught writing outside its buffers, or
    one the runtime stopped (a fault on a GPU leaves its context unusable: every later build
    and launch in that process fails): the process that ran it is not trusted with the next
    request."""
    result = getattr(value, "result", value)
    return isinstance(result, RunResult) and result.error_kind in ("crash", "runtime")


def _describe(request: RunRequest) -> str:
    sizes = ", ".join(f"{k}={v}" for k, v in request.sizes.items())
    return f"{request.variant.qualified_id} ({sizes})"


__all__ = ["Executor", "ExecutorError"]
