"""What the execution view draws of one explained element (numpy only): per buffer of the
trace, the elements that flowed in (needed, offending, doubtful) and the needed ones that
never arrived, the element explained, and the local elements its work-item read, each with
the record that read it (drawn at that record's phase)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from explorer.trace.explain import Explanation
from explorer.trace.provenance import Layout


@dataclass(frozen=True)
class ExplainMarks:
    """Elements in storage order, by the trace's buffer index."""

    summary: str
    output: tuple[int, int] | None  # (buffer, element) explained, None where none wrote it
    group: tuple[int, int, int] | None  # the writing work-item's group
    local: int | None  # and its linear local id
    focus: int | None  # the record to show first: the first offending input's entry, else the store
    needed: dict[int, np.ndarray] = field(default_factory=dict)  # flowed in, needed
    offending: dict[int, np.ndarray] = field(default_factory=dict)  # flowed in, not needed
    doubtful: dict[int, np.ndarray] = field(default_factory=dict)  # credited, perhaps wrongly
    missing: dict[int, np.ndarray] = field(default_factory=dict)  # needed, never arrived
    # The local elements the writing work-item read, what it read them with, and whether
    # an input that should not be there came through each: (buffer, element, record, bad).
    reads: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), dtype=np.int64))

    def of(self, kind: str, buffer: int) -> np.ndarray:
        marks: dict[int, np.ndarray] = getattr(self, kind)
        return marks.get(buffer, np.zeros(0, dtype=np.int64))


def explain_marks(explanation: Explanation, layout: Layout) -> ExplainMarks:
    """The marks of an explanation over the trace it came from (``layout`` its buffers)."""
    p = explanation.provenance
    index = {name: b for b, name in enumerate(layout.names)}
    out = index.get(p.output)
    if not p.written or out is None:
        return ExplainMarks(explanation.summary(), None, None, None, None)
    writer = p.stores[0]
    lx, ly = (list(layout.trace.local_size) + [1, 1])[:2]
    local = writer.work_item[3] + lx * (writer.work_item[4] + ly * writer.work_item[5])
    offending = {id(i) for i in explanation.offending}
    doubtful = {id(i) for i in explanation.doubtful}
    kinds: dict[str, dict[int, list[int]]] = {"needed": {}, "offending": {}, "doubtful": {}}
    reads: dict[tuple[int, int, int], bool] = {}
    for inflow in p.inflow:
        b = index.get(inflow.buffer)
        if b is None:
            continue
        kind = (
            "offending" if id(inflow) in offending else "doubtful" if id(inflow) in doubtful
            else "needed"
        )  # fmt: skip
        kinds[kind].setdefault(b, []).append(inflow.element)
        entry = inflow.entry
        if entry.local and entry.buffer in index:
            key = (index[entry.buffer], entry.element, entry.record)
            reads[key] = reads.get(key, False) or kind == "offending"
    missing = {
        index[name]: np.flatnonzero(layout.storage(index[name], mask))
        for name, mask in explanation.missing.items()
        if name in index
    }
    first = explanation.first_offending
    return ExplainMarks(
        summary=explanation.summary(),
        output=(out, p.element),
        group=(writer.work_item[0], writer.work_item[1], writer.work_item[2]),
        local=int(local),
        focus=first.entry.record if first is not None else writer.record,
        needed=_arrays(kinds["needed"]),
        offending=_arrays(kinds["offending"]),
        doubtful=_arrays(kinds["doubtful"]),
        missing=missing,
        reads=np.array(
            [(b, e, r, int(bad)) for (b, e, r), bad in reads.items()], dtype=np.int64
        ).reshape(-1, 4),
    )


def _arrays(marks: dict[int, list[int]]) -> dict[int, np.ndarray]:
    return {b: np.unique(np.array(e, dtype=np.int64)) for b, e in marks.items()}
