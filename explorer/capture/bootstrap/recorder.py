"""The recorder that runs inside the user's PyOpenCL program while ``capture`` watches it.

``sitecustomize.py`` beside it imports it by name in the program's process (this folder is
first on the child's ``PYTHONPATH``); so it imports nothing of the explorer, only the standard
library, numpy and pyopencl, which the program itself brings, and :mod:`host_cpu` beside it.
Once the program imports pyopencl it wraps (:data:`WRAPPED`):

- ``Program.build``: the source and the options each program was built with;
- the per-index argument setters every path of pyopencl ends in (``Kernel.set_arg``, and
  ``_set_arg_multi``, ``_set_arg_buf_multi``, ``_set_arg_buf_pack_multi``, which
  ``Kernel.__call__``, ``Kernel.set_args`` and the invokers of ``pyopencl.array``,
  ``ElementwiseKernel`` and ``ReductionKernel`` call by name): each kernel's arguments;
- ``enqueue_nd_range_kernel`` (the module's and ``pyopencl._cl``'s, through which the
  generated invokers launch): every launch, with each buffer and image argument read back
  before and after it with blocking copies (an image's format and size and a sampler's
  properties in the launch's entry).

Each program and launch is one JSON line of ``journal.jsonl`` in the capture folder, written
as it happens (a program that crashes keeps what it launched), and each buffer's contents a
whole ``.npy`` image appended to ``data/small.pack`` (up to :data:`PACK_LIMIT` bytes, before
the lines that name them) or a ``.npy`` file of its own under ``data/`` (identical contents
are kept once). ``capture`` turns the
journal into ``capture.json`` when the program ends. Only the first process of the program
that imports pyopencl records (a wrapper such as ``poetry run`` does not take it over; the
processes the program starts are not recorded).
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import importlib.util
import io
import itertools
import operator
import os
import re
import stat
import struct
import sys
import threading
import weakref
from collections import deque
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from functools import partial
from types import ModuleType
from typing import TYPE_CHECKING, Any

from . import (
    CLAIM,
    ENV_DIR,
    ENV_LAUNCHES,
    ENV_MAX_BYTES,
    ENV_STATUS,
    JOURNAL,
    JOURNAL_LIMIT,
    PACK,
    PACK_LIMIT,
)
from .host_cpu import name_unknown_processors

if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec

    import numpy as np


# pyopencl, once the program has imported it (the recorder's hottest paths look it up here).
_CL: list[Any] = []


def _load_numpy() -> None:
    """numpy, as ``np``: imported when the program imports pyopencl (which imports it
    anyway), so that a Python the program starts that never does (a wrapper, a helper, a
    worker) does not pay for it."""
    if "np" not in globals():
        globals()["np"] = importlib.import_module("numpy")


# Buffers are read back and written this many bytes at a time.
CHUNK = 8 << 20
# Contents are compared with a file holding the same this many bytes at a time.
COMPARED = 1 << 20
# The buffer contents a capture keeps unless --max-mb says otherwise: a launch past it is
# listed without its buffers.
DEFAULT_MAX_BYTES = 1 << 30
ARG_INFO = "-cl-kernel-arg-info"

# OpenCL C scalar types as numpy holds them (a vector type is stored as its lanes).
_BASES = {
    "char": "int8", "uchar": "uint8", "unsigned char": "uint8",
    "short": "int16", "ushort": "uint16", "unsigned short": "uint16",
    "int": "int32", "uint": "uint32", "unsigned int": "uint32", "unsigned": "uint32",
    "long": "int64", "ulong": "uint64", "unsigned long": "uint64",
    "float": "float32", "double": "float64",
}  # fmt: skip
_QUALIFIERS = {"const", "volatile", "restrict", "__global", "global", "__constant", "constant"}


def element_dtype(type_name: str | None) -> np.dtype:
    """The numpy type of the elements a pointer parameter's type names (``float4*`` → float32);
    raw bytes (uint8) for a struct or a type this cannot tell."""
    _load_numpy()
    if not type_name:
        return np.dtype(np.uint8)
    words = [w for w in type_name.replace("*", " ").split() if w not in _QUALIFIERS]
    name = " ".join(words)
    for width in ("16", "8", "4", "3", "2"):
        if name.endswith(width) and name[: -len(width)] in _BASES:
            name = name[: -len(width)]
            break
    return np.dtype(_BASES.get(name, "uint8"))


class _Arg:
    """One argument as the program set it: a buffer (``value`` the memory object), a
    ``__local`` size, a NULL pointer, a value's bytes, or a kind not recorded."""

    __slots__ = ("data", "dtype", "kind", "value")

    def __init__(self, kind: str, value: Any = None, data: bytes = b"", dtype: str = "") -> None:
        self.kind = kind  # "buffer", "image", "sampler", "local", "null", "scalar", "unsupported"
        self.value = value
        self.data = data
        self.dtype = dtype


class _Snap:
    """A buffer's contents at one point of its queue's work: read back into ``host`` (by the
    read ``event``, which may still be under way), or copied on the device into a staging
    buffer (``event`` that copy, ``batch`` the read of the staging buffer that brings them
    back, ``offset`` where in it), then kept as ``path``, known by its ``digest`` (``host``
    is let go then). ``failed`` says why they are not known (a read that failed, a file that
    was removed): a launch whose contents before they are is listed without its buffers,
    saying so."""

    __slots__ = (
        "batch", "digest", "dtype", "event", "failed", "host", "json", "nbytes", "offset", "path",
    )  # fmt: skip

    def __init__(
        self, dtype: np.dtype, host: Any = None, event: Any = None, path: str = "",
        digest: str = "", nbytes: int = 0, batch: _Batch | None = None, offset: int = 0,
    ) -> None:  # fmt: skip
        self.dtype = dtype
        self.host = host
        self.event = event
        self.nbytes = nbytes if host is None else int(host.nbytes)
        self.path = path
        self.digest = digest
        self.failed = ""
        self.batch = batch
        self.offset = offset
        self.json: tuple[str, str] | None = None  # (path, path as JSON) once a line needed it


class _Batch:
    """The contents copied into a staging buffer since its last read: brought back by one
    read (``host``, ``event``) once someone needs them; ``failed`` says why not."""

    __slots__ = ("event", "failed", "host", "queue", "raw", "stage")

    def __init__(self, stage: _Stage) -> None:
        self.stage: _Stage | None = stage  # None once its read is queued
        self.queue: Any = None  # the queue its copies were queued on
        self.host: Any = None
        self.event: Any = None
        self.failed = ""
        # ``host`` as bytes once it is back, made once for the launches recorded in a few
        # steps that take their contents from it (a slice of bytes each, no array's).
        self.raw: bytes | None = None

    def contents(self, offset: int, nbytes: int) -> Any:
        """The bytes at ``offset``, once the read that brings them back is done (queued
        here where it is not yet)."""
        stage = self.stage
        if stage is not None:
            stage.read(self)
        if self.event is not None:
            try:
                self.event.wait()
            except Exception as exc:  # the read failed on the device
                self.failed = self.failed or str(exc)
            self.event = None
        if self.failed:
            raise _ReadFailed(self.failed)
        return self.host[offset : offset + nbytes]


# A launch's small buffers are copied on the device into a staging buffer of this size (of
# the queue's context), brought back by one read for many launches: a read costs a driver
# such as PoCL some ten times what a copy between buffers does.
STAGE_BYTES = 2 << 20
STAGE_ALIGN = 64


