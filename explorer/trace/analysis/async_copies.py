"""Races through async copies still in flight.

An ``async_work_group_copy`` is one operation of the whole work-group: it may move its elements
at any time from the call until a ``wait_group_events`` for its event (a barrier does not wait
for it). Any access by a work-item of the group to an element the copy writes, or a write to
one it reads, in that span (or in the barrier interval of the call, before it) is unordered
with the copy: a race, whichever work-item the trace happened to record the copy's element
with. Races between work-groups through copies are the race scan's, like any access's.

The runtime records each copied element as a read of the source and a write of the
destination (sites of role ``ROLE_COPY``) and which event the copy returns; each work-item
records the waits it passes and the events each names. A wait completes the copies whose
event it names (several copies may share one event); where the trace could not follow an
event (stored in no plain variable), it falls back to a wait completing every copy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from explorer.trace.analysis.context import EXAMPLES, VERB, WRITES, Context
from explorer.trace.recorded import (
    ATOMIC,
    READ,
    RMW,
    ROLE_COPY,
    ROLE_COPY_EVENT,
    ROLE_WAIT,
    ROLE_WAIT_EVENT,
    WRITE,
    Finding,
)

KIND = "race"
SUBKIND = "copy-in-flight"
_MEMORY = (READ, WRITE, RMW, ATOMIC)
_MEMO_KEY = "async-copies"
_COPIES_KEY = "async-copies-rows"


def copy_sites(ctx: Context) -> np.ndarray:
    """The ids of the sites of the elements async copies move."""
    return np.array(
        [s.id for s in ctx.trace.sites if s.role == ROLE_COPY and s.op in (READ, WRITE)],
        dtype=np.int64,
    )


@dataclass
class _Conflict:
    write: bool  # the copy writes the element (its destination); else it reads it
    phase: int
    never_waited: bool
    passed_wait: int  # the line of a wait the group passed that did not name the copy's event
    wis: list[int] = field(default_factory=list)
    elements: set[int] = field(default_factory=set)
    keys: int = 0  # distinct (group, cell) pairs


def in_flight(ctx: Context) -> list[Finding]:
    """Accesses of a work-group to what one of its copies moves while the copy may be in
    flight (kept per analysis)."""
    kept = ctx.memo.get(_MEMO_KEY)
    if isinstance(kept, list):
        return kept
    found = _scan(ctx)
    ctx.memo[_MEMO_KEY] = found
    return found


def _keys(
    ctx: Context, role: str, group: np.ndarray, phase: np.ndarray, P: int
) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the sites of `role` and their (group, phase) keys."""
    ids = [s.id for s in ctx.trace.sites if s.role == role]
    rows = np.flatnonzero(np.isin(ctx.trace.site, ids))
    return rows, group[rows] * P + phase[rows]


