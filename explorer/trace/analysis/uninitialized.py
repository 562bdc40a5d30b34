"""Finding: reads of memory that no work-item had written before: local memory not written in
an earlier epoch (see ``memory_model``) or earlier in the reader's own sequence, such as a sum[]
read before it was set to zero; elements of a ``__global`` buffer that is not an input (an
output) read before anything in the launch wrote them; and elements of a private array the
reading work-item had not written (an accumulator never zeroed), which the kernel itself
recorded (``ROLE_UNSET`` records, instrument/shadows.py)."""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from explorer.trace.analysis import keyscan, local_memory
from explorer.trace.analysis.context import BARRIER_RULE, EXAMPLES, LOADS, Context, ordered
from explorer.trace.analysis.detector import Category, Detector, several, span
from explorer.trace.analysis.units import Unit, Units
from explorer.trace.recorded import (
    GLOBAL,
    ROLE_UNSET,
    SITE_MASK,
    BufferInfo,
    Finding,
    Trace,
    word_buffer,
    word_phase,
)

KIND = "uninitialized"
PRIVATE = "private"  # the subkind of a private array's unwritten elements


@dataclass
class _Site:
    buffer: int
    count: int = 0
    phase: int | None = None
    wis: list[int] = field(default_factory=list)
    elements: list[int] = field(default_factory=list)
    # Where a buffer's cells are narrower than its elements (a double's two 4-byte cells,
    # scanned one cell at a time): each read's (unit, position) and element, counted once.
    reads: list[np.ndarray] = field(default_factory=list)


