"""The one build cache: programs per (device, source, options), kernels fetched once; and
what a build says to the one waiting for it (:func:`listen`), including the compile that some
runtimes do at a kernel's first launch (:func:`launch_and_wait`)."""

from __future__ import annotations

import contextlib
import os
import re
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from explorer.engine.build_inputs import build_digest, include_dirs
from explorer.engine.header.include_lines import LITERAL_OR_COMMENT
from explorer.engine.records import on_pocl
from explorer.frontend.line_directives import OWN, line_numbering
from explorer.paths import shown


class BuildError(RuntimeError):
    """The compiler refused the source; ``log`` holds its messages with the user's line numbers."""

    def __init__(self, message: str, log: str, options: tuple[str, ...]) -> None:
        super().__init__(message)
        self.log = log
        self.options = options


# The compiler's own name for the source it was given (PoCL's temporary file, with its folder
# or none; Oclgrind's input.cl, which has no folder); an included file (``input_helpers.cl``,
# or an ``input.cl`` of the kernel's, named by its path) is not it.
_GIVEN_NAME = r"(?:input|(?:[^\s:]*/)?tempfile_[^\s:/]*)\.cl"


def _clean_log(log: str, display_name: str) -> str:
    """Compiler logs name a temporary file (PoCL) or ``<kernel>`` (NVIDIA's driver); name
    the user's file instead."""
    log = re.sub(rf"(?m)(?<![^\s]){_GIVEN_NAME}(?=:\d+)", display_name, log)
    log = re.sub(r"(?m)^(\s*)<kernel>(?=:\d+)", lambda m: m.group(1) + display_name, log)
    return log.strip()


# The source as given, before a line number: PoCL's temporary file, Oclgrind's input.cl.
_GIVEN_SOURCE = re.compile(rf"(?m)(?<![^\s])({_GIVEN_NAME}):(\d+)(?=:)")


# A compiler's error that ``half`` is not there: a variable, a cast, a parameter of it not
# allowed (``'__private half'``, ``'half4'``), a load of one or a half constant requiring
# cl_khr_fp16. An error line only: a warning that quotes a half type (vload_half given a float
# pointer) says nothing of why the build failed, and a kernel's own mistake about a half
# (``assigning to '__private half' from incompatible type``) is no missing extension.
_HALF_COMPLAINT = re.compile(
    r"\berror:[^\n]*(?:cl_khr_fp16|'[^'\n]*\bhalf\d*\b[^'\n]*' is not allowed)"
)
_FP16_PRAGMA = re.compile(r"#[ \t]*pragma[ \t]+OPENCL[ \t]+EXTENSION[ \t]+cl_khr_fp16\b")


def _half_unsupported(context: Any, source: str, log: str) -> tuple[str, str]:
    """Why a build that failed on ``half`` failed, where its log complains about ``half``: the
    device lacks ``cl_khr_fp16`` (half arithmetic is not there at all), or it has it and the
    kernel does not enable it. In a few words and in a sentence; ("", "") where the log is
    about something else."""
    if not _HALF_COMPLAINT.search(log):
        return "", ""
    devices = getattr(context, "devices", None) or ()
    lacking = [d.name for d in devices if "cl_khr_fp16" not in (d.extensions or "").split()]
    if lacking:
        named = ", ".join(lacking)
        return (
            f"{named} does not support half arithmetic (no cl_khr_fp16)",
            f"{named} does not support half arithmetic (the device lacks cl_khr_fp16): a "
            "half variable, a cast to half or a half read straight from a buffer does not "
            "build there. Keep the buffers in half and compute in float with vload_half and "
            "vstore_half, which every device has.",
        )
    if devices and not _FP16_PRAGMA.search(source):
        return (
            "half arithmetic needs cl_khr_fp16 enabled",
            "Half arithmetic needs the cl_khr_fp16 extension enabled: add "
            "'#pragma OPENCL EXTENSION cl_khr_fp16 : enable' before the kernel.",
        )
    return "", ""


