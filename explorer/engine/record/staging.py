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
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

# Entries kept free for the next trace beyond those in use; more are released.
KEEP_FREE = 2


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

    def _entry(self, nbytes: int) -> _Entry:
        free = [e for e in self.entries if e.free]
        fits = [e for e in free if nbytes <= e.nbytes <= 2 * nbytes + (64 << 20)]
        if fits:
            return min(fits, key=lambda e: e.nbytes)
        spare = sorted((e for e in free), key=lambda e: e.nbytes, reverse=True)
        for e in spare[KEEP_FREE - 1 :]:
            self.entries.remove(e)  # its mapping and buffer go with the last reference
        cl = self.cl
        size = max(nbytes, 64)
        flags = cl.mem_flags.READ_WRITE | cl.mem_flags.ALLOC_HOST_PTR
        buffer = cl.Buffer(self.context, flags, size)
        host, _ = cl.enqueue_map_buffer(
            self.queue, buffer, cl.map_flags.READ | cl.map_flags.WRITE, 0, (size,), np.uint8
        )
        entry = _Entry(buffer, host, size)
        self.entries.append(entry)
        return entry

    def read(self, planes: list[tuple[Any, np.dtype[Any], int]]) -> tuple[np.ndarray, ...]:
        """Each (device buffer, dtype, count) read into an entry of its own, all copies in
        flight together; the arrays hold their entries until they are dropped."""
        out: list[np.ndarray] = []
        events = []
        for buffer, dtype, count in planes:
            nbytes = count * np.dtype(dtype).itemsize
            entry = self._entry(nbytes)
            view = np.frombuffer(memoryview(entry.host.data), dtype=dtype, count=count)
            entry.lease = weakref.ref(view)
            if nbytes:
                events.append(self.cl.enqueue_copy(self.queue, view, buffer, is_blocking=False))
            out.append(view)
        for event in events:
            event.wait()
        return tuple(out)


_pools: dict[int, StagingPool] = {}


def staging_pool(cl: Any, context: Any, queue: Any) -> StagingPool:
    """The pool of ``context`` (one per context in a process)."""
    pool = _pools.get(id(context))
    if pool is None or pool.context is not context:
        pool = _pools[id(context)] = StagingPool(cl, context, queue)
    return pool
