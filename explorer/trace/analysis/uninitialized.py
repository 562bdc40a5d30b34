"""Finding: reads of local memory that no work-item had written before (in an earlier phase, or
earlier in the reader's own sequence), such as a sum[] read before it was set to zero."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from explorer.trace.analysis import local_memory
from explorer.trace.analysis.context import EXAMPLES, Context
from explorer.trace.analysis.detector import Detector
from explorer.trace.analysis.units import Unit, Units
from explorer.trace.records import Finding


@dataclass
class _Site:
    buffer: int
    count: int = 0
    phase: int | None = None
    wis: list[int] = field(default_factory=list)
    elements: list[int] = field(default_factory=list)


class _Uninit:
    """Collects reads of local memory that no work-item had written, one finding per site."""

    def __init__(self, ctx: Context, scale: int = 1) -> None:
        self.ctx = ctx
        self.scale = scale  # each read stands for this many (one per work-group)
        self.found: dict[int, _Site] = {}

    def add(self, u: Unit, pos: np.ndarray, keys: np.ndarray) -> None:
        """Take uninitialised reads of ``u`` that the trace is sure of (``keyscan.OnUninit``)."""
        ctx = self.ctx
        phase = u.phase[pos]
        if ctx.safe_phase is not None:
            ok = phase < ctx.safe_phase[ctx.gdense[u.wi[pos]]]
            pos, phase = pos[ok], phase[ok]
            if pos.size == 0:
                return
        e = self.found.setdefault(u.site, _Site(u.buffer))
        e.count += int(pos.size) * self.scale
        p = int(phase.min())
        e.phase = p if e.phase is None else min(e.phase, p)
        if len(e.wis) < EXAMPLES:
            e.wis += u.wi[pos[:EXAMPLES]].tolist()
            es = ctx.trace.buffers[u.buffer].elem_size
            e.elements += (u.off[pos[:EXAMPLES]] // es).tolist()

    def findings(self) -> list[Finding]:
        """One finding per reading site."""
        out = []
        for sid, e in self.found.items():
            s = self.ctx.trace.sites[sid]
            name = self.ctx.trace.buffers[e.buffer].name
            out.append(
                Finding(
                    kind="uninitialized",
                    line=s.line,
                    phase=e.phase,
                    buffer=name,
                    work_items=self.ctx.labels(e.wis),
                    count=e.count,
                    elements=tuple(dict.fromkeys(e.elements))[:EXAMPLES],
                    message=(
                        f"line {s.line} reads {name}[] before any work-item wrote it (phase "
                        f"{e.phase}): initialise it first (and add a barrier)"
                    ),
                )
            )
        return out


def find(ctx: Context, units: Units) -> list[Finding]:
    """One finding per reading site, from the shared local-memory pass."""
    scanned = local_memory.scan(ctx, units)
    uninit = _Uninit(ctx, scanned.scale)
    for batch in scanned.batches:
        for u, pos, keys in batch.uninitialised:
            uninit.add(u, pos, keys)
    return uninit.findings()


DETECTOR = Detector("uninitialized", find, order=60)
