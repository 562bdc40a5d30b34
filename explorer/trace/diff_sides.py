"""The two traces a diff compares, lined up: which buffers and which work-items of one are
which of the other, and each work-item's memory accesses in its own order (numpy only).

A diff compares two traces of the same launch shape (NDRange, local size, ``__global``
buffers by role), so its launch check lives here too: :class:`LaunchMismatch` says what
differs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.trace.recorded import (
    ATOMIC,
    BUFFER_MASK,
    BUFFER_SHIFT,
    GLOBAL,
    LOCAL,
    PHASE_MASK,
    PHASE_SHIFT,
    READ,
    RMW,
    SITE_MASK,
    WRITE,
    BufferInfo,
    Trace,
)

MEMORY_OPS = (READ, WRITE, RMW, ATOMIC)


class LaunchMismatch(ValueError):
    """Two traces that cannot be compared access by access: the message names what differs
    (the NDRange, the local size, or a ``__global`` buffer's role, type or length)."""


def buffer_key(info: BufferInfo) -> str:
    """What names a buffer across two kernels: its role where the launch gives one (a
    parameter), else its own name (a ``__local`` array declared in the kernel)."""
    return info.role if info.role is not None else info.name


def check_launch(mine: Trace, reference: Trace) -> None:
    """Raise :class:`LaunchMismatch` unless both traces ran the same launch shape."""
    if tuple(mine.global_size) != tuple(reference.global_size):
        raise LaunchMismatch(
            f"the NDRange differs: {_shape(mine.global_size)} here, "
            f"{_shape(reference.global_size)} in the reference"
        )
    if tuple(mine.local_size) != tuple(reference.local_size):
        raise LaunchMismatch(
            f"the local size differs: {_shape(mine.local_size)} here, "
            f"{_shape(reference.local_size)} in the reference"
        )
    ours = {buffer_key(b): b for b in mine.buffers if b.space == GLOBAL}
    theirs = {buffer_key(b): b for b in reference.buffers if b.space == GLOBAL}
    if set(ours) != set(theirs):
        only = sorted(set(ours) ^ set(theirs))
        raise LaunchMismatch(
            f"the __global buffers differ: {', '.join(only)} only in "
            + ("this kernel" if only[0] in ours else "the reference")
        )
    for key, b in ours.items():
        r = theirs[key]
        if (b.elem_size, b.length) != (r.elem_size, r.length):
            raise LaunchMismatch(
                f"buffer {key} differs: {b.length} elements of {b.elem_size} bytes here, "
                f"{r.length} of {r.elem_size} bytes in the reference"
            )


def _shape(size: tuple[int, ...]) -> str:
    return "×".join(str(v) for v in size)


def buffer_codes(mine: Trace, reference: Trace) -> tuple[np.ndarray, np.ndarray]:
    """A common code per buffer of each trace (equal codes: the same buffer). ``__global``
    buffers and ``__local`` parameters meet by role, ``__local`` arrays by name, then those
    left over in the order they are declared (a learner's ``tile`` is the solution's
    ``Asub``)."""
    keys = [buffer_key(b) for b in mine.buffers]
    codes_m = np.arange(len(keys), dtype=np.int64)
    codes_r = np.full(len(reference.buffers), -1, dtype=np.int64)
    for i, b in enumerate(reference.buffers):
        key = buffer_key(b)
        if key in keys and mine.buffers[keys.index(key)].space == b.space:
            codes_r[i] = keys.index(key)
    taken = set(codes_r[codes_r >= 0].tolist())
    spare = [i for i, b in enumerate(mine.buffers) if i not in taken and b.space == LOCAL]
    for i, b in enumerate(reference.buffers):
        if codes_r[i] < 0 and b.space == LOCAL and spare:
            codes_r[i] = spare.pop(0)
    fresh = len(keys) + np.arange(len(reference.buffers))
    return codes_m, np.where(codes_r >= 0, codes_r, fresh)


@dataclass(frozen=True, eq=False)
class Accesses:
    """One trace's memory accesses (``__global`` and ``__local``), work-item by work-item:
    ``records[start[w]:start[w] + count[w]]`` are work-item ``w``'s in the order it made
    them (indices into the trace's records)."""

    records: np.ndarray
    start: np.ndarray
    count: np.ndarray


def accesses(trace: Trace) -> Accesses:
    """The records of ``trace`` that are memory accesses of its own buffers, per work-item."""
    memory_site = np.zeros(SITE_MASK + 1, dtype=bool)
    memory_site[: len(trace.sites)] = np.isin(trace.site_ops()[:-1], MEMORY_OPS)
    spaces = np.zeros(BUFFER_MASK + 1, dtype=bool)
    spaces[: len(trace.buffers)] = [b.space in (GLOBAL, LOCAL) for b in trace.buffers]
    word = trace.word
    keep = memory_site[word & SITE_MASK]
    keep &= spaces[(word >> BUFFER_SHIFT) & BUFFER_MASK]
    records = np.flatnonzero(keep)
    # Records are in work-item order: each work-item's accesses lie between its bounds.
    ends = np.cumsum(np.asarray(trace.kept, dtype=np.int64))
    bounds = np.asarray(np.searchsorted(records, np.r_[0, ends]), dtype=np.int64)
    count = np.diff(bounds).astype(np.int64)
    return Accesses(records, bounds[:-1], count)


def places_in_phase(trace: Trace, side: Accesses, w: np.ndarray, k: np.ndarray) -> np.ndarray:
    """How many accesses work-item ``w[i]`` made before its ``k[i]``-th in that access's
    phase (its phase only grows, so the first of the phase is found by bisection)."""
    phase = ((trace.word[side.records] >> PHASE_SHIFT) & PHASE_MASK).astype(np.int64)
    owner = trace.wi[side.records].astype(np.int64)
    keys = (owner << 12) | phase
    at = side.start[w] + k
    first = np.searchsorted(keys, keys[at], side="left")
    return np.asarray(at - first, dtype=np.int64)


def work_item_keys(trace: Trace) -> np.ndarray:
    """Per work-item a number that names it in any trace of the same launch shape."""
    per_group = int(np.prod(trace.local_size)) if trace.local_size else 1
    group = np.asarray(trace.group_linear(), dtype=np.int64)
    return group * per_group + np.asarray(trace.local_linear(), dtype=np.int64)


def matched_work_items(mine: Trace, reference: Trace) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the work-items both traces recorded, the same work-item at the same place
    of the two arrays, in (group, local id) order."""
    _, at_m, at_r = np.intersect1d(
        work_item_keys(mine), work_item_keys(reference), assume_unique=True, return_indices=True
    )
    return at_m.astype(np.int64), at_r.astype(np.int64)


def overflowed(trace: Trace) -> np.ndarray:
    """Per work-item: whether its records did not all fit (its sequence ends early)."""
    capacity = trace.extra.get("capacity_per_wi")
    if capacity is None or np.size(capacity) != trace.wi_count.size:
        capacity = trace.capacity
    return np.asarray(trace.wi_count > np.asarray(capacity))