class _Uninit:
    """Collects reads of local memory that no work-item had written, one finding per site."""

    def __init__(self, ctx: Context, bases: dict[int, int], LW: int, scale: int = 1) -> None:
        self.ctx = ctx
        self.scale = scale  # each read stands for this many (one per work-group)
        self.found: dict[int, _Site] = {}
        # A key's cell in its buffer: key % LW - bases[buffer] (local_memory.LocalScan).
        self.bases, self.LW = bases, max(1, LW)
        self.units: dict[int, int] = {}  # a unit's number, by its id

    def add(self, u: Unit, pos: np.ndarray, keys: np.ndarray) -> None:
        """Take uninitialised reads of ``u`` that the trace is sure of (``keyscan.OnUninit``)."""
        ctx = self.ctx
        phase = u.phase[pos]
        if ctx.safe_phase is not None:
            ok = phase < ctx.safe_phase[ctx.gdense[u.wi[pos]]]
            pos, phase, keys = pos[ok], phase[ok], keys[ok]
            if pos.size == 0:
                return
        e = self.found.setdefault(u.site, _Site(u.buffer))
        es = max(1, ctx.trace.buffers[u.buffer].elem_size)
        cell_bytes = ctx.cell_bytes(u.buffer)
        if cell_bytes >= es:
            e.count += int(pos.size) * self.scale
        else:  # the count is of elements read: a double's two cells count once
            unit = self.units.setdefault(id(u), len(self.units))
            cell = keys.astype(np.int64) % self.LW - self.bases.get(u.buffer, 0)
            e.reads.append(np.column_stack((np.full(pos.size, unit), pos, cell * cell_bytes // es)))
        p = int(phase.min())
        e.phase = p if e.phase is None else min(e.phase, p)
        if len(e.wis) < EXAMPLES:
            e.wis += u.wi[pos[:EXAMPLES]].tolist()
            # The element of the bytes read unwritten, not where the read starts: of a vload3
            # whose x and y were written, the z's.
            es = max(1, ctx.trace.buffers[u.buffer].elem_size)
            cell = keys[:EXAMPLES].astype(np.int64) % self.LW - self.bases.get(u.buffer, 0)
            e.elements += (cell * ctx.cell_bytes(u.buffer) // es).tolist()

    def findings(self) -> list[Finding]:
        """One finding per reading site."""
        out = []
        for sid, e in self.found.items():
            if e.reads:
                reads = np.unique(np.concatenate(e.reads).astype(np.int64), axis=0)
                e.count += int(reads.shape[0]) * self.scale
            s = self.ctx.trace.sites[sid]
            info = self.ctx.trace.buffers[e.buffer]
            name = info.name
            shown = tuple(dict.fromkeys(e.elements))[:EXAMPLES]
            named = ", ".join(_element(name, info.shape, el) for el in shown)
            if self.ctx.space(e.buffer) == GLOBAL:
                message = (
                    f"line {s.line} reads {name}[], an output, before anything in this launch "
                    f"wrote it (e.g. {named}): it holds whatever the buffer held before. "
                    "Write it first (or make it an input the host fills)"
                )
            else:
                message = (
                    f"line {s.line} reads {name}[] before any work-item wrote it (phase "
                    f"{e.phase}; e.g. {named}): write it first, with a "
                    "barrier(CLK_LOCAL_MEM_FENCE) between the writes and the reads that every "
                    "work-item of the group reaches (never inside a branch only some take)"
                )
            out.append(
                Finding(
                    kind=KIND,
                    line=s.line,
                    phase=e.phase,
                    buffer=name,
                    work_items=self.ctx.labels(e.wis),
                    count=e.count,
                    elements=shown,
                    message=message,
                )
            )
        return out


def find(ctx: Context, units: Units) -> list[Finding]:
    """One finding per reading site: local memory from the shared local-memory pass, then
    the outputs (global buffers that are not inputs)."""
    scanned = local_memory.scan(ctx, units)
    uninit = _Uninit(ctx, scanned.bases, scanned.LW, scanned.scale)
    for batch in scanned.batches:
        for u, pos, keys in batch.uninitialised:
            uninit.add(u, pos, keys)
    local = uninit.findings()
    return ordered(local + _outputs(ctx, units) + _private(ctx))


def _outputs(ctx: Context, units: Units) -> list[Finding]:
    """Reads of output elements that no work-item wrote before, in the whole launch. Only
    judged when the whole launch was recorded (every group, nothing lost): a write by a
    work-group outside the trace would make the read right."""
    t = ctx.trace
    gx, gy, gz = t.num_groups
    if t.output_role is None:
        return []  # which buffers are inputs is known only beside the output's role
    if len(t.groups_traced) != gx * gy * gz or not t.complete or ctx.overflowed.size:
        return []
    uninit = _Uninit(ctx, {}, 1)
    for b, info in enumerate(t.buffers):
        if info.space != GLOBAL or info.is_input or info.host_filled:
            continue
        ub = [u for u in units.memory if u.buffer == b and u.m]
        if not any(u.op in LOADS for u in ub):
            continue
        size = ctx.cell_count(b)
        uninit.bases[b], uninit.LW = 0, size
        jobs = [keyscan.Job(u, partial(_word_keys, u)) for u in ub]
        # Races are the race detector's (with work-groups as actors); here only which
        # work-items wrote each word, and when, matters.
        found = partial(local_memory.but_padding, ctx, {b: 0}, size, uninit.add)
        keyscan.scan(ctx, jobs, size, None, _ignore_races, found)
    return uninit.findings()


def _word_keys(u: Unit) -> Iterator[tuple[np.ndarray | None, np.ndarray]]:
    yield from u.key_cells()


def _ignore_races(u: Unit, pos: np.ndarray, keys: np.ndarray, partner: np.ndarray) -> None:
    """Races found while looking for uninitialised reads are reported by ``races``."""


def _private(ctx: Context) -> list[Finding]:
    """Reads of private array elements the work-item had not written: one finding per
    reading site. Each record is one element one work-item read unwritten (the first time)."""
    t = ctx.trace
    ids = [s.id for s in t.sites if s.role == ROLE_UNSET]
    if not ids or t.records == 0:
        return []
    unset = np.zeros(SITE_MASK + 1, dtype=bool)
    unset[ids] = True
    rows = np.flatnonzero(unset[t.word & SITE_MASK])  # the packed words: no column made
    out = []
    sites = t.word[rows] & SITE_MASK
    for sid, buffer, mine in _by_array(t, ids, rows, sites):
        s = t.sites[sid]
        info = t.buffers[buffer]
        wi = t.wi[mine]
        offsets = t.offset[mine].astype(np.int64)
        elements = offsets // max(1, info.elem_size)
        first = dict.fromkeys(int(e) for e in elements[: 64 * EXAMPLES])
        shown = list(first)[:EXAMPLES]
        parts = _components(
            info, offsets[: 64 * EXAMPLES], t.sizes_of(t.word[mine[: 64 * EXAMPLES]])
        )
        named = ", ".join(_element(info.name, info.shape, e) + parts.get(e, "") for e in shown)
        nwi = int(np.unique(wi).size)
        nel = int(np.unique(elements).size)
        more = " and others" if nel > len(shown) else ""
        who = "1 work-item" if nwi == 1 else f"{nwi} work-items"
        what = "1 element" if nel == 1 else f"{nel} elements"
        message = (
            f"line {s.line} reads {named}{more} of the private array {info.name} before the "
            f"work-item wrote it ({who}, {what}): a private array starts with indeterminate "
            "values (a GPU gives whatever its registers held; a CPU often zeros, which hides "
            f"the bug). Write every element first (`= {{0}}` where {info.name.split('.')[0]} "
            "is declared, "
            "or a loop that sets each one)"
        )
        out.append(
            Finding(
                kind=KIND,
                line=s.line,
                phase=int(word_phase(t.word[mine]).min()),
                buffer=info.name,
                work_items=ctx.labels(wi),
                count=int(mine.size),
                elements=tuple(shown),
                message=message,
                subkind=PRIVATE,
            )
        )
    return out


def _by_array(
    t: Trace, ids: list[int], rows: np.ndarray, sites: np.ndarray
) -> Iterator[tuple[int, int, np.ndarray]]:
    """The records of each site by the array they read: the site's own, or, at a site in a
    helper that calls give different arrays, the one each record names."""
    for sid in ids:
        mine = rows[sites == sid]
        if mine.size == 0:
            continue
        if t.sites[sid].buffer >= 0:
            yield sid, t.sites[sid].buffer, mine
            continue
        named = word_buffer(t.word[mine])
        for b in np.unique(named):
            if 0 <= b < len(t.buffers):
                yield sid, int(b), mine[named == b]


def _components(info: BufferInfo, offsets: np.ndarray, sizes: np.ndarray) -> dict[int, str]:
    """Of an array of vectors: the component (``.y``, ``.s5``) each element's first record
    read unwritten, where it read one alone."""
    if not info.components:
        return {}
    stored = 4 if info.components == 3 else info.components
    scalar = info.elem_size // stored
    named: dict[int, str] = {}
    for off, size in zip(offsets.tolist(), sizes.tolist(), strict=True):
        element = off // info.elem_size
        if element in named or scalar <= 0 or size != scalar:
            named.setdefault(element, "")
            continue
        c = (off % info.elem_size) // scalar
        named[element] = f".{'xyzw'[c]}" if stored <= 4 else f".s{c:x}"
    return named


def _element(name: str, shape: tuple[int, ...], flat: int) -> str:
    """``a[3]``, or ``m[1][2]`` for an element of a 2-D array, by its flat index."""
    if len(shape) <= 1:
        return f"{name}[{flat}]"
    index = np.unravel_index(flat, shape)
    return name + "".join(f"[{int(i)}]" for i in index)


def same_cause(f: Finding) -> Hashable:
    """Reads of one buffer before anything wrote it: one missing write (or barrier)."""
    return (f.buffer, f.subkind)


def cause(findings: Sequence[Finding]) -> str:
    """A buffer read before anything wrote it, in words."""
    buf = findings[0].buffer or ""
    if findings[0].subkind == PRIVATE:
        return (
            f"The private array {buf} is read where the work-item never wrote it, on "
            f"{span(findings)}{several(findings)}."
        )
    return f"{buf} is read before anything wrote it, on {span(findings)}{several(findings)}."


def advice(findings: Sequence[Finding]) -> str:
    """What to do once about reads before any write."""
    if findings[0].subkind == PRIVATE:
        declared = (findings[0].buffer or "").split(".")[0]
        return (
            "Give every element a value before reading it: `= {0}` where "
            f"{declared} is declared, or a loop that sets each one first. A private array "
            "starts with indeterminate values; no barrier or other work-item can fill it."
        )
    return (
        "Write every element before any work-item reads it; in local memory, put a "
        f"barrier(CLK_LOCAL_MEM_FENCE) between the writes and the reads. {BARRIER_RULE}"
    )


DETECTOR = Detector(
    KIND,
    find,
    order=60,
    category=Category.BUG,
    cause=cause,
    advice=advice,
    same_cause=same_cause,
)
