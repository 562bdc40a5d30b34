"""A long-lived process that runs OpenCL work, so a crash or a hang costs only that process.

The caller sends a request down a pipe and waits, with a deadline. If the process
dies (a segfault in the driver) or misses the deadline (a kernel that never returns),
the caller gets a result naming what happened, and the next request starts a fresh
process. Build caches live in the process and survive between requests.

Requests and replies are data only (codec.py: no pickle, no code), checked against their
kind's schema; a reply that breaks the protocol is refused and the process restarted. A large
reply (a trace of tens of millions of records) does not go through the pipe: its arrays are
written once into a file in shared memory (``/dev/shm``) that the caller maps instead of
copying (see reply.py). The process's own loop is serve.py; it may have been started before
the caller imported this module (early.py).

The process never outlives the one that started it, whatever ends that one (Ctrl+C,
SIGTERM, SIGHUP, SIGKILL): on Linux the kernel sends it SIGKILL when its parent dies
(``PR_SET_PDEATHSIG``), and everywhere a watch thread in it exits as soon as its parent is
gone, even while the main thread is stuck in a kernel that never returns.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from explorer.engine import calls, early
from explorer.engine.codec import NOTICES, CodecError, ProtocolError, check_reply
from explorer.engine.early import SINGLE_THREADED
from explorer.engine.records import (
    DeviceInfo,
    RunRequest,
    RunResult,
    check_timeout,
    failed_result,
)
from explorer.engine.reply import MAX_MESSAGE_BYTES, pack_request, remove_shared, unpack
from explorer.engine.serve import handle, prepare_process

_POLL_S = 0.05
# The first request also pays for starting Python and loading the OpenCL runtime.
_STARTUP_ALLOWANCE_S = 30.0
# A build's own bound: its time never counts against the request's timeout, which is the
# kernel's (PoCL compiles a large kernel for 10 s on a quiet machine, a minute on a busy one).
BUILD_LIMIT_S = 600.0
# A build that takes longer than this is said while it runs (the window's progress, a line
# on the command line's stderr); a quicker one is not.
BUILD_NOTICE_AFTER_S = 1.0

# Told, on the thread that made the request, what a build says while it runs: its words once
# it has taken BUILD_NOTICE_AFTER_S ("building matmul/fast (…) (first time; cached after)"),
# then "" when it is over.
BuildNotice = Callable[[str], None]


# What the thread making requests still wants (see :func:`only_while`).
_wanted = threading.local()


@contextlib.contextmanager
def only_while(still_wanted: Callable[[], bool]) -> Iterator[None]:
    """Requests this thread makes inside the block are cancelled as soon as ``still_wanted()``
    is False, a request whose caller gave up before it even started included: a caller with a
    queue of work (the window's worker) says which of it is still wanted, where
    :meth:`Executor.cancel` reaches only the request already in flight."""
    previous = getattr(_wanted, "check", None)
    _wanted.check = still_wanted
    try:
        yield
    finally:
        _wanted.check = previous


def _given_up() -> bool:
    check = getattr(_wanted, "check", None)
    return check is not None and not check()


class ExecutorError(RuntimeError):
    """The executor process died, hung or was cancelled; ``kind`` says which."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


class Executor:
    """Runs requests in a child process; restarts it after a crash, timeout or cancel."""

    def __init__(
        self, env: dict[str, str] | None = None, on_build: BuildNotice | None = None
    ) -> None:
        """``env``: extra environment variables for the executor process (e.g. to switch on
        a simulator's checks). ``on_build``: told of a build that takes over a second."""
        self._env = dict(env or {})
        self.on_build = on_build
        self._process: Any = None
        self._conn: Any = None
        self._lock = threading.Lock()
        self._cancelled = threading.Event()
        self._started_at = 0.0
        self._waits = True  # for the process to end, when it is stopped (see leave)
        self.working_on = ""  # the request in flight (or the last one), in words

    # -- lifecycle ---------------------------------------------------------------

    def _ensure_started(self) -> Any:
        if not self.alive:
            self._process, self._conn = self._start()
            self._started_at = time.monotonic()
        assert self._conn is not None
        return self._conn

    def _start(self) -> tuple[Any, Any]:
        """A fresh process and the connection to it (something with ``send`` of a request,
        ``poll``, ``recv`` of its checked reply, and ``close``): the one the command started
        before its imports, when this is its first executor (early.py), else a new one."""
        started = None if self._env else early.take()
        process, conn = started or early.spawn(self._env)
        return process, _Pipe(conn, process.pid)

    def _discard(self) -> None:
        process, conn = self._process, self._conn
        self._process, self._conn = None, None
        if conn is not None:
            conn.close()
        if process is not None and process.pid is not None:  # None: it never started
            if process.is_alive():
                process.kill()
            if self._waits:
                process.join(5)
            if process.pid is not None:
                remove_shared(process.pid)

    def close(self) -> None:
        """Stop the process; a later request starts a new one."""
        self._discard()

    def leave(self) -> None:
        """Stop the process without waiting for it to be gone: for a command that exits
        next, whose process the system reaps (a process that held a GPU context and hundreds
        of MB of trace records takes a while to end, and the person waited for that)."""
        self._waits = False
        try:
            self.close()
        finally:
            self._waits = True

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
            if _given_up():  # its caller cancelled it while it waited to be sent
                raise ExecutorError(f"cancelled before it started: {what}", "cancelled")
            fresh = not self.alive
            conn = self._ensure_started()
            clock = _Clock(timeout_s + (_STARTUP_ALLOWANCE_S if fresh else 0.0))
            try:
                conn.send((kind, payload))
            except CodecError as exc:  # not data: nothing was sent
                raise ExecutorError(
                    f"{what} cannot be sent to the executor: {exc}", "error"
                ) from None
            except (BrokenPipeError, OSError):
                self._discard()
                raise ExecutorError(
                    f"the executor process could not be reached ({what})", "crash"
                ) from None
            late = (
                f"timed out after {timeout_s:g} s while running {what}; the kernel was "
                "stopped and the executor restarted"
            )
            try:
                try:
                    status, value = self._reply(conn, clock, f"running {what}", late, what)
                except ProtocolError as exc:
                    message = self._broken_message(str(exc), what)
                    self._discard()
                    raise ExecutorError(message, "error") from None
                except (EOFError, OSError):
                    raise ExecutorError(self._crash_message(what), "crash") from None
                if status == "error":
                    raise ExecutorError(value, "error")
                if _left_damage(value):
                    self._discard()  # memory it wrote out of bounds must not outlive it
                return value
            finally:
                self._tell_build(clock, what, over=True)

    def _reply(
        self, conn: Any, deadline: float | _Clock, doing: str, late: str, what: str = ""
    ) -> Any:
        """The reply ``conn`` brings to what was sent on it: the one wait of every request, and
        of a remote executor's greeting. The build notices heard before it (codec.NOTICES)
        stop the kernel's clock and reach ``on_build``. Cancel (or a caller that no longer
        wants it) and the deadline (a time, or a request's :class:`_Clock`) end the wait with
        an :class:`ExecutorError` (``doing`` and ``late`` say what was cancelled and what
        timed out; ``what``, what was being built), the process discarded. How the reply is
        read may raise: :class:`ProtocolError` for one that breaks the protocol, ``EOFError``
        or ``OSError`` where the stream ended; the caller says what that means."""
        clock = deadline if isinstance(deadline, _Clock) else _Clock(deadline - time.monotonic())
        while True:
            if self._cancelled.is_set() or _given_up():
                self._discard()
                raise ExecutorError(f"cancelled while {doing}", "cancelled")
            try:
                ready = conn.poll(_POLL_S)
            except (EOFError, OSError):
                ready = True  # recv says how it ended
            if ready:
                status, value = conn.recv()
                if status in NOTICES:
                    clock.heard(status)
                    self._tell_build(clock, what)
                    continue
                return status, value
            self._tell_build(clock, what)
            if clock.build_expired():
                self._discard()
                raise ExecutorError(
                    f"the build took longer than {BUILD_LIMIT_S:g} s while preparing {what}; "
                    "it was stopped and the executor restarted",
                    "timeout",
                )
            if clock.expired():
                self._discard()
                raise ExecutorError(late, "timeout")

    def _tell_build(self, clock: _Clock, what: str, over: bool = False) -> None:
        """Tell ``on_build`` of a build that has taken a second, and that it is over."""
        if self.on_build is None:
            return
        if clock.told and (over or clock.building_for() is None):
            clock.told = False
            self.on_build("")
        elif not over and not clock.told:
            seconds = clock.building_for()
            if seconds is not None and seconds >= BUILD_NOTICE_AFTER_S:
                clock.told = True
                self.on_build(f"building {what} (first time; cached after)")

    def _crash_message(self, what: str) -> str:
        return (
            f"the OpenCL runtime crashed ({self._ended()}) while running {what}; the executor "
            "was restarted"
        )

    def _broken_message(self, problem: str, what: str) -> str:
        """A reply that broke the protocol (``problem``), which was not used."""
        return (
            f"the executor process sent a reply to {what} that breaks the protocol "
            f"({problem}); nothing of it was used and the executor was restarted"
        )

    def _ended(self) -> str:
        """How the process ended (given a few seconds to), in words; it is discarded."""
        process = self._process
        code = None
        if process is not None:
            process.join(5)
            code = process.exitcode
        self._discard()
        return exit_text(code)

    def devices(self, timeout_s: float = 60.0) -> list[DeviceInfo]:
        return list(self._request("devices", None, timeout_s, "device discovery"))

    def call(self, function: Any, *args: Any, timeout_s: float = 600.0, what: str = "") -> Any:
        """Run a module-level function in the executor process (used by benchmarks): one of
        :mod:`explorer.engine.calls`, sent by its name."""
        what = what or getattr(function, "__name__", str(function))
        try:
            name = calls.name_of(function)
        except calls.NotCallable as exc:
            raise ExecutorError(f"{exc} ({what})", "error") from None
        return self._request("call", (name, args), timeout_s, what)

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
        from explorer.engine.record.requests import TracedRun

        what = "trace of " + _describe(request.run)
        both = 2 if getattr(request, "against", None) is not None else 1  # and the reference's
        if getattr(request, "anatomy_lines", ()) or getattr(request, "anatomy_findings", False):
            both += 1  # and the anatomy build's
        if both > 1:  # the limit given is each launch's: say so beside the sum waited
            what += f" ({request.run.timeout_s:g} s for each of its {both} launches)"
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


class _Clock:
    """A request's time: the kernel's runs except while the process builds (it says so,
    codec.NOTICES), and each build has its own bound (:data:`BUILD_LIMIT_S`)."""

    def __init__(self, seconds: float) -> None:
        self.left = seconds
        self.since = time.monotonic()
        self.build_began: float | None = None
        self.told = False  # on_build has been told of the build in progress

    def heard(self, notice: str) -> None:
        now = time.monotonic()
        if notice == "building" and self.build_began is None:
            self.left -= now - self.since
            self.build_began = now
        elif notice == "built" and self.build_began is not None:
            self.since = now
            self.build_began = None

    def building_for(self) -> float | None:
        """Seconds the build in progress has taken; None while none is."""
        return None if self.build_began is None else time.monotonic() - self.build_began

    def build_expired(self) -> bool:
        seconds = self.building_for()
        return seconds is not None and seconds > BUILD_LIMIT_S

    def expired(self) -> bool:
        return self.build_began is None and time.monotonic() - self.since > self.left


class _Pipe:
    """The caller's end of a local executor's pipe: requests sent and replies read as
    reply.py's messages, each reply checked against the schema of the request it answers."""

    def __init__(self, conn: Any, pid: int) -> None:
        self._conn = conn
        self._pid = pid
        self._kind = ""
        self._told: set[str] = set()  # the functions of calls.allow the process was named

    def send(self, message: tuple[str, Any]) -> None:
        data = pack_request(message)
        kind, payload = message
        name = payload[0] if kind == "call" else ""
        if name and name not in calls.CALLABLE and name not in self._told:
            self._conn.send_bytes(pack_request(("allow", (name,))))
            self._told.add(name)
        self._kind = kind
        self._conn.send_bytes(data)

    def poll(self, timeout: float) -> bool:
        return bool(self._conn.poll(timeout))

    def recv(self) -> tuple[str, Any]:
        try:
            data = self._conn.recv_bytes(MAX_MESSAGE_BYTES)
        except OSError as exc:
            if "bad message length" in str(exc):  # over the limit: never read
                raise ProtocolError(
                    f"a reply of more than {MAX_MESSAGE_BYTES >> 20} MiB through the pipe"
                ) from None
            raise
        return check_reply(self._kind, unpack(data, self._pid))

    def close(self) -> None:
        self._conn.close()


def exit_text(code: int | None) -> str:
    """A process's exit code in words: ``signal 11, SIGSEGV`` or ``exit code 1``."""
    if code is not None and code < 0:
        try:
            return f"signal {-code}, {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}, unknown signal"
    return f"exit code {code}"


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


# handle, prepare_process and SINGLE_THREADED: what a process serving a remote window shares.
__all__ = [
    "SINGLE_THREADED",
    "BuildNotice",
    "Executor",
    "ExecutorError",
    "handle",
    "prepare_process",
]
