"""Finding: elements a launch promised to write that no work-item wrote, and elements of the
output written by several work-items.

What was promised comes from the launch description: a family's output promises every element
exactly once; a custom, ``.sim`` or captured buffer promises what its ``writes`` declares (all,
a region such as a stencil's interior, or nothing). An element outside the promise that no
work-item wrote is simply what the buffer held before the launch, never a finding (a
histogram's empty bins, a stencil's border)."""

from __future__ import annotations

import numpy as np

from explorer.description.launch import Promise
from explorer.trace.analysis import out_of_bounds
from explorer.trace.analysis.context import EXAMPLES, WRITES, Context
from explorer.trace.analysis.detector import Category, Detector
from explorer.trace.analysis.units import Unit, Units, cells
from explorer.trace.recorded import ATOMIC, GLOBAL, BufferInfo, Finding

KIND = "coverage"


def find(ctx: Context, units: Units) -> list[Finding]:
    """Per ``__global`` buffer, once every work-group was traced: the promised elements written
    by no work-item (only when nothing is missing from the trace), and, for the output,
    elements written by several."""
    t = ctx.trace
    gx, gy, gz = t.num_groups
    if len(t.groups_traced) != gx * gy * gz:
        return []
    complete = ctx.overflowed.size == 0 and not t.not_traced
    findings = []
    for b, info in enumerate(t.buffers):
        if info.space != GLOBAL:
            continue
        writes = [u for u in units.memory if u.buffer == b and u.op in WRITES]
        # Gaps are only certain when nothing is missing from the trace.
        if info.promised is not None and complete:
            findings.extend(_never_written(info, info.promised, writes))
        if t.output_role is not None and info.role == t.output_role:
            findings.extend(_several_writers(ctx, b, info, writes))
    return findings


def _never_written(info: BufferInfo, promise: Promise, writes: list[Unit]) -> list[Finding]:
    """The elements of the promised region no work-item wrote."""
    written = np.zeros(info.length, dtype=bool)
    for u in writes:
        for _, e in cells(u.off, u.size, info.elem_size):
            written[e] = True
    wanted = _promised_elements(info, promise)
    never = np.flatnonzero(wanted & ~written)
    if not never.size:
        return []
    shown = never[:EXAMPLES].tolist()
    names = ", ".join(_element_name(info, promise, e) for e in shown)
    if promise.region == "all":
        what = f"{never.size} of {info.length} elements of {info.name} were never written"
    else:
        what = (
            f"{never.size} of the {int(wanted.sum())} elements of {info.name} its declaration "
            f'promises (writes = "{promise.region}") were never written'
        )
    return [
        Finding(
            kind=KIND,
            line=None,
            phase=None,
            buffer=info.name,
            work_items=(),
            count=int(never.size),
            elements=tuple(shown),
            message=f"{what} (e.g. {names}): check the global size and the index the kernel "
            "writes.",
        )
    ]


def _promised_elements(info: BufferInfo, promise: Promise) -> np.ndarray:
    """Per element of the buffer as the kernel addresses it: whether any of its bytes was
    promised (the kernel's pointer type may differ from the declared element type)."""
    size = info.length * info.elem_size
    promised = promise.device_bytes()[:size]
    if promised.size < size:
        promised = np.concatenate([promised, np.zeros(size - promised.size, dtype=bool)])
    return np.asarray(promised.reshape(info.length, info.elem_size).any(axis=1))


def _element_name(info: BufferInfo, promise: Promise, e: int) -> str:
    """``name[row, col]`` where the promise is over rows and columns of the kernel's own
    elements, else ``name[e]``."""
    shape = promise.shape
    if len(shape) == 2 and promise.lane_bytes == info.elem_size and not promise.column_major:
        return f"{info.name}[{e // shape[1]}, {e % shape[1]}]"
    return f"{info.name}[{e}]"


def _several_writers(ctx: Context, b: int, info: BufferInfo, writes: list[Unit]) -> list[Finding]:
    """Elements of the output written by more than one work-item (atomics are meant to
    share)."""
    # Writers are told apart per byte touched (``Context.cell_bytes``): the four uchars of
    # a uchar4 written by four work-items are each written once.
    cell = ctx.cell_bytes(b)
    rep = np.full(ctx.cell_count(b), -1, dtype=np.int64)  # a plain writer of each cell
    for u in writes:
        if u.op != ATOMIC:
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
    if not several.size:
        return []
    shown = several[:EXAMPLES].tolist()
    e0 = shown[0]
    wis = [int(rep[0]), int(other[0])] + [int(w) for w in rep[1:EXAMPLES]]
    a, c = ctx.label(int(rep[0])), ctx.label(int(other[0]))
    names = ", ".join(f"{info.name}[{e}]" for e in shown)
    line = next((u.line for u in writes), None)
    return [
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
    ]


def _wi(label: tuple[int, ...]) -> str:
    """A work-item label as a person reads it."""
    return f"group ({label[0]}, {label[1]}, {label[2]}) local ({label[3]}, {label[4]}, {label[5]})"


# Elements never written, or written twice, beside indices outside the same buffer: one cause,
# the indexing.
DETECTOR = Detector(KIND, find, order=70, category=Category.BUG, explained_by=out_of_bounds.KIND)