def _ignores_line_directives(context: Any) -> bool:
    """Whether the compiler of ``context`` numbers a message's line as the text it was given
    stands, ignoring ``#line`` (Oclgrind's does; PoCL's and NVIDIA's follow the directives, as
    the trace does)."""
    devices = getattr(context, "devices", None) or ()
    return any("oclgrind" in d.platform.name.lower() for d in devices)


def _at_presumed_lines(log: str, source: str) -> str:
    """``log``'s places in ``source`` at the lines its ``#line`` directives give them (a line
    under ``#line N "name"`` is ``name``'s), as the other compilers name them."""
    numbering = line_numbering(source)
    if not numbering.directed:
        return log

    def presumed(match: re.Match[str]) -> str:
        where = numbering.place(int(match.group(2)))
        if where is None:  # a directive or the header: no line of the kernel
            return match.group(0)
        file, line = where
        return f"{match.group(1) if file == OWN else file}:{line}"

    return _GIVEN_SOURCE.sub(presumed, log)


# A name longer than any program's: clang looks for a correction of each undeclared one,
# which for a name of 100,000 characters took PoCL's build 17 seconds (50,000: 7), and a
# kernel file of 16 MiB would build for hours.
MAX_NAME = 1024
_HUGE_NAME = re.compile(rf"[A-Za-z_][A-Za-z0-9_]{{{MAX_NAME},}}")


def _refuse_huge_names(source: str, display_name: str, options: tuple[str, ...]) -> None:
    if _HUGE_NAME.search(source) is None:  # the common case, at once
        return
    # Comments and string or character literals are text a compiler does not look up (a
    # header's own comment may hold a long word).
    code = LITERAL_OR_COMMENT.sub(lambda m: " " * len(m.group(0)), source)  # places kept
    found = _HUGE_NAME.search(code)
    if found is not None:
        line = source.count("\n", 0, found.start()) + 1
        raise BuildError(
            f"{display_name} was not built: line {line} holds a name of {len(found.group(0))} "
            f"characters ({found.group(0)[:20]}…); a name of more than {MAX_NAME} is refused "
            "(a compiler looks for a correction of an undeclared one for minutes)",
            "",
            options,
        )


# The programs a process keeps built: a window where each edit of a kernel builds a new source
# would otherwise keep every one of them (and its kernels) for the life of its executor. The
# least recently used goes first; building it again is a hit in the runtime's own disk cache.
MAX_PROGRAMS = 256


