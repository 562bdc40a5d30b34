"""Benchmarks: every chosen variant at every chosen size, side by side with numpy and a
baseline, in one run; optionally over a sweep of local sizes and defines.

``ratio_to_baseline`` (higher is better) compares each row with the baseline measured in
the same run, at the same size:

- ``numpy``, ``torch``: baseline time / row time.
- ``copy``: row GB/s / copy GB/s, the row counting the problem's minimum bytes and the
  copy the bytes the float4 copy kernel moves: as many (half read, half written), but for a
  rest of under 16 bytes each way (a problem of under 32 bytes: one float4 each way); so
  about copy time / row time. The copy is launched right after each timed launch of the row
  (``RunRequest.pair_copy``) and the ratio is the median over those pairs, so that a drift
  of the machine's memory bandwidth during the run falls on both alike. The copy row pools
  every pair's copy.
- ``fma``: row GFLOP/s / the multiply-add kernel's GFLOP/s (none for a family without
  arithmetic, e.g. transpose).
- ``clblast``: CLBlast's SGEMM time / row time (matmul; a ``skipped`` row saying why where
  pyclblast does not import).

Only verified rows get a ratio.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from explorer.engine.executor import Executor, ExecutorError
from explorer.engine.launch.copy_kernel import copied_float4s, copy_bytes
from explorer.engine.measure.baselines import (
    import_torch,
    measure_clblast,
    measure_copy,
    measure_fma,
    torch_device,
    torch_time,
)
from explorer.engine.records import RunRequest, RunResult, Variant, failed_result, result_record
from explorer.families import fixed_family, get_family

BASELINES = ("copy", "fma", "numpy", "torch", "clblast")


def parse_size(family: str, text: str) -> dict[str, int]:
    """``512`` sets every size of the family; ``1100x100000`` sets them in order."""
    names = get_family(family).size_names
    parts = [p for p in text.lower().replace("×", "x").split("x") if p]
    if not parts or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"size {text!r} is not a number or NxM")
    values = [int(p) for p in parts]
    if len(values) == 1:
        return dict.fromkeys(names, values[0])
    if len(values) != len(names):
        raise ValueError(f"{family} sizes are {'x'.join(names)}; got {text!r}")
    return dict(zip(names, values, strict=True))


def numpy_record(family: str, sizes: dict[str, int], repeat: int, dtype: str | None = None) -> dict:
    """The numpy row: the same computation on the CPU, timed the same way (median of samples),
    on inputs of the family's own element type unless ``dtype`` says otherwise (a histogram
    counts int32 values: on float32 ones the time would include their conversion). Runs in
    the executor process; a size beyond the host's memory is a refused row."""
    from explorer.description.launch import Setting
    from explorer.engine.launch.memory import available_host_bytes, host_bytes

    model = fixed_family(family)
    dtype = dtype or model.header_dtype({}, family)
    full = model.check_sizes(sizes)
    setting = Setting(full, {}, (1,))
    described = model.describe(setting, model.roles, "row-major", np.dtype(dtype))
    needed = host_bytes(described)
    available = available_host_bytes()
    if needed > available * 0.6:
        row = _row(family, "numpy", "numpy (CPU)", "numpy " + np.__version__, full)
        row["status"], row["verified"] = "refused", False
        row["refused"] = (
            f"the numpy baseline needs about {needed >> 20} MiB of host memory; "
            f"{available >> 20} MiB is available. Use smaller sizes."
        )
        return row
    inputs = model.make_inputs(full, np.dtype(dtype), "random")
    model.numpy_baseline(inputs)  # warm-up
    samples = []
    for _ in range(max(1, repeat)):
        started = time.perf_counter()
        model.numpy_baseline(inputs)
        samples.append((time.perf_counter() - started) * 1e3)
    median = float(np.median(samples))
    flops = model.flops(full)
    moved = model.min_bytes(full, np.dtype(dtype).itemsize)
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


