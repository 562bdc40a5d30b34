"""Finding: a ``__global`` site whose warp requests are not coalesced: most lanes touch a
32-byte sector of their own, so the memory system moves at least twice the bytes the warp
uses (the textbook stride across work-items, e.g. a transpose's column writes).

A site qualifies when its requests average at least ``MIN_LANES`` lanes, touch at least
``OWN_SECTOR`` sectors per lane and at least ``WASTE`` times the sectors their bytes need.
The per-lane test keeps a site quiet whose extra sectors were already fetched by a
neighbouring site of the same warp (a stencil's halo reads beside its vector loads). A cost,
not a bug: measure the fix to see it on a device.
"""

from __future__ import annotations

import math

from explorer.trace.analysis.context import Context
from explorer.trace.analysis.cost_sites import cost_sites
from explorer.trace.analysis.detector import Category, Detector
from explorer.trace.analysis.units import Units
from explorer.trace.recorded import Finding

KIND = "uncoalesced"
SECTOR = 32  # bytes the memory system moves at a time
MIN_LANES = 4.0  # fewer active lanes per request have little to coalesce
OWN_SECTOR = 0.75  # sectors per active lane: most lanes in a sector of their own
WASTE = 2.0  # sectors touched over the sectors the requested bytes need


def find(ctx: Context, units: Units) -> list[Finding]:
    """One finding per global site that moves at least ``WASTE`` times the bytes it uses."""
    out = []
    for site in cost_sites(ctx, units):
        s = site.stats
        sectors = s.sectors_per_request
        if s.space != "global" or sectors is None or not s.requests:
            continue
        lanes = s.accesses / s.requests
        needed = max(1.0, math.ceil(site.bytes_used / s.requests / SECTOR))
        if lanes < MIN_LANES or sectors < OWN_SECTOR * lanes or sectors < WASTE * needed:
            continue
        useful = 100.0 * site.bytes_used / (sectors * SECTOR * s.requests)
        out.append(
            Finding(
                kind=KIND,
                line=s.line,
                phase=None,
                buffer=s.buffer,
                work_items=site.work_items,
                count=s.requests,
                message=(
                    f"{s.text or s.buffer}: a warp request touches {sectors:.1f} 32-byte "
                    f"sectors for {lanes:.1f} work-items whose bytes fit in {needed:.0f}: "
                    f"consecutive work-items {s.op} addresses far apart, so only "
                    f"{useful:.0f}% of the bytes moved are used. Map consecutive work-items "
                    "to consecutive addresses (stage a tile in local memory); measure the "
                    "fix to see what it costs here."
                ),
            )
        )
    return out


DETECTOR = Detector(KIND, find, order=75, category=Category.COST)
