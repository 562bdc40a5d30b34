"""Access analysis: turn a decoded trace into findings a person can act on and into per-site
memory statistics (coalescing, bank conflicts, loads per element).

A trace can hold tens of millions of records, so nothing here loops per record and nothing
sorts the whole trace (a full sort of 20M keys costs seconds): ``units`` groups the records
per site, ``site_stats`` works on dense warp-request matrices, and the race and
uninitialised-read detectors on dense per-key tables (``keyscan``).

Each finding kind is one module that provides a ``Detector`` (its kind and its ``find``);
``DETECTORS`` lists them. Adding a finding kind is adding one module and one line here. The
list is an explicit tuple rather than a registering decorator so that the order findings are
reported in (trace problems first, then the kernel's bugs, then coverage) is written in one
place and does not depend on which module happened to be imported first.
"""

from __future__ import annotations

from explorer.trace.analysis import (
    barrier_divergence,
    coverage,
    not_traced,
    out_of_bounds,
    overflow,
    races,
    uninitialized,
)
from explorer.trace.analysis.context import EXAMPLES, Context
from explorer.trace.analysis.detector import Detector
from explorer.trace.analysis.loads import traffic
from explorer.trace.analysis.report import format_report
from explorer.trace.analysis.result import Analysis
from explorer.trace.analysis.site_stats import site_stats
from explorer.trace.analysis.units import split
from explorer.trace.records import Trace

__all__ = ["DETECTORS", "EXAMPLES", "Analysis", "Detector", "analyse", "format_report"]

DETECTORS: tuple[Detector, ...] = (
    overflow.DETECTOR,
    not_traced.DETECTOR,
    out_of_bounds.DETECTOR,
    barrier_divergence.DETECTOR,
    races.DETECTOR,
    uninitialized.DETECTOR,
    coverage.DETECTOR,
)


def analyse(trace: Trace, warp: int = 32, banks: int = 32) -> Analysis:
    """Analyse every record of ``trace``. ``warp`` is the number of consecutive local ids that
    execute together (a request), ``banks`` the number of 4-byte local memory banks."""
    if warp < 1 or banks < 1:
        raise ValueError("warp and banks must be positive")
    ctx = Context(trace, warp, banks)
    units = split(ctx)
    rank = {d.kind: i for i, d in enumerate(DETECTORS)}
    findings = [f for d in DETECTORS for f in d.find(ctx, units)]
    findings.sort(key=lambda f: (rank[f.kind], f.line or 0, -1 if f.phase is None else f.phase))
    moved = traffic(ctx, units)
    return Analysis(
        tuple(findings),
        site_stats(ctx, units),
        moved.loads_per_element,
        moved.bytes_read,
        moved.bytes_written,
    )
