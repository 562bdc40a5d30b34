"""Hand-built traces for the analysis tests: what an instrumented kernel would have recorded.

Two ways in: ``build_trace`` takes a list of work-items with their accesses written out (for
small, readable cases), ``from_records`` takes per-record arrays (for generated patterns such
as matmul, built with numpy so large traces are cheap to make).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import product

import numpy as np

from explorer.description.launch import Promise
from explorer.trace.recorded import (
    ATOMIC,
    BARRIER,
    FENCE,
    FENCE_GLOBAL,
    FENCE_LOCAL,
    GLOBAL,
    LOCAL,
    NO_SPACE,
    READ,
    RMW,
    VALUE_READ,
    VALUE_WRITTEN,
    WRITE,
    BufferInfo,
    NotTraced,
    Site,
    Trace,
    pack_words,
)

__all__ = [
    "ATOMIC",
    "BARRIER",
    "FENCE",
    "FENCE_GLOBAL",
    "FENCE_LOCAL",
    "GLOBAL",
    "LOCAL",
    "READ",
    "RMW",
    "WRITE",
    "barrier",
    "buf",
    "build_trace",
    "from_records",
    "grid",
    "matmul_naive",
    "matmul_tiled",
    "site",
    "tile_column_read",
    "transpose_naive",
]


def buf(
    name: str,
    space: int,
    length: int,
    role: str | None = None,
    elem: int = 4,
    shape: tuple[int, ...] = (),
) -> BufferInfo:
    return BufferInfo(name, role, space, elem, length, shape or (length,))


def site(sid: int, line: int, op: int, space: int, buffer: int, text: str = "") -> Site:
    """An access site whose records hold, when the trace has values, the value it stored (a
    write or update) or read."""
    value = VALUE_READ if op == READ else VALUE_WRITTEN
    return Site(sid, line, op, space, buffer, text or f"line {line}", value=value)


def barrier(sid: int, line: int, fences: int = FENCE_LOCAL) -> Site:
    """A barrier site ordering the address spaces ``fences`` names (FENCE_* bits)."""
    names = [
        n
        for bit, n in ((FENCE_LOCAL, "CLK_LOCAL_MEM_FENCE"), (FENCE_GLOBAL, "CLK_GLOBAL_MEM_FENCE"))
        if fences & bit
    ]
    return Site(sid, line, BARRIER, NO_SPACE, -1, f"barrier({' | '.join(names)})", fences)


def grid(global_size: Sequence[int], local_size: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Work-item tables for every work-item of the grid, group by group (x fastest)."""
    gs = (list(global_size) + [1, 1, 1])[:3]
    ls = (list(local_size) + [1, 1, 1])[:3]
    ng = [g // lo for g, lo in zip(gs, ls, strict=True)]
    groups = np.array([(x, y, z) for z, y, x in product(*(range(d) for d in ng[::-1]))])
    locs = np.array([(x, y, z) for z, y, x in product(*(range(d) for d in ls[::-1]))])
    wi_group = np.repeat(groups, len(locs), axis=0).astype(np.int32)
    wi_local = np.tile(locs, (len(groups), 1)).astype(np.int32)
    return wi_group, wi_local


def from_records(
    wi: np.ndarray,
    site_ids: np.ndarray,
    offset: np.ndarray,
    *,
    wi_group: np.ndarray,
    wi_local: np.ndarray,
    buffers: Sequence[BufferInfo],
    sites: Sequence[Site],
    global_size: Sequence[int],
    local_size: Sequence[int],
    size: np.ndarray | None = None,
    wi_count: np.ndarray | None = None,
    capacity: int = 1 << 20,
    not_traced: Sequence[NotTraced] = (),
    output_role: str | None = None,
    groups_traced: Sequence[tuple[int, int, int]] | None = None,
) -> Trace:
    """A trace from per-record arrays already in (work-item, sequence) order. The op, buffer,
    phase and out-of-bounds flag are derived as the recorder would: phase counts the barriers
    the work-item passed before the record."""
    wi = np.asarray(wi, dtype=np.int32)
    site_ids = np.asarray(site_ids, dtype=np.int32)
    offset = np.asarray(offset, dtype=np.int32)  # as the decoder gives them
    W = len(wi_group)
    site_op = np.array([s.op for s in sites], dtype=np.int8)
    site_buf = np.array([s.buffer for s in sites], dtype=np.int16)
    op = site_op[site_ids]
    buffer = site_buf[site_ids]
    if size is None:
        esz = np.array([b.elem_size for b in buffers] + [0], dtype=np.int32)
        size = esz[buffer]
    size = np.asarray(size, dtype=np.int32)
    counts = np.bincount(wi, minlength=W)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    is_bar = (op == BARRIER).astype(np.int64)
    before = np.cumsum(is_bar) - is_bar
    at_start = np.concatenate([[0], np.cumsum(is_bar)])[starts]
    phase = (before - at_start[wi]).astype(np.int32)
    nbytes = np.array([b.elem_size * b.length for b in buffers] + [0], dtype=np.int64)
    oob = (buffer >= 0) & ((offset < 0) | (offset + size > nbytes[buffer]))
    if wi_count is None:
        wi_count = counts
    gs3 = (list(global_size) + [1, 1, 1])[:3]
    ls3 = (list(local_size) + [1, 1, 1])[:3]
    ng = [g // lo for g, lo in zip(gs3, ls3, strict=True)]
    every = [(x, y, z) for z in range(ng[2]) for y in range(ng[1]) for x in range(ng[0])]
    if output_role is not None:  # as the decoder marks them: every other role is an input
        buffers = [
            replace(
                b, is_input=b.is_input or (b.space == GLOBAL and b.role not in (None, output_role))
            )
            for b in buffers
        ]
        # As a family's output (from the sentinel): every element is promised; one the host
        # filled (a histogram's zeros) promises nothing.
        buffers = [
            replace(b, promised=Promise("all", (b.length,), b.elem_size))
            if b.role == output_role and b.space == GLOBAL and not b.host_filled
            else b
            for b in buffers
        ]
    if groups_traced is None:
        present = {tuple(int(v) for v in g) for g in np.asarray(wi_group)}
        groups_traced = [g for g in every if g in present]
    return Trace(
        offset=offset,
        word=pack_words(site_ids, phase, buffer, oob, size),
        kept=counts.astype(np.int64),
        wi_group=np.asarray(wi_group, dtype=np.int32),
        wi_local=np.asarray(wi_local, dtype=np.int32),
        wi_count=np.asarray(wi_count, dtype=np.int64),
        buffers=tuple(buffers),
        sites=tuple(sites),
        global_size=tuple(global_size),
        local_size=tuple(local_size),
        groups_traced=tuple(tuple(g) for g in groups_traced),
        dispatch_order=tuple(every),
        capacity=capacity,
        not_traced=tuple(not_traced),
        output_role=output_role,
    )


def build_trace(
    work_items: Sequence[tuple[Sequence[int], Sequence[int], Sequence[tuple[int, ...]]]],
    **kw,
) -> Trace:
    """A trace from ``[(group, local, accesses), ...]``; an access is ``(site,)`` for a barrier
    or fence, ``(site, byte_offset)`` or ``(site, byte_offset, size)``. ``element`` offsets are
    the caller's business: multiply by the element size."""
    wi, sid, off, size = [], [], [], []
    sites = kw["sites"]
    buffers = kw["buffers"]
    for w, (_, _, accesses) in enumerate(work_items):
        for a in accesses:
            s = sites[a[0]]
            wi.append(w)
            sid.append(a[0])
            off.append(a[1] if len(a) > 1 else 0)
            if len(a) > 2:
                size.append(a[2])
            elif s.buffer >= 0:
                size.append(buffers[s.buffer].elem_size)
            else:
                size.append(0)
    wi_group = np.array(
        [(list(g) + [0, 0, 0])[:3] for g, _, _ in work_items], dtype=np.int32
    ).reshape(-1, 3)
    wi_local = np.array(
        [(list(lo) + [0, 0, 0])[:3] for _, lo, _ in work_items], dtype=np.int32
    ).reshape(-1, 3)
    return from_records(
        np.array(wi, dtype=np.int32),
        np.array(sid, dtype=np.int32),
        np.array(off),
        size=np.array(size, dtype=np.int32),
        wi_group=wi_group,
        wi_local=wi_local,
        **kw,
    )


def _uniform(pattern_sites: np.ndarray, offsets: np.ndarray, **kw) -> Trace:
    """Every work-item runs the same site sequence; ``offsets`` is (W, L) bytes."""
    W, L = offsets.shape
    wi = np.repeat(np.arange(W, dtype=np.int32), L)
    sids = np.tile(pattern_sites.astype(np.int32), W)
    return from_records(wi, sids, offsets.ravel(), **kw)


def matmul_naive(N: int, local: tuple[int, int] = (16, 16)) -> Trace:
    """C = A·B, one work-item per element of C, each reading a row of A and a column of B."""
    buffers = [
        buf("A", GLOBAL, N * N, "A"),
        buf("B", GLOBAL, N * N, "B"),
        buf("C", GLOBAL, N * N, "C"),
    ]
    sites = [
        site(0, 8, READ, GLOBAL, 0, "A[row*N + k]"),
        site(1, 8, READ, GLOBAL, 1, "B[k*N + col]"),
        site(2, 10, WRITE, GLOBAL, 2, "C[row*N + col]"),
    ]
    wi_group, wi_local = grid((N, N), local)
    col = wi_group[:, 0].astype(np.int64) * local[0] + wi_local[:, 0]
    row = wi_group[:, 1].astype(np.int64) * local[1] + wi_local[:, 1]
    k = np.arange(N)
    a = (row[:, None] * N + k[None, :]) * 4
    b = (k[None, :] * N + col[:, None]) * 4
    offs = np.concatenate(
        [np.stack([a, b], axis=2).reshape(len(row), 2 * N), ((row * N + col) * 4)[:, None]], axis=1
    )
    pattern = np.array([0, 1] * N + [2])
    return _uniform(
        pattern,
        offs,
        wi_group=wi_group,
        wi_local=wi_local,
        buffers=buffers,
        sites=sites,
        global_size=(N, N),
        local_size=local,
        output_role="C",
    )


def matmul_tiled(N: int, TS: int, barriers: bool = True) -> Trace:
    """The classic local-memory tiled matmul (TS×TS tiles, one work-item per element of C):

        line 10  As[ly][lx] = A[row*N + t*TS + lx];
        line 11  Bs[ly][lx] = B[(t*TS + ly)*N + col];
        line 12  barrier(CLK_LOCAL_MEM_FENCE);
        line 14  acc += As[ly][k] * Bs[k][lx];        (k = 0 .. TS-1)
        line 16  barrier(CLK_LOCAL_MEM_FENCE);
        line 18  C[row*N + col] = acc;

    With ``barriers=False`` both barriers are left out (the classic bug)."""
    T = N // TS
    buffers = [
        buf("A", GLOBAL, N * N, "A"),
        buf("B", GLOBAL, N * N, "B"),
        buf("C", GLOBAL, N * N, "C"),
        buf("As", LOCAL, TS * TS, shape=(TS, TS)),
        buf("Bs", LOCAL, TS * TS, shape=(TS, TS)),
    ]
    sites = [
        site(0, 10, READ, GLOBAL, 0, "A[row*N + t*TS + lx]"),
        site(1, 11, READ, GLOBAL, 1, "B[(t*TS + ly)*N + col]"),
        site(2, 10, WRITE, LOCAL, 3, "As[ly][lx]"),
        site(3, 11, WRITE, LOCAL, 4, "Bs[ly][lx]"),
        barrier(4, 12),
        site(5, 14, READ, LOCAL, 3, "As[ly][k]"),
        site(6, 14, READ, LOCAL, 4, "Bs[k][lx]"),
        barrier(7, 16),
        site(8, 18, WRITE, GLOBAL, 2, "C[row*N + col]"),
    ]
    wi_group, wi_local = grid((N, N), (TS, TS))
    W = len(wi_group)
    lx = wi_local[:, 0].astype(np.int64)
    ly = wi_local[:, 1].astype(np.int64)
    col = wi_group[:, 0].astype(np.int64) * TS + lx
    row = wi_group[:, 1].astype(np.int64) * TS + ly
    t = np.arange(T)[None, :]
    k = np.arange(TS)[None, None, :]
    zero = np.zeros((W, T), dtype=np.int64)
    head = [
        (row[:, None] * N + t * TS + lx[:, None]) * 4,
        zero + (ly * TS + lx)[:, None] * 4,
        ((t * TS + ly[:, None]) * N + col[:, None]) * 4,
        zero + (ly * TS + lx)[:, None] * 4,
    ]
    head_sites = [0, 2, 1, 3]
    if barriers:
        head.append(zero)
        head_sites.append(4)
    tiles = np.zeros((1, T, 1), dtype=np.int64)
    inner = np.stack(
        np.broadcast_arrays(
            (ly[:, None, None] * TS + k) * 4 + tiles, (k * TS + lx[:, None, None]) * 4 + tiles
        ),
        axis=3,
    )
    parts = [np.stack(head, axis=2), inner.reshape(W, T, 2 * TS)]
    inner_sites = [5, 6] * TS
    tail_sites: list[int] = []
    if barriers:
        parts.append(zero[:, :, None])
        tail_sites = [7]
    offs = np.concatenate(parts, axis=2).reshape(W, -1)
    offs = np.concatenate([offs, ((row * N + col) * 4)[:, None]], axis=1)
    pattern = np.array((head_sites + inner_sites + tail_sites) * T + [8])
    return _uniform(
        pattern,
        offs,
        wi_group=wi_group,
        wi_local=wi_local,
        buffers=buffers,
        sites=sites,
        global_size=(N, N),
        local_size=(TS, TS),
        output_role="C",
    )


def transpose_naive(N: int, local: tuple[int, int] = (32, 4)) -> Trace:
    """out[x*N + y] = in[y*N + x] with x the fast global id: reads along rows of ``in``,
    writes down columns of ``out``."""
    buffers = [buf("in", GLOBAL, N * N, "A"), buf("out", GLOBAL, N * N, "B")]
    sites = [
        site(0, 5, READ, GLOBAL, 0, "in[y*N + x]"),
        site(1, 5, WRITE, GLOBAL, 1, "out[x*N + y]"),
    ]
    wi_group, wi_local = grid((N, N), local)
    x = wi_group[:, 0].astype(np.int64) * local[0] + wi_local[:, 0]
    y = wi_group[:, 1].astype(np.int64) * local[1] + wi_local[:, 1]
    offs = np.stack([(y * N + x) * 4, (x * N + y) * 4], axis=1)
    return _uniform(
        np.array([0, 1]),
        offs,
        wi_group=wi_group,
        wi_local=wi_local,
        buffers=buffers,
        sites=sites,
        global_size=(N, N),
        local_size=local,
        output_role="B",
    )


def tile_column_read(stride: int, local: tuple[int, int] = (32, 32)) -> Trace:
    """Each work-item fills tile[ly][lx], waits at a barrier, then reads tile[lx][ly] (a
    column, since lx is the fast id); the tile's rows are ``stride`` floats apart."""
    lx_n, ly_n = local
    rows = max(lx_n, ly_n)
    buffers = [
        buf("out", GLOBAL, lx_n * ly_n, "B"),
        buf("tile", LOCAL, rows * stride, shape=(rows, stride)),
    ]
    sites = [
        site(0, 6, WRITE, LOCAL, 1, "tile[ly][lx]"),
        barrier(1, 7),
        site(2, 8, READ, LOCAL, 1, "tile[lx][ly]"),
        site(3, 8, WRITE, GLOBAL, 0, "out[gid]"),
    ]
    wi_group, wi_local = grid(local, local)
    lx = wi_local[:, 0].astype(np.int64)
    ly = wi_local[:, 1].astype(np.int64)
    offs = np.stack(
        [(ly * stride + lx) * 4, lx * 0, (lx * stride + ly) * 4, (ly * lx_n + lx) * 4], axis=1
    )
    return _uniform(
        np.array([0, 1, 2, 3]),
        offs,
        wi_group=wi_group,
        wi_local=wi_local,
        buffers=buffers,
        sites=sites,
        global_size=local,
        local_size=local,
        output_role="B",
    )