class _Stage:
    """A staging buffer on one queue: each launch's contents are copied into the next free
    place (:meth:`put`), and read back together (:meth:`read`, from either thread: one lock
    orders the copies and the read in the queue, so a read holds every copy before it, and
    the copies after it, into the same places, come after it in the queue)."""

    def __init__(self, cl: Any, queue: Any, copy: Any, read: Any) -> None:
        # Kept on the queue object: it holds no reference to the queue (a cycle would keep
        # the queue, and this buffer, until the collector ran); its batches do.
        self.buffer = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, STAGE_BYTES)
        self._copy = copy  # pyopencl's own functions, not the recorder's wrappers
        self._read = read
        self.used = 0
        self.lock = threading.Lock()
        self.batch = _Batch(self)

    def put(
        self, queue: Any, buffer: Any, dtype: np.dtype, nbytes: int, waits: list[Any] | None
    ) -> _Snap:
        """A copy of the ``nbytes`` of ``buffer`` (of elements ``dtype``) queued on ``queue``
        (this staging buffer's) into it, after ``waits``."""
        with self.lock:
            if self.used + nbytes > STAGE_BYTES:
                self._read_locked(self.batch)
            offset = self.used
            batch = self.batch
            batch.queue = queue
            event = self._copy(queue, buffer, self.buffer, nbytes, 0, offset, waits)
            self.used = offset + -(-nbytes // STAGE_ALIGN) * STAGE_ALIGN
        return _Snap(dtype, None, event, "", "", nbytes, batch, offset)

    def read(self, batch: _Batch) -> None:
        with self.lock:
            if batch.stage is not None:
                self._read_locked(batch)

    def _read_locked(self, batch: _Batch) -> None:
        batch.stage = None
        self.batch = _Batch(self)
        used, self.used = self.used, 0
        batch.host = np.empty(used, dtype=np.uint8)
        try:
            batch.event = self._read(batch.queue, self.buffer, batch.host, 0, None, False)
        except Exception as exc:  # cl.Error: its launches are listed without their buffers
            batch.failed = str(exc)
        batch.queue = None


class _Read:
    """A buffer argument's contents around one launch: the file each is in, and its digest
    (or, for a launch finished later, the contents read back: ``snaps``). ``root``: the
    handle of the memory object it is (its parent's, for a sub-buffer); ``writes``: whether
    the kernel may write it (not ``const``, nor aliased); ``host``: its memory is the
    program's (``USE_HOST_PTR``: the host may change it); ``region``: an image's (width,
    height[, depth]), read as an image."""

    __slots__ = (
        "after", "before", "buffer", "digests", "dtype", "host", "index", "nbytes", "region",
        "root", "snaps", "writes",
    )  # fmt: skip

    def __init__(
        self, index: int, buffer: Any, dtype: np.dtype, nbytes: int = 0, root: int = 0,
        writes: bool = True, host: bool = False, region: tuple[int, ...] = (),
    ) -> None:  # fmt: skip
        self.index = index
        self.buffer = buffer
        self.dtype = dtype
        self.nbytes = nbytes
        self.root = root
        self.writes = writes
        self.host = host
        self.region = region
        self.before = ""
        self.after = ""
        self.digests: dict[str, str] = {}
        self.snaps: dict[str, _Snap] = {}


class _Plan:
    """What every launch of a kernel with the same arguments (the very objects the program
    set) on the same queue describes alike, worked out at the first of them and kept on the
    kernel: its journal entry's fields but the launch's number and sizes, each argument's
    entry, the buffers to read (``_Read``'s fields), why none is kept (an argument never set,
    or of a kind not recorded), and each argument's entry as JSON without its closing brace,
    for the lines of launches with their buffers."""

    token: int
    queue: Any
    args: tuple[Any, ...]
    kernel: str
    program: int
    device: str
    platform: str
    items: tuple[dict[str, Any], ...]
    reads: tuple[tuple[Any, ...], ...]
    why: str
    json: tuple[str, ...] | None  # made when a line first needs it
    # Each line's JSON from its number to its arguments, by what it holds there (its kernel,
    # program, sizes, device and platform): made once for each, at most HEADS of them.
    heads: dict[tuple[Any, ...], str]
    # The lines of the launches recorded in a few steps, by their sizes as given (global,
    # local, offset, whether global is in groups): the JSON between the launch's number and
    # its first buffer's file names, between those of each buffer and the next, and after the
    # last up to its ``packed`` (:meth:`Recorder._quick_line`); at most HEADS of them.
    lines: dict[tuple[Any, ...], tuple[tuple[tuple[str, int, int], ...], str]]
    # How each of ``quick``'s buffers is kept (:func:`_keeps`; None for one that does not fit
    # the pack): made when its first launch is kept.
    keeps: tuple[tuple[Any, ...] | None, ...] | None
    after_bytes: int  # the bytes of ``quick``'s buffers its launches may write
    # Whether its buffers may be read behind the launch whatever else holds (none of the
    # program's memory, USE_HOST_PTR; an in-order queue), and the most bytes they read.
    behind: bool
    most: int
    stage: _Stage | None  # its queue's staging buffer
    serial: bool  # its queue's driver is one of :func:`_serial_driver`'s
    writes: frozenset[int]  # the memory objects its launches may write
    # For the launches the program's thread records in a few steps (:meth:`Recorder._quick`):
    # each buffer read once (buffer, dtype, bytes, root, whether launches may write it, the
    # dtype's str), the one each of ``reads`` is, and what each read tells of its buffer after
    # the launch (buffer, root, dtype's str, the one it is), in ``reads``' order; None for a
    # plan whose launches take the whole way (an argument not kept, an image, a buffer of no
    # bytes...).
    quick: tuple[tuple[tuple[Any, ...], ...], tuple[int, ...], tuple[tuple[Any, ...], ...]] | None

    def __init__(
        self,
        token: int,
        queue: Any,
        args: tuple[Any, ...],
        kernel: str,
        program: int,
        device: str,
        platform: str,
        items: tuple[dict[str, Any], ...],
        reads: tuple[tuple[Any, ...], ...],
        why: str,
        json: tuple[str, ...] | None = None,
    ) -> None:
        self.token = token
        self.queue = queue
        self.args = args
        self.kernel = kernel
        self.program = program
        self.device = device
        self.platform = platform
        self.items = items
        self.reads = reads
        self.why = why
        self.json = json
        self.heads = {}
        self.lines = {}
        self.keeps = None
        self.after_bytes = 0
        self.behind = False
        self.most = 0
        self.stage = None
        self.serial = False
        self.writes = frozenset()
        self.quick = None


class _Record:
    """A launch made, to be finished in order: its journal entry, its buffers' contents as
    read back (none where ``why`` says why it is listed without them), the bytes of those
    reads still to be kept, whether it is finished (``done``: a turn cut short by Ctrl+C is
    taken again without it) and its kernel's plan (for its line)."""

    __slots__ = ("done", "entry", "nbytes", "number", "plan", "quick", "reads", "why")

    def __init__(
        self, number: int, entry: dict[str, Any] | None, reads: list[_Read], why: str = "",
        plan: _Plan | None = None,
    ) -> None:  # fmt: skip
        self.number = number
        self.entry = entry
        self.reads = reads
        self.why = why
        self.nbytes = 0
        self.done = False
        self.plan = plan
        # A launch recorded in a few steps (``entry`` None until the finishing thread makes
        # it): its sizes as given (global, local, offset, g_times_l) and its buffers'
        # contents before and after it (one of each of its plan's ``quick`` buffers).
        self.quick: tuple[Any, Any, Any, bool, list[_Snap], list[_Snap]] | None = None


# Launches made but not yet finished, at most (so that a program killed loses at most these
# from its record, and its memory grows by at most PENDING_BYTES of contents read back).
PENDING_LAUNCHES = 64
PENDING_BYTES = 8 << 20
# The journal's lines of launches finished one after another are written together, at most
# this many in one write.
LINES = 64
# Launches are finished in turns of those queued when this many wait, or when the first has
# waited LINGER seconds (so a launch is in the journal within about that of being made).
BATCH = 16
LINGER = 0.02
# A launch is finished later where its buffers' contents read back take at most this.
DEFERRED_BYTES = 1 << 20
# The finishing thread ends after this many seconds without a launch to finish (it starts
# again with the next).
IDLE_SECONDS = 1.0


class _Finisher:
    """Finishes launches in the order they were made, in a thread of the recorder's, in
    turns: waits for the reads of their buffers (long done, most often), keeps the contents
    (once each) and writes their journal lines, one write a turn. A turn takes the launches
    queued once :data:`BATCH` of them wait, or once the first has waited :data:`LINGER`
    seconds. The program's thread queues the reads behind a launch and goes on; it waits
    here only where :data:`PENDING_LAUNCHES` or :data:`PENDING_BYTES` are reached, or for
    everything (:meth:`drain`) before it must know what was kept. Never in the program's
    thread: a Ctrl+C there (KeyboardInterrupt comes to the main thread) cannot cut a turn
    short, so each launch is written whole and once."""

    def __init__(self, finish: Callable[[list[_Record]], None], idle: Callable[[], None]) -> None:
        self._finish = finish  # finishes a turn's records in order (none raising Exception)
        self._idle = idle
        self._records: deque[_Record] = deque()
        lock = threading.Lock()
        self.cond = threading.Condition(lock)  # the program's threads wait on it
        self._work = threading.Condition(lock)  # the finishing thread waits on it
        self.pending = 0  # bytes read back, not yet kept
        self.queue: Any = None  # the queue whose reads are under way
        self._thread: threading.Thread | None = None
        self._closed = False
        self._hurry = False  # someone waits for the launches queued

    def put(self, record: _Record, queue: Any = None, serial: bool | None = None) -> None:
        """Queue ``record`` for its turn. On a driver whose calls are not safe from two
        threads at once (:func:`_serial_driver`; ``serial`` where it is known), wait until it
        is finished: the finishing thread's reads and waits then never run beside the
        program's own calls."""
        records = self._records
        while records and (
            len(records) >= PENDING_LAUNCHES or self.pending + record.nbytes > PENDING_BYTES
        ):
            self._wait_for_turn()
        with self.cond:
            waiting = bool(records)  # then the thread is there to take them
            records.append(record)
            self.pending += record.nbytes
            if queue is not None:
                self.queue = queue
            if not (waiting and self._thread is not None) and not self._running():
                self._thread = threading.Thread(
                    target=self._run, name="explorer-capture", daemon=True
                )
                self._thread.start()
            elif len(records) in (1, BATCH):  # its time to wait starts, or is over
                self._work.notify()
        if queue is None:
            return
        if serial if serial is not None else _serial_driver(queue):
            self.drain()

    def _running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def busy(self) -> bool:
        return bool(self._records)

    def drain(self) -> None:
        """Until every launch queued is finished."""
        while self._records:
            self._wait_for_turn()
        self.queue = None

    def _wait_for_turn(self) -> None:
        """Wait for the thread's next turn, taken at once (in this thread where the thread
        is gone: ended with the interpreter, say)."""
        with self.cond:
            running = self._running()
            if self._records and running:
                self._hurry = True
                self._work.notify()
                self.cond.wait(LINGER)  # woken as the turn ends
        if self._records and not running:
            self._take_turn()

    def close(self) -> None:
        """Finish every launch queued, and end the thread."""
        self.drain()
        with self.cond:
            self._closed = True
            thread, self._thread = self._thread, None
            self._work.notify()
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _run(self) -> None:
        while True:
            with self.cond:
                if not self._records and not self._closed:
                    self._work.wait(IDLE_SECONDS)
                if 0 < len(self._records) < BATCH and not (self._hurry or self._closed):
                    self._work.wait(LINGER)  # more may come in the turn
                if not self._records:  # idle (or closed): the next launch starts another
                    if self._thread is threading.current_thread():
                        self._thread = None
                    return
            self._take_turn()

    def _take_turn(self) -> None:
        """Finish the launches queued."""
        with self.cond:
            batch = list(self._records)
            self._hurry = False
        with contextlib.suppress(Exception):  # never the program's concern
            self._finish(batch)
        with contextlib.suppress(Exception):
            self._idle()  # the turn's lines, in one write
        with self.cond:
            for record in batch:
                self._records.popleft()
                self.pending -= record.nbytes
            self.cond.notify_all()


# Drivers whose calls from two threads at once crash the program (Oclgrind 18–21: a read
# queued and waited for by the finishing thread while the program queues a copy ends the
# program with SIGSEGV). Their launches are finished before the program goes on.
_SERIAL_PLATFORMS = ("Oclgrind",)
_serial_contexts: dict[int, bool] = {}


def _serial_driver(queue: Any) -> bool:
    """Whether ``queue``'s driver must not be called from the finishing thread while the
    program calls it too (by its platform's name; kept per context)."""
    try:
        key = int(queue.context.int_ptr)
    except Exception:  # not a PyOpenCL queue: nothing to keep apart
        return False
    known = _serial_contexts.get(key)
    if known is None:
        try:
            name = str(queue.device.platform.name)
        except Exception:
            name = ""
        known = _serial_contexts[key] = any(p in name for p in _SERIAL_PLATFORMS)
    return known


# What :meth:`Recorder._quick` says of a launch that must take the whole way.
_WHOLE_WAY = object()

# Marks what a recorder caches on pyopencl's objects (a later recorder in the same process
# numbers its programs anew).
_TOKENS = itertools.count()


class _Process:
    """This process's id, known without asking the system at every launch: a fork's child
    learns its own (``os.register_at_fork``)."""

    pid = os.getpid()

    @classmethod
    def forked(cls) -> None:
        cls.pid = os.getpid()


os.register_at_fork(after_in_child=_Process.forked)


class _OverBound(Exception):
    """The launch's buffers would pass the size bound (its message says so)."""


class _ReadFailed(Exception):
    """A buffer's contents could not be read back (its message says why)."""


class Recorder:
    """Records the launches of one process into ``folder``; ``max_launches`` and
    ``max_bytes`` bound the data kept (a launch past them is recorded without it)."""

    folder: str | os.PathLike[str]
    max_launches: int | None
    max_bytes: int | None
    pid: int
    launches: int
    written: int
    _lock: threading.RLock
    _built: dict[int, tuple[str | None, list[str], bool]]
    _programs: dict[tuple[str | None, tuple[str, ...]], int]
    _memory: dict[int, int]
    # The contents kept, by their key (the pack's: :func:`_short_key`; a file of its own's:
    # its type, size and name, :meth:`_own_key`): their path.
    _files: dict[str, str]
    _undo: list[Callable[[], None]]
    # The files of the launch being kept: (launch, digest, file, bytes, contents it holds,
    # where in the pack they lie: None for a file of their own).
    _fresh: list[tuple[int, str, str, int, _Snap | None, tuple[int, int] | None]]
    _chunk: np.ndarray | None
    _scratch: np.ndarray | None  # a file's bytes, to compare contents with (:data:`COMPARED`)
    # The contents kept in files of their own, by their element type's ``str`` and size:
    # [key, path, CRC-32 (None until one is needed)] of each (:meth:`_same_own`), and the
    # list each key is in.
    _owns: dict[tuple[str, int], list[list[Any]]]
    _own_lists: dict[str, list[list[Any]]]
    # pyopencl's own copy between buffers and read (not the recorder's wrappers), for the
    # staging buffers of small launches (:class:`_Stage`).
    _copy_buffer: Callable[..., Any] | None
    _read_buffer: Callable[..., Any] | None
    # The pack of small contents (PACK): its fd once made, the bytes written to it, and its
    # lock (contents are kept by the finishing thread, or by the program's once it is idle).
    _pack: int | None
    _pack_size: int  # bytes written to it
    _pack_unwritten: list[bytes]  # contents kept for one write
    _pack_waiting: int  # their bytes
    _pack_lost: str  # why a write of the pack failed (a full disk)
    _pack_lock: threading.Lock
    # Recording goes on while the journal takes lines; buffers are written while the folder
    # takes them (``no_data`` says why it no longer does). Neither ever stops the program.
    active: bool
    no_data: str
    status: int | None  # the fd of capture's pipe (ENV_STATUS), where it is one
    notes: list[str]  # what was said through it
    journaled: int  # bytes written to the journal
    _journal: int | None  # its fd, open while recording (each line one write)
    _journal_lost: bool  # it could not be written: nothing more is
    _journal_lock: threading.Lock
    _unwritten: list[bytes]  # lines kept for one write
    # Their entries (a launch recorded in a few steps: what :meth:`_quick_entry` makes it of).
    _unwritten_entries: list[dict[str, Any] | tuple[Any, ...]]
    _folders: set[str]  # sub-folders known to exist
    _gates: list[Any]  # user events waited for, not yet completed (:meth:`_note_gates`)
    _token: int  # marks what is cached
    # What the recorder knows of a buffer's contents: what it read after the last launch
    # that could change it (a _Snap), kept on the buffer object with the epoch and the
    # generation of its memory object then. Any pyopencl call that may write a buffer (a
    # copy, a fill, a write, a kernel launched past the recorder...) starts a new epoch; a
    # launch that may write a memory object starts its next generation; a map ends what is
    # known for good.
    _epoch: int
    _generation: dict[int, int]
    _mapped: bool
    _finisher: _Finisher

    def __init__(
        self,
        folder: str | os.PathLike[str],
        max_launches: int | None = None,
        max_bytes: int | None = None,
    ) -> None:
        self.folder = folder
        self.max_launches = max_launches
        self.max_bytes = max_bytes
        self.pid = os.getpid()
        self.launches = 0
        self.written = 0
        self._lock = threading.RLock()
        self._built = {}
        self._programs = {}
        self._memory = {}
        self._files = {}
        self._undo = []
        self._fresh = []
        self._chunk = None
        self._scratch = None
        self._owns = {}
        self._own_lists = {}
        self._copy_buffer = None
        self._read_buffer = None
        self._pack = None
        self._pack_size = 0
        self._pack_unwritten = []
        self._pack_waiting = 0
        self._pack_lost = ""
        self._pack_lock = threading.Lock()
        self.active = True
        self.no_data = ""
        self.status = None
        self.notes = []
        self.journaled = 0
        self._journal = None
        self._journal_lost = False
        self._journal_lock = threading.Lock()
        self._unwritten = []
        self._unwritten_entries = []
        self._folders = set()
        self._token = next(_TOKENS)
        self._epoch = 0
        self._generation = {}
        self._mapped = False
        # user events the program's calls wait for and has not completed yet (it completes
        # them later, from the host): while one is pending, no read may wait for the queue
        self._gates = []
        self._finisher = _Finisher(self._finish_turn, self._flushed)

    def claim(self) -> bool:
        """Whether this process records: the first of the program's processes to import
        pyopencl (the folder's ``recorder.pid`` names it)."""
        try:
            fd = os.open(os.path.join(self.folder, CLAIM), _NEW_FILE, 0o666)
        except OSError:
            return False
        self.pid = os.getpid()
        try:
            with os.fdopen(fd, "w") as claim:
                claim.write(str(self.pid))
            self._write({"type": "start", "pid": self.pid, "python": sys.executable})
        except OSError as exc:
            self._stop(f"recording did not start: {_reason(exc)}")
        return True

    # -- the journal ------------------------------------------------------------------------

    def _write(self, entry: dict[str, Any], later: bool = False, line: str | None = None) -> None:
        """One line of the journal (refusing a link where the journal should be); ``later``:
        kept to be written with the lines after it (up to :data:`LINES`, by :meth:`_flush`),
        one write for them all."""
        if self._pack_lost and entry.get("data") is True and self._without_lost(entry):
            line = None
        data = ((_encode(entry) if line is None else line) + "\n").encode("utf-8")
        self._append(data, entry, later)

    def _append(self, data: bytes, entry: dict[str, Any] | tuple[Any, ...], later: bool) -> None:
        """The line ``data`` (of ``entry``: a launch's made when needed, see
        :meth:`_quick_entry`) into the journal, now or with the lines after it."""
        with self._journal_lock:
            if self.journaled + len(data) > JOURNAL_LIMIT:
                self._flush_locked()
                raise OSError(0, f"it reached its {JOURNAL_LIMIT >> 20} MiB")
            self._unwritten.append(data)
            self._unwritten_entries.append(entry)
            self.journaled += len(data)
            if self._pack_lost and type(entry) is tuple:  # made before the pack was lost:
                self._lines_without_lost(len(self._unwritten) - 1)  # made again where so
            if not later or len(self._unwritten) >= LINES:
                self._flush_locked()

    def _flush(self) -> None:
        """Write the journal's lines kept for later."""
        with self._journal_lock:
            self._flush_locked()

    def _flush_locked(self) -> None:
        if not self._unwritten:
            return
        try:  # the contents the lines name are written first
            self._write_pack()
        except OSError as exc:
            self._lost_pack(exc)
        lines, self._unwritten, self._unwritten_entries = b"".join(self._unwritten), [], []
        if self._journal is None:
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
            self._journal = os.open(os.path.join(self.folder, JOURNAL), flags, 0o666)
        # Whole lines in each unbuffered write: a process killed at any moment leaves whole
        # lines and at most one cut last line, which every reader drops.
        view = memoryview(lines)
        while view:
            view = view[os.write(self._journal, view) :]

    def close(self) -> None:
        """Finish the launches under way, and close the journal (recording has ended)."""
        if os.getpid() == self.pid:
            self._finisher.close()
        atexit.unregister(self._at_exit)
        fd, self._journal = self._journal, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)
        with self._pack_lock:
            fd, self._pack = self._pack, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def _new_file(self, relative: str, write: Callable[[Any], None] | bytes) -> None:
        """Write a file of the capture that must not exist yet (a link or a file of someone
        else's in its place is refused): ``write`` writes it through a file object, or is
        its bytes; a file cut short by a full disk is removed."""
        path = os.path.join(self.folder, relative)
        parent = os.path.dirname(relative)
        if parent not in self._folders:
            os.makedirs(os.path.join(self.folder, parent), exist_ok=True)
            self._folders.add(parent)
        fd = os.open(path, _NEW_FILE, 0o666)
        try:
            if isinstance(write, bytes):
                try:
                    view = memoryview(write)
                    while view:
                        view = view[os.write(fd, view) :]
                finally:
                    os.close(fd)
            else:
                with os.fdopen(fd, "wb") as handle:
                    write(handle)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(path)
            raise

    # -- what could not be kept ---------------------------------------------------------------

    def _tell(self, why: str) -> None:
        """Say ``why`` to ``capture`` through its pipe, never waiting (a full pipe drops it)."""
        if len(self.notes) < 100:
            self.notes.append(why.replace("\n", " "))
        if self.status is None:
            return
        with contextlib.suppress(OSError):
            os.write(self.status, (why.replace("\n", " ") + "\n").encode("utf-8")[:4000])

    def _stop(self, why: str) -> None:
        """The journal cannot be written: recording stops, the program runs on."""
        self.active = False
        self._tell(why)

    def _lose_data(self, number: int, exc: BaseException) -> str:
        """A launch's buffers could not be written: this launch and the later ones are listed
        without them (a disk that filled stays full)."""
        self.no_data = f"the capture folder took no more buffers from launch {number} on"
        why = f"its buffers could not be written ({_reason(exc)})"
        self._tell(f"launch {number} and later ones are listed without their buffers: {why}")
        return why

    # -- programs ---------------------------------------------------------------------------

    def built(self, program: Any, options: Any, arg_info: bool = True) -> None:
        """``Program.build`` returned: remember its source, the options as given and whether
        the build with kernel argument info (``ARG_INFO``) is the one the program got."""
        source = getattr(program, "_source", None)
        if isinstance(source, bytes):
            source = source.decode("utf-8", errors="replace")
        try:
            key = program.int_ptr
        except Exception:  # a program pyopencl could not build leaves nothing to launch
            return
        self._built[key] = (
            source if isinstance(source, str) else None,
            _options(options),
            arg_info,
        )

    def _program(self, kernel: Any, queue: Any) -> int:
        """The index of the program ``kernel`` belongs to, written to the journal the first
        time it is launched (and kept on the kernel for its later launches)."""
        cached = getattr(kernel, "_explorer_capture_program", None)
        if cached is not None and cached[0] == self._token:
            return int(cached[1])
        index = self._find_program(kernel, queue.device)
        with contextlib.suppress(Exception):
            kernel._explorer_capture_program = (self._token, index)
        return index

    def _find_program(self, kernel: Any, device: Any) -> int:
        import pyopencl as cl

        program = kernel.program
        found = self._built.get(program.int_ptr)
        if found is None:  # built past the wrapper: ask OpenCL what it was built from
            source = None
            with contextlib.suppress(cl.Error):
                source = program.get_info(cl.program_info.SOURCE) or None
            options: list[str] = []
            try:
                given = program.get_build_info(device, cl.program_build_info.OPTIONS)
                options = _without_pyopencl_includes(_split(given or ""))
            except cl.Error:
                pass
            found = (source, options, True)
        key = (found[0], tuple(found[1]))
        index = self._programs.get(key)
        if index is None:
            index = self._programs[key] = len(self._programs)
            path = None
            include: list[dict[str, str]] = []
            if found[0] is not None:
                path = f"programs/{index}.cl"
                self._new_file(path, found[0].encode("utf-8", errors="replace"))
                include = self._headers(index, found[0], found[1])
            self._write(
                {
                    "type": "program",
                    "index": index,
                    "source": path,
                    "options": list(found[1]),
                    "cwd": os.getcwd(),  # where a relative #include "x.h" was found
                    "include": include,
                    # only where the build with kernel argument info failed
                    **({} if found[2] else {"arg_info": False}),
                }
            )
        return index

    def _headers(self, index: int, source: str, options: list[str]) -> list[dict[str, str]]:
        """Copy the files the source's ``#include`` lines read (and theirs), found as the
        build found them: a quoted name beside the file that includes it, then in the folder
        the program runs in, then in its ``-I`` folders and in pyopencl's own (which pyopencl
        gives every build). Each folder searched is mirrored as
        ``programs/include/INDEX/N/``; the list of them (``copy``, and the folder it stands
        for, ``from``) in the order the build searched them, those that hold a copy."""
        cwd = os.getcwd()
        roots: list[str] = []
        for folder in [cwd, *_include_dirs(options), _pyopencl_headers()]:
            if folder:
                full = os.path.realpath(os.path.join(cwd, folder))
                if full not in roots and os.path.isdir(full):
                    roots.append(full)
        used: set[int] = set()
        seen: set[str] = set()
        total = 0
        pending: list[tuple[str, tuple[int, str] | None]] = [(source, (0, cwd) if roots else None)]
        while pending and len(seen) < MAX_HEADERS:
            text, beside = pending.pop()
            for name in _include_names(text):
                if os.path.isabs(name):
                    continue  # outside any folder: the replay names it
                places = [beside] if beside is not None else []
                for root, folder in [*places, *enumerate(roots)]:
                    candidate = os.path.realpath(os.path.join(folder, name))
                    relative = os.path.relpath(candidate, roots[root])
                    if relative == ".." or relative.startswith(".." + os.sep):
                        continue  # a "../x.h" is copied where it stays inside the folder
                    try:
                        info = os.stat(candidate)
                    except OSError:
                        continue
                    if not stat.S_ISREG(info.st_mode) or info.st_size > HEADER_LIMIT:
                        continue
                    if candidate not in seen and total + info.st_size <= HEADERS_LIMIT:
                        seen.add(candidate)
                        try:
                            with open(candidate, "rb") as handle:
                                data = handle.read(HEADER_LIMIT)
                        except OSError:  # unreadable: the replay says it is not in the capture
                            break
                        total += len(data)
                        self._new_file(f"programs/include/{index}/{root}/{relative}", data)
                        used.add(root)
                        header = data.decode("utf-8", errors="replace")
                        pending.append((header, (root, os.path.dirname(candidate))))
                    break
        return [
            {"copy": f"programs/include/{index}/{root}", "from": roots[root]}
            for root in sorted(used)
        ]

    # -- arguments --------------------------------------------------------------------------

    def set_arg(self, kernel: Any, index: int, value: Any) -> None:
        args = _args_of(kernel)
        known = args.get(index)
        if known is not None and known.value is value and known.kind in _OBJECTS:
            return  # the same memory object (or sampler) again: the argument is as it was
        arg = _classify(value)
        if known is None or not _same_scalar(known, arg.kind, arg.data, arg.dtype):
            args[int(index)] = arg

    def set_bytes(self, kernel: Any, index: int, data: bytes, dtype: str) -> None:
        args = _args_of(kernel)
        known = args.get(index)
        data = bytes(data)
        if known is None or not _same_scalar(known, "scalar", data, dtype):
            args[int(index)] = _Arg("scalar", data=data, dtype=dtype)

    def _memory_id(self, handle: int) -> int:
        return self._memory.setdefault(handle, len(self._memory))

    # -- launches ---------------------------------------------------------------------------

    def launch(
        self,
        go: Callable[[], Any],
        queue: Any,
        kernel: Any,
        global_size: Sequence[int],
        local_size: Sequence[int] | None,
        global_offset: Sequence[int] | None = None,
        wait_for: Any = None,
        g_times_l: bool = False,
        tried: bool = False,
    ) -> Any:
        """Launch as the program asked (``go`` makes the very call it made), recording the
        launch around it.

        A launch of small buffers on an in-order queue is finished later (:class:`_Finisher`):
        its reads are queued before and after it, in the queue's order, so they hold exactly
        the contents around it whenever they run, and the program goes on at once. Any other
        launch waits for those before it and is read back and kept before it returns."""
        if _Process.pid != self.pid or not self.active:  # a forked child, or stopped
            return go()
        with self._lock:
            number = self.launches + 1
            self._note_gates(wait_for)
            plan = getattr(kernel, "_explorer_capture_plan", None)
            if plan is not None and plan.quick is not None and not tried:
                event = self._quick(
                    go, (), queue, kernel, plan, number, global_size, local_size,
                    global_offset, g_times_l,
                )  # fmt: skip
                if event is not _WHOLE_WAY:
                    return event
            epoch = self._epoch
            record: _Record | None = None
            try:
                entry, reads, why, plan = self._describe(
                    number, queue, kernel, global_size, local_size
                )
                offset = [int(o) for o in global_offset] if global_offset is not None else None
                entry["offset"] = offset
                if g_times_l and local_size is not None:
                    entry["global"] = [  # numpy integers too (pyopencl's scan passes them)
                        int(g) * int(lo) for g, lo in zip(global_size, local_size, strict=False)
                    ]
                if why:  # nothing of it is read: listed in its turn
                    record = _Record(number, entry, [], why)
                elif self._deferrable(queue, reads, plan):
                    record = self._read_behind(number, entry, reads, queue, wait_for, plan)
                elif self._gated():  # a read now would wait for the program: none is made
                    record = _Record(number, entry, [], _GATED)
                else:
                    self._finisher.drain()  # the launches before it are written first
                    why = self._over_bound(reads) or self._read(
                        number, entry, queue, wait_for, reads, "before"
                    )
            except Exception as exc:  # whatever it is, it costs the record, not the launch
                entry = None
                self._stop(_stopped(number, _reason(exc)))
            event = go()  # the program's own errors reach it as they are
            self.launches = number
            if entry is None:
                self._epoch += 1
                return event
            if record is not None:
                try:
                    self._queue_after(record, queue, epoch)
                except Exception as exc:
                    self._epoch += 1
                    self._stop(_stopped(number, _reason(exc)))
                return event
            try:
                if not why:
                    why = self._read(number, entry, queue, [event], reads, "after")
                if why:  # what it wrote is not known
                    self._forget(number)
                    self._epoch += 1
                else:
                    self._keep(entry, reads)
                    self._learn(reads, epoch)
                entry["data"] = not why
                if why:
                    entry["why"] = why
            except Exception as exc:
                self._forget(number)
                self._epoch += 1
                self._stop(_stopped(number, _reason(exc)))
                return event
            try:
                self._write(entry)
            except (OSError, TypeError, ValueError) as exc:  # never the program's error
                self._stop(_stopped(number, f"the journal could not be written ({_reason(exc)})"))
            return event

    def quick_launch(self, call: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        """``call(*args)``, a launch made as pyopencl's invokers make it (``args`` as
        :func:`launch_parts` takes them, none by name), recorded in a few steps where
        :meth:`_quick` can; :data:`_WHOLE_WAY` (and nothing done) where it cannot."""
        plan = getattr(args[1], "_explorer_capture_plan", None)
        if plan is None or plan.quick is None:
            return _WHOLE_WAY
        count = len(args)
        with self._lock:
            if count > 5:
                self._note_gates(args[5])
            return self._quick(
                call, args, args[0], args[1], plan, self.launches + 1, args[2],
                args[3] if count > 3 else None, args[4] if count > 4 else None,
                bool(args[6]) if count > 6 else False,
            )  # fmt: skip

    def _quick(
        self,
        go: Callable[..., Any],
        go_args: tuple[Any, ...],
        queue: Any,
        kernel: Any,
        plan: _Plan,
        number: int,
        global_size: Sequence[int],
        local_size: Sequence[int] | None,
        global_offset: Sequence[int] | None,
        g_times_l: bool,
    ) -> Any:
        """A launch recorded in a few steps, where its kernel's plan holds for it (the same
        argument objects on the same queue, none of them a kind read the whole way) and the
        contents of each of its buffers before it are known (those some launch left, most
        often the one just before): a copy into the staging buffer queued behind it for each
        buffer it may write, what it left learnt, and its sizes as given and its contents
        queued to be finished; its journal entry is made in the finishing thread, the very
        one :meth:`_describe` makes. :data:`_WHOLE_WAY` (and nothing done) where it must
        take the whole way: anything else about it, or the recorder, that is not as usual."""
        distinct, _, learn = plan.quick  # type: ignore[misc]
        token, epoch, generation = self._token, self._epoch, self._generation
        finisher = self._finisher
        try:
            args = kernel._explorer_capture_args
            if (
                plan.token != token
                or plan.queue is not queue
                or len(plan.args) != len(args)
                or not all(map(operator.is_, plan.args, args.values()))
                or self.no_data
                or self._mapped
                or (self.max_launches is not None and number > self.max_launches)
                or (finisher.queue is not queue and finisher.busy())
                or (
                    self.max_bytes is not None
                    and self.written + finisher.pending + plan.most > self.max_bytes
                )
            ):
                return _WHOLE_WAY
            befores: list[_Snap] = []
            for buffer, _, _, root, _, name in distinct:
                known = buffer._explorer_capture_known
                snap = known[4]
                if (
                    known[0] != token
                    or known[1] != epoch
                    or known[2] != generation.get(root, 0)
                    or known[3] != name
                    or type(snap) is not _Snap
                    or snap.failed
                ):
                    return _WHOLE_WAY
                befores.append(snap)
            sizes = (
                tuple(global_size),
                None if local_size is None else tuple(local_size),
                None if global_offset is None else tuple(global_offset),
            )
        except Exception:  # whatever it is, the whole way meets it
            return _WHOLE_WAY
        cl, stage = _CL[0], plan.stage
        afters: list[_Snap] = []
        failed = ""
        # The copies are queued right behind the launch, nothing in between: a driver whose
        # threads went idle (PoCL) is woken by the launch and finds the copies there too.
        event = go(*go_args)  # the program's own errors reach it as they are
        try:
            try:
                for (buffer, dtype, nbytes, _, writes, _), before in zip(
                    distinct, befores, strict=True
                ):
                    afters.append(
                        _read_back(cl, queue, buffer, dtype, nbytes, None, stage)
                        if writes
                        else before
                    )
            except cl.Error as exc:  # listed without its buffers: what it wrote is not known
                failed = f"a buffer could not be read back after the launch: {exc}"
            finally:
                self.launches = number
            record = _Record(number, None, [], plan=plan)
            record.quick = (*sizes, g_times_l, befores, afters)
            if failed:
                afters[len(afters) :] = befores[len(afters) :]  # none of them is read
                self._unfold(record)
                record.why, record.reads = failed, []
                self._epoch += 1
            else:
                record.nbytes = plan.after_bytes
                if self._epoch == epoch:  # what it left is known (as :meth:`_learn` has it)
                    for root in plan.writes:
                        generation[root] = generation.get(root, 0) + 1
                    for buffer, root, name, index in learn:
                        try:  # noqa: SIM105 (no context object made for each)
                            buffer._explorer_capture_known = (
                                token, epoch, generation.get(root, 0), name, afters[index]
                            )  # fmt: skip
                        except Exception:  # an object that takes no attribute: not known
                            pass
            finisher.put(record, queue, plan.serial)
        except Exception as exc:
            self._epoch += 1
            self._stop(_stopped(number, _reason(exc)))
        return event

    def _unfold(self, record: _Record) -> None:
        """The journal entry and the reads of a launch recorded in a few steps
        (:meth:`_quick`), as the whole way makes them."""
        plan = record.plan
        assert plan is not None and plan.quick is not None and record.quick is not None
        global_size, local_size, offset, g_times_l, befores, afters = record.quick
        entry = self._entry(plan, record.number, global_size, local_size)
        entry["offset"] = [int(o) for o in offset] if offset is not None else None
        if g_times_l and local_size is not None:
            entry["global"] = [
                int(g) * int(lo) for g, lo in zip(global_size, local_size, strict=False)
            ]
        record.entry, record.quick = entry, None
        reads = [_Read(*fields) for fields in plan.reads]
        for r, slot in zip(reads, plan.quick[1], strict=True):
            r.snaps["before"] = befores[slot]
            r.snaps["after"] = afters[slot]
        record.reads = reads

    def _finish_quick(self, record: _Record, out: list[tuple[bytes, Any, int]]) -> bool:
        """Keep the contents a launch recorded in a few steps left, as the whole way does (the
        first argument to name each, in order, into the pack), and make its journal line, the
        one :meth:`_unfold` and :func:`_line` make of it, from the JSON its plan keeps for its
        sizes, without its entry (made only where a line must be made again,
        :meth:`_lost_pack`): added to ``out`` (its bytes, what its entry is made of, its
        number), for the journal to take with the turn's others (:meth:`_journal_lines`).
        Done where its contents before it are kept (by the launch that left them) and those
        after it are back from the device, each fits the pack and all of them ``--max-mb``;
        False, and nothing done, where any of it is not so (the whole way then meets it)."""
        plan = record.plan
        quick = record.quick
        assert plan is not None and quick is not None
        global_size, local_size, offset, g_times_l, befores, afters = quick
        if self._pack_lost or (
            self.max_bytes is not None and self.written + record.nbytes > self.max_bytes
        ):
            return False
        keeps = plan.keeps
        if keeps is None:
            keeps = plan.keeps = _keeps(plan)
        if len(keeps) == 1 and not self._fresh:  # one buffer (most often): fewer steps
            done = self._finish_one(record, keeps[0], out)
            if done is not None:
                return done
        got: list[tuple[_Snap, bytes] | None] = []
        try:
            for before, after, keep in zip(befores, afters, keeps, strict=True):
                if before.failed or not before.path:
                    return False
                if after is before:
                    got.append(None)
                    continue
                batch, event = after.batch, after.event
                if after.failed or after.path or batch is None or keep is None:
                    return False
                if after.nbytes != keep[2] or after.dtype is not keep[3]:
                    return False
                # As :meth:`_keep_snap` has them (asked again there where this fails): from
                # the staging buffer's read (queued and waited for here where it is not yet).
                raw = batch.raw
                if raw is None:
                    batch.contents(0, 0)
                    raw = batch.raw = batch.host.tobytes()
                if event is not None and event.command_execution_status < 0:
                    return False
                start = after.offset
                got.append((after, raw[start : start + after.nbytes]))
        except Exception:
            return False
        number, files, fresh = record.number, self._files, self._fresh
        for one, keep in zip(got, keeps, strict=True):  # as :meth:`_small` keeps them
            if one is None:
                continue
            after, data = one
            index, name, nbytes, _, begun, header, plain, short = keep  # type: ignore[misc]
            if short is not None:  # as :func:`_short_key` makes it
                key = short + data.decode("latin-1")
            else:
                digest = begun.copy()
                digest.update(data)
                key = digest.hexdigest()
            known = files.get(key)
            if known is None:
                known = f"data/{number:05d}-{index}-{name}-after.npy"
                place = self._pack_write(header + data)
                files[key] = known
                self.written += nbytes
                fresh.append((number, key, known, nbytes, after, place))
                if plain:
                    after.json = (known, f'"{known}"')
            after.path, after.digest = known, key
            after.event = after.batch = None
        # Its line.
        sizes = (global_size, local_size, offset, g_times_l)
        keyed = True
        try:
            made = plan.lines.get(sizes)
        except TypeError:  # sizes of a kind that makes no key
            made, keyed = None, False
        if made is None:
            made = _quick_template(plan, sizes)
            if keyed and len(plan.lines) < HEADS:
                plan.lines[sizes] = made
        pieces, tail = made
        parts = [f'{{"type": "launch", "number": {number}, ']
        values: list[tuple[int, str, str, bool]] = []
        for text, index, slot in pieces:
            before, after = befores[slot], afters[slot]
            was, now = before.json, after.json
            if was is None or was[0] is not before.path:
                was = before.json = (before.path, _name(before.path))
            if now is None or now[0] is not after.path:
                now = after.json = (after.path, _name(after.path))
            changed = before.digest != after.digest
            parts += (text, was[1], ', "after": ', now[1], ', "changed": ',
                      "true" if changed else "false")  # fmt: skip
            values.append((index, was[0], now[0], changed))
        parts.append(tail)
        packed: tuple[tuple[str, tuple[int, int]], ...] = ()
        if fresh:  # where in the pack the contents it is the first to name lie
            named = [(f[2], f[5]) for f in fresh if f[5] is not None]
            if named:
                packed = tuple(named)
                places = ", ".join(
                    f"{_snap_name(snap, name)}: [{int(place[0])}, {int(place[1])}]"
                    for _, _, name, _, snap, place in fresh
                    if place is not None
                )
                parts.append(f', "packed": {{{places}}}')
            fresh.clear()
        parts.append(', "data": true}\n')
        record.done = True  # its line is never written twice (a turn cut short by Ctrl+C)
        record.quick = None
        out.append(("".join(parts).encode("utf-8"), (plan, number, sizes, tuple(values), packed),
                    number))  # fmt: skip
        return True

    def _finish_one(
        self, record: _Record, keep: tuple[Any, ...] | None, out: list[tuple[bytes, Any, int]]
    ) -> bool | None:
        """:meth:`_finish_quick` of a launch of one buffer, which it changed, named by one
        argument, in fewer steps (the same contents kept, the same line); None, and nothing
        done, for another launch (:meth:`_finish_quick` takes it its own way)."""
        plan, quick = record.plan, record.quick
        assert plan is not None and quick is not None
        before, after = quick[4][0], quick[5][0]
        if keep is None or after is before:
            return None
        sizes = quick[:4]
        try:
            made = plan.lines.get(sizes)
        except TypeError:  # sizes of a kind that makes no key
            return None
        if made is None:
            made = _quick_template(plan, sizes)
            if len(plan.lines) < HEADS:
                plan.lines[sizes] = made
        pieces, tail = made
        if len(pieces) != 1:
            return None
        text, argument, _ = pieces[0]
        if before.failed or not before.path:
            return False
        batch, event = after.batch, after.event
        if after.failed or after.path or batch is None:
            return False
        index, name, nbytes, dtype, begun, header, plain, short = keep
        if after.nbytes != nbytes or after.dtype is not dtype:
            return False
        try:  # as :meth:`_finish_quick` has them
            raw = batch.raw
            if raw is None:
                batch.contents(0, 0)
                raw = batch.raw = batch.host.tobytes()
            if event is not None and event.command_execution_status < 0:
                return False
        except Exception:
            return False
        start = after.offset
        data = raw[start : start + nbytes]
        if short is not None:  # as :func:`_short_key` makes it
            key = short + data.decode("latin-1")
        else:
            digest = begun.copy()
            digest.update(data)
            key = digest.hexdigest()
        number, files = record.number, self._files
        known = files.get(key)
        packed: tuple[tuple[str, tuple[int, int]], ...] = ()
        if known is None:  # as :meth:`_small` keeps them
            known = f"data/{number:05d}-{index}-{name}-after.npy"
            place = self._pack_write(header + data)
            files[key] = known
            self.written += nbytes
            packed = ((known, place),)
            now = after.json = (known, f'"{known}"' if plain else _name(known))
        else:
            made_json = after.json
            if made_json is None or made_json[0] is not known:
                made_json = after.json = (known, _name(known))
            now = made_json
        after.path, after.digest = known, key
        after.event = after.batch = None
        was = before.json
        if was is None or was[0] is not before.path:
            was = before.json = (before.path, _name(before.path))
        changed = before.digest != key
        line = (
            f'{{"type": "launch", "number": {number}, {text}{was[1]}, "after": {now[1]}, '
            f'"changed": {"true" if changed else "false"}{tail}'
        )
        if packed:  # where in the pack the contents it is the first to name lie
            line += f', "packed": {{{now[1]}: [{int(place[0])}, {int(place[1])}]}}'
        record.done = True  # its line is never written twice (a turn cut short by Ctrl+C)
        record.quick = None
        values = ((argument, was[0], known, changed),)
        out.append(
            ((line + ', "data": true}\n').encode("utf-8"), (plan, number, sizes, values, packed),
             number)
        )  # fmt: skip
        return True

    def _journal_lines(self, out: list[tuple[bytes, Any, int]]) -> None:
        """Hand the lines :meth:`_finish_quick` made to the journal, in order, with one lock
        (each on its own where they would pass the journal's bound); ``out`` is emptied."""
        if not out:
            return
        lines = out[:]
        out.clear()
        try:
            with self._journal_lock:
                total = sum(len(line[0]) for line in lines)
                if self.journaled + total <= JOURNAL_LIMIT:
                    unwritten = self._unwritten
                    first = len(unwritten)
                    unwritten += [line[0] for line in lines]
                    self._unwritten_entries += [line[1] for line in lines]
                    self.journaled += total
                    if self._pack_lost:  # lost since the lines were made: made again
                        self._lines_without_lost(first)
                    if len(unwritten) >= LINES:
                        self._flush_locked()
                    return
        except (OSError, TypeError, ValueError) as exc:  # never the program's error
            self._journal_lost = True
            number = lines[-1][2]
            self._stop(_stopped(number, f"the journal could not be written ({_reason(exc)})"))
            return
        for data, made_of, number in lines:  # near the bound: line by line, as it fails
            try:
                self._append(data, made_of, True)
            except (OSError, TypeError, ValueError) as exc:
                self._journal_lost = True
                self._stop(_stopped(number, f"the journal could not be written ({_reason(exc)})"))
                return

    def _quick_entry(
        self,
        plan: _Plan,
        number: int,
        sizes: tuple[Any, ...],
        values: tuple[tuple[int, str, str, bool], ...],
        packed: tuple[tuple[str, tuple[int, int]], ...],
    ) -> dict[str, Any]:
        """The journal entry of a launch whose line :meth:`_quick_line` wrote, as
        :meth:`_unfold` makes it of a launch whose contents are kept."""
        global_size, local_size, offset, g_times_l = sizes
        entry = self._entry(plan, number, global_size, local_size)
        entry["offset"] = [int(o) for o in offset] if offset is not None else None
        if g_times_l and local_size is not None:
            entry["global"] = [
                int(g) * int(lo) for g, lo in zip(global_size, local_size, strict=False)
            ]
        args = entry["args"]
        for index, before, after, changed in values:
            item = args[index]
            item["before"] = before
            item["after"] = after
            item["changed"] = changed
        if packed:
            entry["packed"] = {name: list(place) for name, place in packed}
        entry["data"] = True
        return entry

    # -- launches finished later -------------------------------------------------------------

    def _deferrable(self, queue: Any, reads: list[_Read], plan: _Plan) -> bool:
        """Whether the launch's buffers can be read back behind it and kept later: an
        in-order queue (its reads then run right around the launch), no memory the host may
        change at any time (``USE_HOST_PTR``, a map), little to read, and room below
        ``--max-mb`` for all of it whatever is still to be kept (``plan`` says what of it
        holds for every launch of its kind)."""
        if self._mapped or not plan.behind or plan.most > DEFERRED_BYTES:
            return False
        finisher = self._finisher
        if finisher.queue is not queue and finisher.busy():
            finisher.drain()  # another queue's reads are not ordered with this one's work
        # Read without the lock, what waits first: what is kept is counted before what
        # waits is let go, so the sum read is never less than it is.
        max_bytes = self.max_bytes
        if max_bytes is None:
            return True
        pending = finisher.pending
        return self.written + pending + plan.most <= max_bytes

    def _over_bound(self, reads: list[_Read]) -> str:
        """Why the launch's buffers are not read at all: they would pass ``--max-mb``."""
        total = sum(r.nbytes for r in _distinct(reads))
        if self.max_bytes is not None and self.written + total > self.max_bytes:
            return _over_budget(total, self.written, self.max_bytes)
        return ""

    def _read_behind(
        self,
        number: int,
        entry: dict[str, Any],
        reads: list[_Read],
        queue: Any,
        wait_for: Any,
        plan: _Plan,
    ) -> _Record:
        """The launch to be finished later, with a read queued before it of each buffer
        whose contents are not known (after the ``wait_for`` events too)."""
        cl = _CL[0]
        record = _Record(number, entry, reads, plan=plan)
        waits = list(wait_for) if wait_for else None
        stage = plan.stage
        seen: dict[tuple[int, str], _Snap] = {}
        try:
            for r in reads:
                key = (id(r.buffer), r.dtype.str)
                snap = seen.get(key)
                if snap is None:
                    snap = self._known(r)
                    if snap is None:
                        snap = _read_back(
                            cl, queue, r.buffer, r.dtype, r.nbytes, waits, stage, r.region
                        )
                        record.nbytes += snap.nbytes
                    seen[key] = snap
                r.snaps["before"] = snap
        except cl.Error as exc:
            record.why = f"a buffer could not be read back before the launch: {exc}"
            record.reads, record.nbytes = [], 0
        return record

    def _stage(self, cl: Any, queue: Any) -> _Stage | None:
        """The staging buffer of ``queue`` (made at its first launch, kept on the queue
        object); None where this pyopencl has no functions to fill one, or the device has no
        room for it: its launches' buffers are read back one by one."""
        cached = getattr(queue, "_explorer_capture_stage", None)
        if cached is not None:
            stage, token = cached
            return stage if token == self._token else None
        stage = None
        if self._copy_buffer is not None and self._read_buffer is not None:
            with contextlib.suppress(Exception):  # cl.Error: no room, or a device that refuses
                stage = _Stage(cl, queue, self._copy_buffer, self._read_buffer)
        with contextlib.suppress(Exception):
            queue._explorer_capture_stage = (stage, self._token)
        return stage

    def _queue_after(self, record: _Record, queue: Any, epoch: int) -> None:
        """Queue a read of each buffer the launch may change behind it, and the launch to be
        finished in its turn."""
        cl = _CL[0]
        if not record.why:
            seen: dict[tuple[int, str], _Snap] = {}
            stage = record.plan.stage if record.plan is not None else None
            try:
                for r in record.reads:
                    if not r.writes:
                        r.snaps["after"] = r.snaps["before"]
                        continue
                    key = (id(r.buffer), r.dtype.str)
                    snap = seen.get(key)
                    if snap is None:
                        snap = seen[key] = _read_back(
                            cl, queue, r.buffer, r.dtype, r.nbytes, None, stage, r.region
                        )
                        record.nbytes += snap.nbytes
                    r.snaps["after"] = snap
            except cl.Error as exc:
                record.why = f"a buffer could not be read back after the launch: {exc}"
        if record.why:  # what it wrote is not known
            self._epoch += 1
            record.reads = []
        else:
            self._learn(record.reads, epoch)
        self._finisher.put(record, queue)

    def _finish_turn(self, batch: list[_Record]) -> None:
        """Finish a turn's launches in order (:meth:`_finish`), those recorded in a few steps
        whose contents are kept as usual by :meth:`_finish_quick`, their lines handed to the
        journal together (before any other launch's, and whatever cuts the turn short)."""
        out: list[tuple[bytes, Any, int]] = []
        try:
            for record in batch:
                if record.done:
                    continue
                if (
                    record.quick is not None
                    and not record.why
                    and not self.no_data
                    and not self._journal_lost
                ):
                    try:
                        if self._finish_quick(record, out):
                            continue
                    except Exception as exc:
                        self._journal_lines(out)
                        self._journal_lost = True  # the launches after it are not listed
                        self._stop(_stopped(record.number, _reason(exc)))
                        continue
                    self._journal_lines(out)
                    self._finish(record, tried=True)
                else:
                    self._journal_lines(out)
                    self._finish(record)
        finally:
            self._journal_lines(out)

    def _finish(self, record: _Record, tried: bool = False) -> None:
        """Keep a launch's contents (each once) and write its journal line, in the order the
        launches were made. Whatever goes wrong costs the record from there on (as it does
        for a launch kept at once), never the program. ``tried``: :meth:`_finish_quick` has
        found it must take the whole way."""
        if self._journal_lost or record.done:
            return
        try:
            self._finish_record(record, tried)
        except Exception as exc:
            self._journal_lost = True  # the launches after it are not listed
            self._stop(_stopped(record.number, _reason(exc)))

    def _finish_record(self, record: _Record, tried: bool = False) -> None:
        number = record.number
        why = record.why or self.no_data
        if not why and not tried and record.quick is not None:
            out: list[tuple[bytes, Any, int]] = []
            if self._finish_quick(record, out):
                self._journal_lines(out)
                return
        if record.entry is None:
            self._unfold(record)
        if not why:
            try:
                for phase in ("before", "after"):
                    entry = record.entry
                    assert entry is not None
                    for r in record.reads:
                        snap = r.snaps[phase]
                        if snap.failed or not snap.path:  # else kept already
                            name = entry["args"][r.index]["name"] or f"arg{r.index}"
                            relative = f"data/{number:05d}-{r.index}-{_safe(name)}-{phase}.npy"
                            self._keep_snap(number, snap, relative, phase)
                        setattr(r, phase, snap.path)
                        r.digests[phase] = snap.digest
            except (_ReadFailed, _OverBound) as exc:
                why = str(exc)
            except OSError as exc:
                why = self._lose_data(number, exc)
            if why:
                gone = self._forget(number)
                for r in record.reads:
                    for snap in r.snaps.values():
                        if snap.path in gone or not (
                            snap.path or snap.host is not None or snap.batch
                        ):
                            snap.path = ""  # a launch after it cannot name them
                            snap.failed = snap.failed or (
                                f"its buffers' contents before it are those launch {number} "
                                f"left, which were not kept ({why})"
                            )
            else:
                self._keep(record.entry, record.reads)  # type: ignore[arg-type]
        entry = record.entry
        assert entry is not None
        entry["data"] = not why
        if why:
            entry["why"] = why
        record.done = True  # its line is never written twice (a turn cut short by Ctrl+C)
        try:
            plan = record.plan
            line = _line(entry, plan) if plan is not None and not why else None
            self._write(entry, later=True, line=line)
        except (OSError, TypeError, ValueError) as exc:  # never the program's error
            self._journal_lost = True
            self._stop(_stopped(number, f"the journal could not be written ({_reason(exc)})"))

    def _flushed(self) -> None:
        """The finishing thread has nothing more to finish for now: its lines are written."""
        try:
            self._flush()
        except OSError as exc:
            self._journal_lost = True
            self._stop(f"recording stopped: the journal could not be written ({_reason(exc)})")

    def _keep_snap(self, number: int, snap: _Snap, relative: str, phase: str) -> None:
        """Keep contents read back as the file ``relative``, or as the file already holding
        the same (once their read is done)."""
        if snap.failed:
            raise _ReadFailed(snap.failed)
        if snap.path:
            return
        event, snap.event = snap.event, None
        batch, snap.batch = snap.batch, None
        try:
            if batch is not None:  # copied into a staging buffer: its read brings them back
                snap.host = batch.contents(snap.offset, snap.nbytes)
                # The read came after the copy in the queue: the copy is over, and failed
                # where its status says so (asked without a wait, which would let the
                # program's thread take the interpreter at every launch).
                status = event.command_execution_status if event is not None else 0
                if status < 0:
                    raise _ReadFailed(f"the copy ended with status {status}")
            elif event is not None:
                event.wait()
        except Exception as exc:  # the read (or the copy) failed on the device
            snap.host = None  # for the launch after, whose contents before they are:
            snap.failed = f"a buffer could not be read back before the launch: {exc}"
            raise _ReadFailed(
                f"a buffer could not be read back {phase} the launch: {exc}"
            ) from None
        snap.path, snap.digest = self._small(number, snap.host, snap.dtype, relative, snap)
        snap.host = None

    def _at_exit(self) -> None:
        """The program ends: the launches it made are finished before it does (not where a
        user event their work waits for was never completed: their reads never would be)."""
        if os.getpid() != self.pid:
            return
        if self._gated():
            if self._finisher.busy():
                self._tell(
                    "the launches still under way at the program's end were not kept: a user "
                    "event their work waits for was never completed"
                )
            return
        self._finisher.drain()

    def _describe(
        self,
        number: int,
        queue: Any,
        kernel: Any,
        global_size: Sequence[int],
        local_size: Sequence[int] | None,
    ) -> tuple[dict[str, Any], list[_Read], str, _Plan]:
        """The launch's journal entry without its data, the buffers to read, why its data is
        not kept ("" when it is), and the plan they come from."""
        args = _args_of(kernel)
        plan = getattr(kernel, "_explorer_capture_plan", None)
        if (
            plan is None
            or plan.token != self._token
            or plan.queue is not queue
            or len(plan.args) != len(args)
            or not all(map(operator.is_, plan.args, args.values()))
        ):
            plan = self._plan(kernel, queue, args)
        entry = self._entry(plan, number, global_size, local_size)
        reads = [_Read(*fields) for fields in plan.reads]
        why = plan.why or self.no_data
        if not why and self.max_launches is not None and number > self.max_launches:
            why = f"past --launches {self.max_launches}"
        return entry, reads, why, plan  # --max-mb is the caller's: what was kept may be to come

    @staticmethod
    def _entry(
        plan: _Plan, number: int, global_size: Sequence[int], local_size: Sequence[int] | None
    ) -> dict[str, Any]:
        """A launch's journal entry but its offset and data."""
        return {
            "type": "launch",
            "number": number,
            "kernel": plan.kernel,
            "program": plan.program,
            "global": [int(g) for g in global_size],
            "local": [int(v) for v in local_size] if local_size is not None else None,
            "device": plan.device,
            "platform": plan.platform,
            "args": [dict(item) for item in plan.items],
        }

    def _plan(self, kernel: Any, queue: Any, args: dict[int, _Arg]) -> _Plan:
        """What the launches of ``kernel`` with ``args`` on ``queue`` describe alike (kept on
        the kernel)."""
        import pyopencl as cl

        facts = _kernel_facts(kernel)
        device, platform, _ = _queue_facts(queue)
        described: list[dict[str, Any]] = []
        reads: list[_Read] = []
        why = ""
        for index in range(facts.num_args):
            name, type_name = facts.infos[index] if index < len(facts.infos) else (None, None)
            arg = args.get(index)
            item: dict[str, Any] = {"index": index, "name": name, "type": type_name}
            if arg is None:
                item["kind"] = "unset"
                why = why or f"argument {index} was never set"
            elif arg.kind == "buffer":
                buffer = arg.value
                root, origin, flags, nbytes, host = _buffer_facts(cl, buffer)
                dtype, dtype_name = facts.dtypes[index]
                if nbytes >= dtype.itemsize:
                    # Its whole elements: all the kernel can reach through its parameter (a
                    # MemoryPool's buffer for 200 floats holds 831 bytes).
                    nbytes -= nbytes % dtype.itemsize
                else:
                    dtype, dtype_name = np.dtype(np.uint8), "uint8"
                item.update(
                    kind="buffer",
                    bytes=nbytes,
                    dtype=dtype_name,
                    memory=self._memory_id(root),
                    origin=origin,
                    flags=list(flags),
                )
                writes = index >= len(facts.read_only) or not facts.read_only[index]
                reads.append(_Read(index, buffer, dtype, nbytes, root, writes, host))
            elif arg.kind == "image":
                image = _image_facts(cl, arg.value)
                if image is None:
                    item.update(kind="unsupported", what="image of an unknown kind")
                    why = why or f"argument {index} is an image that could not be described"
                else:
                    facts_of, region = image
                    dtype = np.dtype(facts_of["dtype"])
                    flags = _flags(cl, arg.value)
                    root = int(arg.value.int_ptr)
                    item.update(kind="image", **facts_of, memory=self._memory_id(root))
                    item["flags"] = list(flags)
                    writes = index >= len(facts.read_only) or not facts.read_only[index]
                    host = "USE_HOST_PTR" in flags
                    nbytes = int(facts_of["bytes"])
                    reads.append(
                        _Read(index, arg.value, dtype, nbytes, root, writes, host, region=region)
                    )
            elif arg.kind == "sampler":
                item.update(kind="sampler", **_sampler_facts(cl, arg.value))
            elif arg.kind == "local":
                item.update(kind="local", bytes=int(arg.value))
            elif arg.kind == "null":
                item["kind"] = "null"
            elif arg.kind == "scalar":
                item.update(kind="scalar", dtype=arg.dtype, hex=arg.data.hex())
                item["value"] = _scalar_value(arg.data, arg.dtype)
            else:
                item.update(kind="unsupported", what=str(arg.value))
                why = why or f"argument {index} is a {arg.value}, which is not recorded"
            described.append(item)
        # A ``const`` argument is read again after the launch where another argument of the
        # same memory object (the same buffer, or a sub-buffer of its parent) may write it.
        written = {r.root for r in reads if r.writes}
        for r in reads:
            r.writes = r.writes or r.root in written
        plan = _Plan(
            token=self._token,
            queue=queue,
            args=tuple(args.values()),
            kernel=facts.name,
            program=self._program(kernel, queue),
            device=device,
            platform=platform,
            items=tuple(described),
            reads=tuple(
                (r.index, r.buffer, r.dtype, r.nbytes, r.root, r.writes, r.host, r.region)
                for r in reads
            ),
            why=why,
        )
        sizes = {(id(r.buffer), r.dtype.str): r.nbytes for r in reads}
        plan.most = 2 * sum(sizes.values())  # before and after
        plan.behind = _queue_facts(queue)[2] and not any(r.host for r in reads)
        plan.writes = frozenset(written)
        plan.serial = _serial_driver(queue)
        if plan.behind and plan.most <= DEFERRED_BYTES:
            plan.stage = self._stage(cl, queue)
        if plan.stage is not None and not why and all(r.nbytes and not r.region for r in reads):
            keys: dict[tuple[int, str], int] = {}
            distinct: list[tuple[Any, ...]] = []
            for r in reads:
                if keys.setdefault((id(r.buffer), r.dtype.str), len(keys)) == len(distinct):
                    distinct.append((r.buffer, r.dtype, r.nbytes, r.root, r.writes, r.dtype.str))
            slots = tuple(keys[(id(r.buffer), r.dtype.str)] for r in reads)
            learn = tuple(
                (r.buffer, r.root, r.dtype.str, index)
                for r, index in zip(reads, slots, strict=True)
            )
            plan.quick = (tuple(distinct), slots, learn)
            plan.after_bytes = sum(d[2] for d in distinct if d[4])
        with contextlib.suppress(Exception):
            kernel._explorer_capture_plan = plan
        return plan

    def _read(
        self,
        number: int,
        entry: dict[str, Any],
        queue: Any,
        wait_for: Any,
        reads: list[_Read],
        phase: str,
    ) -> str:
        """Read every buffer argument the launch may change into its file, once the work
        queued before (and ``wait_for``) is done; "" or why the launch is listed without its
        buffers. Buffers of up to :data:`CHUNK` bytes are read together with one wait; a
        larger one is streamed a piece at a time (the program grows by one piece, never by a
        buffer). A ``const`` argument's contents after the launch are those before it."""
        import pyopencl as cl

        pending: list[tuple[tuple[int, str], str, np.dtype, np.ndarray, Any, Any]] = []
        try:
            waits = list(wait_for) if wait_for else []
            if not _queue_facts(queue)[2]:  # out of order: its earlier work may run after
                queue.finish()
                if waits:
                    cl.wait_for_events(waits)
                waits = []
            seen: dict[tuple[int, str], tuple[str, str]] = {}
            batch = 0
            for r in reads:
                key = (id(r.buffer), r.dtype.str)
                if (phase == "after" and not r.writes) or key in seen:
                    continue
                if phase == "before":
                    known = self._known(r)
                    if known is not None and known.path:
                        seen[key] = (known.path, known.digest)
                        continue
                name = entry["args"][r.index]["name"] or f"arg{r.index}"
                relative = f"data/{number:05d}-{r.index}-{_safe(name)}-{phase}.npy"
                if r.region:  # an image: read whole, as rows of pixels without padding
                    if batch + r.nbytes > CHUNK:
                        self._settle(number, pending, seen)
                        batch = 0
                    host = np.empty(r.nbytes, dtype=np.uint8)
                    event = cl.enqueue_copy(
                        queue, host, r.buffer, origin=(0,) * len(r.region), region=r.region,
                        is_blocking=False, wait_for=waits or None,
                    )  # fmt: skip
                    pending.append((key, relative, r.dtype, host, event, None))
                    batch += r.nbytes
                    continue
                # Its contents before the launch, in a file of their own: most often the same
                # after it (a buffer the kernel only reads, not declared const).
                like = (r.before, r.digests["before"]) if phase == "after" and r.before else None
                if r.nbytes > CHUNK:
                    self._settle(number, pending, seen)
                    if waits:
                        cl.wait_for_events(waits)
                    seen[key] = self._stream(number, queue, r.buffer, r.dtype, relative, like)
                    continue
                if batch + r.nbytes > CHUNK:
                    self._settle(number, pending, seen)
                    batch = 0
                host = np.empty(r.nbytes, dtype=np.uint8)
                event = cl.enqueue_copy(
                    queue, host, r.buffer, is_blocking=False, wait_for=waits or None
                )
                pending.append((key, relative, r.dtype, host, event, like))
                batch += r.nbytes
            self._settle(number, pending, seen)
            for r in reads:
                if phase == "after" and not r.writes:
                    r.after, r.digests["after"] = r.before, r.digests["before"]
                    continue
                found = seen[(id(r.buffer), r.dtype.str)]
                setattr(r, phase, found[0])
                r.digests[phase] = found[1]
        except cl.Error as exc:
            self._forget(number)
            return f"a buffer could not be read back {phase} the launch: {exc}"
        except _OverBound as exc:
            self._forget(number)
            return str(exc)
        except OSError as exc:
            self._forget(number)
            return self._lose_data(number, exc)
        finally:
            for *_, event, _ in pending:  # no read may go on filling an array let go
                with contextlib.suppress(Exception):
                    event.wait()
        return ""

    def _known(self, r: _Read) -> _Snap | None:
        """A buffer's contents where nothing can have changed them since the recorder read
        them (kept, or still to be); None where it must read them."""
        if self._mapped or r.host:
            return None
        known = getattr(r.buffer, "_explorer_capture_known", None)
        if known is None:
            return None
        token, epoch, generation, dtype, snap = known
        if (
            token != self._token
            or epoch != self._epoch
            or generation != self._generation.get(r.root, 0)
            or dtype != r.dtype.str
            or not isinstance(snap, _Snap)
            or snap.failed
        ):
            return None
        return snap

    def _learn(self, reads: list[_Read], epoch: int) -> None:
        """A launch is kept: the memory objects it may write start their next generation,
        and each buffer's contents after it are known (``epoch`` is the one it started in:
        a call from another thread meanwhile leaves nothing known)."""
        if self._epoch != epoch:
            return
        generation = self._generation
        for root in {r.root for r in reads if r.writes}:
            generation[root] = generation.get(root, 0) + 1
        for r in reads:
            if r.host:
                continue
            snap = r.snaps.get("after") or _Snap(r.dtype, path=r.after, digest=r.digests["after"])
            known = (self._token, epoch, self._generation.get(r.root, 0), r.dtype.str, snap)
            with contextlib.suppress(Exception):
                r.buffer._explorer_capture_known = known

    def _note_gates(self, wait_for: Any) -> None:
        """Keep the user events among ``wait_for`` that the program has not completed."""
        if not wait_for:
            return
        cl = _CL[0]
        with contextlib.suppress(Exception):
            for event in wait_for:
                new = all(event is not known for known in self._gates)
                if new and isinstance(event, cl.UserEvent) and _pending(cl, event):
                    self._gates.append(event)

    def _gated(self) -> bool:
        """Whether a user event the program's work waits for is still pending: a read that
        waits for the queue (or for the launches under way) would then wait for the program
        itself, which completes it only once the call returns."""
        if self._gates:
            cl = _CL[0]
            self._gates = [event for event in self._gates if _pending(cl, event)]
        return bool(self._gates)

    def touched(self, mapped: bool = False, queue: Any = None) -> None:
        """A pyopencl call that may change a buffer's contents without a launch (or, for
        ``mapped``, let the program change them at any time) is about to be made on
        ``queue``: what the recorder knew of the contents is no more, and reads still under
        way on another queue (not ordered with its work) are done first."""
        if _Process.pid != self.pid:
            return
        self._epoch += 1
        self._mapped = self._mapped or mapped
        finisher = self._finisher
        if self._gated():
            return  # the reads under way may wait for a user event: waiting would hang
        if finisher.busy() and (mapped or queue is None or queue is not finisher.queue):
            finisher.drain()

    def _settle(
        self,
        number: int,
        pending: list[tuple[tuple[int, str], str, np.dtype, np.ndarray, Any, Any]],
        seen: dict[tuple[int, str], tuple[str, str]],
    ) -> None:
        """Wait for the reads under way and keep each one's contents (``like``: a file of
        their own that may hold the same, :meth:`_same_file`)."""
        import pyopencl as cl

        if not pending:
            return
        cl.wait_for_events([p[4] for p in pending])
        done = list(pending)
        pending.clear()
        for key, relative, dtype, host, _, like in done:
            same = self._same_file(like, dtype, host.nbytes, (host,))
            unlike = like[1] if like is not None else None  # compared: not the same
            seen[key] = same or self._small(number, host, dtype, relative, unlike=unlike)

    def _small(
        self,
        number: int,
        data: np.ndarray,
        dtype: np.dtype,
        relative: str,
        snap: _Snap | None = None,
        unlike: str | None = None,
    ) -> tuple[str, str]:
        """Keep a buffer's contents read whole as the ``.npy`` file ``relative`` unless a file
        already written holds the same (known by its digest before any file is written; not
        the contents kept as ``unlike``, found to differ already): its path and digest."""
        nbytes = data.nbytes
        header = _npy_header(dtype, nbytes // dtype.itemsize)
        own = len(header) + nbytes > PACK_LIMIT  # a file of its own, or in the pack
        crc: int | None = None
        key = ""
        if own:  # compared with those of its type and size kept (:meth:`_same_own`)
            others = self._others(dtype, nbytes, unlike)
            if others:
                crc = _crc32()(data.data)
                found = self._same_own(others, dtype, nbytes, crc, lambda: (data,))
                if found is not None:
                    return found
        else:
            key = _short_key(dtype, data)
            known = self._files.get(key)
            if known is not None:
                return known, key
        if self.max_bytes is not None and self.written + nbytes > self.max_bytes:
            raise _OverBound(_over_budget(nbytes, self.written, self.max_bytes))
        place: tuple[int, int] | None = None
        if not own:
            place = self._pack_write(header + data.tobytes())
        else:  # written from the array itself (no copy of it made, nor of it and the header)

            def write(handle: Any) -> None:
                handle.write(header)
                handle.write(data.data)

            self._new_file(relative, write)
            key = self._own_key(dtype, nbytes, relative, crc)
        self._files[key] = relative
        self.written += nbytes
        self._fresh.append((number, key, relative, nbytes, snap, place))
        return relative, key

    def _pack_write(self, blob: bytes) -> tuple[int, int]:
        """Append ``blob`` (a whole ``.npy`` image) to the pack: where it will lie in it
        (offset, length). It is written with the others kept since, before the journal lines
        that name them (:meth:`_flush_locked`), so a program killed at any moment leaves no
        name of bytes not written."""
        with self._pack_lock:
            offset = self._pack_size + self._pack_waiting
            self._pack_unwritten.append(blob)
            self._pack_waiting += len(blob)
            return offset, len(blob)

    def _write_pack(self) -> None:
        """Write the contents kept for the pack (made new at the first), in one write; bytes
        a write cut short left are written over by the next."""
        with self._pack_lock:
            if not self._pack_unwritten:
                return
            blobs, self._pack_unwritten, self._pack_waiting = self._pack_unwritten, [], 0
            if self._pack_lost:  # named by no line (a full disk stays full)
                return
            if self._pack is None:
                parent = os.path.dirname(PACK)
                if parent not in self._folders:
                    os.makedirs(os.path.join(self.folder, parent), exist_ok=True)
                    self._folders.add(parent)
                self._pack = os.open(os.path.join(self.folder, PACK), _NEW_FILE, 0o666)
            self._pack_file_write(b"".join(blobs), self._pack_size)

    def _pack_file_write(self, data: bytes, offset: int) -> None:
        assert self._pack is not None
        view = memoryview(data)
        while view:
            view = view[os.pwrite(self._pack, view, offset + len(data) - len(view)) :]
        self._pack_size = offset + len(data)

    def _lost_pack(self, exc: OSError) -> None:
        """The pack took none of the contents kept since its last write (a full disk): the
        launches whose lines name them, and every later one, are listed without their
        buffers (as a launch whose file could not be written is)."""
        self._pack_lost = self._pack_lost or _reason(exc)
        self._lines_without_lost(0)

    def _lines_without_lost(self, first: int) -> None:
        """The journal's lines kept for later from ``first`` on made again where they name
        contents the pack did not take (:meth:`_without_lost`)."""
        for index, made in enumerate(self._unwritten_entries[first:], first):
            entry = self._quick_entry(*made) if isinstance(made, tuple) else made
            launch = entry.get("type") == "launch" and entry.get("data") is True
            if launch and self._without_lost(entry):
                self._unwritten[index] = (_encode(entry) + "\n").encode("utf-8")

    def _without_lost(self, entry: dict[str, Any]) -> bool:
        """Whether ``entry`` (a launch with its buffers) names contents the pack did not take
        (or comes after one that did): then it is made a launch without them."""
        end = self._pack_size
        packed = entry.get("packed") or {}
        if not self.no_data and all(place[0] < end for place in packed.values()):
            return False
        number = entry["number"]
        why = self.no_data or self._lose_data(number, OSError(0, self._pack_lost))
        entry.pop("packed", None)
        for arg in entry["args"]:
            for key in ("before", "after", "changed"):
                arg.pop(key, None)
        entry["data"] = False
        entry["why"] = why
        return True

    def _stream(
        self,
        number: int,
        queue: Any,
        buffer: Any,
        dtype: np.dtype,
        relative: str,
        like: tuple[str, str] | None = None,
    ) -> tuple[str, str]:
        """Write a buffer larger than :data:`CHUNK` as the ``.npy`` file ``relative``, read
        a piece at a time (:meth:`_pieces`; one already written with the same contents stands
        for it): its path and digest. Where ``like`` names a file that may hold the same (its
        contents before the launch), the pieces are first compared with it: the same, it
        stands for them, with nothing hashed or written."""
        nbytes = int(buffer.size)
        same = self._same_file(like, dtype, nbytes, self._pieces(queue, buffer, nbytes))
        if same is not None:
            return same
        header = _npy_header(dtype, nbytes // dtype.itemsize)
        # A CRC-32 is made only where contents of its type and size are kept already (but
        # those ``like`` names, compared: not the same).
        others = self._others(dtype, nbytes, like[1] if like is not None else None)
        crc32 = _crc32() if others else None
        crc = 0

        def write(handle: Any) -> None:
            nonlocal crc
            handle.write(header)
            with contextlib.closing(self._pieces(queue, buffer, nbytes)) as pieces:
                for part in pieces:
                    if crc32 is not None:
                        crc = crc32(part.data, crc)
                    handle.write(part)

        self._new_file(relative, write)
        found = None
        if crc32 is not None:
            found = self._same_own(
                others, dtype, nbytes, crc,
                lambda: self._file_pieces(relative, len(header), nbytes),
            )  # fmt: skip
        if found is not None or (
            self.max_bytes is not None and self.written + nbytes > self.max_bytes
        ):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(self.folder, relative))
            if found is not None:
                return found
            raise _OverBound(_over_budget(nbytes, self.written, self.max_bytes or 0))
        key = self._own_key(dtype, nbytes, relative, crc if crc32 is not None else None)
        self._files[key] = relative
        self.written += nbytes
        self._fresh.append((number, key, relative, nbytes, None, None))
        return relative, key

    def _pieces(self, queue: Any, buffer: Any, nbytes: int) -> Generator[Any, None, None]:
        """The ``nbytes`` of ``buffer``, a piece at a time, read into the two halves of one
        :data:`CHUNK` in turn: the next piece's read is queued before this one is handed
        over, so the device copies one while the other is kept (the program grows by one
        piece, never by a buffer). A generator: closed early, it waits for the read under
        way (no read may go on filling a half the next one reuses)."""
        import pyopencl as cl

        if self._chunk is None or self._chunk.nbytes < min(CHUNK, nbytes):
            self._chunk = np.empty(min(CHUNK, max(nbytes, 1)), dtype=np.uint8)
        half = max(1, -(-self._chunk.nbytes // 2))
        halves = (self._chunk[:half], self._chunk[half:])

        def read(index: int) -> tuple[Any, Any] | None:
            offset = index * half
            if offset >= nbytes:
                return None
            part = halves[index % 2][: min(half, nbytes - offset)]
            event = cl.enqueue_copy(queue, part, buffer, src_offset=offset, is_blocking=False)
            return part, event

        index, under_way = 0, read(0)
        try:
            while under_way is not None:
                part, event = under_way
                event.wait()
                under_way = None  # waited for: a failure of the next read leaves none
                index += 1
                under_way = read(index)
                yield part
        finally:
            if under_way is not None:
                with contextlib.suppress(Exception):
                    under_way[1].wait()

    def _same_file(
        self, like: tuple[str, str] | None, dtype: np.dtype, nbytes: int, parts: Iterable[Any]
    ) -> tuple[str, str] | None:
        """The path and digest of the file ``like`` names (path, digest: contents kept, in a
        file of their own) where it holds the ``nbytes`` of elements ``dtype`` that ``parts``
        (arrays of bytes, in order) make: compared with it, which costs less than a digest of
        them (SHA-1 runs at about 2 GB/s). None, with ``parts`` left unfinished, at the first
        byte that differs, or where no such file is known."""
        if like is None:
            return None
        header = _npy_header(dtype, nbytes // dtype.itemsize)
        path, digest = like
        if len(header) + nbytes <= PACK_LIMIT or self._files.get(digest) != path:
            return None  # in the pack (or not known)
        try:
            fd = os.open(os.path.join(self.folder, path), _READ_FILE)
        except OSError:
            return None
        try:
            if os.fstat(fd).st_size != len(header) + nbytes:
                return None
            if os.pread(fd, len(header), 0) != header:
                return None
            scratch = self._scratch
            if scratch is None:
                scratch = self._scratch = np.empty(COMPARED, dtype=np.uint8)
            offset = len(header)
            for part in parts:
                flat = part.reshape(-1).view(np.uint8)
                for start in range(0, flat.nbytes, COMPARED):
                    piece = flat[start : start + COMPARED]
                    theirs = scratch[: piece.nbytes]
                    if _read_into(fd, theirs, offset) != piece.nbytes:
                        return None
                    if not np.array_equal(piece, theirs):
                        return None
                    offset += piece.nbytes
            if offset != len(header) + nbytes:
                return None
        except OSError:
            return None
        finally:
            os.close(fd)
            close = getattr(parts, "close", None)
            if close is not None:  # a generator of pieces: its read under way is waited for
                close()
        return path, digest

    def _others(self, dtype: np.dtype, nbytes: int, unlike: str | None) -> list[list[Any]]:
        """The contents of elements ``dtype`` and ``nbytes`` kept in files of their own
        (:attr:`_owns`) but those kept as ``unlike``."""
        return [own for own in self._owns.get((dtype.str, nbytes), ()) if own[0] != unlike]

    def _same_own(
        self,
        others: list[list[Any]],
        dtype: np.dtype,
        nbytes: int,
        crc: int,
        parts: Callable[[], Iterable[Any]],
    ) -> tuple[str, str] | None:
        """The path and key of a file of its own kept (one of ``others``, :meth:`_others`)
        that holds the contents (of elements ``dtype``, ``nbytes``) whose CRC-32 is ``crc``:
        each of the same CRC-32 (made of its file where it has none yet) is compared with
        them (``parts`` makes them again for each, :meth:`_same_file`). A CRC-32 tells most
        different contents apart at some twice SHA-1's speed; the comparison makes it sure;
        contents of a type and size no other has are not read again at all."""
        header = len(_npy_header(dtype, nbytes // dtype.itemsize))
        for own in others:
            key, path, theirs = own
            if theirs is None:
                try:
                    crc32, theirs = _crc32(), 0
                    with contextlib.closing(self._file_pieces(path, header, nbytes)) as pieces:
                        for part in pieces:
                            theirs = crc32(part.data, theirs)
                except OSError:  # removed, or cut short: not the same
                    continue
                own[2] = theirs
            if theirs == crc:
                found = self._same_file((path, key), dtype, nbytes, parts())
                if found is not None:
                    return found
        return None

    def _own_key(self, dtype: np.dtype, nbytes: int, relative: str, crc: int | None) -> str:
        """The key of :attr:`_files` for new contents kept as the file of its own
        ``relative`` (their CRC-32 ``crc``, where it was made): their type, size and name
        (the keys of the pack's contents, :func:`_short_key`, never begin so)."""
        key = f"own:{dtype.str}:{nbytes}:{relative}"
        owns = self._owns.setdefault((dtype.str, nbytes), [])
        owns.append([key, relative, crc])
        self._own_lists[key] = owns
        return key

    def _file_pieces(self, relative: str, offset: int, nbytes: int) -> Generator[Any, None, None]:
        """The ``nbytes`` of the capture's file ``relative`` from ``offset``, a piece at a
        time (into :attr:`_chunk`)."""
        chunk = self._chunk
        if chunk is None or chunk.nbytes < min(CHUNK, nbytes):
            chunk = self._chunk = np.empty(min(CHUNK, max(nbytes, 1)), dtype=np.uint8)
        fd = os.open(os.path.join(self.folder, relative), _READ_FILE)
        try:
            end = offset + nbytes
            while offset < end:
                part = chunk[: min(chunk.nbytes, end - offset)]
                got = _read_into(fd, part, offset)
                if got <= 0:
                    raise OSError(0, f"{relative} is shorter than it was written")
                offset += got
                yield part[:got]
        finally:
            os.close(fd)

    def _forget(self, number: int) -> set[str]:
        """Remove the files launch ``number`` wrote: it is listed without its buffers. The
        files removed."""
        gone: set[str] = set()
        for launch, key, relative, nbytes, snap, place in self._fresh:
            if launch != number:
                continue
            if place is None:  # packed contents stay in the pack, named by no line
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(self.folder, relative))
            self._files.pop(key, None)
            owns = self._own_lists.pop(key, None)
            if owns is not None:
                owns[:] = [own for own in owns if own[0] != key]
            self.written -= nbytes
            gone.add(relative)
            if snap is not None:
                snap.path = snap.digest = ""
        self._fresh = [f for f in self._fresh if f[0] != number]
        return gone

    def _keep(self, entry: dict[str, Any], reads: list[_Read]) -> None:
        """Name each buffer's files in the launch's entry, and whether the launch changed it."""
        args = entry["args"]
        for r in reads:
            args[r.index]["before"] = r.before
            args[r.index]["after"] = r.after
            args[r.index]["changed"] = r.digests["before"] != r.digests["after"]
        packed = {f[2]: list(f[5]) for f in self._fresh if f[5] is not None}
        if packed:  # where in the pack the contents it is the first to name lie
            entry["packed"] = packed
        self._fresh.clear()

    # -- installing the wrappers ------------------------------------------------------------

    def patch(self, cl: ModuleType) -> None:
        """Wrap pyopencl's build, argument setters and launch (``undo`` restores them)."""
        import pyopencl._cl as _cl

        recorder = self
        missing: list[str] = []
        self._copy_buffer = getattr(_cl, "_enqueue_copy_buffer", None)
        self._read_buffer = getattr(_cl, "_enqueue_read_buffer", None)
        # Nothing of OpenCL is touched before the program does (a program that forks workers
        # after importing pyopencl must find no OpenCL platform started): PoCL's processor
        # is named at the program's first build.
        named: list[bool] = []

        def replace(owner: Any, name: str, wrapper: Callable[..., Any]) -> None:
            original = getattr(owner, name, None)
            if original is None:
                missing.append(f"{getattr(owner, '__name__', owner)}.{name}")
                return
            setattr(owner, name, wrapper(original))
            self._undo.append(lambda: setattr(owner, name, original))

        def build(original: Callable[..., Any]) -> Callable[..., Any]:
            def build(program: Any, options: Any = None, *args: Any, **kwargs: Any) -> Any:
                if os.getpid() != recorder.pid or not recorder.active:
                    return original(program, options, *args, **kwargs)
                if not named:
                    named.append(True)
                    _name_unknown_processors(cl)
                # Parameter names and types (for the .npy files' element types) are only
                # reported for programs built with this option on some drivers (PoCL).
                given = _options(options)
                try:
                    result = original(program, [*given, ARG_INFO], *args, **kwargs)
                except cl.RuntimeError:  # a driver that refuses it, or a source that fails
                    result = None
                arg_info = result is not None
                if result is None:  # the build as asked, its error the program's alone
                    # (NVIDIA's compiler fails on a kernel without parameters with it)
                    result = original(program, options, *args, **kwargs)
                with contextlib.suppress(Exception):  # the record's loss, not the program's
                    recorder.built(program, options, arg_info)
                return result

            return build

        def set_arg(original: Callable[..., Any]) -> Callable[..., Any]:
            def set_arg(kernel: Any, index: int, value: Any) -> Any:
                result = original(kernel, index, value)
                try:  # noqa: SIM105 (no context object made at every call)
                    recorder.set_arg(kernel, index, value)
                except Exception:  # the record's loss, never the program's
                    pass
                return result

            return set_arg

        def set_multi(original: Callable[..., Any]) -> Callable[..., Any]:
            def _set_arg_multi(kernel: Any, items: Sequence[Any]) -> Any:
                result = original(kernel, items)
                try:  # no context object made at every call
                    args = getattr(kernel, "_explorer_capture_args", None)
                    for i in range(0, len(items), 2):
                        index, value = items[i], items[i + 1]
                        known = None if args is None else args.get(index)
                        if known is None or known.value is not value or known.kind not in _OBJECTS:
                            recorder.set_arg(kernel, index, value)  # else as it was
                except Exception:  # the record's loss, never the program's
                    pass
                return result

            return _set_arg_multi

        def set_buf(original: Callable[..., Any]) -> Callable[..., Any]:
            def _set_arg_buf_multi(kernel: Any, items: Sequence[Any]) -> Any:
                result = original(kernel, items)
                with contextlib.suppress(Exception):
                    for i in range(0, len(items), 2):
                        recorder.set_bytes(kernel, items[i], bytes(items[i + 1]), "bytes")
                return result

            return _set_arg_buf_multi

        def set_pack(original: Callable[..., Any]) -> Callable[..., Any]:
            def _set_arg_buf_pack_multi(kernel: Any, items: Sequence[Any]) -> Any:
                result = original(kernel, items)
                with contextlib.suppress(Exception):
                    for i in range(0, len(items), 3):
                        char = items[i + 1].decode()
                        data = struct.pack(char, items[i + 2])
                        recorder.set_bytes(kernel, items[i], data, np.dtype(char).name)
                return result

            return _set_arg_buf_pack_multi

        def clone(original: Callable[..., Any]) -> Callable[..., Any]:
            def clone(kernel: Any) -> Any:
                copy = original(kernel)
                with contextlib.suppress(Exception):
                    _args_of(copy).update(_args_of(kernel))
                return copy

            return clone

        def touch(original: Callable[..., Any], mapping: bool) -> Callable[..., Any]:
            def touching(*args: Any, **kwargs: Any) -> Any:
                if _Process.pid == recorder.pid:  # wait_for, by name or by place
                    for given in (*args, *kwargs.values()):
                        if isinstance(given, (list, tuple)):
                            recorder._note_gates(given)
                recorder.touched(mapping, args[0] if args else kwargs.get("queue"))
                return original(*args, **kwargs)

            touching.__name__ = getattr(original, "__name__", "touching")
            touching.__doc__ = getattr(original, "__doc__", None)
            return touching

        def enqueue(original: Callable[..., Any]) -> Callable[..., Any]:
            def enqueue_nd_range_kernel(*args: Any, **kwargs: Any) -> Any:
                if _Process.pid != recorder.pid or not recorder.active:
                    return original(*args, **kwargs)
                tried = False
                if not kwargs and 3 <= len(args) <= len(LAUNCH_PARAMETERS):  # pyopencl's way
                    event = recorder.quick_launch(original, args)
                    if event is not _WHOLE_WAY:
                        return event
                    tried = True
                parts = launch_parts(args, kwargs)
                if parts is None:  # a call pyopencl refuses: its own error, as it is
                    return original(*args, **kwargs)
                return recorder.launch(lambda: original(*args, **kwargs), *parts, tried=tried)

            return enqueue_nd_range_kernel

        wrappers = {
            "build": build, "set_arg": set_arg, "_set_arg_multi": set_multi,
            "_set_arg_buf_multi": set_buf, "_set_arg_buf_pack_multi": set_pack, "clone": clone,
            "enqueue_nd_range_kernel": enqueue,
        }  # fmt: skip
        owners = {"pyopencl.Program": cl.Program, "pyopencl._cl.Kernel": _cl.Kernel,
                  "pyopencl._cl": _cl, "pyopencl": cl}  # fmt: skip
        for holder, names in WRAPPED.items():
            for name in names:
                replace(owners[holder], name, wrappers[name])
        # Every other call that may change a buffer's contents ends what the recorder knows
        # of them (it then reads them back before the next launch): the same function where
        # pyopencl holds it under its own name too.
        for name in sorted(dir(_cl)):
            original = getattr(_cl, name, None)
            if "enqueue" not in name or name in _KEEP_CONTENTS or not callable(original):
                continue
            if isinstance(original, type):  # a class of pyopencl's (an enumeration)
                continue
            touching = touch(original, name in _MAPS)
            for owner in (_cl, cl):
                if getattr(owner, name, None) is original:
                    setattr(owner, name, touching)
                    self._undo.append(partial(setattr, owner, name, original))
        note = version_note(getattr(cl, "VERSION", None))
        if missing:
            note = note or "explorer capture: this pyopencl lacks functions the recorder wraps"
            note += f" (not found: {', '.join(missing)})"
        if note:
            print(note, file=sys.stderr)
            self._tell(note.removeprefix("explorer capture: "))

    def start(self, cl: ModuleType) -> None:
        """Record this process if it is the first of the program's to import pyopencl; a
        failure to wrap pyopencl leaves it as it was (nothing recorded, the program as is)."""
        try:
            _load_numpy()
            _CL[:] = [cl]
            if self.claim():
                self.patch(cl)
                # The launches under way are finished before the program ends, and before
                # it forks (the child is not recorded, and starts with no write under way).
                atexit.register(self._at_exit)
                os.register_at_fork(before=partial(_before_fork, weakref.ref(self)))
        except Exception as exc:
            self.unpatch()
            self._stop(f"not recording: pyopencl could not be wrapped ({_reason(exc)})")

    def unpatch(self) -> None:
        while self._undo:
            self._undo.pop()()


# -- helpers -------------------------------------------------------------------------------


_GATED = (
    "it was made while a user event the program's work waits for was not complete (the "
    "program completes it later): reading its buffers would wait for the program itself"
)


def _pending(cl: ModuleType, event: Any) -> bool:
    """Whether ``event`` has not completed (nor failed); one that cannot say is not."""
    try:
        status = event.get_info(cl.event_info.COMMAND_EXECUTION_STATUS)
    except Exception:
        return False
    return int(status) > 0


def _args_of(kernel: Any) -> dict[int, _Arg]:
    """The arguments recorded for ``kernel``, kept on the kernel object itself (pyopencl's
    kernels take attributes), so they live and die with it."""
    args = getattr(kernel, "_explorer_capture_args", None)
    if args is None:
        args = {}
        kernel._explorer_capture_args = args
    return args


def _arg_infos(kernel: Any) -> list[tuple[str | None, str | None]]:
    """Each parameter's name and type as the driver reports them (None where it does not)."""
    cached = getattr(kernel, "_explorer_capture_infos", None)
    if cached is not None:
        return list(cached)
    import pyopencl as cl

    infos: list[tuple[str | None, str | None]] = []
    for index in range(kernel.num_args):
        found: list[str | None] = []
        for what in (cl.kernel_arg_info.NAME, cl.kernel_arg_info.TYPE_NAME):
            try:
                found.append(str(kernel.get_arg_info(index, what)))
            except Exception:  # arg info is optional in OpenCL; any failure means "unknown"
                found.append(None)
        infos.append((found[0], found[1]))
    kernel._explorer_capture_infos = infos
    return infos


# The kinds of argument that are a pyopencl object, the same one while the program passes it.
_OBJECTS = frozenset({"buffer", "image", "sampler"})


def _same_scalar(known: _Arg, kind: str, data: bytes, dtype: str) -> bool:
    """Whether an argument set again is the value it was (the argument is then left as it
    was, so that the launches after describe it as before: :class:`_Plan`)."""
    return kind == known.kind == "scalar" and known.data == data and known.dtype == dtype


def _classify(value: Any) -> _Arg:
    import pyopencl as cl

    if isinstance(value, cl.Buffer):
        return _Arg("buffer", value)
    pooled = getattr(cl._cl, "PooledBuffer", None)
    if pooled is not None and isinstance(value, pooled):
        # A buffer a pyopencl.tools.MemoryPool hands out (pyopencl.array with such an
        # allocator passes them to its kernels): a memory object of its own, read and copied
        # as a Buffer is.
        return _Arg("buffer", value)
    if value is None:
        return _Arg("null")
    if isinstance(value, cl.LocalMemory):
        return _Arg("local", int(value.size))
    if isinstance(value, cl.Image):
        return _Arg("image", value)
    if isinstance(value, cl.Sampler):
        return _Arg("sampler", value)
    if isinstance(value, cl.MemoryObjectHolder) or type(value).__name__.startswith("SVM"):
        return _Arg("unsupported", type(value).__name__)
    if isinstance(value, np.generic | np.ndarray):
        array = np.asarray(value)
        return _Arg("scalar", data=array.tobytes(), dtype=str(array.dtype))
    try:
        return _Arg("scalar", data=memoryview(value).tobytes(), dtype="bytes")
    except TypeError:
        return _Arg("unsupported", type(value).__name__)


def _scalar_value(data: bytes, dtype: str) -> Any:
    """A scalar's value for a person reading capture.json: a number, a vector's lanes, or
    the bytes of a struct."""
    try:
        kind = np.dtype(dtype)
    except TypeError:
        kind = np.dtype(np.uint8)
    if kind.names:  # pyopencl.cltypes vectors are structured types of one base type
        bases = {kind.fields[n][0] for n in kind.names} if kind.fields else set()
        kind = bases.pop() if len(bases) == 1 else np.dtype(np.uint8)
    if kind.kind not in "iufb" or len(data) % kind.itemsize:
        kind = np.dtype(np.uint8)
    values = np.frombuffer(data, dtype=kind).tolist()
    return values[0] if len(values) == 1 else values


def _flags(cl: Any, buffer: Any) -> tuple[str, ...]:
    try:
        flags = int(buffer.get_info(cl.mem_info.FLAGS))
    except cl.Error:
        return ()
    names = ("READ_WRITE", "WRITE_ONLY", "READ_ONLY", "USE_HOST_PTR", "ALLOC_HOST_PTR")
    return tuple(n for n in names if flags & int(getattr(cl.mem_flags, n)))


def _buffer_facts(cl: Any, buffer: Any) -> tuple[int, int, tuple[str, ...], int, bool]:
    """What of a buffer argument cannot change, asked of OpenCL once and kept on the buffer
    object: the handle of the memory object it is (a sub-buffer's parent's), where in it the
    buffer starts, its flags, its size in bytes and whether its memory is the program's
    (``USE_HOST_PTR``, its own or its parent's)."""
    cached = getattr(buffer, "_explorer_capture_facts", None)
    if cached is not None:
        return cached
    parent, origin = None, 0
    try:
        parent = buffer.get_info(cl.mem_info.ASSOCIATED_MEMOBJECT)
        if parent is not None:
            origin = int(buffer.get_info(cl.mem_info.OFFSET))
    except cl.Error:
        parent = None
    root = parent if parent is not None else buffer
    flags = _flags(cl, buffer)
    host = "USE_HOST_PTR" in flags or (root is not buffer and "USE_HOST_PTR" in _flags(cl, root))
    facts = (int(root.int_ptr), origin, flags, int(buffer.size), host)
    with contextlib.suppress(Exception):
        buffer._explorer_capture_facts = facts
    return facts


# The numpy type of each image channel type's values (a half float's as its bits); another
# channel type (a packed one, 565 or 101010) as bytes.
_CHANNEL_DTYPES = {
    "FLOAT": "float32", "HALF_FLOAT": "uint16",
    "UNORM_INT8": "uint8", "UNSIGNED_INT8": "uint8", "SNORM_INT8": "int8", "SIGNED_INT8": "int8",
    "UNORM_INT16": "uint16", "UNSIGNED_INT16": "uint16", "SNORM_INT16": "int16",
    "SIGNED_INT16": "int16", "UNSIGNED_INT32": "uint32", "SIGNED_INT32": "int32",
}  # fmt: skip


def _image_facts(cl: Any, image: Any) -> tuple[dict[str, Any], tuple[int, ...]] | None:
    """What of an image argument cannot change, asked of OpenCL once and kept on the image
    object: its kind (IMAGE2D, IMAGE3D, ...), channel order and type as OpenCL names them,
    width, height and depth (0 for a 2-D image), its bytes as rows of pixels without padding
    and the numpy type of its values; and the region a read of it copies. None for an image
    that does not say."""
    cached = getattr(image, "_explorer_capture_image", None)
    if cached is not None:
        return cached
    try:
        info = cl.image_info
        kind = cl.mem_object_type.to_string(int(image.type))
        order = cl.channel_order.to_string(int(image.format.channel_order))
        channel = cl.channel_type.to_string(int(image.format.channel_data_type))
        width = int(image.get_image_info(info.WIDTH))
        height = int(image.get_image_info(info.HEIGHT))
        depth = int(image.get_image_info(info.DEPTH))
        pixel = int(image.get_image_info(info.ELEMENT_SIZE))
    except Exception:  # an image of a kind this pyopencl cannot describe
        return None
    dtype = np.dtype(_CHANNEL_DTYPES.get(channel, "uint8"))
    if pixel % dtype.itemsize:
        dtype = np.dtype(np.uint8)
    sides = [width, max(height, 1), max(depth, 1)]
    region = tuple(sides[: 3 if kind == "IMAGE3D" else 2 if kind != "IMAGE1D" else 1])
    facts = {
        "image": kind,
        "channel_order": order,
        "channel_type": channel,
        "width": width,
        "height": height,
        "depth": depth,
        "bytes": width * max(height, 1) * max(depth, 1) * pixel,
        "dtype": dtype.name,
    }
    found = (facts, region)
    with contextlib.suppress(Exception):
        image._explorer_capture_image = found
    return found


def _sampler_facts(cl: Any, sampler: Any) -> dict[str, Any]:
    """A sampler argument's properties, as OpenCL names them."""
    info = cl.sampler_info
    try:
        return {
            "normalized": bool(sampler.get_info(info.NORMALIZED_COORDS)),
            "address": cl.addressing_mode.to_string(int(sampler.get_info(info.ADDRESSING_MODE))),
            "filter": cl.filter_mode.to_string(int(sampler.get_info(info.FILTER_MODE))),
        }
    except Exception:  # a sampler that does not say: the replay refuses it, saying so
        return {}


class _KernelFacts:
    """What of a kernel cannot change, asked of OpenCL once and kept on the kernel object."""

    __slots__ = ("dtypes", "infos", "name", "num_args", "read_only")

    def __init__(
        self,
        name: str,
        num_args: int,
        infos: list[tuple[str | None, str | None]],
        read_only: list[bool],  # per parameter: ``const`` or ``__constant`` (cannot be written)
        dtypes: list[tuple[np.dtype, str]],  # per parameter: its elements' type, and its name
    ) -> None:
        self.name = name
        self.num_args = num_args
        self.infos = infos
        self.read_only = read_only
        self.dtypes = dtypes


def _kernel_facts(kernel: Any) -> _KernelFacts:
    cached = getattr(kernel, "_explorer_capture_kernel", None)
    if isinstance(cached, _KernelFacts):
        return cached
    import pyopencl as cl

    infos = _arg_infos(kernel)
    read_only: list[bool] = []
    for index in range(len(infos)):
        try:
            qualifier = int(kernel.get_arg_info(index, cl.kernel_arg_info.TYPE_QUALIFIER))
            space = int(kernel.get_arg_info(index, cl.kernel_arg_info.ADDRESS_QUALIFIER))
            access = int(kernel.get_arg_info(index, cl.kernel_arg_info.ACCESS_QUALIFIER))
            const = bool(qualifier & int(cl.kernel_arg_type_qualifier.CONST))
            constant = space == int(cl.kernel_arg_address_qualifier.CONSTANT)
            image_read = access == int(cl.kernel_arg_access_qualifier.READ_ONLY)  # an image's
            read_only.append(const or constant or image_read)
        except Exception:  # not reported: the kernel may write it
            read_only.append(False)
    dtypes = [(element_dtype(t), element_dtype(t).name) for _, t in infos]
    count = int(kernel.num_args)
    dtypes += [(np.dtype(np.uint8), "uint8")] * (count - len(dtypes))
    facts = _KernelFacts(str(kernel.function_name), count, infos, read_only, dtypes)
    with contextlib.suppress(Exception):
        kernel._explorer_capture_kernel = facts
    return facts


def _queue_facts(queue: Any) -> tuple[str, str, bool]:
    """A queue's device name, platform name and whether it runs its commands in order, asked
    of OpenCL once and kept on the queue object."""
    cached = getattr(queue, "_explorer_capture_queue", None)
    if cached is not None:
        return cached
    import pyopencl as cl

    device = queue.device
    in_order = True
    with contextlib.suppress(Exception):
        properties = int(queue.properties)
        in_order = not properties & int(cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)
    facts = (device.name.strip(), device.platform.name.strip(), in_order)
    with contextlib.suppress(Exception):
        queue._explorer_capture_queue = facts
    return facts


_HEADERS: dict[tuple[str, int], bytes] = {}


def _npy_header(dtype: np.dtype, count: int) -> bytes:
    """The ``.npy`` header of a one-dimensional array of ``count`` elements of ``dtype``."""
    key = (dtype.str, count)
    header = _HEADERS.get(key)
    if header is None:
        out = io.BytesIO()
        fields = {
            "descr": np.lib.format.dtype_to_descr(dtype),
            "fortran_order": False,
            "shape": (count,),
        }
        np.lib.format.write_array_header_1_0(out, fields)
        header = out.getvalue()
        if len(_HEADERS) < 1024:
            _HEADERS[key] = header
    return header


_SHA1: list[Callable[[bytes], Any]] = []


def _sha1(data: bytes) -> Any:
    if not _SHA1:
        import hashlib  # imported when contents are first kept: not at every Python's start

        _SHA1.append(hashlib.sha1)
    return _SHA1[0](data)


def _read_into(fd: int, into: np.ndarray, offset: int) -> int:
    """Read the file ``fd`` from ``offset`` into the bytes ``into``: how many were read."""
    if _PREADV is not None:
        return _PREADV(fd, [into.data], offset)
    data = os.pread(fd, into.nbytes, offset)  # a system without preadv: one copy more
    into.data[: len(data)] = data
    return len(data)


_PREADV: Callable[[int, list[memoryview], int], int] | None = getattr(os, "preadv", None)

# Contents of up to this many bytes are known by themselves (:func:`_short_key`).
SHORT_KEY = 64


def _short_key(dtype: np.dtype, data: np.ndarray) -> str:
    """What contents kept in the pack are known by in :attr:`Recorder._files`: the hex
    digits of their SHA-1 begun with their element type; where they take at most
    :data:`SHORT_KEY` bytes, their element type and the contents themselves (a fifth of the
    time a SHA-1 takes, and a key of some the same size in memory: 117 bytes for 64, 89 for
    the 40 digits)."""
    if data.nbytes <= SHORT_KEY:
        return f"{dtype.str}:" + data.tobytes().decode("latin-1")
    digest = _sha1_of(dtype.str)
    digest.update(data.data)
    return digest.hexdigest()


def _crc32() -> Callable[..., int]:
    """zlib's CRC-32, imported when contents of a file of their own are first kept."""
    if not _CRC32:
        import zlib

        _CRC32.append(zlib.crc32)
    return _CRC32[0]


_CRC32: list[Callable[..., int]] = []


_SHA1_OF: dict[str, Any] = {}


def _sha1_of(dtype: str) -> Any:
    """A SHA-1 that has taken ``dtype`` (a dtype's ``str``), as every contents' digest
    begins: a copy of one made once for each."""
    begun = _SHA1_OF.get(dtype)
    if begun is None:
        begun = _sha1(dtype.encode())
        if len(_SHA1_OF) < 64:
            _SHA1_OF[dtype] = begun
        return begun.copy()
    return begun.copy()


def _split(text: str) -> list[str]:
    import shlex

    return shlex.split(text)


def _before_fork(recorder: Callable[[], Recorder | None]) -> None:
    found = recorder()
    if found is not None and os.getpid() == found.pid:
        found._finisher.drain()


def _read_back(
    cl: Any,
    queue: Any,
    buffer: Any,
    dtype: np.dtype,
    nbytes: int,
    waits: list[Any] | None,
    stage: _Stage | None = None,
    region: tuple[int, ...] = (),
) -> _Snap:
    """A read of the contents of ``buffer`` (``nbytes`` of elements ``dtype``; an image of
    ``region``) queued on ``queue`` (after ``waits``), not waited for: a buffer's copied into
    ``stage`` where there is one, to be read back with others."""
    if stage is not None and not region and nbytes:
        return stage.put(queue, buffer, dtype, nbytes, waits)
    host = np.empty(nbytes, dtype=np.uint8)
    if region:  # an image: read whole, as rows of pixels without padding
        event = cl.enqueue_copy(
            queue, host, buffer, origin=(0,) * len(region), region=region,
            is_blocking=False, wait_for=waits,
        )  # fmt: skip
    else:
        event = cl.enqueue_copy(queue, host, buffer, is_blocking=False, wait_for=waits)
    return _Snap(dtype, host, event)


def _distinct(reads: list[_Read]) -> list[_Read]:
    seen: dict[int, _Read] = {}
    for r in reads:
        seen.setdefault(id(r.buffer), r)
    return list(seen.values())


def _over_budget(needed: int, written: int, limit: int) -> str:
    given = " by default" if limit == DEFAULT_MAX_BYTES else ""
    return (
        f"its buffers' {_size(needed)} would pass --max-mb ({_size(limit)}{given}, of which "
        f"{_size(written)} were written before it)"
    )


def _size(nbytes: int) -> str:
    if nbytes < 1 << 10:
        return f"{nbytes} bytes"
    if nbytes < 1 << 20:
        return f"{nbytes / (1 << 10):.1f} KiB"
    if nbytes < 1 << 30:
        return f"{nbytes / (1 << 20):.1f} MiB"
    return f"{nbytes / (1 << 30):.1f} GiB"


def _options(options: Any) -> list[str]:
    """Build options as a list of words, however the program gave them."""
    if options is None:
        return []
    if isinstance(options, bytes):
        options = options.decode()
    if isinstance(options, str):
        return _split(options)
    return [o.decode() if isinstance(o, bytes) else str(o) for o in options]


def _without_pyopencl_includes(options: list[str]) -> list[str]:
    """The options OpenCL reports without the include folder pyopencl adds to every build."""
    out: list[str] = []
    skip = False
    for word in options:
        if skip:
            skip = False
            continue
        if word == "-I":
            skip = True
            continue
        if word.startswith("-I") and "pyopencl" in word:
            continue
        out.append(word)
    return out


# -- the launch as pyopencl takes it -------------------------------------------------------

# ``enqueue_nd_range_kernel``'s parameters in order (as pyopencl names them), with the other
# names pyopencl versions gave some of them. Every launch reaches it: ``Kernel.__call__`` and
# the invokers of ``pyopencl.array``, ``ElementwiseKernel`` and ``ReductionKernel`` call it
# positionally, a program by position or by keyword.
LAUNCH_PARAMETERS = (
    ("queue",),
    ("kernel",),
    ("global_work_size", "global_size"),
    ("local_work_size", "local_size"),
    ("global_work_offset", "global_offset"),
    ("wait_for",),
    ("g_times_l",),
    ("allow_empty_ndrange",),
)
_LAUNCH_NAMES = {name: i for i, names in enumerate(LAUNCH_PARAMETERS) for name in names}
_LAUNCH_DEFAULTS: tuple[Any, ...] = (None, None, None, None, None, None, False, False)


def launch_parts(
    args: Sequence[Any], kwargs: dict[str, Any]
) -> tuple[Any, Any, Any, Any, Any, Any, bool] | None:
    """(queue, kernel, global size, local size, offset, wait_for, g_times_l) of a call of
    ``enqueue_nd_range_kernel``, however it was made; None for a call pyopencl would refuse
    (its own error then reaches the program)."""
    if not kwargs and 3 <= len(args) <= len(LAUNCH_PARAMETERS):  # as pyopencl's invokers call it
        queue, kernel, global_size, local_size, offset, wait_for, g_times_l, _ = (
            tuple(args) + _LAUNCH_DEFAULTS[len(args) :]
        )
        return queue, kernel, global_size, local_size, offset, wait_for, bool(g_times_l)
    if len(args) > len(LAUNCH_PARAMETERS):
        return None
    values = list(args) + list(_LAUNCH_DEFAULTS[len(args) :])
    given = [True] * len(args) + [False] * (len(LAUNCH_PARAMETERS) - len(args))
    for name, value in kwargs.items():
        index = _LAUNCH_NAMES.get(name)
        if index is None or given[index]:
            return None
        values[index], given[index] = value, True
    if not all(given[:3]):
        return None
    queue, kernel, global_size, local_size, offset, wait_for, g_times_l, _ = values
    return queue, kernel, global_size, local_size, offset, wait_for, bool(g_times_l)


# The pyopencl versions whose private functions the recorder was made for and tested with
# (``pyopencl.VERSION``): from 2022.1 to 2026.1. Another is recorded where its functions are
# the same, and said once on stderr.
KNOWN_VERSIONS = ((2022, 1), (2026, 1))
# What the recorder wraps, by owner: every path to a launch passes through these.
WRAPPED = {
    "pyopencl.Program": ("build",),
    "pyopencl._cl.Kernel": (
        "set_arg", "_set_arg_multi", "_set_arg_buf_multi", "_set_arg_buf_pack_multi", "clone",
    ),
    "pyopencl._cl": ("enqueue_nd_range_kernel",),
    "pyopencl": ("enqueue_nd_range_kernel",),
}  # fmt: skip


def version_note(version: Any) -> str:
    """What to say of pyopencl ``version`` ("" for one the recorder knows)."""
    try:
        known = KNOWN_VERSIONS[0] <= tuple(version)[:2] <= KNOWN_VERSIONS[1]
        shown = ".".join(str(v) for v in version)
    except TypeError:
        known, shown = False, repr(version)
    if known:
        return ""
    low, high = (".".join(map(str, v)) for v in KNOWN_VERSIONS)
    return (
        f"explorer capture: pyopencl {shown} is not one the recorder knows ({low} to {high}); "
        "its launches are recorded where they pass through the functions the recorder wraps"
    )


# The enqueue functions of ``pyopencl._cl`` that cannot change a buffer's contents (every
# other one ends what the recorder knows of them), and those that map memory for the host.
_KEEP_CONTENTS = frozenset(
    {
        "enqueue_nd_range_kernel",  # recorded itself
        "_enqueue_read_buffer", "_enqueue_read_buffer_rect", "_enqueue_read_image",
        "_enqueue_marker", "_enqueue_marker_with_wait_list", "_enqueue_barrier",
        "_enqueue_barrier_with_wait_list", "_enqueue_wait_for_events",
    }
)  # fmt: skip
_MAPS = frozenset({"enqueue_map_buffer", "enqueue_map_image", "_enqueue_svm_map"})

# The headers a program's build reads are copied with it, up to these sizes (each, and all).
MAX_HEADERS = 256
HEADER_LIMIT = 1 << 20
HEADERS_LIMIT = 16 << 20
_INCLUDE_LINE = re.compile(
    r'^[ \t]*(?:#|%:)[ \t]*(?:include_next|include|import)[ \t]*(?:"([^"\n]*)"|<([^>\n]*)>)', re.M
)
_COMMENT = re.compile(r"/\*.*?(?:\*/|\Z)|//[^\n]*", re.S)


def _include_names(text: str) -> list[str]:
    """The file names of ``text``'s ``#include`` lines (those inside an ``#if`` too; not a
    name made by a macro). The replay checks what it reads with the explorer's own reading
    of them; this only finds what to copy."""
    text = _COMMENT.sub(" ", text.replace("\\\n", "").replace("\\\r\n", ""))
    return [quoted or angled for quoted, angled in _INCLUDE_LINE.findall(text) if quoted or angled]


def _include_dirs(options: list[str]) -> list[str]:
    """The folders ``-I DIR`` and ``-IDIR`` options name, in order."""
    found: list[str] = []
    for i, option in enumerate(options):
        if option == "-I" and i + 1 < len(options):
            found.append(options[i + 1])
        elif option.startswith("-I") and len(option) > 2:
            found.append(option[2:])
    return found


def _pyopencl_headers() -> str:
    """The folder of pyopencl's own headers (``pyopencl-complex.h``), which pyopencl gives
    every build with ``-I``."""
    import pyopencl as cl

    find = getattr(cl, "_find_pyopencl_include_path", None)
    with contextlib.suppress(Exception):
        if find is not None:
            return str(find())
    return os.path.join(os.path.dirname(cl.__file__), "cl")


# A file of the capture is made new: never written through a link or over a file in its place.
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC


def _stopped(number: int, why: str) -> str:
    return (
        f"recording stopped at launch {number}: {why}; the program ran on, its later launches "
        "are not listed"
    )


def _reason(exc: BaseException) -> str:
    """Why a write (or anything else) failed, as a person reads it: "No space left on device"."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return f"{type(exc).__name__}: {exc}"[:300]


def _pipe(value: str | None) -> int | None:
    """The fd ``ENV_STATUS`` names, where it is still the pipe ``capture`` made (a program
    that closes fds may have reused the number for a file of its own: never written then)."""
    if not value:
        return None
    try:
        fd, device, inode = (int(part) for part in value.split(":"))
        info = os.fstat(fd)
    except (ValueError, OSError):
        return None
    if not stat.S_ISFIFO(info.st_mode) or (info.st_dev, info.st_ino) != (device, inode):
        return None
    try:
        os.set_blocking(fd, False)  # a full pipe drops a line, never stops the program
    except OSError:
        return None
    return fd


_SAFE: dict[str, str] = {}


def _safe(name: str) -> str:
    safe = _SAFE.get(name)
    if safe is None:
        safe = "".join(c if c.isalnum() or c in "_-" else "_" for c in name)[:40]
        if len(_SAFE) < 4096:
            _SAFE[name] = safe
    return safe


_ENCODER: list[Callable[[Any], str]] = []
# The keys of a launch's entry, in the order the recorder makes them, for :func:`_line`.
_LINE_KEYS = (
    "type", "number", "kernel", "program", "global", "local", "device", "platform", "args",
    "offset", "packed", "data",
)  # fmt: skip
# The most JSON heads a plan keeps (one for each set of sizes its launches were given).
HEADS = 16


def _line(entry: dict[str, Any], plan: _Plan) -> str | None:
    """The JSON of a launch's entry kept with its buffers, from its plan's (each argument's
    entry as JSON, made once): what :func:`_encode` makes of it, at a fraction of its cost;
    None for an entry of another make (then encoded whole)."""
    keys = tuple(entry)
    if keys != _LINE_KEYS and keys != _LINE_KEYS[:10] + _LINE_KEYS[11:]:
        return None
    if plan.json is None:
        plan.json = tuple(_encode(item)[:-1] for item in plan.items)
    args = entry["args"]
    if len(args) != len(plan.json):
        return None
    local = entry["local"]
    key = (
        entry["kernel"], entry["program"], tuple(entry["global"]),
        None if local is None else tuple(local), entry["device"], entry["platform"],
    )  # fmt: skip
    head = plan.heads.get(key)
    if head is None:
        head = "".join((
            '"kernel": ', _encode(entry["kernel"]),
            f', "program": {int(entry["program"])}, "global": {_ints(entry["global"])}, "local": ',
            _ints(local), ', "device": ', _encode(entry["device"]), ', "platform": ',
            _encode(entry["platform"]), ', "args": [',
        ))  # fmt: skip
        if len(plan.heads) < HEADS:
            plan.heads[key] = head
    parts = [f'{{"type": "launch", "number": {int(entry["number"])}, ', head]
    add = parts.append
    for item, prefix, plain in zip(args, plan.json, plan.items, strict=True):
        add(prefix)
        if (
            len(item) == len(plain) + 3
            and "before" in item
            and "after" in item
            and "changed" in item
        ):
            add(
                f', "before": {_name(item["before"])}, "after": {_name(item["after"])}, '
                f'"changed": {"true" if item["changed"] is True else "false"}}}, '
            )
        elif len(item) == len(plain):
            add("}, ")
        else:
            return None
    if args:
        parts[-1] = parts[-1][:-2]  # no comma after the last
    parts.append(f'], "offset": {_ints(entry["offset"])}')
    packed = entry.get("packed")
    if packed is not None:
        places = ", ".join(
            f"{_name(name)}: [{int(place[0])}, {int(place[1])}]" for name, place in packed.items()
        )
        parts.append(f', "packed": {{{places}}}')
    parts.append(', "data": true}' if entry["data"] is True else ', "data": false}')
    return "".join(parts)


def _keeps(plan: _Plan) -> tuple[tuple[Any, ...] | None, ...]:
    """How each buffer of ``plan``'s launches recorded in a few steps is kept (None for one
    whose contents do not fit the pack): the argument it is kept under (the first to name
    it: its index and its name as a file's), its bytes and dtype, a SHA-1 begun with its
    dtype's ``str``, its ``.npy`` header, whether its files' names need no escape in JSON,
    and the beginning of its contents' key where they are their own (:func:`_short_key`)."""
    assert plan.quick is not None
    first: dict[int, tuple[int, str]] = {}
    for (index, *_), slot in zip(plan.reads, plan.quick[1], strict=True):
        first.setdefault(slot, (index, _safe(plan.items[index]["name"] or f"arg{index}")))
    keeps: list[tuple[Any, ...] | None] = []
    for slot, (_, dtype, nbytes, _, _, _) in enumerate(plan.quick[0]):
        index, name = first[slot]
        header = _npy_header(dtype, nbytes // dtype.itemsize)
        if len(header) + nbytes > PACK_LIMIT:
            keeps.append(None)
            continue
        plain = f"data/{index}-{name}"
        keeps.append((
            index, name, nbytes, dtype, _sha1(dtype.str.encode()), header,
            _name(plain) == f'"{plain}"', f"{dtype.str}:" if nbytes <= SHORT_KEY else None,
        ))  # fmt: skip
    return tuple(keeps)


def _quick_template(
    plan: _Plan, sizes: tuple[Any, ...]
) -> tuple[tuple[tuple[str, int, int], ...], str]:
    """The JSON of the lines of ``plan``'s launches recorded in a few steps with ``sizes``
    (global, local, offset, whether global is in groups), as :func:`_line` makes them: the
    text before each buffer argument's first file name (with the argument's index and the
    slot of its contents in the record), and the text after the last, up to ``packed``."""
    global_size, local_size, offset, g_times_l = sizes
    assert plan.quick is not None
    if g_times_l and local_size is not None:
        glob = [int(g) * int(lo) for g, lo in zip(global_size, local_size, strict=False)]
    else:
        glob = [int(g) for g in global_size]
    local = [int(v) for v in local_size] if local_size is not None else None
    if plan.json is None:
        plan.json = tuple(_encode(item)[:-1] for item in plan.items)
    text = "".join((
        '"kernel": ', _encode(plan.kernel),
        f', "program": {int(plan.program)}, "global": {_ints(glob)}, "local": ', _ints(local),
        ', "device": ', _encode(plan.device), ', "platform": ', _encode(plan.platform),
        ', "args": [',
    ))  # fmt: skip
    slots = {index: slot for (index, *_), slot in zip(plan.reads, plan.quick[1], strict=True)}
    pieces: list[tuple[str, int, int]] = []
    last = len(plan.json) - 1
    for index, prefix in enumerate(plan.json):
        text += prefix
        end = "}" if index == last else "}, "
        slot = slots.get(index)
        if slot is None:
            text += end
        else:
            pieces.append((text + ', "before": ', index, slot))
            text = end
    offsets = None if offset is None else [int(o) for o in offset]
    return tuple(pieces), text + '], "offset": ' + _ints(offsets)


def _snap_name(snap: _Snap | None, name: str) -> str:
    """The file ``name`` as JSON, as :func:`_name` makes it (kept by ``snap`` where it holds
    its contents)."""
    made = snap.json if snap is not None else None
    return made[1] if made is not None and made[0] is name else _name(name)


def _ints(values: Any) -> str:
    """A list of whole numbers (or None) as JSON."""
    if values is None:
        return "null"
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def _name(name: str) -> str:
    """A file name the recorder gives as JSON (plain ASCII needs no escape)."""
    if name.isascii() and name.isprintable() and '"' not in name and "\\" not in name:
        return f'"{name}"'
    return _encode(name)


def _encode(entry: Any) -> str:
    """JSON of a journal line (or of a part of one), as ``json.dumps`` makes it, without its
    check for cycles."""
    if not _ENCODER:
        import json  # imported with pyopencl: not at every Python's start

        _ENCODER.append(json.JSONEncoder(check_circular=False).encode)
    return _ENCODER[0](entry)


def _name_unknown_processors(cl: ModuleType) -> None:
    """The program builds on PoCL as the explorer does where PoCL's compiler does not know the
    processor (:mod:`host_cpu`)."""
    try:
        name_unknown_processors(cl, cl.get_platforms())
    except Exception:  # the program then runs exactly as it would without the explorer
        return


# -- installing in the program's process ---------------------------------------------------


class _PatchOnImport:
    """Patches pyopencl right after the program imports it (importing it for a program that
    never does would cost its start-up time). A finder of ``sys.meta_path`` (not derived from
    ``importlib.abc``'s, which alone would cost a Python that never imports pyopencl more
    than the rest of the recorder)."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != "pyopencl":
            return None
        if self in sys.meta_path:  # else asked by sitecustomize's own finder
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        execute = loader.exec_module
        recorder = self.recorder

        def exec_module(module: ModuleType) -> None:
            execute(module)
            recorder.start(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def install_from_environment(
    environ: Mapping[str, str] | None = None, wait: bool = False
) -> _PatchOnImport | None:
    """Record this process if ``capture`` started it (``EXPLORER_CAPTURE_DIR`` of
    ``environ``, the process's environment by default, names the folder): pyopencl is
    patched once the program imports it (now, where it has). ``wait``: the finder that patches
    it is returned, not put on ``sys.meta_path`` (for a finder that asks it itself)."""
    environ = os.environ if environ is None else environ
    folder = environ.get(ENV_DIR)
    if not folder:
        return None
    launches = environ.get(ENV_LAUNCHES)
    max_bytes = environ.get(ENV_MAX_BYTES)
    recorder = Recorder(
        folder,
        int(launches) if launches else None,
        int(max_bytes) if max_bytes else DEFAULT_MAX_BYTES,
    )
    recorder.status = _pipe(environ.get(ENV_STATUS))
    if "pyopencl" in sys.modules:
        recorder.start(sys.modules["pyopencl"])
        return None
    hook = _PatchOnImport(recorder)
    if not wait:
        sys.meta_path.insert(0, hook)
    return hook
