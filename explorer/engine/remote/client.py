"""The window's end of a remote executor: a :class:`CommandExecutor` starts the host's command
(``ssh user@server python3 -m explorer executor-serve``, or any command that runs
``executor-serve`` with its standard input and output) and speaks :mod:`.wire` frames to it.

It is an :class:`~explorer.engine.executor.Executor` in every other respect: a request has
the same deadline, Cancel and a timeout stop the command (which closes the connection, and
the far end ends with its input), a lost connection is reported as a crash naming the work
that was running, and the next request connects again.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn

from explorer import __version__
from explorer.engine.codec import ProtocolError, VersionMismatch, check_reply
from explorer.engine.executor import Executor, ExecutorError, exit_text
from explorer.engine.records import DeviceInfo, RunRequest, RunResult
from explorer.engine.remote import files
from explorer.engine.remote.hosts import Host
from explorer.engine.remote.install import HostNeedsInstall
from explorer.engine.remote.wire import (
    MAX_FRAME_BYTES,
    MAX_INFLATED_BYTES,
    PROTOCOL,
    FrameReader,
    NotFrames,
    encode,
)

_CHUNK = 4 << 20
_CONNECT_S = 60.0  # ssh's own connection and login, then Python loading the explorer
_SHOW_AFTER_S = 1.0  # a transfer is shown once it has taken this long
_SHOW_EVERY_S = 0.25
_CLOSE_S = 1.0  # the far end ends this long after its input closes, else it is killed

# What a transfer says: a line of text, and whether the transfer is over.
Progress = Callable[[str, bool], None]


class CommandExecutor(Executor):
    """An executor on ``host``, reached through its command."""

    def __init__(
        self, host: Host, env: dict[str, str] | None = None, progress: Progress | None = None
    ) -> None:
        super().__init__(env)
        self.host = host
        self.progress = progress
        self.facts: dict[str, Any] = {}  # what the far end said of itself
        self._copies: dict[str, tuple[str, tuple[int, int]]] = {}  # file → (copy there, stamp)

    def devices(self, timeout_s: float = 60.0) -> list[DeviceInfo]:
        """The host's devices, each named with the host (``server: NVIDIA H100``)."""
        return [replace(d, host=self.host.label) for d in super().devices(timeout_s)]

    def _request(self, kind: str, payload: Any, timeout_s: float, what: str) -> Any:
        """As every executor's, after sending the files of this machine the request reads."""
        paths = [p for run in files.requests_in(kind, payload) for p in files.paths_in(run)]
        if paths:
            payload = files.with_moved(kind, payload, self._copies_of(paths, timeout_s, what))
        return super()._request(kind, payload, timeout_s, what)

    def _copies_of(self, paths: list[str], timeout_s: float, what: str) -> dict[str, str]:
        """Where the host keeps its copy of each file (each sent once while it is the same)."""
        try:
            stamps = {p: _stamp(p) for p in paths}
            if not self.alive:
                self._copies = {}
            new = [p for p in paths if self._copies.get(p, ("", None))[1] != stamps[p]]
            contents = {p: Path(p).read_bytes() for p in new}
        except OSError as exc:  # a header the build reads, say, that is not readable
            raise ExecutorError(
                f"{exc.filename} cannot be read to send to {self.host.label} ({exc.strerror})",
                "error",
            ) from None
        if new:
            there = super()._request("files", contents, timeout_s, f"the files of {what}")
            self._copies.update({p: (there[p], stamps[p]) for p in new})
        return {p: self._copies[p][0] for p in paths}

    def run(self, request: RunRequest) -> RunResult:
        return self._named(super().run(request))

    def trace(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        traced = super().trace(request, *args, **kwargs)
        return replace(traced, result=self._named(traced.result))

    def _named(self, result: RunResult) -> RunResult:
        """The result says which machine's device gave it: ``server: NVIDIA H100``."""
        if not result.device or result.device.startswith(f"{self.host.label}: "):
            return result
        return replace(result, device=f"{self.host.label}: {result.device}")

    def _start(self) -> tuple[Any, Any]:
        try:
            popen = subprocess.Popen(
                self.host.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
            )
        except OSError as exc:
            raise ExecutorError(
                f"{self.host.label}: {self.host.command[0]} could not be started "
                f"({exc.strerror or exc})",
                "error",
            ) from None
        process, channel = _Transport(popen), _Channel(popen, self)
        try:
            self._handshake(process, channel)
        except BaseException:
            channel.close()
            process.kill()
            process.join(5)
            raise
        return process, channel

    def _handshake(self, process: _Transport, channel: _Channel) -> None:
        """Versions first: a far end without the explorer, or with another version, is
        :class:`HostNeedsInstall` (which offers to install this one there)."""
        try:
            channel.send(
                ("hello", {"protocol": PROTOCOL, "version": __version__, "env": self._env})
            )
        except OSError:  # it ended before reading anything
            process.join(5)
            raise ExecutorError(self._not_started(process, channel), "error") from None
        deadline = time.monotonic() + _CONNECT_S
        late = f"{self.host.label} did not answer within {_CONNECT_S:g} s"
        try:
            kind, facts = self._reply(channel, deadline, f"connecting to {self.host.label}", late)
        except EOFError:
            process.join(5)
            raise ExecutorError(self._not_started(process, channel), "error") from None
        if kind != "hello" or not isinstance(facts, dict):
            raise ExecutorError(f"{self.host.label} answered {kind!r}, not the executor", "error")
        if facts.get("protocol") != PROTOCOL or facts.get("version") != __version__:
            raise HostNeedsInstall(
                self.host,
                f"{self.host.label} runs the explorer {facts.get('version', '?')} (protocol "
                f"{facts.get('protocol', '?')}); this one is {__version__} (protocol {PROTOCOL})",
            )
        self.facts = facts

    def connect(self) -> None:
        """Start the host's command and compare versions now rather than at the first
        request: :class:`HostNeedsInstall` when this version is not what runs there."""
        with self._lock:
            self._cancelled.clear()
            self._ensure_started()

    def _not_started(self, process: _Transport, channel: _Channel) -> str:
        failure = channel.failure
        if isinstance(failure, VersionMismatch):
            self._other_protocol(failure.protocol)
        if failure is not None and not isinstance(failure, NotFrames):
            return (
                f"{self.host.label} broke the executor's protocol when it was greeted: "
                f"{failure}; nothing it sent was used"
            )
        said = channel.errors()
        if channel.problem:
            return (
                f"{self.host.label} printed something other than the executor's frames "
                f"({channel.problem}); a login script that prints to standard output "
                "must be quiet for commands"
            )
        if "executor-serve: not the executor's protocol" in said:  # protocol 1 refuses ours
            self._other_protocol(1)
        if "No module named" in said:  # the explorer, or a library it needs
            raise HostNeedsInstall(self.host, f"{self.host.label} has no OpenCL Kernel Explorer")
        if "invalid choice: 'executor-serve'" in said:
            raise HostNeedsInstall(
                self.host,
                f"{self.host.label} has an older OpenCL Kernel Explorer, without executor-serve",
            )
        if "executor-serve: " in said:  # its own complaint about the frames it was sent
            raise HostNeedsInstall(
                self.host,
                f"{self.host.label} runs another version of the explorer, which cannot read "
                "this one's frames",
            )
        how = exit_text(process.exitcode)
        last = said.strip().splitlines()[-1] if said.strip() else "nothing on its error output"
        return f"the executor on {self.host.label} did not start ({how}): {last}"

    def _other_protocol(self, protocol: int) -> NoReturn:
        """The far end speaks another protocol (its frames were never read): this version can
        be installed there."""
        age = "an older" if protocol < PROTOCOL else "a newer"
        raise HostNeedsInstall(
            self.host,
            f"{self.host.label} runs {age} OpenCL Kernel Explorer (protocol {protocol}); this "
            f"one is {__version__} (protocol {PROTOCOL}) and cannot speak with it",
        )

    def _broken_message(self, problem: str, what: str) -> str:
        return (
            f"{self.host.label} broke the executor's protocol while running {what}: {problem}; "
            "nothing it sent was used and the connection was closed (the next action connects "
            "again)"
        )

    def _discard(self) -> None:
        """Close the connection first: the far end ends at the end of its input, removing
        what it kept; the command is killed only if it has not ended within a second."""
        if self._conn is not None:
            self._conn.close()
        if self._process is not None:
            self._process.join(_CLOSE_S)
        super()._discard()

    def _crash_message(self, what: str) -> str:
        problem = self._conn.problem if self._conn is not None else ""
        how = self._ended()
        return (
            f"the executor on {self.host.label} stopped ({problem or how}) while "
            f"running {what}: its OpenCL runtime crashed or the connection was lost; the next "
            "action connects again"
        )

    def say(self, text: str, finished: bool) -> None:
        if self.progress is not None:
            self.progress(text, finished)


def _limits_for(message: Any) -> tuple[int, int]:
    """How large the reply to ``message`` may be as it arrives and inflated: the defaults,
    or for a trace room for three times its record budget (the records, their values and
    the run's arrays)."""
    kind, payload = message
    budget = getattr(payload[0], "budget_bytes", 0) if kind == "trace" else 0
    room = 3 * int(budget) + (256 << 20)
    return max(MAX_FRAME_BYTES, room), max(MAX_INFLATED_BYTES, room)


def _stamp(path: str) -> tuple[int, int]:
    info = os.stat(path)
    return (info.st_mtime_ns, info.st_size)


class _Transport:
    """The command's process, as the executor handles its own: alive, kill, join, exit code."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self._popen = popen
        self.pid = popen.pid

    def is_alive(self) -> bool:
        return self._popen.poll() is None

    def kill(self) -> None:
        if self.is_alive():
            self._popen.kill()

    def join(self, timeout: float | None = None) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._popen.wait(timeout)

    @property
    def exitcode(self) -> int | None:
        return self._popen.poll()


class _Channel:
    """Frames over the command's standard input and output, read as they arrive so that the
    executor's wait (its Cancel, its deadline) goes on during a long transfer."""

    def __init__(self, popen: subprocess.Popen[bytes], owner: CommandExecutor) -> None:
        assert popen.stdin and popen.stdout and popen.stderr
        self._popen = popen
        self._stdin, self._stdout = popen.stdin, popen.stdout
        self._owner = owner
        self._reader = FrameReader()
        self._ended = False
        self.problem = ""  # what ended the stream early: text that is not a frame, a cut
        self.failure: ProtocolError | None = None  # how the far end broke the protocol
        self._number = 0  # the request in flight
        self._kind = ""
        self._began = 0.0
        self._said = 0.0
        self._errors = _ErrorOutput(popen.stderr)

    def errors(self) -> str:
        return self._errors.text()

    def send(self, message: Any) -> None:
        """Send a request (its reply is read within limits that fit it)."""
        self._number += 1
        frame = memoryview(encode(message, self._number))
        self._kind = message[0]
        self._reader.frame_limit, self._reader.inflated_limit = _limits_for(message)
        began, total = time.monotonic(), len(frame)
        fd = self._stdin.fileno()
        while frame:
            frame = frame[os.write(fd, frame[:_CHUNK]) :]
            self._show("sending", began, total - len(frame), total, not frame)

    def poll(self, timeout: float) -> bool:
        """Whether a whole frame (or the end of the stream) is here, waiting up to
        ``timeout`` seconds and reading what arrives meanwhile."""
        end = time.monotonic() + timeout
        fd = self._stdout.fileno()
        while not (self._reader.ready() or self._ended):
            ready, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
            if not ready:
                return False
            data = os.read(fd, _CHUNK)
            if not self._began:
                self._began = time.monotonic()
            try:
                self._reader.feed(data)
            except ProtocolError as exc:
                self._fail(exc)
            if not data and not self._ended:
                self._ended = True
                if self._reader.partial:
                    done, total = self._reader.pending
                    self.problem = (
                        f"the connection closed in the middle of a frame, {done} of "
                        f"{total or '?'} bytes in"
                    )
            done, total = self._reader.pending
            self._show("receiving", self._began, done, total, self._reader.ready())
        return True

    def recv(self) -> Any:
        """The reply to the request in flight, checked against its kind's schema:
        :class:`ProtocolError` (an ``EOFError``: the stream cannot go on) when the far end
        broke the protocol, ``EOFError`` when the stream ended."""
        if self.failure is not None:
            raise self.failure
        if not self._reader.ready():
            raise EOFError(self.problem or "the connection closed")
        self._began = 0.0
        number, body = self._reader.pop_frame()
        try:
            if number != self._number:
                raise ProtocolError(
                    f"it answered request {number} when request {self._number} was in flight"
                )
            return check_reply(self._kind, self._reader.decode(body))
        except ProtocolError as exc:
            self._fail(exc)
            raise

    def _fail(self, exc: ProtocolError) -> None:
        """The far end broke the protocol: nothing more is read from it, and it is stopped."""
        self.failure, self.problem, self._ended = exc, str(exc), True
        with contextlib.suppress(OSError):
            self._popen.kill()

    def close(self) -> None:
        for stream in (self._stdin, self._stdout):
            with contextlib.suppress(OSError):
                stream.close()

    def _show(self, how: str, began: float, done: int, total: int, finished: bool) -> None:
        """Progress of a transfer that has taken over a second, a few times a second."""
        now = time.monotonic()
        if not began or now - began < _SHOW_AFTER_S or not total:
            return
        if not finished and now - self._said < _SHOW_EVERY_S:
            return
        self._said = now
        owner = self._owner
        direction = "to" if how == "sending" else "from"
        self._owner.say(
            f"{how} {owner.working_on} {direction} {owner.host.label}: "
            f"{done / 1e6:.1f} of {total / 1e6:.1f} MB compressed, {now - began:.1f} s",
            finished,
        )


class _ErrorOutput:
    """The far end's standard error: passed on to ours (a kernel's ``printf``, a warning),
    its end kept to explain a failed start."""

    def __init__(self, stream: Any) -> None:
        self._tail = b""
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream: Any) -> None:
        with contextlib.suppress(OSError, ValueError), stream:
            for data in iter(lambda: os.read(stream.fileno(), 65536), b""):
                self._tail = (self._tail + data)[-4096:]
                with contextlib.suppress(OSError, ValueError, AttributeError):
                    sys.stderr.write(data.decode("utf-8", "replace"))
                    sys.stderr.flush()

    def text(self) -> str:
        self._thread.join(2.0)  # what the far end wrote as it ended may still be on its way
        return self._tail.decode("utf-8", "replace")
