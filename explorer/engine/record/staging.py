"""Reading the record planes back from a GPU: into pinned host memory, kept between traces.

The records of a 256² tiled matmul with values are 480 MB. Mapped for reading (what a CPU
device does at no cost: its buffers are host memory), NVIDIA's driver allocates fresh host
memory for each plane and copies into it: 180–200 ms on an H100, where the recording launch
itself takes 8 ms. Read into page-locked memory the same bytes cross at the bus's speed, and
the memory stays page-locked for the next trace, so its pages are not faulted in again.

A plane handed out is a numpy array over part of one pool entry; the entry is reused only
once that array and every view of it are gone (the arrays are made with ``np.frombuffer`` on a
memoryview, so each view of them keeps the array itself alive, and a weak reference to it
tells). A trace that is still held keeps its memory.

Page-locking fresh memory is itself slow (about as slow as the map), so a plane with no free
entry to go to (the first trace of a process, or one larger than any before) is read into
ordinary memory whose pages several threads have touched first, and a page-locked entry of
that size is made on another thread for the next trace.
"""

from __future__ import annotations

import os
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

# Entries kept free for the next trace beyond those in use (one trace's three planes); more
# are released.
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
        self.growing: list[threading.Thread] = []

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

    def _grow(self, nbytes: int) -> None:
        """A page-locked entry of ``nbytes`` (made on its own queue); free entries beyond
        :data:`KEEP_FREE` are let go."""
        cl = self.cl
        size = max(nbytes, 64)
        try:
            queue = cl.CommandQueue(self.context)
            flags = cl.mem_flags.READ_WRITE | cl.mem_flags.ALLOC_HOST_PTR
            buffer = cl.Buffer(self.context, flags, size)
            host, _ = cl.enqueue_map_buffer(
                queue, buffer, cl.map_flags.READ | cl.map_flags.WRITE, 0, (size,), np.uint8
            )
        except (cl.Error, MemoryError):
            return  # no page-locked memory that large: later traces read as the first did
        with self.lock:
            free = sorted((e for e in self.entries if e.free), key=lambda e: -e.nbytes)
            for e in free[KEEP_FREE:]:
                self.entries.remove(e)  # its mapping and buffer go with the last reference
            self.entries.append(_Entry(buffer, host, size))

    def _grow_later(self, sizes: list[int]) -> None:
        def grow() -> None:
            for nbytes in sizes:
                self._grow(nbytes)

        thread = threading.Thread(target=grow, name="staging-pool", daemon=True)
        self.growing = [t for t in self.growing if t.is_alive()] + [thread]
        thread.start()

    def wait(self) -> None:
        """Until the entries being made are there (tests, benchmarks)."""
        for thread in self.growing:
            thread.join()

    def read(self, planes: list[tuple[Any, np.dtype[Any], int]]) -> tuple[np.ndarray, ...]:
        """Each (device buffer, dtype, count) read into an entry of its own, or into touched
        ordinary memory where none is free; all copies in flight together. The arrays hold
        their entries until they are dropped."""
        out: list[np.ndarray] = []
        missing: list[int] = []
        for _, dtype, count in planes:
            view = self._lend(np.dtype(dtype), count)
            if view is None:
                view = _touched(np.empty(count, dtype=dtype))
                missing.append(view.nbytes)
            out.append(view)
        events = [
            self.cl.enqueue_copy(self.queue, host, buffer, is_blocking=False)
            for host, (buffer, _, _) in zip(out, planes, strict=True)
            if host.nbytes
        ]
        for event in events:
            event.wait()
        if missing:
            self._grow_later(missing)
        return tuple(out)


_TOUCH_CHUNK = 8 << 20


def _touched(array: np.ndarray) -> np.ndarray:
    """``array`` with every page written once, by up to eight threads: fresh memory is faulted
    in by whoever first writes it, and a driver's copy does that on one thread."""
    flat = array.reshape(-1).view(np.uint8)
    starts = range(0, flat.size, _TOUCH_CHUNK)
    workers = min(8, os.cpu_count() or 1, len(starts))

    def touch(start: int) -> None:
        flat[start : start + _TOUCH_CHUNK] = 0

    if workers <= 1:
        for start in starts:
            touch(start)
    else:
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(touch, starts))
    return array


_pools: dict[int, StagingPool] = {}


def staging_pool(cl: Any, context: Any, queue: Any) -> StagingPool:
    """The pool of ``context`` (one per context in a process)."""
    pool = _pools.get(id(context))
    if pool is None or pool.context is not context:
        pool = _pools[id(context)] = StagingPool(cl, context, queue)
    return pool


def wait_for_pools() -> None:
    """Until every pool's entries being made are there (benchmarks: the next trace as it
    would come a moment later)."""
    for pool in list(_pools.values()):
        pool.wait()
