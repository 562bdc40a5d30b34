"""Access analysis: turn a decoded trace into findings a person can act on and into per-site
memory statistics (coalescing, bank conflicts, loads per element).

A trace can hold tens of millions of records, so nothing here loops per record and nothing
sorts the whole trace (a full sort of 20M keys costs seconds): ``units`` groups the records
per site, ``site_stats`` works on dense warp-request matrices, and the race and
uninitialised-read detectors on dense per-key tables (``keyscan``).

Each finding kind is one module of this package that provides ``DETECTOR``, a
:class:`Detector`: its kind, its category (bug, cost, note, trace), how it finds its findings,
their place in the report, which of them share a root cause, and that cause and its advice
in words. The kinds are found by walking the package (``registry``), so adding a finding kind
is adding one module: the report and the findings view read everything from its record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from explorer.trace.analysis import registry
from explorer.trace.analysis.context import EXAMPLES, Context
from explorer.trace.analysis.detector import Category, Detector
from explorer.trace.analysis.loads import traffic
from explorer.trace.analysis.report import format_report
from explorer.trace.analysis.result import Analysis
from explorer.trace.analysis.site_stats import site_stats
from explorer.trace.analysis.units import split
from explorer.trace.recorded import Finding, Trace

if TYPE_CHECKING:  # a trace diff comes with ``trace --against`` alone, its modules with it
    from explorer.trace.diff import TraceDiff

__all__ = [
    "BANK_BYTES",
    "DETECTORS",
    "EXAMPLES",
    "Analysis",
    "Category",
    "Detector",
    "analyse",
    "format_report",
    "registry",
]


DETECTORS: tuple[Detector, ...] = registry.detectors()  # the kinds this package ships


BANK_BYTES = (4, 8)  # the widths a local memory bank can have


def analyse(
    trace: Trace,
    warp: int = 32,
    banks: int = 32,
    bank_bytes: int = 4,
    diff: TraceDiff | None = None,
    on_stage: Callable[[str], None] | None = None,
) -> Analysis:
    """Analyse every record of ``trace``. ``warp`` is the number of consecutive local ids that
    execute together (a request), ``banks`` the number of local memory banks and
    ``bank_bytes`` the width of one (4, or 8 as Kepler's 8-byte mode). ``diff``: the trace's
    diff against a reference kernel, whose first differences become findings (``differs``).
    ``on_stage``: called with each stage's name as it ends (the split, each finding kind, the
    loads per element, the site statistics), for a caller that times them."""
    if warp < 1 or banks < 1:
        raise ValueError("warp and banks must be positive")
    if bank_bytes not in BANK_BYTES:
        raise ValueError(f"bank_bytes must be 4 or 8, not {bank_bytes}")
    done = on_stage or (lambda stage: None)
    ctx = Context(trace, warp, banks, bank_bytes)
    ctx.diff = diff
    done("context")
    units = split(ctx)
    done("split")
    kinds = registry.detectors()
    rank = {d.kind: i for i, d in enumerate(kinds)}
    findings: list[Finding] = []
    for d in kinds:
        findings.extend(d.find(ctx, units))
        done(d.kind)
    findings.sort(key=lambda f: (rank[f.kind], f.line or 0, -1 if f.phase is None else f.phase))
    moved = traffic(ctx, units)
    done("traffic")
    stats = site_stats(ctx, units)
    done("site statistics")
    return Analysis(
        tuple(findings),
        stats,
        moved.loads_per_element,
        moved.bytes_read,
        moved.bytes_written,
    )
