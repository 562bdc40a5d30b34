"""The trace diff: where one kernel's accesses part from a reference kernel's, work-item by
work-item, over two traces of the same launch (numpy only, no OpenCL, no Qt).

Each work-item's memory accesses (``__global`` and ``__local``; barriers only through the
phase they give every later access) are lined up with the same work-item's in the reference,
in the order each made them. The first position where they differ is that work-item's first
difference: another phase (a barrier missing or added), another operation (a read where the
reference writes), another buffer or element (a swapped index), another value written, or
no access at all on one side (a loop bound that stops early or runs late). Over the whole
launch the first difference is the earliest in program order: the lowest phase, then the
fewest accesses its work-item made before it in that phase, then the lowest work-group and
local id (work-items that loop a different number of times before a barrier still meet at
the barrier).

Values are compared where both traces recorded them, for plain writes only (``=``, ``+=``):
what a read or an atomic returns depends on the order the device ran work-items in, what a
work-item stores does not. Floating-point values match within a relative 1e-4 (two kernels
that sum the same terms may round them apart); other values must be equal bit for bit.

``diff_traces`` is the one entry point; :class:`TraceDiff` carries the result with its JSON
(``to_json``) and text (``text``) forms. Two traces of different launch shapes are refused
with :class:`LaunchMismatch`.
"""

from __future__ import annotations

import numpy as np

from explorer.trace.diff_align import (
    BUFFER,
    ELEMENT,
    MINE_ENDED,
    OP,
    PHASE,
    REFERENCE_ENDED,
    VALUE,
    first_differences,
    written_value,
)
from explorer.trace.diff_records import Access, Difference, TraceDiff
from explorer.trace.diff_sets import buffer_diffs
from explorer.trace.diff_sides import (
    Accesses,
    LaunchMismatch,
    accesses,
    buffer_codes,
    check_launch,
    matched_work_items,
    overflowed,
    places_in_phase,
    work_item_keys,
)
from explorer.trace.recorded import BARRIER, OP_NAMES, Trace, word_site

__all__ = ["Access", "Difference", "LaunchMismatch", "TraceDiff", "diff_traces"]

WHAT = {  # a reason code (explorer.trace.diff_align) in words
    PHASE: "phase",
    OP: "operation",
    BUFFER: "buffer",
    ELEMENT: "element",
    VALUE: "value",
    MINE_ENDED: "missing",
    REFERENCE_ENDED: "extra",
}


