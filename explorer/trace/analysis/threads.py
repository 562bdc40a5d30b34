"""Independent numpy passes of the analysis on several threads.

numpy lets go of the interpreter's lock inside each large pass (comparisons, ``take``,
``bincount``), so passes over separate slices or separate sites run side by side: on the
16-core host beside an H100 the analysis of a 40 M-record trace spent most of its time in
passes like these, one after the other. The results are the same, in the same order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

# Fewer items than this run in the calling thread (a pool costs more than it saves).
_MIN_ITEMS = 2
_MAX_WORKERS = 8


def thread_count(items: int) -> int:
    """How many threads :func:`thread_map` spreads ``items`` calls over."""
    return min(_MAX_WORKERS, os.cpu_count() or 1, items)


def thread_map(function: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """``[function(x) for x in items]``, the calls spread over up to eight threads."""
    listed = list(items)
    workers = thread_count(len(listed))
    if workers < 2 or len(listed) < _MIN_ITEMS:
        return [function(x) for x in listed]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(function, listed))
