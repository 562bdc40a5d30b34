"""How one work-group's records are cut into steps (numpy only, no Qt).

A *step* is one source line within one phase of the group, in the order the group first
executed it; stepping by iteration splits a line the work-items execute several times in a
phase (a loop body) into one step per pass, from each work-item's own access order, so a
walk along K or an inner product over a tile animates pass by pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.trace.recorded import word_phase, word_site

KEY_ITERATION = 1 << 24  # passes of one line per phase that a step key can tell apart
KEY_LINE = 1 << 20


@dataclass(frozen=True)
class Step:
    index: int
    phase: int
    line: int
    iteration: int = 0  # which pass of the line within the phase (0 when stepping by line)


@dataclass(frozen=True)
class StepCut:
    """A group's records cut into steps: ``order`` lists the positions of the group's
    records (in the group's own order) step by step, step ``i`` being
    ``order[offsets[i]:offsets[i + 1]]``."""

    steps: list[Step]
    order: np.ndarray
    offsets: np.ndarray


def cut_into_steps(
    words: np.ndarray, kept: np.ndarray, line_of_site: np.ndarray, by_iteration: bool
) -> StepCut:
    """The steps of one group's records: ``words`` are its record words, each work-item's
    records together in its own order, ``kept[i]`` of the ``i``-th work-item's;
    ``line_of_site`` maps a site to its source line."""
    if words.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return StepCut([], empty, np.zeros(1, dtype=np.int64))
    kept = kept[kept > 0]
    n, width = int(kept[0]), int(kept.size)
    if (kept == n).all() and (words.reshape(width, n) == words[:n]).all():
        return _cut_alike(words[:n], width, line_of_site, by_iteration)
    owner = np.repeat(np.arange(width, dtype=np.int64), kept)
    seq = np.arange(int(kept.sum()), dtype=np.int64) - np.repeat(np.cumsum(kept) - kept, kept)
    steps, step_of = _step_codes(words, owner, seq, line_of_site, by_iteration)
    order = _stable_order(step_of, len(steps))
    offsets = np.r_[0, np.cumsum(np.bincount(step_of, minlength=len(steps)))]
    return StepCut(steps, order, offsets)


def _cut_alike(
    one: np.ndarray, width: int, line_of_site: np.ndarray, by_iteration: bool
) -> StepCut:
    """Every work-item made the same accesses in the same order (the common case): the
    steps of one are the steps of all, and the group's step order follows from one
    work-item's (``one``, its words) without sorting the whole group."""
    n = one.size
    own = np.arange(n, dtype=np.int64)
    steps, step_one = _step_codes(one, np.zeros(n, dtype=np.int64), own, line_of_site, by_iteration)
    per = np.bincount(step_one, minlength=len(steps))
    first = _stable_order(step_one, len(steps))
    start = np.r_[0, np.cumsum(per)]
    block = step_one[first]
    place = width * start[block] + np.arange(n) - start[block]
    lanes = np.arange(width, dtype=np.int64)[:, None]
    order = np.empty(width * n, dtype=np.int64)
    order[(place[None, :] + lanes * per[block][None, :]).ravel()] = (
        lanes * n + first[None, :]
    ).ravel()
    return StepCut(steps, order, np.r_[0, np.cumsum(per * width)])


def _step_codes(
    words: np.ndarray,
    owner: np.ndarray,
    seq: np.ndarray,
    line_of_site: np.ndarray,
    by_iteration: bool,
) -> tuple[list[Step], np.ndarray]:
    """The steps of these records and the step of each: the records of each work-item
    (``owner``) lie together, the ``seq``-th of its own in its order."""
    phase = word_phase(words).astype(np.int64)
    site = word_site(words).astype(np.int64)
    line = line_of_site[site].astype(np.int64)
    passes = np.zeros(words.size, dtype=np.int64)
    if by_iteration:
        # The how-many-th time this work-item reached this site in this phase.
        passes = _passes(phase * (int(site.max()) + 1) + site, owner)
        passes = np.minimum(passes, KEY_ITERATION - 1)
    u_phase, u_line, u_pass, inverse = _unique_steps(phase, line, passes)
    count = u_phase.size
    first = np.full(count, np.iinfo(np.int64).max)
    np.minimum.at(first, inverse, seq)
    # Within a phase: the order in which the group first reached each (line, pass).
    order = np.lexsort((first, u_phase))
    rank = np.empty(count, dtype=np.int64)
    rank[order] = np.arange(count)
    steps = [Step(i, int(u_phase[j]), int(u_line[j]), int(u_pass[j])) for i, j in enumerate(order)]
    return steps, rank[inverse]


def _unique_steps(
    phase: np.ndarray, line: np.ndarray, passes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (phase, line, pass) triples in increasing order, and which one each
    record has."""
    lines, npasses = int(line.max()) + 1, int(passes.max()) + 1
    span = (int(phase.max()) + 1) * lines * npasses
    if span <= 1 << 22:
        # (phase, line, pass) as one dense code: present codes, in order, without a sort.
        code = (phase * lines + line) * npasses + passes
        present = np.zeros(span, dtype=bool)
        present[code] = True
        codes = np.flatnonzero(present)
        rank_of = np.zeros(span, dtype=np.int64)
        rank_of[codes] = np.arange(codes.size)
        return (
            codes // (lines * npasses),
            (codes // npasses) % lines,
            codes % npasses,
            rank_of[code],
        )
    key = (phase * KEY_LINE + line) * KEY_ITERATION + passes
    uniq, inverse = np.unique(key, return_inverse=True)
    return (
        uniq // (KEY_LINE * KEY_ITERATION),
        (uniq // KEY_ITERATION) % KEY_LINE,
        uniq % KEY_ITERATION,
        inverse.ravel(),
    )


def _passes(where: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """Per record, how many times before it its owner (work-item) reached the same ``where``
    (a phase and site): records of one ``where`` in record order are in (work-item, sequence)
    order, so a stable sort by ``where`` alone groups each work-item's passes."""
    narrow = where.astype(np.uint16) if int(where.max()) < 1 << 16 else where
    order = np.argsort(narrow, kind="stable")
    k, w = where[order], owner[order]
    starts = np.r_[True, (k[1:] != k[:-1]) | (w[1:] != w[:-1])]
    position = np.arange(k.size)
    passes = np.zeros(where.size, dtype=np.int64)
    passes[order] = position - np.maximum.accumulate(np.where(starts, position, 0))
    return passes


def _stable_order(step: np.ndarray, count: int) -> np.ndarray:
    """The positions of ``step`` in step order, each step's in their own order. Fewer than
    65536 steps (always, in practice): a 16-bit key sorts by radix, in O(n)."""
    narrow = step.astype(np.uint16) if count <= 1 << 16 else step
    return np.argsort(narrow, kind="stable")