def parse_sweep(items: Iterable[str]) -> dict[str, list[Any]]:
    """``["local=8x8,16x16", "TS=8,16"]`` to ``{"local": [(8, 8), (16, 16)], "TS": [8, 16]}``."""
    sweep: dict[str, list[Any]] = {}
    for item in items:
        name, sep, values = item.partition("=")
        name = name.strip()
        parts = [v.strip() for v in values.split(",") if v.strip()]
        if not sep or not name or not parts:
            raise ValueError(f"--sweep {item!r} is not NAME=V1,V2,... (or local=8x8,16x16)")
        if name in sweep:
            raise ValueError(f"--sweep {name} is given twice")
        if name.lower() == "local":
            local = []
            for part in parts:
                dims = part.lower().replace("×", "x").split("x")
                if not all(d.isdigit() and int(d) > 0 for d in dims):
                    raise ValueError(f"--sweep local: {part!r} is not like 16x16")
                local.append(tuple(int(d) for d in dims))
            sweep["local"] = local
        else:
            if not all(p.lstrip("-").isdigit() for p in parts):
                raise ValueError(f"--sweep {name}: values must be integers, got {values!r}")
            sweep[name] = [int(p) for p in parts]
    return sweep


def sweep_points(sweep: dict[str, list[Any]] | None) -> list[dict[str, Any]]:
    """The cartesian product of the sweep's values, in the order given; one empty point
    when there is no sweep."""
    if not sweep:
        return [{}]
    names = list(sweep)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*sweep.values())]


def _point_json(point: dict[str, Any]) -> dict[str, Any]:
    return {k: ("x".join(map(str, v)) if k == "local" else v) for k, v in point.items()}


# -- runs in the executor process ---------------------------------------------------------------


def run_memoised(request: RunRequest) -> RunResult:
    """:func:`run_request`: the engine keeps the inputs and the references of the last
    configuration, so a sweep of 40 configurations at 4096³ computes the reference once, not
    40 times, and quotes the time it took then. Runs in the executor process."""
    from explorer.engine.launch import run as runner

    return runner.run_request(request)


def forget_memo() -> None:
    from explorer.engine.launch.prepare import forget_made

    forget_made()


# -- baseline rows --------------------------------------------------------------------------------


def _row(family: str, variant: str, device: str, platform: str, sizes: dict[str, int]) -> dict:
    return {
        "family": family,
        "variant": variant,
        "device": device,
        "platform": platform,
        "size": dict(sizes),
        "local_size": None,
        "global_size": None,
        "defines": {},
        "status": "verified",
        "verified": True,
        "max_abs_error": None,
        "max_rel_error": None,
        "kernel_ms_median": None,
        "kernel_ms_min": None,
        "kernel_ms_max": None,
        "samples_ms": [],
        "upload_ms": None,
        "download_ms": None,
        "reference_ms": None,
        "gflops": None,
        "gbps": None,
        "refused": None,
        "error": None,
        "output": None,
    }


def _skipped(row: dict, why: str) -> dict:
    """A baseline row that could not run here, and why."""
    row.update(status="skipped", verified=False, error=why)
    return row


def _timed(row: dict, samples: list[float], flops: float, moved: float) -> dict:
    median = float(np.median(samples))
    row.update(
        kernel_ms_median=median,
        kernel_ms_min=min(samples),
        kernel_ms_max=max(samples),
        samples_ms=list(samples),
        gflops=flops / (median * 1e-3) / 1e9 if flops else None,
        gbps=moved / (median * 1e-3) / 1e9 if moved else None,
    )
    return row


