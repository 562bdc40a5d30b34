"""The first run of each catalog variant at sizes that are no tile's multiple, as a person
meets it on a fresh machine: a fresh executor whose caches are empty (an ``XDG_CACHE_HOME``
and a ``POCL_CACHE_DIR`` of its own), so every build is a compile, PoCL's at a kernel's first
launch included. Each variant's first run, then the same run again, in wall and CPU seconds
of the executor's process (CPU seconds say what a busy machine's wall seconds cannot): the
difference is what the first run spent building.

A seed kernel whose own constraints refuse these sizes runs anyway, so that it builds too.
"""

from __future__ import annotations

import resource
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from explorer.engine import calls
from explorer.engine.executor import Executor
from explorer.engine.header.catalog import catalog
from explorer.engine.launch.devices import pick_device
from explorer.engine.records import RunRequest, Variant

# What makes an executor with an environment of its own: ``Executor`` itself, or another
# machine's (``--host``).
Executors = Callable[..., Executor]

# Sizes of no tile's multiple, odd ones among them, per family (issue: a first run of
# matmul/fast at 100×36×257 compiled for 9–12 s on a quiet machine).
ODD_SIZES: dict[str, dict[str, int]] = {
    "matmul": {"M": 100, "N": 36, "K": 257},
    "transpose": {"WIDTH": 257, "HEIGHT": 100},
    "matvec": {"WIDTH": 257, "HEIGHT": 100},
    "rowdot": {"D": 257},
    "stencil": {"WIDTH": 257, "HEIGHT": 100},
    "histogram": {"VALUES": 1001, "BINS": 37},
}


@dataclass(frozen=True)
class FirstRunRecord:
    """One variant's first run and the same run again; ``bench-first-run --json`` prints its
    fields, in this order. CPU seconds are None where the process cannot count them."""

    variant: str
    device: str
    status: str
    local_size: tuple[int, ...] | None
    first_s: float
    first_cpu_s: float | None
    again_s: float
    again_cpu_s: float | None

    @property
    def build_s(self) -> float:
        """What the first run spent that the same run again did not: its builds."""
        return max(0.0, self.first_s - self.again_s)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "build_s": round(self.build_s, 3)}

    def summary(self) -> str:
        def cpu(seconds: float | None) -> str:
            return "" if seconds is None else f", {seconds:.1f} CPU s"

        local = "x".join(map(str, self.local_size or ())) or "-"
        return (
            f"{self.variant} ({local}): {self.status}; first run {self.first_s:.1f} s"
            f"{cpu(self.first_cpu_s)}, again {self.again_s:.2f} s{cpu(self.again_cpu_s)}"
        )


@calls.allow
def cpu_seconds() -> float | None:
    """The executor process's CPU seconds so far (all its threads: PoCL compiles on one and
    runs on the others), where the system counts them."""
    try:
        usage = resource.getrusage(resource.RUSAGE_SELF)
    except (AttributeError, OSError):
        return None
    return float(usage.ru_utime + usage.ru_stime)


def odd_sized(variants: Iterable[Variant] | None = None) -> list[Variant]:
    """The variants to measure (every catalog variant of a family with odd sizes)."""
    return [v for v in (catalog() if variants is None else variants) if v.family in ODD_SIZES]


def first_runs(
    variants: Iterable[Variant],
    device: str | None = None,
    executors: Executors = Executor,
) -> Iterator[FirstRunRecord]:
    """Each variant's first run in a fresh executor with empty caches, and the run again."""
    for variant in variants:
        with tempfile.TemporaryDirectory(prefix="first-run-") as folder:
            env = {
                "XDG_CACHE_HOME": str(Path(folder, "cache")),
                "POCL_CACHE_DIR": str(Path(folder, "pocl")),
            }
            with executors(env) as executor:
                yield _measure(executor, variant, device)


def _measure(executor: Executor, variant: Variant, device: str | None) -> FirstRunRecord:
    key = pick_device(executor.devices(), device).key  # the process is up: not counted
    request = RunRequest(
        variant, ODD_SIZES[variant.family], device_key=key, anyway=True, keep_output=False
    )
    cpu = [executor.call(cpu_seconds)]
    walls = []
    results = []
    for _ in range(2):
        started = time.perf_counter()
        results.append(executor.run(request))
        walls.append(time.perf_counter() - started)
        cpu.append(executor.call(cpu_seconds))
    first = results[0]
    return FirstRunRecord(
        variant=variant.qualified_id,
        device=first.device,
        status=first.status,
        local_size=first.local_size,
        first_s=walls[0],
        first_cpu_s=_spent(cpu[0], cpu[1]),
        again_s=walls[1],
        again_cpu_s=_spent(cpu[1], cpu[2]),
    )


def _spent(before: float | None, after: float | None) -> float | None:
    """CPU seconds between two counts of one process (None where either is missing, or the
    process was replaced between them: a crash restarts it)."""
    if before is None or after is None or after < before:
        return None
    return after - before