@dataclass
class BuildCache:
    """Built programs and fetched kernels, kept for the life of the executor process (at
    most :data:`MAX_PROGRAMS` programs, the least recently used dropped first, with its
    kernels): the same source, options and device are built once, and a launch takes the
    program's kernel from here (its arguments are set anew by every launch). Safe from more
    than one thread (a window's plain build is made beside its trace's): builds run beside
    each other, outside the lock; two threads that build the same at once both get the
    program kept first, and its kernels."""

    # Each program with its kernels by name: a kernel is dropped with its program, never
    # found by the id of a program object that is gone (pyopencl's kernel holds no reference
    # to it, and a later program may be given its id).
    _programs: OrderedDict[tuple[str, str, tuple[str, ...]], tuple[Any, dict[str, Any]]] = field(
        default_factory=OrderedDict
    )
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def kernel(
        self,
        cl: Any,
        context: Any,
        device_key: str,
        source: str,
        options: tuple[str, ...],
        name: str,
        display_name: str,
    ) -> Any:
        key = (device_key, build_digest(source, options), options)
        with self._lock:
            built = self._programs.get(key)
            if built is not None:
                self._programs.move_to_end(key)
        if built is None:
            _refuse_huge_names(source, display_name, options)
            try:
                with warnings.catch_warnings():
                    # A successful build with compiler output (NVIDIA's driver prints one for
                    # most kernels) is not a failure: never let a warnings filter make it one.
                    warnings.simplefilter("ignore", cl.CompilerWarning)
                    with building():
                        program = _source_build(cl, context, source, options)
            except cl.RuntimeError as exc:
                log = _build_log(cl, exc, context) or str(exc)
                if _ignores_line_directives(context):
                    log = _at_presumed_lines(log, source)
                log = _clean_log(log, display_name)
                failed = (
                    f"{display_name} failed to build with options {' '.join(options) or '(none)'}"
                )
                short, why = _half_unsupported(context, source, log)
                if why:
                    failed, log = f"{failed}: {short}", f"{why}\n{log}"
                raise BuildError(failed, log, options) from None
            built = self._keep(key, program)
        program, kernels = built
        with self._lock:
            kernel = kernels.get(name)
        if kernel is None:
            try:
                kernel = cl.Kernel(program, name)
            except cl.Error as exc:
                renamed = _renamed(source, name)
                if renamed is None:
                    raise BuildError(
                        f"{display_name} has no kernel named {shown(name)!r}",
                        str(exc),
                        options,
                    ) from None
                # A kernel named like a built-in (``shuffle``) is lost to some runtimes'
                # own library (PoCL's): build it under a name of its own, on the same line.
                kernel = self.kernel(
                    cl, context, device_key, renamed, options, name + _SUFFIX, display_name
                )
            with self._lock:  # the one fetched first, where another thread fetched it too
                kernel = kernels.setdefault(name, kernel)
        return kernel

    def _keep(
        self, key: tuple[str, str, tuple[str, ...]], program: Any
    ) -> tuple[Any, dict[str, Any]]:
        """Keep ``program`` (unless another thread kept a build of ``key`` meanwhile: that one
        is given back), dropping the least recently used beyond :data:`MAX_PROGRAMS` with
        its kernels."""
        with self._lock:
            built = self._programs.get(key)
            if built is not None:
                self._programs.move_to_end(key)
                return built
            built = self._programs[key] = (program, {})
            while len(self._programs) > MAX_PROGRAMS:
                self._programs.popitem(last=False)
            return built


_SUFFIX = "__explorer_kernel"


def _renamed(source: str, name: str) -> str | None:
    """``source`` with the ``__kernel`` named ``name`` renamed (its name and nothing else, so
    every line stays where it was); None where no such kernel is declared or it already was."""
    if name.endswith(_SUFFIX):
        return None
    pattern = re.compile(
        rf"(\b(?:__kernel|kernel)\b[^;{{}}()]*?\b){re.escape(name)}(\s*\()", re.DOTALL
    )
    renamed, count = pattern.subn(rf"\g<1>{name}{_SUFFIX}\g<2>", source, count=1)
    return renamed if count else None


def binary_cache_wanted(cl: Any, context: Any, options: tuple[str, ...]) -> bool:
    """Whether builds for ``context`` go through PyOpenCL's on-disk binary cache (keyed by
    platform, device, driver, source and options) although PyOpenCL itself skips it: on
    NVIDIA's platform, which PyOpenCL counts as caching builds from source, yet each new
    process compiled every program again (a tiled matmul 80 ms, its trace build 0.3–0.7 s on
    an H100; from the cache 0.1 ms). Not where PyOpenCL's cache is off or a folder of headers
    is named (the cache would not see them change)."""
    if os.environ.get("PYOPENCL_NO_CACHE") or include_dirs(options):
        return False
    return any("nvidia" in d.platform.name.lower() for d in context.devices)


def _source_build(cl: Any, context: Any, source: str, options: tuple[str, ...]) -> Any:
    """``source`` built for ``context``'s devices, from the binary cache where it is wanted;
    a build the cached path cannot make (a compile error, an unreadable cache) is made the
    usual way, which reports it with its log."""
    if binary_cache_wanted(cl, context, options):
        from pyopencl.cache import create_built_program_from_source_cached

        os.environ.setdefault("PYOPENCL_CACHE_FAILURE_FATAL", "")  # read without a default
        try:
            built, _ = create_built_program_from_source_cached(
                context, source, " ".join(options).encode(), context.devices
            )
            return cl.Program(built)
        except Exception:  # built again below, where a failure says why
            pass
    return cl.Program(context, source).build(options=list(options))


