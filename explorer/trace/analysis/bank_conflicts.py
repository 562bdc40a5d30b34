"""Finding: a ``__local`` site whose warp requests fall, on average, at least two distinct
words into one bank, so local memory serves each request in that many turns.

Local memory has 32 banks of 4 bytes (``bank_bytes`` 8 in Kepler's mode); lanes reading the
same word share it (a broadcast). A cost, not a bug: ``trace --measure-fix`` and the app's
"Measure the fix" time the kernel beside its counterpart (a padded tile, a re-mapped
reduction) and say what the conflict costs on a given device.
"""

from __future__ import annotations

from explorer.trace.analysis.context import Context
from explorer.trace.analysis.cost_sites import cost_sites
from explorer.trace.analysis.detector import Category, Detector
from explorer.trace.analysis.units import Units
from explorer.trace.recorded import Finding

KIND = "bank-conflict"
DEGREE = 2.0  # mean distinct words per bank per request: 2 is a two-way conflict throughout


def find(ctx: Context, units: Units) -> list[Finding]:
    """One finding per local site whose mean bank-conflict degree is at least ``DEGREE``."""
    out = []
    for site in cost_sites(ctx, units):
        s = site.stats
        degree = s.bank_conflict_degree
        if s.space != "local" or degree is None or degree < DEGREE:
            continue
        worst = s.bank_conflict_worst or round(degree)
        out.append(
            Finding(
                kind=KIND,
                line=s.line,
                phase=None,
                buffer=s.buffer,
                work_items=site.work_items,
                count=s.requests,
                message=(
                    f"{s.text or s.buffer}: each warp request puts {degree:.2f} distinct words "
                    f"in one local memory bank on average (at worst {worst}), so it is served "
                    f"in that many turns ({ctx.banks} banks of {ctx.bank_bytes} bytes). Pad "
                    "the array's rows by one word, or map work-items so that a warp's lanes "
                    "fall in different banks; measure the fix to see what it costs here."
                ),
            )
        )
    return out


DETECTOR = Detector(KIND, find, order=80, category=Category.COST)