def baseline_record(
    executor: Executor,
    baseline: str,
    family: str,
    sizes: dict[str, int],
    device_key: str | None,
    device_name: str,
    repeat: int,
    timeout_s: float,
    rows: list[dict] | None = None,
) -> dict | None:
    """The baseline row at this size: ``copy``, ``fma``, ``torch`` or ``clblast`` (``numpy`` is the
    numpy row itself). A baseline that cannot run gives a row with status ``skipped``.
    ``rows``: the size's rows, whose paired copies make the copy row when they have any."""
    model = fixed_family(family)
    full = model.check_sizes(sizes)
    flops = model.flops(full)
    moved = model.min_bytes(full, 4)
    if baseline == "copy":
        pooled = [s for r in rows or () for s in r.get("paired_copy_ms") or () if s is not None]
        if pooled:
            name = rows[0]["device"] if rows else device_name
            samples = pooled
        else:  # no row ran: the copy on its own
            copy = executor.call(
                measure_copy,
                device_key,
                moved,
                repeat,
                timeout_s=timeout_s,
                what="the copy baseline",
            )
            name, samples = copy["device"], copy["samples_ms"]
        row = _row(family, "copy", name, "float4 copy kernel", full)
        # Its GB/s counts the bytes the copy moved: the problem's, but for a rest of less
        # than 16 on each side (and at least one float4 each way).
        return _timed(row, samples, 0.0, copy_bytes(copied_float4s(moved)))
    if baseline == "fma":
        fma = executor.call(measure_fma, device_key, repeat, timeout_s=timeout_s, what="fma")
        row = _row(family, "fma", fma["device"], "multiply-add kernel", full)
        return _timed(row, fma["samples_ms"], fma["flops"], 0.0)
    if baseline == "torch":
        index, note = torch_device(device_name)
        if index is None:
            return _skipped(_row(family, "torch", device_name, "torch", full), note)
        what = f"{model.torch_what}; torch {import_torch().__version__}"
        row = _row(family, "torch", note, what, full)
        return _timed(row, torch_time(family, full, index, repeat), flops, moved)
    if baseline == "clblast":
        return _clblast_row(executor, family, full, device_key, device_name, repeat, timeout_s)
    return None


def _clblast_row(
    executor: Executor,
    family: str,
    sizes: dict[str, int],
    device_key: str | None,
    device_name: str,
    repeat: int,
    timeout_s: float,
) -> dict:
    """CLBlast's SGEMM on the same device, measured in the executor process; a ``skipped`` row
    with the reason where pyclblast does not import or CLBlast has no such routine."""
    model = fixed_family(family)
    got = executor.call(
        measure_clblast,
        device_key,
        family,
        sizes,
        repeat,
        timeout_s=timeout_s * (repeat + 2),
        what="the CLBlast baseline",
    )
    if "error" in got:
        return _skipped(
            _row(family, "clblast", device_name, "CLBlast (pyclblast)", sizes), got["error"]
        )
    version = f" {got['version']}" if got.get("version") else ""
    row = _row(family, "clblast", got["device"], f"CLBlast SGEMM (pyclblast{version})", sizes)
    if not got["verified"]:
        row.update(status="wrong", verified=False, error="CLBlast's product differs from float64")
    return _timed(row, got["samples_ms"], model.flops(sizes), model.min_bytes(sizes, 4))


def add_ratios(records: list[dict], base: dict | None, baseline: str) -> None:
    """Set ``baseline`` and ``ratio_to_baseline`` on every record (in place)."""
    for record in records:
        record["baseline"] = baseline
        record["ratio_to_baseline"] = _ratio(record, base, baseline)


def _ratio(record: dict, base: dict | None, baseline: str) -> float | None:
    if base is None or record.get("status") != "verified" or base.get("status") != "verified":
        return None
    if baseline == "fma":
        if not record.get("gflops") or not base.get("gflops"):
            return None
        return record["gflops"] / base["gflops"]
    if baseline == "copy":
        pairs = [
            (c, k)
            for c, k in zip(
                record.get("paired_copy_ms") or (), record.get("samples_ms") or (), strict=False
            )
            if c and k and c == c and k == k
        ]
        if pairs:  # launch by launch: the row's GB/s over the copy's
            moved = record.get("bytes_moved") or 0.0
            # The copy moves whole float4s: a few bytes fewer than the row (or more, for a
            # problem under 32 bytes), so the time ratio is scaled to a ratio of rates.
            scale = moved / copy_bytes(copied_float4s(moved)) if moved else 1.0
            return float(np.median([scale * c / k for c, k in pairs]))
        if not record.get("gbps") or not base.get("gbps"):
            return None
        return record["gbps"] / base["gbps"]
    if not record.get("kernel_ms_median") or not base.get("kernel_ms_median"):
        return None
    return base["kernel_ms_median"] / record["kernel_ms_median"]