def _build_log(cl: Any, exc: Exception, context: Any) -> str:
    text = str(exc)
    # PyOpenCL puts the per-device build logs after "Build on <device>:".
    if "Build on" in text:
        parts = text.split("Build on", 1)[1]
        return parts.split(":", 1)[1] if ":" in parts else parts
    return text


# -- builds, as the one waiting hears of them ----------------------------------------------

# Told "building" as a build begins and "built" as it ends: the executor's loop passes both to
# its caller, whose clock for the kernel stops meanwhile (a build has a bound of its own).
BuildListener = Callable[[str], None]
_listener: BuildListener | None = None

# A launch still waiting this long to start is compiling, not queued behind other work.
_COMPILE_GRACE_S = 0.02
_POLL_MAX_S = 0.02


def listen(listener: BuildListener | None) -> None:
    """Tell ``listener`` of every build in this process from now on (None: nobody)."""
    global _listener
    _listener = listener


@contextlib.contextmanager
def building() -> Iterator[None]:
    """The block is a build: the listener hears "building" before it and "built" after it."""
    listener = _listener
    if listener is None:
        yield
        return
    listener("building")
    try:
        yield
    finally:
        listener("built")


def launch_and_wait(
    cl: Any, queue: Any, kernel: Any, global_size: tuple[int, ...], local_size: Any
) -> Any:
    """Launch ``kernel``, wait for it, and return its event. PoCL compiles a kernel's code for
    each local size at its first launch, not when the program is built (matmul/fast at 8×8
    blocks: 10 CPU-seconds), and its event stays submitted until the code is ready: that wait
    is told as a build, so the kernel's clock starts when the kernel does (on PoCL alone:
    :func:`compiles_at_launch`). The event is
    watched from a thread of its own while this one waits (a runtime that runs a kernel only
    once it is waited for still runs it)."""
    event = cl.enqueue_nd_range_kernel(queue, kernel, global_size, local_size)
    listener = _listener
    if listener is None or not compiles_at_launch(queue):
        event.wait()
        return event
    queue.flush()
    done = threading.Event()
    watch = threading.Thread(
        target=_tell_while_compiling,
        args=(cl, event, listener, done),
        name="launch-watch",
        daemon=True,
    )
    watch.start()
    try:
        event.wait()
    finally:
        done.set()
        watch.join()
    return event


def compiles_at_launch(queue: Any) -> bool:
    """Whether the device of ``queue`` may compile at a kernel's first launch (PoCL, whose
    launch then waits as "submitted"). Elsewhere a launch's wait is never a build: NVIDIA's
    driver keeps a running kernel's event "submitted" until it completes, so a kernel that
    never returns would read as a build that never ends, and its timeout would never come."""
    try:
        device = queue.device
        return on_pocl(device.platform.name, device.name)
    except Exception:  # a queue that cannot say: its waits are the kernel's time
        return False


def _tell_while_compiling(
    cl: Any, event: Any, listener: BuildListener, done: threading.Event
) -> None:
    """While the launch waits to start (past a short grace: not queued behind other work),
    it is compiling: "building", then "built" once it runs or ends."""
    status = cl.command_execution_status
    waiting = (status.QUEUED, status.SUBMITTED)
    if done.wait(_COMPILE_GRACE_S):
        return
    said = False
    pause = 0.001
    try:
        while not done.is_set() and event.command_execution_status in waiting:
            if not said:
                listener("building")
                said = True
            done.wait(pause)
            pause = min(pause * 2, _POLL_MAX_S)
    finally:
        if said:
            listener("built")
