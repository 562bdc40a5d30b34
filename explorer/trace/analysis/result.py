"""The result of an analysis: a frozen record that crosses layers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explorer.trace.recorded import Finding, SiteStats, Trace


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
        return {
            "complete": bool(trace.complete),
            "groups_traced": [[int(v) for v in g] for g in trace.groups_traced],
            "records": int(trace.records),
            "findings": [f.to_json() for f in self.findings],
            "sites": [s.to_json() for s in self.sites],
            "loads_per_element": {k: dict(v) for k, v in self.loads_per_element.items()},
            "dispatch_order": [[int(v) for v in g] for g in trace.dispatch_order],
        }
