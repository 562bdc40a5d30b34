"""Why is this element wrong: what flowed into it (:mod:`explorer.trace.provenance`) beside
what its reference needs, the inputs that should not be there, the needed ones that never
arrived, and the first offending input with the access that loaded it and the index anatomy
of the accesses that brought it in (numpy only).

The reference's needs come from the layer that knows the reference (a family's maths, a
numpy expression): boolean masks over each input, rows first, or a sentence saying why they
are not known. Everything else comes from the trace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from explorer.trace.anatomy import AccessExplanation, TraceAnatomy
from explorer.trace.provenance import Access, Inflow, Provenance, element_text
from explorer.trace.recorded import (
    ATOMIC,
    RMW,
    WRITE,
    Trace,
    word_buffer,
    word_oob,
    word_site,
)

# How many elements a list in the text names before it says how many more.
SHOWN = 4
# How many elements of each kind the JSON lists in full.
JSON_LIMIT = 10_000
THROUGH_REGISTERS = (
    "through registers at work-item granularity: a computed store carries every load its "
    "work-item made before it, since its previous store to that buffer (an over-approximation)"
)
ALL_GOOD = "all needed inputs, nothing else"


class ElementError(ValueError):
    """An element to explain that is not written as ``NAME[i, j]`` or lies outside."""


def parse_element(text: str) -> tuple[str | None, tuple[int, ...]]:
    """``C[3,5]``, ``C[3][5]``, ``OUT[7]`` or ``3,5`` (the first result) → (name, index)."""
    t = text.strip()
    match = re.fullmatch(r"([A-Za-z_]\w*)?\s*((?:\[[^\[\]]*\]\s*)+)", t)
    if match:
        name = match.group(1)
        inner = [p for p in re.findall(r"\[([^\[\]]*)\]", match.group(2))]
        parts = [q for p in inner for q in p.split(",")]
    elif re.fullmatch(r"[\d\s,]+", t):
        name, parts = None, t.split(",")
    else:
        raise ElementError(f"{text!r}: write an element as NAME[i, j] (C[3, 5]) or NAME[i]")
    try:
        index = tuple(int(p.strip()) for p in parts)
    except ValueError:
        raise ElementError(f"{text!r}: each index must be a whole number") from None
    if not index or any(i < 0 for i in index):
        raise ElementError(f"{text!r}: indices are whole numbers from 0")
    return name, index


def describe_elements(name: str, mask: np.ndarray, local: bool = False) -> str:
    """A set of elements in a few words: ``A[3, 0:64]`` where they fill a box, else how
    many and the first few."""
    where = np.argwhere(mask)
    count = len(where)
    if count == 0:
        return f"no element of {name}"
    lo, hi = where.min(axis=0), where.max(axis=0) + 1
    if count == int(np.prod(hi - lo)):
        parts = [str(a) if b == a + 1 else f"{a}:{b}" for a, b in zip(lo, hi, strict=True)]
        box = f"{name}[{', '.join(parts)}]"
        return box if count == 1 else f"{box} ({count} elements)"
    first = ", ".join(element_text(name, tuple(int(v) for v in w), local) for w in where[:SHOWN])
    more = ", …" if count > SHOWN else ""
    return f"{count} elements of {name}: {first}{more}"


# The accesses that brought the first offending input in, in the order it travelled: the
# load that fetched it, the store into local memory it went through, the read of that local
# element by the writing work-item (``Inflow``'s fields) and how the text names each.
ROUTE = (
    ("load", "its load"),
    ("stored", "its store into local memory"),
    ("entry", "its read by the writing work-item"),
    ("written", "the store"),  # an element no work-item wrote: the nearest one's store
)


@dataclass(frozen=True)
class OffendingAnatomy:
    """The index anatomy of the accesses that brought the first offending input in (each
    an :class:`AccessExplanation`, or None where the input took no such step): with the
    values those very accesses used where an anatomy build recorded them, otherwise the
    definitions that can reach (static), ``note`` saying why (or that they are coming)."""

    load: AccessExplanation | None = None
    stored: AccessExplanation | None = None
    entry: AccessExplanation | None = None
    note: str = ""
    written: AccessExplanation | None = None

    def steps(self) -> list[tuple[str, AccessExplanation]]:
        """(role, anatomy) of each access it explains, in the order the input travelled."""
        return [(role, e) for role, e in ((r, getattr(self, r)) for r, _ in ROUTE) if e]

    @property
    def recorded(self) -> bool:
        """Whether every access it explains has the values it used."""
        steps = self.steps()
        return bool(steps) and all(e.recorded for _, e in steps)

    def text_lines(self) -> list[str]:
        """The section under the first offending input: per access, where and whose, then
        one line per term of its index."""
        named = dict(ROUTE)
        head = "  Index anatomy of the accesses that brought it in"
        if self.written is not None:
            head = "  Index anatomy of that store"
        lines = [head + (f" ({self.note})" if self.note else "") + ":"]
        if not self.steps():
            lines[0] = f"  Index anatomy: not known ({self.note or 'no access of it parsed'})."
        for role, e in self.steps():
            static = "" if e.recorded else " (static only" + (f": {e.note})" if e.note else ")")
            lines.append(
                f"    {named[role]}, {e.text} at line {e.line}, work-item {e.group}/{e.local}"
                f"{static}:"
            )
            lines.extend(f"      {chain}" for chain in e.chains() or ["no variable in its index"])
        return lines

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {r: (e.to_json() if e else None) for r, e in self._all()}
        out["values_recorded"] = self.recorded
        out["note"] = self.note or None
        return out

    def _all(self) -> list[tuple[str, AccessExplanation | None]]:
        return [(role, getattr(self, role)) for role, _ in ROUTE]


@dataclass(frozen=True)
class Explanation:
    """One output element: its provenance, what its reference needs, and the verdict."""

    provenance: Provenance
    shapes: dict[str, tuple[int, ...]]  # each input's shape, rows first
    needs: dict[str, np.ndarray] | None  # per input, rows first; None: not known
    needs_unknown: str = ""  # why the needs are not known
    value: float | None = None  # the element as the run left it
    reference: float | None = None  # and as the reference has it
    inflow_masks: dict[str, np.ndarray] = field(default_factory=dict)
    # What the element and the siblings stored from the same loads need together (see
    # ``Provenance.siblings``); None where it has none.
    shared: dict[str, np.ndarray] | None = None
    # The index anatomy of the accesses that brought the first offending input in (where
    # there is none, of those that brought the last needed input that arrived, or the store
    # of the nearest element written: ``anatomy_route``), once asked (:func:`with_anatomy`);
    # None before.
    anatomy: OffendingAnatomy | None = None
    # For an element no work-item wrote: the store of the nearest element of the same result
    # that one did (in storage order), the place to look for what kept this one unwritten.
    # For one whose value came through a local element nothing wrote (``unwritten_read``,
    # and nothing else explains it): the store of the nearest element of that local buffer
    # its work-group wrote.
    nearest: Access | None = None
    unwritten_read: Access | None = None

    @property
    def last_arrived(self) -> Inflow | None:
        """Where needed inputs never arrived and none that should not be there did: the last
        needed input to arrive (in the order they entered the writing work-item) of the first
        input with elements missing: where the walk along it may have stopped."""
        if self.needs is None or self.first_offending is not None:
            return None
        for name, lacking in self.missing.items():
            mask = self.needs.get(name)
            if mask is None or not lacking.any():
                continue
            arrived = [
                i
                for i in self.provenance.inflow
                if i.buffer == name and _inside(mask, i.where) and mask[i.where]
            ]
            if arrived:  # those credited through registers too (a reduction's partial sums)
                return arrived[-1]
        return None

    @property
    def extra(self) -> tuple[Inflow, ...]:
        """Inputs that flowed in but the reference does not need, in the order they entered
        the writing work-item (empty where the needs are not known)."""
        needs = self.shared if self.shared is not None else self.needs
        if needs is None:
            return ()
        out = []
        for inflow in self.provenance.inflow:
            mask = needs.get(inflow.buffer)
            if mask is None or not _inside(mask, inflow.where) or not mask[inflow.where]:
                out.append(inflow)
        return tuple(out)

    @property
    def missing(self) -> dict[str, np.ndarray]:
        """The needed elements that never arrived, per input (only those with some)."""
        if self.needs is None:
            return {}
        out = {}
        for name, mask in self.needs.items():
            arrived = self.inflow_masks.get(name)
            lacking = mask & ~arrived if arrived is not None else mask.copy()
            if lacking.any():
                out[name] = lacking
        return out

    @property
    def offending(self) -> tuple[Inflow, ...]:
        """The inputs that should not be there and surely flowed in (not only by the
        over-approximation through a work-item's registers)."""
        return tuple(i for i in self.extra if not i.approximate)

    @property
    def doubtful(self) -> tuple[Inflow, ...]:
        """Inputs not needed that are credited only by the over-approximation: they went
        through a store computed in registers from several loads."""
        return tuple(i for i in self.extra if i.approximate)

    @property
    def first_offending(self) -> Inflow | None:
        """The first input that should not be there, in the order they entered the writing
        work-item: where to attach more about its index (``Inflow.load`` is its access)."""
        offending = self.offending
        return offending[0] if offending else None

    @property
    def verdict(self) -> str:
        p = self.provenance
        if not p.written:
            who = "no work-item" if p.every_group else "no traced work-item"
            return f"{who} wrote {element_text(p.output, p.where)}"
        if self.needs is None:
            return f"the reference's needs are not known ({self.needs_unknown})"
        offending, doubtful, missing = self.offending, self.doubtful, self.missing
        if not offending and not doubtful and not missing:
            return ALL_GOOD
        parts = []
        if offending:
            parts.append(f"{len(offending)} input(s) that should not be there")
        if doubtful:
            parts.append(f"{len(doubtful)} input(s) credited through registers, perhaps wrongly")
        if missing:
            parts.append(f"{sum(int(m.sum()) for m in missing.values())} needed input(s) missing")
        return ", ".join(parts)

    def summary(self) -> str:
        """One line: the element, the verdict, the first offending input and its line."""
        p = self.provenance
        head = f"{element_text(p.output, p.where)}: {self.verdict}"
        first = self.first_offending
        if first is not None:
            head += f"; first {_named(first)}, line {first.load.line}"
        return head

    def text(self) -> str:
        """The explanation as a person reads it."""
        p = self.provenance
        name = element_text(p.output, p.where)
        lines = [self._headline(name)]
        if not p.written and p.every_group:
            lines.append(
                f"No work-item wrote {name}: every work-group was traced"
                + ("" if p.complete else " (but the trace is incomplete)")
                + ", and none stored into it (its value is what the buffer held before)."
            )
            near = self.nearest
            if near is not None:
                lines.append(
                    f"The nearest element written, {near.element_text}, was stored at line "
                    f"{near.line} `{near.text}` by work-item {_who(near)}: its index and the "
                    "conditions that work-item ran under are where to look for why no "
                    f"work-item stored {name}."
                )
                if self.anatomy is not None:
                    lines.extend(self.anatomy.text_lines())
            return "\n".join(lines)
        if not p.written:
            lines.append(
                f"No traced work-item wrote {name}"
                + ("" if p.complete else " (the trace is incomplete)")
                + ": trace its work-group (--groups, or click it in the work-groups map)."
            )
            return "\n".join(lines)
        writer = p.stores[0]
        lines.append(
            f"Written by work-item {_who(writer)} at line {writer.line} "
            f"`{writer.text}` ({writer.op}, phase {writer.phase})."
        )
        if p.siblings:
            shown = ", ".join(element_text(p.output, w) for w in p.siblings[:SHOWN])
            more = ", …" if len(p.siblings) > SHOWN else ""
            lines.append(
                f"The work-item stored {len(p.siblings)} other element(s) of {p.output} from the "
                f"same loads ({shown}{more}): an input one of them needs is not counted as one "
                "that should not be there."
            )
        for other in p.stores[1:4]:
            lines.append(f"  also {other.op} by {_who(other)} at line {other.line}.")
        if len(p.stores) > 4:
            lines.append(f"  and {len(p.stores) - 4} more store(s).")
        flowed = [describe_elements(b, m) for b, m in self.inflow_masks.items() if m.any()]
        lines.append(_sentence("Flowed in: " + ("; ".join(flowed) or "nothing from the inputs")))
        how = "through local memory by address and barrier order; " + THROUGH_REGISTERS
        lines.append(f"  How: {how}.")
        if self.needs is None:
            lines.append(f"The reference's needs are not known: {self.needs_unknown}.")
        else:
            needed = [describe_elements(b, m) for b, m in self.needs.items() if m.any()]
            lines.append(_sentence("The reference needs: " + ("; ".join(needed) or "no input")))
            offending, doubtful, missing = self.offending, self.doubtful, self.missing
            if not offending and not doubtful and not missing:
                lines.append(f"Verdict: {ALL_GOOD}.")
            if offending:
                lines.append(_sentence("Should not be there: " + "; ".join(_by_buffer(offending))))
            if doubtful:
                lines.append(
                    _sentence(
                        "Not needed, but credited only because they went through a store "
                        "its work-item computed in registers from several loads (they may "
                        "not really have flowed in): " + "; ".join(_by_buffer(doubtful))
                    )
                )
            if missing:
                lacking = (describe_elements(b, m) for b, m in missing.items())
                lines.append(_sentence("Never arrived: " + "; ".join(lacking)))
            first = self.first_offending
            last = self.last_arrived
            near, unread = self.nearest, self.unwritten_read
            if first is None and last is None and near is not None and unread is not None:
                lines.append(
                    f"It read {unread.element_text} at line {unread.line} before anything "
                    f"wrote it. The nearest element of {unread.buffer} its work-group wrote, "
                    f"{near.element_text}, was stored at line {near.line} `{near.text}` by "
                    f"work-item {_who(near)}: its index and the conditions that work-item ran "
                    f"under are where to look for why none stored {unread.element_text}."
                )
                if self.anatomy is not None:
                    lines.extend(self.anatomy.text_lines())
            if first is not None:
                lines.append("First offending input: " + _story(first) + ".")
                if self.anatomy is not None:
                    lines.extend(self.anatomy.text_lines())
            elif last is not None:
                through = " (credited through registers)" if last.approximate else ""
                lines.append(
                    f"Last needed input of {last.buffer} to arrive, in the order they entered "
                    f"the writing work-item{through}: " + _story(last) + "."
                )
                if self.anatomy is not None:
                    lines.extend(self.anatomy.text_lines())
        for note in p.notes:
            lines.append(f"Note: {note}.")
        if not p.complete:
            lines.append("Note: the trace is incomplete: accesses it did not record are missing.")
        return "\n".join(lines)

    def _headline(self, name: str) -> str:
        if self.value is None:
            return f"Why {name}?"
        value = f"{name} = {self.value:.6g}"
        if self.reference is None:
            return value + " (no reference to compare with)"
        off = abs(self.value - self.reference)
        by = f"off by {off:.3g}" if off or off != off else "the same"
        return f"{value}; the reference: {self.reference:.6g} ({by})"

    def to_json(self) -> dict[str, Any]:
        p = self.provenance
        first = self.first_offending
        return {
            "output": p.output,
            "element": list(p.where),
            "value": self.value,
            "reference": self.reference,
            "written": p.written,
            "stores": [s.to_json() for s in p.stores],
            "inflow": {b: _cells(m) for b, m in self.inflow_masks.items()},
            "registers": THROUGH_REGISTERS,
            "needs_known": self.needs is not None,
            "needs_unknown": self.needs_unknown or None,
            "needs": {b: _cells(m) for b, m in (self.needs or {}).items()},
            "extra": [i.to_json() for i in self.offending[:JSON_LIMIT]],
            "extra_count": len(self.offending),
            "doubtful": [i.to_json() for i in self.doubtful[:JSON_LIMIT]],
            "doubtful_count": len(self.doubtful),
            "missing": {b: _cells(m) for b, m in self.missing.items()},
            "first_offending": _first_json(first, self.anatomy),
            "last_arrived": _first_json(self.last_arrived, self.anatomy),
            "nearest_written": _nearest_json(self.nearest, self.anatomy),
            "unwritten_read": self.unwritten_read.to_json() if self.unwritten_read else None,
            "verdict": self.verdict,
            "siblings": [list(w) for w in p.siblings],
            "notes": list(p.notes),
            "complete": p.complete,
        }


def explain(
    provenance: Provenance,
    shapes: dict[str, tuple[int, ...]],
    needs: dict[str, np.ndarray] | str,
    value: float | None = None,
    reference: float | None = None,
    sibling_needs: list[dict[str, np.ndarray]] | None = None,
) -> Explanation:
    """The explanation of one element from its provenance and its reference's needs (masks
    over each input, rows first, or why they are not known); ``shapes`` gives each input's
    shape (rows first); ``sibling_needs`` the needs of ``provenance.siblings``."""
    masks: dict[str, np.ndarray] = {}
    for inflow in provenance.inflow:
        shape = shapes.get(inflow.buffer)
        if shape is None or not _fits(shape, inflow.where):
            continue
        mask = masks.setdefault(inflow.buffer, np.zeros(shape, dtype=bool))
        mask[inflow.where] = True
    if isinstance(needs, str):
        return Explanation(provenance, shapes, None, needs, value, reference, masks)
    needed = {
        b: np.asarray(m, dtype=bool).reshape(shapes.get(b, np.shape(m))) for b, m in needs.items()
    }
    shared = None
    if sibling_needs:
        shared = {b: m.copy() for b, m in needed.items()}
        for other in sibling_needs:
            for b, m in other.items():
                if b in shared:
                    shared[b] |= np.asarray(m, dtype=bool).reshape(shared[b].shape)
    return Explanation(provenance, shapes, needed, "", value, reference, masks, shared)


def offending_route(explanation: Explanation) -> tuple[tuple[str, Access], ...]:
    """The accesses whose index anatomy the explanation shows, by role (``ROUTE``): those
    that brought the first offending input in (its load; where it went through local
    memory, the store there and the writing work-item's read of it); where there is none,
    those that brought the last needed input that arrived (``last_arrived``); for an element
    no work-item wrote, the store of the nearest one written. Empty where there is none."""
    if explanation.nearest is not None and not explanation.provenance.written:
        return (("written", explanation.nearest),)
    first = explanation.first_offending or explanation.last_arrived
    if first is None:
        if explanation.nearest is not None and explanation.unwritten_read is not None:
            return (("written", explanation.nearest),)
        return ()
    route = [("load", first.load)]
    if first.stored is not None:
        route.append(("stored", first.stored))
    if first.entry.record != first.load.record:
        route.append(("entry", first.entry))
    return tuple(route)


def with_anatomy(
    explanation: Explanation, trace: Trace, anatomy: TraceAnatomy | None, note: str = ""
) -> Explanation:
    """The explanation with the index anatomy of its first offending input's accesses
    (``offending_route``), read from ``anatomy`` (the values where it recorded them for
    those work-items, else the static chains; None: not known, ``note`` says why)."""
    route = offending_route(explanation)
    if not route:
        return explanation
    if anatomy is None:
        unknown = OffendingAnatomy(note=note or "the kernel could not be parsed")
        return replace(explanation, anatomy=unknown)
    steps = {role: anatomy.explain(trace, access.record) for role, access in route}
    explained = OffendingAnatomy(
        steps.get("load"), steps.get("stored"), steps.get("entry"), note, steps.get("written")
    )
    return replace(explanation, anatomy=explained)


def _first_json(first: Inflow | None, anatomy: OffendingAnatomy | None) -> dict[str, Any] | None:
    if first is None:
        return None
    out = first.to_json()
    out["anatomy"] = anatomy.to_json() if anatomy is not None else None
    return out


def _nearest_json(
    nearest: Access | None, anatomy: OffendingAnatomy | None
) -> dict[str, Any] | None:
    if nearest is None:
        return None
    out = nearest.to_json()
    out["anatomy"] = anatomy.to_json() if anatomy is not None and anatomy.written else None
    return out


def nearest_store(
    trace: Trace, output: int, element: int, group: tuple[int, ...] | None = None
) -> int | None:
    """The record of the store into buffer ``output`` nearest ``element`` (storage order;
    the lower one where two are as near), by a work-item of ``group`` where one is given
    (local memory is each group's own); None where the trace has none."""
    word = np.asarray(trace.word)
    ops = trace.site_ops()[word_site(word)]
    chosen = (word_buffer(word) == output) & ~word_oob(word) & np.isin(ops, (WRITE, RMW, ATOMIC))
    if group is not None:
        ours = (np.asarray(trace.wi_group) == np.array(group[:3])).all(axis=1)
        chosen &= ours[trace.wi]
    mine = np.flatnonzero(chosen)
    if mine.size == 0:
        return None
    offset = np.asarray(trace.offset[mine]).astype(np.int64)
    elements = offset // max(1, trace.buffers[output].elem_size)
    distance = np.abs(elements - element) * 2 + (elements > element)
    return int(mine[int(np.argmin(distance))])


def _sentence(text: str) -> str:
    return text if text.endswith(("…", ".")) else text + "."


def _fits(shape: tuple[int, ...], where: tuple[int, ...]) -> bool:
    return len(shape) == len(where) and all(0 <= w < s for w, s in zip(where, shape, strict=True))


def _inside(mask: np.ndarray, where: tuple[int, ...]) -> bool:
    return _fits(mask.shape, where)


def _cells(mask: np.ndarray) -> list[list[int]]:
    return [[int(v) for v in w] for w in np.argwhere(mask)[:JSON_LIMIT]]


def _named(i: Inflow) -> str:
    """An input element as the report names it (one outside its buffer says so)."""
    text = element_text(i.buffer, i.where)
    return f"{text} (outside {i.buffer})" if i.outside else text


def _by_buffer(extra: tuple[Inflow, ...]) -> list[str]:
    out = []
    for name in dict.fromkeys(i.buffer for i in extra):
        mine = [i for i in extra if i.buffer == name]
        shown = ", ".join(_named(i) for i in mine[:SHOWN])
        more = ", …" if len(mine) > SHOWN else ""
        out.append(f"{len(mine)} element(s) of {name}: {shown}{more}")
    return out


def _who(a: Access) -> str:
    g, lid = a.work_item[:3], a.work_item[3:]
    return f"group ({', '.join(map(str, g))}) local ({', '.join(map(str, lid))})"


def _story(i: Inflow) -> str:
    """Where one input came in: its load, the local element it went through, the read that
    brought it to the writing work-item."""
    load = i.load
    text = (
        f"{_named(i)}, loaded at line {load.line} `{load.text}` by "
        f"work-item {_who(load)} in phase {load.phase}"
    )
    if i.stored is not None:
        step = f", tile step {i.tile_step}" if i.tile_step is not None else ""
        text += (
            f", stored into {i.stored.element_text} at line {i.stored.line} "
            f"(phase {i.stored.phase}{step})"
        )
    if i.entry.record != load.record:
        text += (
            f", read by the writing work-item at line {i.entry.line} `{i.entry.text}` "
            f"({i.entry.element_text}, phase {i.entry.phase})"
        )
    if i.race:
        text += " through a write not ordered before its read (a race)"
    return text
