"""Which ``mem_fence`` stands between two racing accesses of one work-group.

A fence (``mem_fence``, ``read_mem_fence``, ``write_mem_fence``) orders one work-item's own
accesses; it never makes another work-item wait. Seed 004 puts one where a barrier is
needed: a work-item copies its part of a vector, passes the fence, and reads parts that
others may not have copied yet. Such a race is told apart from one with nothing between the
accesses by counting the fences each work-item had passed in the phase: where the writer
was before a fence that the other work-item had passed (or the other way round), a barrier
at that fence would have ordered the two. A few racing pairs per finding are checked, each by
a look at its two work-items' own records, never a pass over the whole trace.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.trace.analysis.context import Context
from explorer.trace.recorded import (
    FENCE,
    ROLE_FLAGS,
    ROLE_NONE,
    Site,
    word_phase,
    word_site,
)

_MEMO_KEY = "fences"


@dataclass(frozen=True)
class Sample:
    """One racing pair: a record of one work-item (``record``, a trace index) and the
    work-item and site of an access of another that it races with."""

    record: int
    partner: int  # the other work-item
    partner_site: int


class _Fences:
    """Per trace: the memory-fence sites and where each work-item's records start."""

    def __init__(self, ctx: Context) -> None:
        t = ctx.trace
        ids = [s.id for s in t.sites if s.op == FENCE and s.role in (ROLE_NONE, ROLE_FLAGS)]
        self.is_fence = np.zeros(len(t.sites) + 1, dtype=bool)
        self.is_fence[ids] = True
        kept = np.asarray(t.kept, dtype=np.int64)
        self.start = np.concatenate([[0], np.cumsum(kept)])
        self.any = bool(ids)
        self.passed: dict[tuple[int, int], np.ndarray] = {}  # (work-item, phase) -> counts


def _fences(ctx: Context) -> _Fences:
    kept = ctx.memo.get(_MEMO_KEY)
    if isinstance(kept, _Fences):
        return kept
    made = _Fences(ctx)
    ctx.memo[_MEMO_KEY] = made
    return made


@dataclass(frozen=True)
class Between:
    """What stands between the racing pairs of a finding: the fence some of them are on both
    sides of (None: none), and whether every pair is (``only``: else some pair has nothing
    between it at all)."""

    fence: Site | None
    only: bool


def between(ctx: Context, samples: list[Sample]) -> Between:
    """The fence that stands between the two accesses of ``samples`` (each in the same
    phase), and whether it stands between every one of them."""
    f = _fences(ctx)
    if not f.any:
        return Between(None, False)
    t = ctx.trace
    fence: int | None = None
    unordered = False
    for s in samples:
        same, site = _between(ctx, f, s)
        unordered |= same
        if site is not None and fence is None:
            fence = site
    return Between(None if fence is None else t.sites[fence], fence is not None and not unordered)


def _between(ctx: Context, f: _Fences, s: Sample) -> tuple[bool, int | None]:
    """Whether the partner made such an access with nothing between it and the record (the
    same count of fences passed in the phase), and the fence between the record and the
    partner's nearest such access across one (None where there is none)."""
    t = ctx.trace
    w = int(np.searchsorted(f.start, s.record, side="right")) - 1
    word = t.word[s.record : s.record + 1]
    phase = int(word_phase(word)[0])
    lo = int(t.offset[s.record])
    hi = lo + int(t.sizes_of(word)[0])
    mine = _passed(t.word, f, w, phase)
    here = int(mine[s.record - f.start[w]])
    a, b = int(f.start[s.partner]), int(f.start[s.partner + 1])
    words = t.word[a:b]
    sites = word_site(words)
    phases = word_phase(words)
    offs = t.offset[a:b].astype(np.int64)
    ends = offs + t.sizes_of(words)
    hit = np.flatnonzero((sites == s.partner_site) & (phases == phase) & (offs < hi) & (ends > lo))
    if hit.size == 0:
        return False, None
    theirs = _passed(t.word, f, s.partner, phase)[hit]
    same = bool((theirs == here).any())
    across = theirs[theirs != here]
    if across.size == 0:
        return same, None
    # The nearest of the partner's accesses across a fence: the fence after the earlier one.
    there = int(across[np.argmin(np.abs(across - here))])
    later = s.partner if there > here else w
    k = min(here, there)
    a, b = int(f.start[later]), int(f.start[later + 1])
    words = t.word[a:b]
    sites = word_site(words)
    fenced = np.flatnonzero(f.is_fence[sites] & (word_phase(words) == phase))
    return same, (int(sites[fenced[k]]) if k < fenced.size else None)


def _passed(words: np.ndarray, f: _Fences, w: int, phase: int) -> np.ndarray:
    """Per record of work-item ``w``: the fences it had passed in ``phase`` before it."""
    kept = f.passed.get((w, phase))
    if kept is None:
        a, b = int(f.start[w]), int(f.start[w + 1])
        mine = words[a:b]
        fence = f.is_fence[word_site(mine)] & (word_phase(mine) == phase)
        kept = f.passed[(w, phase)] = np.cumsum(fence) - fence
    return kept
