"""Independent numpy passes of the analysis on several threads.

numpy lets go of the interpreter's lock inside each large pass (comparisons, ``take``,
``bincount``), so passes over separate slices or separate sites run side by side: on the
16-core host beside an H100 the analysis of a 40 M-record trace spent most of its time in
passes like these, one after the other. The results are the same, in the same order.

The threads are made once per process and kept: an executor gives its threads 64 MB stacks
(``explorer.engine.serve``), more than the C library keeps for reuse, so a pool made per call
mapped, faulted in and unmapped a fresh stack for each of its threads, every call.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

# Fewer items than this run in the calling thread (a pool costs more than it saves).
_MIN_ITEMS = 2
_MAX_WORKERS = 8

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
_inside = threading.local()  # set in the pool's own threads: a call from one runs there


def thread_count(items: int) -> int:
    """How many threads :func:`thread_map` spreads ``items`` calls over."""
    return min(_MAX_WORKERS, os.cpu_count() or 1, items)


def _mark_inside() -> None:
    _inside.worker = True


def _shared_pool() -> ThreadPoolExecutor:
    """The process's pool, made on first use (its threads start as calls need them)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(
                thread_count(_MAX_WORKERS),
                thread_name_prefix="analysis",
                initializer=_mark_inside,
            )
        return _pool


def thread_map(function: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """``[function(x) for x in items]``, the calls spread over up to eight threads (in the
    calling thread where it is one of them: its pool's other threads may all be waiting)."""
    listed = list(items)
    workers = thread_count(len(listed))
    if workers < 2 or len(listed) < _MIN_ITEMS or getattr(_inside, "worker", False):
        return [function(x) for x in listed]
    return list(_shared_pool().map(function, listed))  # a thread per item at most
