"""Per buffer, what two traces touched: elements read or written by one kernel and not the
other, and global loads per element side by side (numpy only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.trace.diff_sides import Accesses
from explorer.trace.recorded import (
    ATOMIC,
    GLOBAL,
    LOCAL,
    READ,
    RMW,
    WRITE,
    Trace,
)

EXAMPLES = 4  # elements named per set
# Per op code: whether it reads, writes, loads (counted in loads per element)
_IS_READ = np.isin(np.arange(8), (READ, RMW, ATOMIC))
_IS_WRITE = np.isin(np.arange(8), (WRITE, RMW, ATOMIC))
_IS_LOAD = np.isin(np.arange(8), (READ, RMW))


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
    sides: tuple[Accesses, Accesses],
    work_items: tuple[np.ndarray, np.ndarray],
    codes: tuple[np.ndarray, np.ndarray],
    same: bool = False,
) -> tuple[BufferDiff, ...]:
    """Every buffer the two kernels share, over the work-items both traces recorded;
    ``same``: every one of them made the same accesses in both (what one kernel touched,
    the other did: counted once)."""
    here = Touched(mine, _of_work_items(mine, sides[0], work_items[0]))
    there = here if same else Touched(reference, _of_work_items(reference, sides[1], work_items[1]))
    out = []
    for b, info in enumerate(mine.buffers):
        matched = np.flatnonzero(codes[1] == codes[0][b])
        if matched.size == 0 or info.space not in (GLOBAL, LOCAL):
            continue
        r = b if same else int(matched[0])
        global_ = info.space == GLOBAL
        out.append(
            BufferDiff(
                info.name,
                reference.buffers[int(matched[0])].name,
                _only(here.read(b), there.read(r)),
                _only(there.read(r), here.read(b)),
                _only(here.written(b), there.written(r)),
                _only(there.written(r), here.written(b)),
                here.loads(b) if global_ else None,
                there.loads(r) if global_ else None,
            )
        )
    return tuple(out)


def _of_work_items(trace: Trace, side: Accesses, work_items: np.ndarray) -> np.ndarray:
    """The access records of the given work-items (all of them, mostly)."""
    if work_items.size == side.count.size:
        return side.records
    chosen = np.zeros(int(trace.kept.size), dtype=bool)
    chosen[work_items] = True
    return side.records[chosen[trace.wi[side.records]]]


class Touched:
    """What access records did to every buffer of their trace, in one pass: which elements
    they read and wrote, and how often they loaded each. The buffers lie end to end in one
    array (``base[b]`` is buffer ``b``'s first element); a vload4 of floats covers four
    elements, an access outside its buffer none."""

    def __init__(self, trace: Trace, records: np.ndarray) -> None:
        lengths = np.array([max(0, b.length) for b in trace.buffers] + [0], dtype=np.int64)
        elems = np.array([max(1, b.elem_size) for b in trace.buffers] + [1], dtype=np.int32)
        self.base = np.r_[0, np.cumsum(lengths)]
        total = int(self.base[-1])
        records = records[~trace.oob[records]]
        buffer = trace.buffer[records]
        elem = elems[buffer]
        start = trace.offset[records] // elem  # int32, as recorded
        span = -(-trace.size[records] // elem)
        op = trace.site_ops()[trace.site[records]]
        if (span > 1).any():  # a vector access: one cell per element it covers
            owner = np.repeat(np.arange(start.size), span)
            start = start[owner] + np.arange(owner.size) - np.repeat(np.cumsum(span) - span, span)
            buffer, op = buffer[owner], op[owner]
        inside = (start >= 0) & (start < lengths[buffer])
        at = (self.base[buffer] + start)[inside]
        op = op[inside]
        self._read = np.zeros(total, dtype=bool)
        self._read[at[_IS_READ[op]]] = True
        self._written = np.zeros(total, dtype=bool)
        self._written[at[_IS_WRITE[op]]] = True
        self._loads = np.bincount(at[_IS_LOAD[op]], minlength=total)

    def read(self, b: int) -> np.ndarray:
        return self._read[self.base[b] : self.base[b + 1]]

    def written(self, b: int) -> np.ndarray:
        return self._written[self.base[b] : self.base[b + 1]]

    def loads(self, b: int) -> dict[str, float]:
        """Loads per element of buffer ``b``: {min, max, mean}."""
        counts = self._loads[self.base[b] : self.base[b + 1]]
        if counts.size == 0:
            return {"min": 0, "max": 0, "mean": 0.0}
        return {
            "min": int(counts.min()),
            "max": int(counts.max()),
            "mean": round(float(counts.mean()), 4),
        }


def _only(these: np.ndarray, those: np.ndarray) -> OnlyOne:
    """Elements set in ``these`` and not in ``those`` (masks of one buffer; of two lengths
    where a local array was declared with another shape, such as a padded tile)."""
    if those.size < these.size:
        those = np.r_[those, np.zeros(these.size - those.size, dtype=bool)]
    left = np.flatnonzero(these & ~those[: these.size])
    return OnlyOne(int(left.size), tuple(int(e) for e in left[:EXAMPLES]))
