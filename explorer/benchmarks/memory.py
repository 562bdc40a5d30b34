"""Memory growth over many runs: what the window's history costs per run.

Runs one configuration again and again through the executor, keeping each result the way
the window does (:meth:`AppState.remember`, with the arrays the window asks for), and reads
this process's resident memory after the first runs and after the last. The figure is a
ratio measured side by side in one process: flat memory is a ratio near 1.
"""

from __future__ import annotations

import gc
import os
import resource
from dataclasses import dataclass
from typing import Any

from explorer.engine.executor import Executor
from explorer.engine.header.catalog import find_variant
from explorer.engine.launch.devices import pick_device
from explorer.engine.records import RunRequest

BASELINE_RUNS = 10


@dataclass(frozen=True)
class MemoryGrowth:
    """Resident memory after :data:`BASELINE_RUNS` runs and after ``runs`` runs."""

    size: int
    runs: int
    rss_after_baseline_mb: float
    rss_after_runs_mb: float
    statuses: tuple[str, ...]

    @property
    def ratio(self) -> float:
        return self.rss_after_runs_mb / self.rss_after_baseline_mb

    @property
    def growth_per_run_mb(self) -> float:
        extra = self.runs - BASELINE_RUNS
        return (self.rss_after_runs_mb - self.rss_after_baseline_mb) / extra if extra else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "size": self.size,
            "runs": self.runs,
            "rss_after_10_mb": round(self.rss_after_baseline_mb, 1),
            f"rss_after_{self.runs}_mb": round(self.rss_after_runs_mb, 1),
            "ratio": round(self.ratio, 3),
            "growth_per_run_mb": round(self.growth_per_run_mb, 3),
            "verified_runs": sum(s == "verified" for s in self.statuses),
        }


def resident_mb() -> float:
    """This process's resident memory now (Linux ``/proc``; elsewhere the peak)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return float(peak) / 1024


def bench_memory(
    executor: Executor,
    size: int = 768,
    runs: int = 100,
    device: str | None = None,
    variant: str = "tiled",
) -> MemoryGrowth:
    """``runs`` runs of the matmul ``variant`` at ``size``³ (the IOU input the window shows),
    each kept in an :class:`AppState` history as the window keeps it."""
    from explorer.gui.state import AppState  # Qt-free, but the command line loads no gui module

    if runs <= BASELINE_RUNS:
        raise ValueError(f"runs must be more than {BASELINE_RUNS}")
    chosen = pick_device(executor.devices(), device)
    request = RunRequest(
        find_variant("matmul", variant),
        {"M": size, "N": size, "K": size},
        device_key=chosen.key,
        input="iou",
        repeat=1,
        keep_output=True,  # the window asks for the arrays, to show the image
    )
    state = AppState()
    statuses: list[str] = []
    baseline = 0.0
    for index in range(runs):
        result = executor.run(request)
        state.result = result
        state.remember(result)
        statuses.append(result.status)
        if index + 1 == BASELINE_RUNS:
            gc.collect()
            baseline = resident_mb()
    gc.collect()
    return MemoryGrowth(size, runs, baseline, resident_mb(), tuple(statuses))
