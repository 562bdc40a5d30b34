"""What a sweep can colour by besides time: figures from a real trace of each point.

``bank-degree`` is the worst local site's mean bank-conflict degree (1 is conflict-free),
``sectors`` the worst global site's mean 32-byte sectors per warp request (4 is a coalesced
warp of floats). The worst site is the one a finding would name; a kernel without local (or
global) sites has no figure.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from explorer.engine.executor import Executor
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.trace.recorded import SiteStats

METRICS = ("time", "bank-degree", "sectors")
FIELDS = {"bank-degree": "bank_degree", "sectors": "sectors_per_request"}
SWEEP_BUDGET_BYTES = 64 << 20  # a window of groups is enough: the figures are per request


def site_figures(sites: Iterable[SiteStats]) -> dict[str, float | None]:
    """``bank_degree`` and ``sectors_per_request`` of the worst site of each space."""
    sites = list(sites)
    degrees = [s.bank_conflict_degree for s in sites if s.bank_conflict_degree is not None]
    sectors = [s.sectors_per_request for s in sites if s.sectors_per_request is not None]
    return {
        "bank_degree": max(degrees) if degrees else None,
        "sectors_per_request": max(sectors) if sectors else None,
    }


def traced_figures(executor: Executor, request: RunRequest) -> dict[str, Any]:
    """Trace ``request`` (one launch, a window of groups) and return its figures, with
    ``trace_status`` naming a trace that did not run."""
    run = dataclasses.replace(request, keep_output=False, pair_copy=False, repeat=1)
    traced = executor.trace(TraceRequest(run, budget_bytes=SWEEP_BUDGET_BYTES, values=False))
    if traced.analysis is None:
        return {"bank_degree": None, "sectors_per_request": None, "trace_status": "not traced"}
    return {**site_figures(traced.analysis.sites), "trace_status": traced.result.status}
