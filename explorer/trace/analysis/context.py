"""What every analysis shares: per-work-item tables of one trace (small: one entry per traced
work-item, never per record) and the constants that shape findings."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from explorer.trace.recorded import ATOMIC, MAX_PHASE, NO_SPACE, READ, RMW, WRITE, Finding, Trace

EXAMPLES = 4  # work-items (and elements) named in one finding
WRITES = (WRITE, RMW, ATOMIC)
READS = (READ, RMW)


def ordered(findings: Iterable[Finding]) -> list[Finding]:
    """The findings that depend on the order barriers give (races, uninitialised reads), less
    those in the last phase the records can tell: past it, barriers no longer separate the
    accesses in the records (the trace says so as not traced)."""
    return [f for f in findings if f.phase is None or f.phase < MAX_PHASE]


# What an uninitialised read is: an atomic reads the memory it updates too.
LOADS = (READ, RMW, ATOMIC)
VERB = {READ: "reads", WRITE: "writes", RMW: "updates", ATOMIC: "atomically updates"}
I32_MAX = int(np.iinfo(np.int32).max)
I64_MAX = int(np.iinfo(np.int64).max)
# Advice that ends every piece of advice placing a barrier: right when followed literally.
BARRIER_RULE = (
    "Place every barrier where all work-items of the group reach it: if the lines sit inside "
    "a condition that only some work-items take (such as if (lid < n)), close the condition "
    "before the barrier and reopen it after; a barrier inside such a branch is a bug of its "
    "own (barrier divergence)."
)


class Context:
    """One trace seen by the analyses: dense group ids, warps and lanes per work-item, which
    work-items overflowed, and results that several detectors share (``memo``)."""

    def __init__(self, trace: Trace, warp: int, banks: int, bank_bytes: int = 4) -> None:
        self.trace = trace
        self.warp = warp
        self.banks = banks
        self.bank_bytes = bank_bytes
        self.n = trace.records
        self.W = int(trace.wi_count.size)
        self.nsites = max(1, len(trace.sites))
        gl = np.asarray(trace.group_linear(), dtype=np.int64).reshape(-1)
        ll = np.asarray(trace.local_linear(), dtype=np.int64).reshape(-1)
        groups, inv = np.unique(gl, return_inverse=True)
        self.gdense = inv.reshape(-1).astype(np.int64)  # dense group id per work-item
        self.ngroups = max(1, groups.size)
        self.group_sorted = bool(np.all(self.gdense[1:] >= self.gdense[:-1]))
        group_size = int(np.prod(trace.local_size)) if trace.local_size else 1
        self.group_size = group_size
        self.llinear = ll
        self.local_scale = 1  # > 1: the first group's local accesses stand for every group's
        self.width = max(1, min(warp, group_size))  # lanes of one request
        self.nwarps = max(1, -(-group_size // warp))
        self.lane = ll % warp
        self.wglob = self.gdense * self.nwarps + ll // warp
        cap = trace.extra.get("capacity_per_wi")
        if cap is not None and np.size(cap) == self.W:  # regions may differ in size
            self.overflowed = np.flatnonzero(trace.wi_count > np.asarray(cap))
        else:
            self.overflowed = np.asarray(trace.overflowed)
        self.ok_wi = np.ones(self.W, dtype=bool)
        self.ok_wi[self.overflowed] = False
        self.safe_phase = self._safe_phase()
        self.phase_row: np.ndarray | None = None  # phases of every work-item, when all alike
        self.memo: dict[str, object] = {}  # a pass whose results several detectors use
        # Per buffer: the bytes of one key of the race, uninitialised and coverage passes
        # (``units.split`` sets them; 4 where nothing says otherwise).
        self.cells: dict[int, int] = {}
        # The trace's diff against a reference kernel (a TraceDiff), when one was asked for.
        self.diff: object | None = None

    def cell_bytes(self, buffer: int) -> int:
        """The bytes of one key of ``buffer``: 4 (a word) where every access covers whole
        aligned words, else 2 or 1, so that keys are never coarser than what was touched."""
        return self.cells.get(buffer, 4)

    def cell_count(self, buffer: int) -> int:
        """The keys that cover ``buffer``."""
        info = self.trace.buffers[buffer]
        cell = self.cell_bytes(buffer)
        return -(-info.length * info.elem_size // cell)

    def _safe_phase(self) -> np.ndarray | None:
        """Per group: phases below this are fully recorded by every work-item of the group.
        An overflowed work-item lost its later records, so another work-item's read in or after
        its last recorded phase may miss a write that really happened."""
        if self.overflowed.size == 0:
            return None
        safe = np.full(self.ngroups, I64_MAX, dtype=np.int64)
        t = self.trace
        last = np.searchsorted(t.wi, self.overflowed, side="right") - 1
        has = (last >= 0) & (t.wi[np.maximum(last, 0)] == self.overflowed)
        phase = np.where(has, t.phase[np.maximum(last, 0)], 0).astype(np.int64)
        np.minimum.at(safe, self.gdense[self.overflowed], phase)
        return safe

    def label(self, w: int) -> tuple[int, ...]:
        """A work-item as [gx, gy, gz, lx, ly, lz]."""
        g = (list(self.trace.wi_group[w]) + [0, 0, 0])[:3]
        lo = (list(self.trace.wi_local[w]) + [0, 0, 0])[:3]
        return tuple(int(v) for v in g + lo)

    def labels(self, wis: Iterable[int], limit: int = EXAMPLES) -> tuple[tuple[int, ...], ...]:
        """The first ``limit`` distinct work-items of ``wis``, as labels a finding names."""
        seen = list(dict.fromkeys(int(w) for w in wis))[:limit]
        return tuple(self.label(w) for w in seen)

    def space(self, buffer: int) -> int:
        """The address space of ``buffer`` (NO_SPACE for records without one)."""
        return self.trace.buffers[buffer].space if buffer >= 0 else NO_SPACE
