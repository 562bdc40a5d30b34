"""Turning the raw trace buffers the device filled into a :class:`Trace` (numpy, vectorised)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from explorer.description.launch import Promise
from explorer.trace.columns import opencl_type, value_shapes
from explorer.trace.instrument import Instrumented
from explorer.trace.recorded import (
    GLOBAL,
    LOCAL,
    MAX_PHASE,
    META_WORDS,
    NO_BUFFER,
    PRIVATE,
    ROLE_FLAGS,
    ROLE_PARTS,
    BufferInfo,
    NotTraced,
    Site,
    Trace,
    word_phase,
    word_site,
)


@dataclass(frozen=True, eq=False)
class RawTrace:
    """What the instrumented kernel wrote, as the host read it back."""

    rec_offset: np.ndarray  # (R,) uint32: byte offset of each record (an int32, really)
    rec_word: np.ndarray  # (R,) uint32: the packed site, phase, buffer, flags and size
    offsets: np.ndarray  # (W + 1,) uint64: each traced work-item's region
    counts: np.ndarray  # (W,) uint32: records each work-item tried to write
    dispatch: np.ndarray  # (1 + G,) uint32: [counter, start order of each group]
    meta: np.ndarray  # (buffers * 8,) uint64: elem size, bytes, dims per buffer
    slots: np.ndarray  # (G,) int32: window slot of each group, -1 if not traced
    global_size: tuple[int, ...]
    local_size: tuple[int, ...]
    roles: tuple[str | None, ...]  # the parameter each buffer is (None for local arrays)
    output_role: str | None  # the first result
    rec_value: np.ndarray | None = None  # (R,) uint32 or uint64: each record's value, if asked
    # The NDRange the kernel saw, where it is smaller than ``global_size`` (non-uniform
    # work-groups, launched whole: the work-items past it left at once and recorded nothing).
    ndrange: tuple[int, ...] = ()
    # The parameters the host gave the kernel to read, and those it filled before the launch
    # with contents it chose (a read of them before a write is no bug).
    inputs: frozenset[str] = frozenset()
    host_filled: frozenset[str] = frozenset()
    # What the launch promises to write of each parameter that promises anything.
    promised: tuple[tuple[str, Promise], ...] = ()
    # The integers the kernel names (``Trace.names``).
    names: tuple[tuple[str, int], ...] = ()
    # The integer types of the names the kernel declares (``Trace.types``).
    types: tuple[tuple[str, str], ...] = ()


def _num_groups(global_size: tuple[int, ...], local_size: tuple[int, ...]) -> tuple[int, int, int]:
    dims = [-(-g // lo) for g, lo in zip(global_size, local_size, strict=True)]
    return tuple((dims + [1, 1, 1])[:3])  # type: ignore[return-value]


def group_coords(linear: np.ndarray, num_groups: tuple[int, int, int]) -> np.ndarray:
    """(x, y, z) work-group coordinates, one row per linear group id."""
    gx, gy, _ = num_groups
    linear = np.asarray(linear, dtype=np.int64)
    return np.stack([linear % gx, (linear // gx) % gy, linear // (gx * gy)], axis=-1).astype(
        np.int32
    )


def _saturated(raw: RawTrace, kept: np.ndarray) -> tuple[NotTraced, ...]:
    """A work-item past the last phase the records can tell (its phase only grows, so its
    last record says): later barriers no longer order its accesses, and the trace says so."""
    has = np.flatnonzero(kept > 0)
    if has.size == 0:
        return ()
    last = raw.offsets[:-1].astype(np.int64)[has] + kept[has] - 1
    if not (word_phase(raw.rec_word[last]) >= MAX_PHASE).any():
        return ()
    return (
        NotTraced(
            0,
            f"more than {MAX_PHASE} barriers passed: the accesses after barrier {MAX_PHASE} "
            "share one phase, so the order those barriers give them is not known and no race "
            "or uninitialised read is reported among them",
        ),
    )


def _flags_as_run(
    sites: tuple[Site, ...], offset: np.ndarray, word: np.ndarray
) -> tuple[Site, ...]:
    """A barrier or fence whose flags were computed where it ran orders the spaces its
    records name (any work-item's: flags that differ between work-items are a finding of
    their own, and a barrier some passed with a fence counts as fencing)."""
    dynamic = [s.id for s in sites if s.role == ROLE_FLAGS]
    if not dynamic:
        return sites
    site_of = word_site(word)
    out = list(sites)
    for sid in dynamic:
        recorded = offset[site_of == sid]
        if recorded.size:
            bits = int(np.bitwise_or.reduce(recorded.astype(np.int64) & 3))
            out[sid] = replace(out[sid], fences=bits)
    return tuple(out)


def _far(meta: np.ndarray, buffer: int) -> tuple[int, bool]:
    """The offset of an access out of bounds of ``buffer`` too far for its record, and
    whether another differed from it (runtime.cl's __tr_far; 0: there was none)."""
    if buffer >= meta.shape[0]:
        return 0, False
    if not int(meta[buffer, 7]) & 0xFFFFFFFF:
        return 0, False
    # the least and the greatest halves of every such offset: alike where all were one
    return int(meta[buffer, 6:7].view(np.int64)[0]), int(meta[buffer, 8]) != int(meta[buffer, 9])


_PART_COMPONENTS = 16  # a part record's offset: its access's site * 16 + its first component
_LOW_BITS = {1: 0xFF, 2: 0xFFFF, 4: 0xFFFFFFFF, 8: 0xFFFFFFFFFFFFFFFF}


def _parts_apart(
    inst: Instrumented, word: np.ndarray, offset: np.ndarray, kept: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None]:
    """Which records hold the components of stored vectors (``ROLE_PARTS``), and of each
    such record the position of its store's record: the latest record before it, of the
    same work-item, of the site its offset names (runtime.cl's ``__tr_part``; -1 where
    that is not kept); (all False, None) where there are none."""
    part_sites = [s.id for s in inst.sites if s.role == ROLE_PARTS]
    if not part_sites or word.size == 0:
        return np.zeros(0, dtype=bool), None
    site = word_site(word).astype(np.int64)
    is_part = np.isin(site, np.array(part_sites, dtype=np.int64))
    if not is_part.any():
        return is_part, None
    parts = np.flatnonzero(is_part)
    named = offset[parts].astype(np.int64) // _PART_COMPONENTS
    span = word.size + 1
    # The records of the sites the parts name, sorted by (site, position): a part's owner
    # is the one before (its site, its own position).
    own = np.flatnonzero(np.isin(site, np.unique(named)) & ~is_part)
    keys = site[own] * span + own
    order = np.argsort(keys, kind="stable")
    keys, own = keys[order], own[order]
    at = np.searchsorted(keys, named * span + parts) - 1
    owner = np.where(at >= 0, own[np.maximum(at, 0)], -1)
    found = (at >= 0) & (keys[np.maximum(at, 0)] // span == named)
    ends = np.cumsum(kept)  # each work-item's records end there
    same = np.searchsorted(ends, np.maximum(owner, 0), "right") == np.searchsorted(
        ends, parts, "right"
    )
    return is_part, np.where(found & same, owner, -1)


def _value_parts(
    inst: Instrumented,
    word: np.ndarray,
    offset: np.ndarray,
    value: np.ndarray,
    is_part: np.ndarray,
    owner: np.ndarray,
) -> np.ndarray:
    """``Trace.value_parts`` from the part records: each holds, from the component its
    offset names, as many components of its store's vector as the value plane has room for
    (runtime.cl's ``__tr_part``); a row per component, its store's record numbered as once
    the parts are taken out."""
    n = len(inst.sites)
    comp, width = value_shapes(inst.sites)
    store_site = np.minimum(np.where(owner >= 0, word_site(word[np.maximum(owner, 0)]), n), n)
    size = comp[store_site]
    per = np.where(size > 0, value.dtype.itemsize // np.maximum(size, 1), 0)
    first = offset[is_part].astype(np.int64) % _PART_COMPONENTS
    held = np.clip(np.minimum(per, width[store_site] - first), 0, None)
    row = np.repeat(np.arange(held.size), held)
    k = np.arange(int(held.sum()), dtype=np.int64) - np.repeat(np.cumsum(held) - held, held)
    size = size[row]
    bits = value[is_part].astype(np.uint64)[row] >> (8 * size * k).astype(np.uint64)
    low = np.array([_LOW_BITS.get(int(b), 0) for b in range(9)], dtype=np.uint64)
    place = np.cumsum(~is_part) - 1  # each record's number once the parts are out
    return np.stack([place[owner[row]], first[row] + k, (bits & low[size]).view(np.int64)], axis=1)


def decode(raw: RawTrace, inst: Instrumented) -> Trace:
    local = (list(raw.local_size) + [1, 1, 1])[:3]
    per_group = int(np.prod(local))
    num_groups = _num_groups(raw.global_size, raw.local_size)
    window = np.nonzero(raw.slots >= 0)[0]
    window = window[np.argsort(raw.slots[window])]  # group linear id of each slot
    w = window.size * per_group

    capacity = (raw.offsets[1:] - raw.offsets[:-1]).astype(np.int64)
    counts = raw.counts[:w].astype(np.int64)
    kept = np.minimum(counts, capacity)
    total = int(kept.sum())
    value = None
    if np.array_equal(kept, capacity):  # the usual case: every region exactly full
        offset, word = raw.rec_offset[:total], raw.rec_word[:total]
        if raw.rec_value is not None:
            value = raw.rec_value[:total]
    else:
        starts = np.repeat(raw.offsets[:-1].astype(np.int64), kept)
        at = starts + np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(kept) - kept, kept)
        offset, word = raw.rec_offset[at], raw.rec_word[at]
        if raw.rec_value is not None:
            value = raw.rec_value[at]
    # Kept packed: the columns are unpacked only where they are used.
    offset = offset.view(np.int32)
    saturated = _saturated(raw, kept)
    parts = None
    is_part, owner = _parts_apart(inst, word, offset, kept)
    if owner is not None:
        # Each work-item's counts and room lose its part records too: an overflow is told
        # as before, in the accesses' own records.
        if value is not None:
            parts = _value_parts(inst, word, offset, value, is_part, owner)
            value = value[~is_part]
        wi = np.repeat(np.arange(kept.size, dtype=np.int64), kept)
        apart = np.bincount(wi[is_part], minlength=kept.size).astype(np.int64)
        offset, word = offset[~is_part], word[~is_part]
        kept, counts, capacity = kept - apart, counts - apart, capacity - apart

    slot_of_wi = np.arange(w) // per_group
    local_linear = np.arange(w) % per_group
    wi_group = group_coords(window[slot_of_wi], num_groups)
    wi_local = np.stack(
        [
            local_linear % local[0],
            (local_linear // local[0]) % local[1],
            local_linear // (local[0] * local[1]),
        ],
        axis=-1,
    ).astype(np.int32)

    global_size = tuple(raw.global_size)
    if raw.ndrange:  # only the work-items of the NDRange: the others never ran the kernel
        g = np.array((list(raw.ndrange) + [1, 1, 1])[:3], dtype=np.int64)
        real = ((wi_group.astype(np.int64) * local + wi_local) < g).all(axis=1)
        wi_group, wi_local = wi_group[real], wi_local[real]
        kept, counts, capacity = kept[real], counts[real], capacity[real]
        global_size = tuple(raw.ndrange)

    meta = raw.meta.reshape(-1, META_WORDS)
    promised = dict(raw.promised)
    buffers = []
    for b in inst.buffers:
        if b.space == PRIVATE:  # described by the instrumentation, not by the kernel
            elem, dims = max(1, b.elem_size), list(b.shape) or [1]
            nbytes = elem * int(np.prod(dims))
        else:
            elem, nbytes = int(meta[b.id, 0]) or 1, int(meta[b.id, 1])
            dims = [int(d) for d in meta[b.id, 2 : 2 + max(1, b.dims)]]
        space = LOCAL if b.space == LOCAL else PRIVATE if b.space == PRIVATE else GLOBAL
        role = raw.roles[b.id] if b.id < len(raw.roles) else None
        # A program-scope variable (no parameter) holds what the program initialised it to.
        program = space == GLOBAL and b.param_index is None
        is_input = program or (space == GLOBAL and role in raw.inputs)
        filled = space == GLOBAL and role in raw.host_filled
        promise = promised.get(role) if space == GLOBAL and role is not None else None
        buffers.append(
            BufferInfo(
                b.name,
                role,
                space,
                elem,
                nbytes // elem,
                tuple(dims),
                is_input,
                filled,
                promise,
                b.image,
                b.components,
                b.padding,
                *_far(meta, b.id),
                elem_type=opencl_type(b.elem_type),
            )
        )

    sites = tuple(
        Site(
            s.id,
            s.line,
            s.op,
            s.space,
            s.buffer if s.buffer != NO_BUFFER else -1,
            s.text,
            s.fences,
            s.atomic,
            s.value,
            s.value_type,
            s.role,
            s.size,
            s.unused,
        )
        for s in inst.sites
    )
    sites = _flags_as_run(sites, offset, word)
    order = np.argsort(raw.dispatch[1 : 1 + int(np.prod(num_groups))], kind="stable")
    dispatch = tuple((int(x), int(y), int(z)) for x, y, z in group_coords(order, num_groups))
    groups = tuple((int(x), int(y), int(z)) for x, y, z in group_coords(window, num_groups))
    return Trace(
        offset=offset,
        word=word,
        kept=kept,
        wi_group=wi_group,
        wi_local=wi_local,
        wi_count=counts,
        buffers=tuple(buffers),
        sites=sites,
        global_size=global_size,
        local_size=tuple(raw.local_size),
        groups_traced=groups,
        dispatch_order=dispatch,
        capacity=int(capacity.max()) if capacity.size else 0,
        not_traced=tuple(NotTraced(line, reason) for line, reason in inst.not_traced) + saturated,
        output_role=raw.output_role,
        extra={"capacity_per_wi": capacity},
        values=value,
        value_parts=parts,
        names=raw.names,
        types=raw.types,
    )
