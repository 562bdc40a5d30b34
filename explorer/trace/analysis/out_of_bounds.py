"""Finding: accesses outside every buffer of their address space. In trace builds such an
access is recorded and skipped, so an indexing bug becomes this finding instead of a crash."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from explorer.trace.analysis import guards
from explorer.trace.analysis.context import EXAMPLES, VERB, Context
from explorer.trace.analysis.detector import Category, Detector, several, span
from explorer.trace.analysis.units import Unit, Units, by_site_and_buffer, reaches_beyond
from explorer.trace.recorded import (
    FAR_BEFORE,
    FAR_PAST,
    PRIVATE,
    BufferInfo,
    Finding,
    outside_pixels,
)

KIND = "out-of-bounds"
OWN = "private"  # the subkind of an index outside a private array: no launch size bounds it


def find(ctx: Context, units: Units) -> list[Finding]:
    """One finding per (site, buffer), naming the elements the kernel tried to reach."""
    t = ctx.trace
    out = []
    for (sid, b), us in by_site_and_buffer(units.out_of_bounds).items():
        s = t.sites[sid]
        info = t.buffers[b]
        count = sum(u.m for u in us)
        if info.image:
            out.append(_outside_image(ctx, s.line, VERB.get(s.op, "accesses"), info, us, count))
            continue
        offsets = np.concatenate([u.off[: 64 * EXAMPLES] for u in us]).astype(np.int64)
        far = _unknown(offsets, info)
        sample = offsets[~far] // info.elem_size
        distinct = list(dict.fromkeys(int(e) for e in sample))
        shown = distinct[:EXAMPLES]
        wis = np.concatenate([u.wi[:EXAMPLES] for u in us])
        last = _last_elements(us, shown, info.elem_size)
        names = ", ".join(_span(info.name, e, last[e]) + _wrap_note(e, info) for e in shown)
        if far.any():
            names = ", ".join(n for n in (names, _far_words(info, offsets[far])) if n)
        straddles = any(e < info.length <= last[e] or e < 0 <= last[e] for e in shown)
        where = f"reaching outside {info.name}" if straddles else f"outside {info.name}"
        verb = VERB.get(s.op, "accesses")
        # For the guard, an unsigned index that wrapped below zero is below zero (`i >= 1`),
        # and an unsigned one (`at`, wrapped or declared so) is bounded by the end.
        ends = [_known(e, info) for u in us if u.m for e in _ends(u.off, info)]
        reached = [e - _WRAP if _wrapped(e) else e for e in ends]
        low, high = min(reached), max(reached)
        wrapped = any(_wrapped(e) for e in ends)
        remedy = (
            guards.advised(s.text, info, dict(t.names), low, high, dict(t.types), wrapped) or ""
        )
        if count == 1:
            msg = (
                f"line {s.line} {verb} {names} {where} ({info.length} elements); "
                "the access was skipped"
            )
        else:
            others = len(distinct) > len(shown) or (
                not far.any() and sample.size < count and reaches_beyond(us, shown, info.elem_size)
            )
            more = " and others" if others else ""
            msg = (
                f"line {s.line} {verb} {names}{more} {where} ({info.length} "
                f"elements), {count} accesses; the accesses were skipped"
            )
        if remedy:
            msg += f". Guard it in the kernel's own terms: {remedy}"
        out.append(
            Finding(
                kind=KIND,
                line=s.line,
                phase=None,
                buffer=info.name,
                work_items=ctx.labels(wis),
                count=count,
                message=msg,
                elements=tuple(_outside(e, last[e], info.length) for e in shown),
                remedy=remedy,
                subkind=OWN if info.space == PRIVATE else "",
            )
        )
    return out


# An element this close below 2**32 was reached by a 32-bit unsigned index that went below
# zero (`u - 1u` at u = 0 is 4294967295): no kernel indexes that far on purpose.
_WRAP = 1 << 32
_WRAP_MARGIN = 1 << 24


def _wrapped(element: int) -> bool:
    return _WRAP - _WRAP_MARGIN <= element < _WRAP


def _known(element: int, info: BufferInfo) -> int:
    """The element a record reached: a record too far to know it, where the buffer's one
    known far element was."""
    if info.far_several and element in (FAR_PAST // info.elem_size, FAR_BEFORE // info.elem_size):
        return info.far // info.elem_size
    return element


def _ends(off: np.ndarray, info: BufferInfo) -> tuple[int, int]:
    """The lowest and highest element of these offsets."""
    return int(off.min()) // info.elem_size, int(off.max()) // info.elem_size


def _unknown(offsets: np.ndarray, info: BufferInfo) -> np.ndarray:
    """Which of these offsets are records too far for their offset, whose element the trace
    does not know (several such accesses of the buffer differed: ``BufferInfo.far``)."""
    if not info.far_several:
        return np.zeros(offsets.size, dtype=bool)
    return (offsets == FAR_PAST) | (offsets == FAR_BEFORE)


def _wrap_note(element: int, info: BufferInfo) -> str:
    """What an element past the end that a wrapped unsigned index reached is, in words."""
    if not _wrapped(element):
        return ""
    gib = element * info.elem_size / (1 << 30)
    return f" ({element - _WRAP} wrapped as a 32-bit unsigned index, {gib:.0f} GiB past the start)"


def _far_words(info: BufferInfo, offsets: np.ndarray) -> str:
    """Accesses too far for their records, of different elements: one of them is known."""
    example = info.far // info.elem_size
    if bool((offsets == FAR_BEFORE).all()):
        return f"{info.name} more than 2 GiB before its start (such as {info.name}[{example}])"
    if _wrapped(example):
        return (
            f"{info.name} at indices past the end (wrapped below zero as unsigned; one of "
            f"them {info.name}[{example}], {example - _WRAP} wrapped)"
        )
    return f"{info.name} more than 2 GiB past its start (such as {info.name}[{example}])"


def _last_elements(us: list[Unit], firsts: list[int], elem_size: int) -> dict[int, int]:
    """The last element each access starting at one of ``firsts`` reaches: itself, or further
    for a vector wider than the buffer's element (a ``vload4`` of a float buffer)."""
    last = {e: e for e in firsts}
    for u in us:
        if not u.m:
            continue
        off = u.off.astype(np.int64)
        start = off // elem_size
        end = (off + np.maximum(np.asarray(u.size, dtype=np.int64), 1) - 1) // elem_size
        for first in firsts:
            reached = end[start == first]
            if reached.size:
                last[first] = max(last[first], int(reached.max()))
    return last