def diff_traces(mine: Trace, reference: Trace, values: bool = True) -> TraceDiff:
    """Compare ``mine`` with ``reference`` (two traces of the same launch shape), work-item
    by work-item; ``values``: compare the values written too, where both recorded them.
    Raises :class:`LaunchMismatch` when the NDRange, the local size or the ``__global``
    buffers differ."""
    check_launch(mine, reference)
    codes_m, codes_r = buffer_codes(mine, reference)
    am, ar = accesses(mine), accesses(reference)
    wm, wr = matched_work_items(mine, reference)
    first_k, why = first_differences(
        mine, reference, (am, ar), (wm, wr), (codes_m, codes_r), values
    )
    # Alike as far as both go, but one goes further: unless the shorter one's records ran out
    # (an overflow), that is where they part.
    n_m, n_r = am.count[wm], ar.count[wr]
    cut = np.where(n_m < n_r, overflowed(mine)[wm], overflowed(reference)[wr])
    ended = (first_k < 0) & (n_m != n_r) & ~cut
    first_k[ended] = np.minimum(n_m, n_r)[ended]
    why[ended] = np.where(n_m[ended] < n_r[ended], MINE_ENDED, REFERENCE_ENDED)
    lined = _Lined(mine, reference, am, ar, wm, wr)
    differing, per_group = lined.differences(first_k, why, values)
    groups = np.unique(work_item_keys(mine)[wm] // _per_group(mine))
    return TraceDiff(
        identical=differing == 0,
        first=per_group[0] if per_group else None,
        first_per_group=tuple(per_group),
        work_items_compared=int(wm.size),
        work_items_differing=differing,
        groups_compared=int(groups.size),
        groups_differing=len(per_group),
        buffers=buffer_diffs(
            mine, reference, (am, ar), (wm, wr), (codes_m, codes_r), same=differing == 0
        ),
        complete=bool(mine.complete and reference.complete),
        notes=_notes(mine, reference, wm),
        first_records=lined.first_records(first_k),
    )


def _per_group(trace: Trace) -> int:
    return int(np.prod(trace.local_size)) if trace.local_size else 1


def _notes(mine: Trace, reference: Trace, wm: np.ndarray) -> tuple[str, ...]:
    """What the comparison left out: work-items only one trace recorded, records lost."""
    notes = []
    left = int(mine.kept.size) - int(wm.size)
    if left or int(reference.kept.size) != int(wm.size):
        notes.append(
            f"only the {wm.size} work-items both traces recorded are compared "
            f"({mine.kept.size} here, {reference.kept.size} in the reference)"
        )
    if not (mine.complete and reference.complete):
        notes.append("a trace is incomplete: accesses it did not record are not compared")
    return tuple(notes)


class _Lined:
    """The two traces' work-items lined up; makes the :class:`Difference` records."""

    def __init__(
        self,
        mine: Trace,
        reference: Trace,
        am: Accesses,
        ar: Accesses,
        wm: np.ndarray,
        wr: np.ndarray,
    ) -> None:
        self.mine, self.reference = mine, reference
        self.am, self.ar = am, ar
        self.wm, self.wr = wm, wr

    def first_records(self, first_k: np.ndarray) -> np.ndarray:
        """Records of mine at each work-item's first difference, where it made an access."""
        has = (first_k >= 0) & (first_k < self.am.count[self.wm])
        w = self.wm[has]
        return self.am.records[self.am.start[w] + first_k[has]]

    def differences(
        self, first_k: np.ndarray, why: np.ndarray, values: bool
    ) -> tuple[int, list[Difference]]:
        """How many work-items differ, and each differing work-group's first difference in
        program order (phase, place in the phase, then work-item): the launch's first is the
        first."""
        pairs = np.flatnonzero(first_k >= 0)
        if pairs.size == 0:
            return 0, []
        ks = first_k[pairs]
        phase, in_phase = self._phases(pairs, ks)
        keys = work_item_keys(self.mine)[self.wm[pairs]]
        order = np.lexsort((keys, in_phase, phase))
        group = keys[order] // _per_group(self.mine)
        _, firsts = np.unique(group, return_index=True)
        chosen = pairs[order][np.sort(firsts)]
        return int(pairs.size), [
            self._difference(int(p), int(first_k[p]), int(why[p]), values) for p in chosen
        ]

    def _record(self, side: Accesses, w: int, k: int) -> int | None:
        return int(side.records[side.start[w] + k]) if k < side.count[w] else None

    def _phases(self, pairs: np.ndarray, ks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Mine's phase at each pair's position and the accesses its work-item made before
        it in that phase; the reference's where mine made no access there."""
        phase = np.zeros(pairs.size, dtype=np.int64)
        in_phase = np.zeros(pairs.size, dtype=np.int64)
        for side, trace, w in ((self.ar, self.reference, self.wr), (self.am, self.mine, self.wm)):
            has = ks < side.count[w[pairs]]
            at = side.start[w[pairs][has]] + ks[has]
            phase[has] = trace.phase[side.records[at]]
            in_phase[has] = places_in_phase(trace, side, w[pairs][has], ks[has])
        return phase, in_phase

    def _difference(self, p: int, k: int, why: int, values: bool) -> Difference:
        w_m, w_r = int(self.wm[p]), int(self.wr[p])
        rec_m, rec_r = self._record(self.am, w_m, k), self._record(self.ar, w_r, k)
        mine = None if rec_m is None else access(self.mine, rec_m, values)
        theirs = None if rec_r is None else access(self.reference, rec_r, values)
        line = mine.line if mine else None
        if mine is None and k > 0:  # this kernel stopped: the line of its last access
            last = self._record(self.am, w_m, k - 1)
            line = None if last is None else self.mine.sites[int(self.mine.site[last])].line
        group = tuple(int(v) for v in self.mine.wi_group[w_m])
        local = tuple(int(v) for v in self.mine.wi_local[w_m])
        phase = mine.phase if mine else theirs.phase if theirs else 0
        barrier_line, barrier_in = None, ""
        if why == PHASE and mine is not None and theirs is not None:
            # The first barrier the side further on passed beyond the other's count.
            if theirs.phase > mine.phase:
                barrier_line, barrier_in = (
                    _nth_barrier(self.reference, w_r, mine.phase),
                    "reference",
                )
            elif mine.phase > theirs.phase:
                barrier_line, barrier_in = _nth_barrier(self.mine, w_m, theirs.phase), "mine"
            if barrier_line is None:
                barrier_in = ""
        return Difference(
            group=(group[0], group[1], group[2]),
            local=(local[0], local[1], local[2]),
            position=k,
            phase=phase,
            line=line,
            what=WHAT.get(why, "element"),
            mine=mine,
            reference=theirs,
            barrier_line=barrier_line,
            barrier_in=barrier_in,
        )


def _nth_barrier(trace: Trace, w: int, n: int) -> int | None:
    """The line of work-item ``w``'s barrier number ``n`` (from 0) in ``trace``, or None."""
    kept = np.asarray(trace.kept, dtype=np.int64)
    start = int(kept[:w].sum())
    sites = word_site(trace.word[start : start + int(kept[w])])
    passed = np.flatnonzero(trace.site_ops()[sites] == BARRIER)
    if n >= passed.size:
        return None
    return int(trace.sites[int(sites[passed[n]])].line)


def access(trace: Trace, record: int, values: bool = True) -> Access:
    """One record of ``trace`` as an :class:`Access`."""
    site = trace.sites[int(trace.site[record])]
    info = trace.buffers[int(trace.buffer[record])]
    value = written_value(trace, record) if values else None
    size = int(trace.sizes_of(trace.word[record : record + 1])[0])
    return Access(
        line=site.line,
        phase=int(trace.phase[record]),
        op=OP_NAMES.get(site.op, str(site.op)),
        buffer=info.name,
        element=int(trace.offset[record]) // max(1, info.elem_size),
        text=site.text,
        value=value,
        out_of_bounds=bool(trace.oob[record]),
        count=max(1, size // max(1, info.elem_size)),
    )
