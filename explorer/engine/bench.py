"""Benchmarks: every chosen variant at every chosen size, side by side with numpy, in one run."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import numpy as np

from explorer.engine.executor import Executor
from explorer.engine.records import RunRequest, RunResult, Variant, result_record
from explorer.problems import FAMILIES


def parse_size(family: str, text: str) -> dict[str, int]:
    """``512`` sets every size of the family; ``1100x100000`` sets them in order."""
    names = FAMILIES[family].size_names
    parts = [p for p in text.lower().replace("×", "x").split("x") if p]
    if not parts or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"size {text!r} is not a number or NxM")
    values = [int(p) for p in parts]
    if len(values) == 1:
        return dict.fromkeys(names, values[0])
    if len(values) != len(names):
        raise ValueError(f"{family} sizes are {'x'.join(names)}; got {text!r}")
    return dict(zip(names, values, strict=True))


def numpy_record(family: str, sizes: dict[str, int], repeat: int, dtype: str = "float32") -> dict:
    """The numpy row: the same computation on the CPU, timed the same way (median of samples)."""
    problem = FAMILIES[family]
    full = problem.check_sizes(sizes)
    inputs = problem.make_inputs(full, np.dtype(dtype), "random")
    problem.numpy_baseline(inputs)  # warm-up
    samples = []
    for _ in range(max(1, repeat)):
        started = time.perf_counter()
        problem.numpy_baseline(inputs)
        samples.append((time.perf_counter() - started) * 1e3)
    median = float(np.median(samples))
    flops = problem.flops(full)
    moved = problem.min_bytes(full, np.dtype(dtype).itemsize)
    return {
        "family": family,
        "variant": "numpy",
        "device": "numpy (CPU)",
        "platform": "numpy " + np.__version__,
        "size": full,
        "local_size": None,
        "global_size": None,
        "defines": {},
        "status": "verified",
        "verified": True,
        "max_abs_error": None,
        "max_rel_error": None,
        "kernel_ms_median": median,
        "kernel_ms_min": min(samples),
        "kernel_ms_max": max(samples),
        "samples_ms": samples,
        "upload_ms": None,
        "download_ms": None,
        "reference_ms": None,
        "gflops": flops / (median * 1e-3) / 1e9 if flops else None,
        "gbps": moved / (median * 1e-3) / 1e9,
        "refused": None,
        "error": None,
        "output": None,
    }


def bench(
    executor: Executor,
    variants: Iterable[Variant],
    sizes: Iterable[dict[str, int]],
    device_key: str | None,
    repeat: int = 10,
    timeout_s: float = 60.0,
    progress: Callable[[RunResult], None] | None = None,
) -> list[dict]:
    """Records for each size: every variant, then the numpy row."""
    variants = list(variants)
    records = []
    for size in sizes:
        for variant in variants:
            request = RunRequest(
                variant,
                size,
                device_key=device_key,
                repeat=repeat,
                timeout_s=timeout_s,
                keep_output=False,
            )
            result = executor.run(request)
            if progress is not None:
                progress(result)
            records.append(result_record(result))
        if variants:
            records.append(numpy_record(variants[0].family, size, repeat))
    return records
