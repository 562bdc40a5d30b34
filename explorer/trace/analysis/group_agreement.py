"""What every work-item of a group must do alike besides passing the same barriers: reach each
async copy, and give it the same arguments; name the same number of events in a wait; give a
barrier the same fence flags. The records of those sites hold the argument (a digest of a
copy's destination, source, count and stride; the number of events; the flags), so the k-th
pass of a work-item is compared with the k-th pass of the others of its group."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.trace.analysis.context import EXAMPLES, Context
from explorer.trace.analysis.memory_model import FLAG_NAMES
from explorer.trace.recorded import BARRIER, FENCE, ROLE_COPY, ROLE_FLAGS, ROLE_WAIT, Finding

KIND = "barrier-divergence"
COPY_REACHED, COPY_ARGUMENTS, WAIT_EVENTS, FLAGS = "copy", "copy-arguments", "wait", "flags"


@dataclass(frozen=True)
class _Checked:
    site: int
    line: int
    what: str  # which argument (a subkind above)
    counts_too: bool  # whether reaching it is checked here (barriers: by barrier_divergence)


def _checked(ctx: Context) -> list[_Checked]:
    out = []
    for s in ctx.trace.sites:
        if s.role == ROLE_COPY and s.op == FENCE:
            out.append(_Checked(s.id, s.line, COPY_ARGUMENTS, True))
        elif s.role == ROLE_WAIT:
            out.append(_Checked(s.id, s.line, WAIT_EVENTS, False))
        elif s.role == ROLE_FLAGS and s.op == BARRIER:
            out.append(_Checked(s.id, s.line, FLAGS, False))
    return out


def find(ctx: Context) -> list[Finding]:
    """Groups whose work-items disagree at a copy, a wait or a barrier with run-time flags."""
    t = ctx.trace
    checked = _checked(ctx)
    if not checked or t.records == 0:
        return []
    okw = np.flatnonzero(ctx.ok_wi)
    out: list[Finding] = []
    for c in checked:
        rows = np.flatnonzero(t.site == c.site)
        rows = rows[ctx.ok_wi[t.wi[rows]]]
        wi = t.wi[rows].astype(np.int64)
        if c.counts_too:
            counts = np.bincount(wi, minlength=ctx.W)[okw]
            g = ctx.gdense[okw]
            lo = np.full(ctx.ngroups, np.iinfo(np.int64).max)
            hi = np.zeros(ctx.ngroups, dtype=np.int64)
            np.minimum.at(lo, g, counts)
            np.maximum.at(hi, g, counts)
            bad = np.flatnonzero(lo != hi)
            if bad.size:
                members = okw[g == bad[0]]
                out.append(_unreached(ctx, c, members, counts[g == bad[0]], int(bad.size)))
                continue
        if rows.size == 0:
            continue
        # k-th pass of each work-item (records are in work-item, sequence order)
        starts = np.flatnonzero(np.concatenate([[True], wi[1:] != wi[:-1]]))
        k = np.arange(wi.size) - np.repeat(starts, np.diff(np.append(starts, wi.size)))
        key = ctx.gdense[wi] * (int(k.max()) + 1) + k
        value = t.offset[rows].astype(np.int64)
        order = np.lexsort((value, key))
        ks, vs = key[order], value[order]
        first = np.concatenate([[True], ks[1:] != ks[:-1]])
        lo_v = vs[first]
        hi_v = vs[np.append(np.flatnonzero(first)[1:] - 1, vs.size - 1)]
        differ = np.flatnonzero(lo_v != hi_v)
        if differ.size:
            bad_key = ks[first][differ[0]]
            sel = rows[key == bad_key]
            ngroups = np.unique(ks[first][differ] // (int(k.max()) + 1)).size
            out.append(_disagree(ctx, c, sel, int(ngroups)))
    return out


def _group(ctx: Context, wi: int) -> str:
    gx, gy, gz = ctx.label(wi)[:3]
    return f"Work-group ({gx}, {gy}, {gz})"


def _others(n: int) -> str:
    return f" {n - 1} other work-group(s) do the same." if n > 1 else ""


def _unreached(
    ctx: Context, c: _Checked, members: np.ndarray, counts: np.ndarray, ngroups: int
) -> Finding:
    values, times = np.unique(counts, return_counts=True)
    desc = ", ".join(
        f"{n} work-item(s) {v} time(s)"
        for v, n in zip(values.tolist(), times.tolist(), strict=True)
    )
    examples = [int(members[np.flatnonzero(counts == v)[0]]) for v in values[:EXAMPLES]]
    msg = (
        f"{_group(ctx, examples[0])}: the async copy on line {c.line} is not reached by every "
        f"work-item of the group ({desc}). A copy is one operation of the whole group: every "
        "work-item must reach it, with the same arguments, or the kernel is undefined; move "
        f"it out of the condition.{_others(ngroups)}"
    )
    return Finding(
        kind=KIND,
        line=c.line,
        phase=None,
        buffer=None,
        work_items=ctx.labels(examples),
        count=ngroups,
        message=msg,
        subkind=COPY_REACHED,
        other_lines=(c.line,),
    )


def _flag_words(bits: int) -> str:
    names = [name for bit, name in FLAG_NAMES.items() if bits & bit]
    return " | ".join(names) if names else "0"


def _disagree(ctx: Context, c: _Checked, rows: np.ndarray, ngroups: int) -> Finding:
    t = ctx.trace
    values = t.offset[rows].astype(np.int64)
    kinds, times = np.unique(values, return_counts=True)
    examples = [int(t.wi[rows[np.flatnonzero(values == v)[0]]]) for v in kinds[:EXAMPLES]]
    where = _group(ctx, examples[0])
    if c.what == FLAGS:
        desc = ", ".join(
            f"{_flag_words(int(v))} by {n}"
            for v, n in zip(kinds.tolist(), times.tolist(), strict=True)
        )
        msg = (
            f"{where}: the barrier on line {c.line} is given different fence flags by its "
            f"work-items ({desc}). Every work-item of a group must pass a barrier with the same "
            "flags (OpenCL 1.2: otherwise undefined); the trace takes it as ordering every "
            "space any of them named. Compute the flags from values the whole group shares, "
            f"or name both spaces.{_others(ngroups)}"
        )
    elif c.what == WAIT_EVENTS:
        desc = ", ".join(f"{v} by {n}" for v, n in zip(kinds.tolist(), times.tolist(), strict=True))
        msg = (
            f"{where}: the wait_group_events on line {c.line} is given different numbers of "
            f"events by its work-items ({desc}). A wait is one operation of the whole group: "
            f"every work-item must wait for the same events.{_others(ngroups)}"
        )
    else:
        msg = (
            f"{where}: its work-items give the async copy on line {c.line} different "
            f"arguments ({kinds.size} different destinations, sources, counts or strides). A "
            "copy is one operation of the whole group: compute its arguments from values every "
            "work-item shares (get_group_id, not get_local_id or get_global_id)."
            f"{_others(ngroups)}"
        )
    return Finding(
        kind=KIND,
        line=c.line,
        phase=None,
        buffer=None,
        work_items=ctx.labels(examples),
        count=ngroups,
        message=msg,
        subkind=c.what,
        other_lines=(c.line,),
    )