def _first_at_or_after(keys: np.ndarray, start: np.ndarray, P: int) -> np.ndarray:
    """Per start key, the phase of the first of the sorted `keys` at or after it in the same
    group; P where there is none."""
    if keys.size == 0:
        return np.full(start.size, P, dtype=np.int64)
    at = np.minimum(np.searchsorted(keys, start), keys.size - 1)
    hit = (keys[at] >= start) & (keys[at] // P == start // P)
    return np.where(hit, keys[at] % P, P)


def _ends(ctx: Context, ci: np.ndarray, group: np.ndarray, phase: np.ndarray, P: int) -> np.ndarray:
    """The phase in which each copy row's copy ends: the first wait of its group that names
    its event (P where none does). A copy whose event is not known ends at any wait, and a
    wait that names an event not known ends every copy."""
    t = ctx.trace
    offs = t.offset.astype(np.int64)
    start = group[ci] * P + phase[ci]
    _, wkeys = _keys(ctx, ROLE_WAIT, group, phase, P)
    erows, _ = _keys(ctx, ROLE_COPY_EVENT, group, phase, P)
    k = np.searchsorted(erows, ci, side="right") - 1
    known = k >= 0
    k = np.maximum(k, 0)
    if erows.size:
        known &= t.wi[erows[k]] == t.wi[ci]
        event = np.where(known, offs[erows[k]], 0)
    else:
        event = np.zeros(ci.size, dtype=np.int64)
    nrows, nkeys = _keys(ctx, ROLE_WAIT_EVENT, group, phase, P)
    named = offs[nrows] > 0
    any_wait = np.unique(wkeys)
    wildcard = np.union1d(np.setdiff1d(any_wait, nkeys[named]), nkeys[~named])
    end = _first_at_or_after(wildcard, start, P)
    end = np.where(event == 0, _first_at_or_after(any_wait, start, P), end)
    span = (int(group.max()) + 1) * P
    pairs = np.unique(offs[nrows[named]] * span + nkeys[named])
    by_event = _first_at_or_after(pairs, event * span + start, P)  # same event and group
    return np.where(event > 0, np.minimum(end, by_event), end)


@dataclass
class _Copies:
    """What the passes over copies share: every record's columns, which rows are copied
    elements (``ci``) and, per such row, the phase its copy ends in (``end``, ``P`` where no
    wait of its group ends it)."""

    usable: np.ndarray
    is_copy: np.ndarray
    ci: np.ndarray
    end: np.ndarray
    site: np.ndarray
    ops: np.ndarray
    buffer: np.ndarray
    group: np.ndarray
    phase: np.ndarray
    sizes: np.ndarray
    offs: np.ndarray
    P: int


def _copies(ctx: Context) -> _Copies | None:
    """The copied elements of the trace (kept per analysis), or None where there are none."""
    kept = ctx.memo.get(_COPIES_KEY, False)
    if kept is not False:
        return kept if isinstance(kept, _Copies) else None
    made = _find_copies(ctx)
    ctx.memo[_COPIES_KEY] = made
    return made


def _find_copies(ctx: Context) -> _Copies | None:
    t = ctx.trace
    copies = copy_sites(ctx)
    if copies.size == 0 or t.records == 0:
        return None
    site = t.site.astype(np.int64)
    ops = t.site_ops()[site]
    buffer = t.buffer.astype(np.int64)
    usable = (buffer >= 0) & ~t.oob & np.isin(ops, _MEMORY) & ctx.ok_wi[t.wi]
    is_copy = usable & np.isin(site, copies)
    if not is_copy.any():
        return None
    group = ctx.gdense[t.wi]
    phase = t.phase.astype(np.int64)
    P = int(phase.max()) + 2
    ci = np.flatnonzero(is_copy)
    end = _ends(ctx, ci, group, phase, P)
    sizes = t.size.astype(np.int64)
    offs = t.offset.astype(np.int64)
    return _Copies(usable, is_copy, ci, end, site, ops, buffer, group, phase, sizes, offs, P)


def _cells(
    s: _Copies, rows: np.ndarray, cell: int, lo: int, span: int, nb: int
) -> tuple[np.ndarray, np.ndarray]:
    """(row, key) per cell each record covers; key = (group, buffer, cell)."""
    n = s.sizes[rows] // cell
    rep = np.repeat(rows, n)
    within = np.arange(rep.size) - np.repeat(np.cumsum(n) - n, n)
    c = s.offs[rep] // cell + within - lo
    return rep, (s.group[rep] * nb + s.buffer[rep]) * span + c


def _layout(s: _Copies, rows: np.ndarray) -> tuple[int, int, int]:
    """The cell (bytes), the first cell and the number of cells that cover ``rows``."""
    sizes, offs = s.sizes[rows], s.offs[rows]
    cell = int(np.gcd.reduce(np.concatenate([sizes, offs])))
    cell = max(1, cell) if cell else 1
    lo = int(offs.min()) // cell
    hi = int((offs + sizes).max()) // cell
    return cell, lo, hi - lo + 1


def _scan(ctx: Context) -> list[Finding]:
    s = _copies(ctx)
    if s is None:
        return []
    t = ctx.trace
    site, ops, buffer, group, phase, P = s.site, s.ops, s.buffer, s.group, s.phase, s.P
    ci, end = s.ci, s.end
    waited = end < P
    wrows, wkeys = _keys(ctx, ROLE_WAIT, group, phase, P)
    lines = [t.sites[i].line for i in site[wrows].tolist()]
    wait_line = dict(zip(wkeys.tolist(), lines, strict=True))
    found = _between_copies(ctx, s, wait_line)
    touched = np.unique(buffer[ci])
    pi = np.flatnonzero(s.usable & ~s.is_copy & np.isin(buffer, touched))
    if pi.size == 0:
        return found
    offs = s.offs
    cell, lo, span = _layout(s, np.concatenate([ci, pi]))
    nb = len(t.buffers)
    crow, ckey = _cells(s, ci, cell, lo, span, nb)
    where_in_ci = np.searchsorted(ci, crow)
    order = np.argsort(ckey, kind="stable")
    crow, ckey, where_in_ci = crow[order], ckey[order], where_in_ci[order]
    prow, pkey = _cells(s, pi, cell, lo, span, nb)
    first = np.searchsorted(ckey, pkey, side="left")
    last = np.searchsorted(ckey, pkey, side="right")
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # other row, copy row, key
    for j in range(int((last - first).max()) if pkey.size else 0):
        has = np.flatnonzero(first + j < last)
        if has.size == 0:
            break
        m = first[has] + j
        r, c = prow[has], crow[m]
        w = where_in_ci[m]
        inside = (phase[r] >= phase[c]) & (phase[r] <= end[w])
        bad = np.flatnonzero(inside & ((ops[c] == WRITE) | np.isin(ops[r], WRITES)))
        if bad.size:
            parts.append((r[bad], c[bad], pkey[has[bad]]))
    if not parts:
        return found
    r = np.concatenate([p[0] for p in parts])
    c = np.concatenate([p[1] for p in parts])
    keys = np.concatenate([p[2] for p in parts])
    never = ~waited[np.searchsorted(ci, c)]
    # the first wait the group passed after the copy started, where it did not end the copy
    passed = _first_at_or_after(np.unique(wkeys), group[c] * P + phase[c], P)
    passed = np.where((passed < phase[r]) & (passed < end[np.searchsorted(ci, c)]), passed, P)
    pair = (site[c] * len(t.sites) + site[r]) * nb + buffer[r]
    conflicts: dict[tuple[int, int, int], _Conflict] = {}
    for code in np.unique(pair).tolist():
        sel = np.flatnonzero(pair == code)
        copy_site, rest = divmod(int(code), len(t.sites) * nb)
        other_site, b = divmod(rest, nb)
        elem = max(1, t.buffers[b].elem_size)
        conflicts[(copy_site, other_site, b)] = _Conflict(
            write=bool(ops[c[sel[0]]] == WRITE),
            phase=int(phase[r[sel]].min()),
            never_waited=bool(never[sel].any()),
            passed_wait=min(
                (wait_line[int(group[c[i]]) * P + int(passed[i])] for i in sel if passed[i] < P),
                default=0,
            ),
            wis=list(dict.fromkeys(t.wi[r[sel]].tolist()))[:EXAMPLES],
            elements=set(np.unique(offs[r[sel]] // elem)[:EXAMPLES].tolist()),
            keys=int(np.unique(keys[sel]).size),
        )
    return [_finding(ctx, key, e) for key, e in sorted(conflicts.items())] + found


# Pairs of copied elements looked at per cell: copies of one cell beyond this many in one
# work-group are more of the same.
_PAIRS_PER_CELL = 8


def _between_copies(ctx: Context, s: _Copies, wait_line: dict[int, int]) -> list[Finding]:
    """Two copies of one work-group in flight at once over the same elements, at least one
    writing them (a copy into a span another is still filling or reading)."""
    t = ctx.trace
    ci = s.ci
    cell, lo, span = _layout(s, ci)
    nb = len(t.buffers)
    row, key = _cells(s, ci, cell, lo, span, nb)
    order = np.argsort(key, kind="stable")
    row, key = row[order], key[order]
    at = np.searchsorted(ci, row)
    parts: list[tuple[np.ndarray, np.ndarray]] = []  # earlier row's index in ci, later's
    for j in range(1, _PAIRS_PER_CELL + 1):
        if key.size <= j:
            break
        same = np.flatnonzero(key[:-j] == key[j:])
        if same.size == 0:
            break
        a, b = at[same], at[same + j]
        ra, rb = ci[a], ci[b]
        writes = (s.ops[ra] == WRITE) | (s.ops[rb] == WRITE)
        both = (s.phase[rb] <= s.end[a]) & (s.phase[ra] <= s.end[b])
        bad = np.flatnonzero(writes & both)
        if bad.size:
            parts.append((a[bad], b[bad]))
    if not parts:
        return []
    a = np.concatenate([p[0] for p in parts])
    b = np.concatenate([p[1] for p in parts])
    # Order each pair by line: the copy on the earlier line first.
    line_of = np.array([x.line for x in t.sites] + [0], dtype=np.int64)
    swap = line_of[s.site[ci[b]]] < line_of[s.site[ci[a]]]
    a, b = np.where(swap, b, a), np.where(swap, a, b)
    ra, rb = ci[a], ci[b]
    code = (s.site[ra] * len(t.sites) + s.site[rb]) * nb + s.buffer[ra]
    out = []
    for c in np.unique(code).tolist():
        sel = np.flatnonzero(code == c)
        first_site, rest = divmod(int(c), len(t.sites) * nb)
        second_site, bnum = divmod(rest, nb)
        elem = max(1, t.buffers[bnum].elem_size)
        never = bool((s.end[a[sel]] >= s.P).any() or (s.end[b[sel]] >= s.P).any())
        wis = list(dict.fromkeys(t.wi[np.concatenate([ra[sel], rb[sel]])].tolist()))
        out.append(
            _overlap_finding(
                ctx,
                (first_site, second_site, bnum),
                int(min(s.phase[ra[sel]].min(), s.phase[rb[sel]].min())),
                never,
                wis[:EXAMPLES],
                np.unique(s.offs[ra[sel]] // elem)[:EXAMPLES].tolist(),
                int(np.unique(key[np.isin(row, ra[sel])]).size),
            )
        )
    return out


def _overlap_finding(
    ctx: Context,
    key: tuple[int, int, int],
    phase: int,
    never: bool,
    wis: list[int],
    elements: list[int],
    count: int,
) -> Finding:
    first, second, b = key
    sites = ctx.trace.sites
    l1, l2 = sites[first].line, sites[second].line
    name = ctx.trace.buffers[b].name
    verb = {WRITE: "writes", READ: "reads"}
    if first == second:
        what = (
            f"the async copy on line {l1}, called again before a wait_group_events for the "
            f"call before, {verb[sites[first].op]} the same elements of {name}[] while that "
            "call may still be moving them"
        )
        fix = f"wait for each call's event before the next call on line {l1} starts"
    else:
        what = (
            f"the async copy on line {l1} {verb[sites[first].op]} {name}[] and the async copy "
            f"on line {l2} {verb[sites[second].op]} the same elements while both may be in "
            "flight"
        )
        fix = (
            f"wait for the copy on line {l1} (wait_group_events with its event, in every "
            f"work-item of the group) before the copy on line {l2} starts, or give the copies "
            "spans of their own"
        )
    never_text = " and nothing waits for them" if never else ""
    msg = (
        f"Race on {name} in phase {phase}: {what} (a copy is in flight until a "
        f"wait_group_events for its event){never_text}. To fix: {fix}."
    )
    return Finding(
        kind=KIND,
        line=min(l1, l2),
        phase=phase,
        buffer=name,
        work_items=ctx.labels(wis),
        count=count,
        message=msg,
        elements=tuple(sorted(elements))[:EXAMPLES],
        subkind=SUBKIND,
        other_lines=(l1, l2),
    )


@dataclass(frozen=True)
class Unwaited:
    """A copy that some work-groups never waited for: its line, its destination, how many
    groups, a few of their work-items."""

    line: int
    destination: int  # buffer
    source: int  # buffer, -1 where the trace has none
    groups: int
    wis: tuple[int, ...]


def unwaited(ctx: Context) -> list[Unwaited]:
    """The copies (per line and destination) that work-groups never waited for: no
    wait_group_events that names their event (or any, where the event is not known) came
    after them before the kernel ended."""
    s = _copies(ctx)
    if s is None:
        return []
    t = ctx.trace
    never = s.ci[(s.end >= s.P) & (s.ops[s.ci] == WRITE)]
    if never.size == 0:
        return []
    out = []
    line_of = np.array([x.line for x in t.sites] + [0], dtype=np.int64)
    code = line_of[s.site[never]] * (len(t.buffers) + 1) + s.buffer[never]
    for c in np.unique(code).tolist():
        sel = never[code == c]
        line, b = divmod(int(c), len(t.buffers) + 1)
        reads = s.ci[(s.ops[s.ci] == READ) & (line_of[s.site[s.ci]] == line)]
        out.append(
            Unwaited(
                line,
                b,
                int(s.buffer[reads[0]]) if reads.size else -1,
                int(np.unique(s.group[sel]).size),
                tuple(dict.fromkeys(t.wi[sel].tolist()))[:EXAMPLES],
            )
        )
    return out


def _finding(ctx: Context, key: tuple[int, int, int], e: _Conflict) -> Finding:
    copy_site, other_site, b = key
    sites = ctx.trace.sites
    cline, oline = sites[copy_site].line, sites[other_site].line
    name = ctx.trace.buffers[b].name
    verb = VERB[sites[other_site].op]
    role = "writing" if e.write else "reading"
    part = "destination" if e.write else "source"
    if oline < cline:
        when = (
            f"before the async copy on line {cline} starts, with no barrier between: the copy "
            f"may move {name}[] before that access is done"
        )
        fix = f"put a barrier that every work-item reaches between line {oline} and the copy"
    else:
        never = " and nothing waits for it" if e.never_waited else ""
        if e.passed_wait:
            never += f"; the wait_group_events on line {e.passed_wait} names other events"
        when = (
            f"while the async copy on line {cline} may still be {role} it (a copy is in "
            f"flight until a wait_group_events for its event; a barrier does not wait for "
            f"it){never}"
        )
        fix = (
            f"call wait_group_events for the copy's event, in every work-item of the group, "
            f"before line {oline} touches its {part}"
        )
    msg = f"Race on {name} in phase {e.phase}: line {oline} {verb} {name}[] {when}. To fix: {fix}."
    return Finding(
        kind=KIND,
        line=min(cline, oline),
        phase=e.phase,
        buffer=name,
        work_items=ctx.labels(e.wis),
        count=e.keys,
        message=msg,
        elements=tuple(sorted(e.elements))[:EXAMPLES],
        subkind=SUBKIND,
        other_lines=(cline, oline),
    )
