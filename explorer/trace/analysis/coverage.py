"""Finding: elements of the output written by no work-item, or by several (each element of the
output should have exactly one writer). An output that starts from the host's contents (a
histogram's zeros, which its kernel adds to) may keep some of them: only one the kernel must
fill (started from the sentinel) has elements that were "never written"."""

from __future__ import annotations

import numpy as np

from explorer.trace.analysis import out_of_bounds
from explorer.trace.analysis.context import EXAMPLES, WRITES, Context
from explorer.trace.analysis.detector import Category, Detector
from explorer.trace.analysis.units import Units, cells
from explorer.trace.recorded import ATOMIC, GLOBAL, Finding

KIND = "coverage"


def find(ctx: Context, units: Units) -> list[Finding]:
    """Per output buffer, once every work-group was traced: elements written by no work-item
    (only when nothing is missing from the trace and the output started from the sentinel),
    and elements written by several."""
    t = ctx.trace
    gx, gy, gz = t.num_groups
    if t.output_role is None or len(t.groups_traced) != gx * gy * gz:
        return []
    outs = [
        b for b, info in enumerate(t.buffers) if info.role == t.output_role and info.space == GLOBAL
    ]
    findings = []
    for b in outs:
        info = t.buffers[b]
        writes = [u for u in units.memory if u.buffer == b and u.op in WRITES]
        written = np.zeros(info.length, dtype=bool)
        for u in writes:
            for _, e in cells(u.off, u.size, info.elem_size):
                written[e] = True
        # Writers are told apart per byte touched (``Context.cell_bytes``): the four uchars of
        # a uchar4 written by four work-items are each written once.
        cell = ctx.cell_bytes(b)
        rep = np.full(ctx.cell_count(b), -1, dtype=np.int64)  # a plain writer of each cell
        for u in writes:
            if u.op != ATOMIC:  # atomics from many work-items are meant to share
                for sel, k in u.key_cells():
                    rep[k] = u.wi if sel is None else u.wi[sel]
        other = np.full(rep.size, -1, dtype=np.int64)  # a second one, where there is one
        for u in writes:
            if u.op == ATOMIC:
                continue
            for sel, k in u.key_cells():
                w = u.wi if sel is None else u.wi[sel]
                differ = rep[k] != w
                if differ.any():
                    other[k[differ]] = w[differ]
        # Back to elements: the first cell of each element written twice stands for it.
        first = np.flatnonzero(other >= 0)
        element = first * cell // info.elem_size
        keep = np.ones(first.size, dtype=bool)
        keep[1:] = element[1:] != element[:-1]
        rep, other = rep[first[keep]], other[first[keep]]
        several = element[keep]
        # Gaps are only certain when nothing is missing from the trace, and only a gap in an
        # output the kernel must fill is one: a bin no value fell into keeps its zero.
        if ctx.overflowed.size == 0 and not t.not_traced and not info.host_filled:
            never = np.flatnonzero(~written)
            if never.size:
                shown = never[:EXAMPLES].tolist()
                names = ", ".join(f"{info.name}[{e}]" for e in shown)
                findings.append(
                    Finding(
                        kind=KIND,
                        line=None,
                        phase=None,
                        buffer=info.name,
                        work_items=(),
                        count=int(never.size),
                        elements=tuple(shown),
                        message=(
                            f"{never.size} of {info.length} elements of {info.name} were never "
                            f"written (e.g. {names}): check the global size and the index "
                            "the kernel writes."
                        ),
                    )
                )
        if several.size:
            shown = several[:EXAMPLES].tolist()
            e0 = shown[0]
            wis = [int(rep[0]), int(other[0])] + [int(w) for w in rep[1:EXAMPLES]]
            a, c = ctx.label(int(rep[0])), ctx.label(int(other[0]))
            names = ", ".join(f"{info.name}[{e}]" for e in shown)
            line = next((u.line for u in writes), None)
            findings.append(
                Finding(
                    kind=KIND,
                    line=line,
                    phase=None,
                    buffer=info.name,
                    work_items=ctx.labels(wis),
                    count=int(several.size),
                    elements=tuple(shown),
                    message=(
                        f"{several.size} elements of {info.name} were written by several "
                        f"work-items (e.g. {names}; {info.name}[{e0}] by {_wi(a)} and "
                        f"{_wi(c)}): each element should have exactly one writer, or the "
                        "result depends on which one wrote last."
                    ),
                )
            )
    return findings


def _wi(label: tuple[int, ...]) -> str:
    """A work-item label as a person reads it."""
    return f"group ({label[0]}, {label[1]}, {label[2]}) local ({label[3]}, {label[4]}, {label[5]})"


# Elements never written, or written twice, beside indices outside the same buffer: one cause,
# the indexing.
DETECTOR = Detector(KIND, find, order=70, category=Category.BUG, explained_by=out_of_bounds.KIND)
