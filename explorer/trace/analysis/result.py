"""The result of an analysis: a frozen record that crosses layers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explorer.trace.analysis import report
from explorer.trace.records import Finding, SiteStats, Trace


@dataclass(frozen=True)
class Analysis:
    """What the trace says about the kernel: findings first, then per-site statistics."""

    findings: tuple[Finding, ...]
    sites: tuple[SiteStats, ...]  # one per memory-access site with records, in line order
    loads_per_element: dict[str, dict[str, float]]  # global input buffer -> min/max/mean
    global_bytes_read: int
    global_bytes_written: int

    def to_json(self, trace: Trace) -> dict[str, Any]:
        """The CLI's JSON object (plain Python types only)."""
        return report.to_json(trace, self)