def _span(name: str, first: int, last: int) -> str:
    """``a[7]``, or ``a[253..256]`` for an access over several elements."""
    return f"{name}[{first}]" if last == first else f"{name}[{first}..{last}]"


def _outside(first: int, last: int, length: int) -> int:
    """The first element outside a buffer of ``length`` elements that an access over
    ``first``..``last`` reaches: ``first`` unless the access starts inside and runs past the
    end."""
    return length if 0 <= first < length <= last else first


def _outside_image(
    ctx: Context, line: int, verb: str, info: BufferInfo, us: list[Unit], count: int
) -> Finding:
    """Pixels outside an image that no sampler addressing brought back, by coordinates."""
    offsets = np.concatenate([u.off[: 64 * EXAMPLES] for u in us])
    pixels = list(dict.fromkeys(outside_pixels(offsets, info.image)))
    names = ", ".join(f"({', '.join(map(str, p))})" for p in pixels[:EXAMPLES])
    # A record's offset packs its pixel: the accesses past the sample reached other pixels
    # where their offsets are not those of the pixels named.
    named = set(pixels[:EXAMPLES])
    kept = np.unique(offsets)
    kept = kept[[p in named for p in outside_pixels(kept, info.image)]]
    others = len(pixels) > EXAMPLES or (offsets.size < count and reaches_beyond(us, kept.tolist()))
    more = " and others" if others else ""
    size = "×".join(map(str, reversed(info.shape)))
    axes = "x, y and z" if info.image == 3 else "x and y"
    within = ", ".join(f"{a} < {n}" for a, n in zip("xyz", reversed(info.shape), strict=False))
    msg = (
        f"line {line} {verb} {info.name} at {names}{more}, outside its {size} pixels "
        f"({axes} from 0), with no sampler addressing to bring "
        f"{'it' if count == 1 else 'them'} back; "
        f"{'the access was' if count == 1 else f'{count} accesses were'} skipped"
    )
    remedy = (
        f"keep the coordinates inside the image ({within}), or read through a sampler with "
        "CLK_ADDRESS_CLAMP_TO_EDGE (the edge pixel) or CLK_ADDRESS_CLAMP (the border colour)"
    )
    wis = np.concatenate([u.wi[:EXAMPLES] for u in us])
    return Finding(
        kind=KIND,
        line=line,
        phase=None,
        buffer=info.name,
        work_items=ctx.labels(wis),
        count=count,
        message=msg,
        elements=(),
        remedy=remedy,
    )


def same_cause(f: Finding) -> Hashable:
    """One index past a buffer's end is out of bounds at its read and at its write."""
    return f.buffer


def cause(findings: Sequence[Finding]) -> str:
    """Indices outside one buffer, in words."""
    buf = findings[0].buffer or ""
    return f"Indices outside {buf} on {span(findings)}{several(findings)}."


def advice(findings: Sequence[Finding]) -> str:
    """What to do once about indices outside a buffer."""
    guarded = list(dict.fromkeys((f.line, f.remedy) for f in findings if f.remedy))
    where = "; ".join(f"line {line}: {remedy}" for line, remedy in guarded)
    if findings[0].subkind == OWN:
        name = findings[0].buffer or "the array"
        return (
            f"Keep the index inside {name}: a private array is the work-item's own, so "
            "neither the global size nor a check against a buffer's length bounds it. Look at "
            "the loop's bound and at the count a caller passes where a helper walks the array"
            + (f" ({where})." if where else ".")
        )
    if not guarded:
        info = findings[0].buffer or "the buffer"
        return (
            "Make the global size and the index agree with the buffer's size, or guard the "
            f"access itself with a bounds check that keeps its index inside {info}. Keep "
            "every barrier outside such a guard: all work-items of the group must reach it."
        )
    return (
        f"Guard each access with its own bounds ({where}), or make the global size and the "
        "index agree with the buffer's size. Keep every barrier outside such a guard: all "
        "work-items of the group must reach it."
    )


DETECTOR = Detector(
    KIND,
    find,
    order=30,
    category=Category.BUG,
    cause=cause,
    advice=advice,
    same_cause=same_cause,
)
