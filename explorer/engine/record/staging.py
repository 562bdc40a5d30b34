"""Reading the record planes back from a GPU: into page-locked host memory kept between traces.

The records of a 256² tiled matmul with values are 480 MB. Mapped for reading (what a CPU
device does at no cost: its buffers are host memory), NVIDIA's driver allocates fresh host
memory for each plane and copies into it: 180–200 ms on an H100, where the recording launch
itself takes 8 ms. Read into page-locked memory the same bytes cross at the bus's speed, and
the memory stays page-locked for the next trace, so its pages are not faulted in again.

A plane handed out is a numpy array over part of one pool entry; the entry is reused only
once that array and every view of it are gone (the arrays are made with ``np.frombuffer`` on a
memoryview, so each view of them keeps the array itself alive, and a weak reference to it
tells). A trace that is still held keeps its memory.

Page-locking fresh memory is itself slow (about as slow as the map, and the driver holds the
interpreter while it does it), so a trace that finds no free entries for its planes (the
first of a process, or one larger than any before) reads them into ordinary memory
(:meth:`StagingPool.read_fresh`), and the entries are made afterwards, once the executor has
sent its reply and waits for the next request (:func:`grow_pending`). Fresh memory is
faulted in by whoever first writes it, one page at a time: a driver's copy does that on one
thread, so the pages are written first by several (numpy lets go of the interpreter's lock
in each). A process's first trace has that memory made ahead (:func:`touch_ahead`, as much
as its budget holds), written on threads while the trace builds and counts.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

# Entries kept free beyond those in use (one trace's three planes); more are released.
KEEP_FREE = 3


@dataclass(eq=False)
class _Entry:
    buffer: Any  # the page-locked cl.Buffer (CL_MEM_ALLOC_HOST_PTR)
    host: np.ndarray  # its mapping, uint8, kept for the entry's life
    nbytes: int
    lease: weakref.ref[np.ndarray] | None = None

    @property
    def free(self) -> bool:
        return self.lease is None or self.lease() is None


class StagingPool:
    """Page-locked host buffers of one context, reused by later reads."""

    def __init__(self, cl: Any, context: Any, queue: Any) -> None:
        self.cl, self.context, self.queue = cl, context, queue
        self.entries: list[_Entry] = []
        self.lock = threading.Lock()
        self.pending: list[int] = []  # bytes of the planes a trace found no entries for

    def _lend(self, dtype: np.dtype[Any], count: int) -> np.ndarray | None:
        """``count`` items of ``dtype`` over the smallest free entry that holds them without
        wasting much, leased to the array returned; None when there is none."""
        nbytes = count * dtype.itemsize
        with self.lock:
            fits = [
                e for e in self.entries if e.free and nbytes <= e.nbytes <= 2 * nbytes + (64 << 20)
            ]
            if not fits:
                return None
            entry = min(fits, key=lambda e: e.nbytes)
            view = np.frombuffer(memoryview(entry.host.data), dtype=dtype, count=count)
            entry.lease = weakref.ref(view)
            return view

    def read(self, planes: list[tuple[Any, np.dtype[Any], int]]) -> tuple[np.ndarray, ...] | None:
        """Each (device buffer, dtype, count) read into a free entry of its own, all copies in
        flight together; the arrays hold their entries until they are dropped. None when not
        every plane found one: the sizes are noted for :meth:`grow`."""
        out: list[np.ndarray] = []
        for _, dtype, count in planes:
            view = self._lend(np.dtype(dtype), count)
            if view is None:
                self.pending = [n * np.dtype(d).itemsize for _, d, n in planes]
                return None  # the views lent so far are dropped here: their entries are free
            out.append(view)
        self._read_into(out, planes)
        return tuple(out)

    def read_fresh(self, planes: list[tuple[Any, np.dtype[Any], int]]) -> tuple[np.ndarray, ...]:
        """Each (device buffer, dtype, count) read into new ordinary memory, its pages written
        first by several threads (ahead, where :func:`touch_ahead` made enough); all copies in
        flight together."""
        sizes = [-(-count * np.dtype(dtype).itemsize // 64) * 64 for _, dtype, count in planes]
        block = _take_ahead(sum(sizes))
        if block is None:
            out = tuple(_touched(np.empty(count, dtype=dtype)) for _, dtype, count in planes)
        else:
            starts = np.cumsum([0, *sizes[:-1]])
            out = tuple(
                block[start : start + count * np.dtype(dtype).itemsize].view(dtype)
                for start, (_, dtype, count) in zip(starts, planes, strict=True)
            )
        self._read_into(out, planes)
        return out

    def _read_into(self, hosts: Any, planes: list[tuple[Any, np.dtype[Any], int]]) -> None:
        """Each plane's device buffer copied into its host array, all copies in flight
        together."""
        events = [
            self.cl.enqueue_copy(self.queue, host, buffer, is_blocking=False)
            for host, (buffer, _, _) in zip(hosts, planes, strict=True)
            if host.nbytes
        ]
        for event in events:
            event.wait()

    def grow(self) -> None:
        """The entries the last trace found missing (all of its planes', so that the next
        trace of that size finds them together). Free entries beyond :data:`KEEP_FREE`
        counting the new ones are let go first, the oldest first: the entries kept are those
        of the size traced last, whatever sizes came before."""
        pending, self.pending = self.pending, []
        if not pending:
            return
        with self.lock:
            free = [e for e in self.entries if e.free]  # oldest first
            for e in free[: max(0, len(free) + len(pending) - KEEP_FREE)]:
                self.entries.remove(e)  # its mapping and buffer go with the last reference
        for nbytes in pending:
            if not self._grow(nbytes):
                return

    def _grow(self, nbytes: int) -> bool:
        """A page-locked entry of ``nbytes``, whether one could be made."""
        cl = self.cl
        size = max(nbytes, 64)
        try:
            flags = cl.mem_flags.READ_WRITE | cl.mem_flags.ALLOC_HOST_PTR
            buffer = cl.Buffer(self.context, flags, size)
            host, _ = cl.enqueue_map_buffer(
                self.queue, buffer, cl.map_flags.READ | cl.map_flags.WRITE, 0, (size,), np.uint8
            )
        except (cl.Error, MemoryError):
            return False  # no page-locked memory that large: later traces map, as this one
        with self.lock:
            self.entries.append(_Entry(buffer, host, size))
        return True


_TOUCH_BYTES = 8 << 20
_ZEROS = np.zeros(0, dtype=np.uint8)


def _touched(array: np.ndarray) -> np.ndarray:
    """``array``, every page of it written once, 8 MB at a time on up to eight threads."""
    global _ZEROS
    if _ZEROS.size < _TOUCH_BYTES:
        _ZEROS = np.zeros(_TOUCH_BYTES, dtype=np.uint8)
    zeros = _ZEROS
    flat = array.reshape(-1).view(np.uint8)
    starts = range(0, flat.size, _TOUCH_BYTES)

    def touch(start: int) -> None:
        part = flat[start : start + _TOUCH_BYTES]
        np.positive(zeros[: part.size], out=part)  # a ufunc: the lock is let go inside

    from explorer.trace.analysis.threads import thread_map  # loaded with the analysis

    thread_map(touch, starts)
    return array


_pools: dict[int, StagingPool] = {}

# Memory made ahead for a process's first trace: the thread writing it, and the array.
_ahead: list[tuple[threading.Thread, list[np.ndarray]]] = []


def touch_ahead(nbytes: int) -> None:
    """Make ``nbytes`` of fresh memory for the planes of a process's first trace (no pool
    yet), its pages written on threads from now on, while the trace builds and counts:
    :meth:`StagingPool.read_fresh` takes it where it holds the planes."""
    if _pools or _ahead or nbytes <= 0:
        return
    made: list[np.ndarray] = []

    def make() -> None:
        with contextlib.suppress(MemoryError):  # the read makes its own, as without this
            made.append(_touched(np.empty(nbytes, dtype=np.uint8)))

    thread = threading.Thread(target=make, name="touch-ahead", daemon=True)
    _ahead.append((thread, made))
    thread.start()


def _take_ahead(nbytes: int) -> np.ndarray | None:
    """The memory made ahead, where it holds ``nbytes`` (it is let go otherwise)."""
    if not _ahead:
        return None
    thread, made = _ahead.pop()
    thread.join()
    return made[0] if made and made[0].nbytes >= nbytes else None


def forget_ahead() -> None:
    """Let go of memory made ahead that no read took (a trace that ended before it)."""
    while _ahead:
        thread, _ = _ahead.pop()
        thread.join()


def staging_pool(cl: Any, context: Any, queue: Any) -> StagingPool:
    """The pool of ``context`` (one per context in a process)."""
    pool = _pools.get(id(context))
    if pool is None or pool.context is not context:
        pool = _pools[id(context)] = StagingPool(cl, context, queue)
    return pool


def grow_pending() -> None:
    """Make the entries the traces so far found missing (the executor does it once its reply
    is sent; benchmarks between rounds)."""
    for pool in list(_pools.values()):
        pool.grow()