def bench(
    executor: Executor,
    variants: Iterable[Variant],
    sizes: Iterable[dict[str, int]],
    device_key: str | None,
    repeat: int = 10,
    timeout_s: float = 60.0,
    progress: Callable[[RunResult], None] | None = None,
    sweep: dict[str, list[Any]] | None = None,
    baseline: str | None = None,
    device_name: str = "",
    metric: str = "time",
) -> list[dict]:
    """Records for each size: every variant (at every point of the sweep), the numpy row,
    then the baseline row when ``baseline`` is copy, fma or torch. With a baseline, every
    record carries ``baseline`` and ``ratio_to_baseline``; with a sweep, each variant's
    record carries ``sweep``, the point's values (a refused point has status refused and
    the reason). With a ``metric`` from a trace (bank-degree, sectors), each variant's
    record also carries ``bank_degree`` and ``sectors_per_request`` from a real trace of
    that configuration."""
    from explorer.engine.measure.sweep_metrics import METRICS, traced_figures

    if baseline is not None and baseline not in BASELINES:
        raise ValueError(f"baseline must be one of {', '.join(BASELINES)}; not {baseline!r}")
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(METRICS)}; not {metric!r}")
    variants = list(variants)
    points = sweep_points(sweep)
    records = []
    for size in sizes:
        rows = []
        for variant in variants:
            for point in points:
                defines = {k: v for k, v in point.items() if k != "local"}
                request = RunRequest(
                    variant,
                    size,
                    local=point.get("local"),
                    defines=defines,
                    device_key=device_key,
                    repeat=repeat,
                    timeout_s=timeout_s,
                    keep_output=False,
                    pair_copy=baseline == "copy",
                )
                try:
                    result = executor.call(
                        run_memoised, request, timeout_s=timeout_s, what=_describe(request)
                    )
                except ExecutorError as exc:
                    result = failed_result(request, str(exc), exc.kind)
                if progress is not None:
                    progress(result)
                record = result_record(result)
                if sweep:
                    record["sweep"] = _point_json(point)
                if metric != "time" and result.status == "refused":
                    record.update(bank_degree=None, sectors_per_request=None, trace_status=None)
                elif metric != "time":
                    record.update(traced_figures(executor, request))
                rows.append(record)
        if not variants:
            continue
        family = variants[0].family
        numpy_row = _numpy_row(executor, family, size, repeat, timeout_s)
        rows.append(numpy_row)
        base = numpy_row if baseline == "numpy" else None
        if baseline in ("copy", "fma", "torch", "clblast"):
            base = baseline_record(
                executor, baseline, family, size, device_key, device_name, repeat, timeout_s, rows
            )
            if base is not None:
                rows.append(base)
        if baseline is not None:
            add_ratios(rows, base, baseline)
        if executor.alive:
            executor.call(forget_memo, timeout_s=30)
        records.extend(rows)
    return records


def _numpy_row(
    executor: Executor, family: str, size: dict[str, int], repeat: int, timeout_s: float
) -> dict:
    """The numpy row, computed in the executor process: a baseline too large for this
    machine's memory costs that process, never the caller."""
    try:
        row: dict = executor.call(
            numpy_record,
            family,
            size,
            repeat,
            timeout_s=timeout_s * (repeat + 2),
            what=f"the numpy baseline of {family}",
        )
    except ExecutorError as exc:
        row = _row(family, "numpy", "numpy (CPU)", "numpy " + np.__version__, size)
        row["status"] = {"crash": "crashed", "timeout": "timeout"}.get(exc.kind, "error")
        row["verified"] = False
        row["error"] = str(exc)
    return row


def _describe(request: RunRequest) -> str:
    sizes = ", ".join(f"{k}={v}" for k, v in request.sizes.items())
    return f"{request.variant.qualified_id} ({sizes})"
