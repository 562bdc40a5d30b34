"""Per buffer, what two traces touched: elements read or written by one kernel and not the
other, and global loads per element side by side (numpy only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.trace.diff_sides import Accesses
from explorer.trace.recorded import ATOMIC, GLOBAL, LOCAL, READ, RMW, WRITE, Trace

EXAMPLES = 4  # elements named per set
READS = (READ, RMW, ATOMIC)
WRITES = (WRITE, RMW, ATOMIC)


@dataclass(frozen=True)
class OnlyOne:
    """Elements of a buffer that one kernel touched in a way the other did not."""

    count: int
    examples: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "examples": list(self.examples)}


@dataclass(frozen=True)
class BufferDiff:
    """One buffer both kernels address (by role, or a ``__local`` array matched to one)."""

    buffer: str  # this kernel's name for it
    reference_name: str  # the reference's
    read_only_here: OnlyOne  # read by this kernel, never by the reference
    read_only_reference: OnlyOne
    written_only_here: OnlyOne
    written_only_reference: OnlyOne
    # Loads per element of a __global buffer ({min, max, mean}), each kernel's; None for
    # __local buffers.
    loads_here: dict[str, float] | None = None
    loads_reference: dict[str, float] | None = None

    @property
    def same(self) -> bool:
        """Both kernels read and wrote exactly the same elements."""
        sets = (
            self.read_only_here,
            self.read_only_reference,
            self.written_only_here,
            self.written_only_reference,
        )
        return all(s.count == 0 for s in sets)

    def to_json(self) -> dict[str, Any]:
        return {
            "buffer": self.buffer,
            "reference_name": self.reference_name,
            "read_only_here": self.read_only_here.to_json(),
            "read_only_reference": self.read_only_reference.to_json(),
            "written_only_here": self.written_only_here.to_json(),
            "written_only_reference": self.written_only_reference.to_json(),
            "loads_per_element": {"here": self.loads_here, "reference": self.loads_reference},
        }


def buffer_diffs(
    mine: Trace,
    reference: Trace,
    am: Accesses,
    ar: Accesses,
    wm: np.ndarray,
    wr: np.ndarray,
    codes_m: np.ndarray,
    codes_r: np.ndarray,
) -> tuple[BufferDiff, ...]:
    """Every buffer the two kernels share, over the work-items both traces recorded."""
    ours = _of_work_items(mine, am, wm)
    theirs = _of_work_items(reference, ar, wr)
    out = []
    for b, info in enumerate(mine.buffers):
        matched = np.flatnonzero(codes_r == codes_m[b])
        if matched.size == 0 or info.space not in (GLOBAL, LOCAL):
            continue
        r = int(matched[0])
        read_m, written_m = _elements(mine, ours, b)
        read_r, written_r = _elements(reference, theirs, r)
        global_ = info.space == GLOBAL
        out.append(
            BufferDiff(
                info.name,
                reference.buffers[r].name,
                _only(read_m, read_r),
                _only(read_r, read_m),
                _only(written_m, written_r),
                _only(written_r, written_m),
                _loads(mine, ours, b) if global_ else None,
                _loads(reference, theirs, r) if global_ else None,
            )
        )
    return tuple(out)


def _of_work_items(trace: Trace, side: Accesses, work_items: np.ndarray) -> np.ndarray:
    """The access records of the given work-items."""
    chosen = np.zeros(int(trace.kept.size), dtype=bool)
    chosen[work_items] = True
    return side.records[chosen[trace.wi[side.records]]]


def _covered(trace: Trace, records: np.ndarray) -> np.ndarray:
    """Each element the records cover (a vload4 of floats covers four), repeats kept;
    accesses outside the buffer cover none."""
    records = records[~trace.oob[records]]
    if records.size == 0:
        return np.zeros(0, dtype=np.int64)
    elem = np.array([b.elem_size for b in trace.buffers], dtype=np.int64)[
        trace.buffer[records].astype(np.int64)
    ]
    start = trace.offset[records].astype(np.int64) // elem
    span = np.maximum(1, -(-trace.size[records].astype(np.int64) // elem))
    if (span == 1).all():
        return start
    first = np.repeat(start, span)
    return first + np.arange(int(span.sum())) - np.repeat(np.cumsum(span) - span, span)


def _elements(trace: Trace, records: np.ndarray, buffer: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct elements of ``buffer`` the records read, and those they wrote."""
    mine = records[trace.buffer[records] == buffer]
    ops = trace.site_ops()[trace.site[mine]]
    read = np.unique(_covered(trace, mine[np.isin(ops, READS)]))
    written = np.unique(_covered(trace, mine[np.isin(ops, WRITES)]))
    return read, written


def _only(these: np.ndarray, those: np.ndarray) -> OnlyOne:
    left = np.setdiff1d(these, those, assume_unique=True)
    return OnlyOne(int(left.size), tuple(int(e) for e in left[:EXAMPLES]))


def _loads(trace: Trace, records: np.ndarray, buffer: int) -> dict[str, float]:
    """Loads per element of ``buffer``: how often each of its elements was read."""
    length = trace.buffers[buffer].length
    mine = records[trace.buffer[records] == buffer]
    ops = trace.site_ops()[trace.site[mine]]
    covered = _covered(trace, mine[np.isin(ops, (READ, RMW))])
    covered = covered[(covered >= 0) & (covered < length)]
    counts = np.bincount(covered, minlength=length)[:length]
    if counts.size == 0:
        return {"min": 0, "max": 0, "mean": 0.0}
    return {
        "min": int(counts.min()),
        "max": int(counts.max()),
        "mean": round(float(counts.mean()), 4),
    }
