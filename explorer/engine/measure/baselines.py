"""Baselines and limits that the benchmarks compare every variant with, measured by the project.

- ``copy``: a float4 device-to-device copy kernel. Transpose, mat-vec and the row reduction
  must read and write every byte at least once, so a plain copy of the same number of bytes
  is the speed they can at best reach.
- ``fma``: a kernel that does nothing but independent multiply-adds in registers: the
  device's arithmetic limit, the ceiling for matmul.
- ``torch``: what a CUDA user would call instead (each family's ``torch_op``: cuBLAS SGEMM
  with TF32 off, a transpose copy, cuBLAS SGEMV, ...), when torch with CUDA is
  importable and one of its devices is the OpenCL device; otherwise skipped with a note.
  Never a required dependency.
- ``clblast``: CLBlast's SGEMM (matmul only) on the same OpenCL device, through its Python
  bindings ``pyclblast`` when they import; otherwise skipped with a note. Never required.

:func:`device_limits` measures the copy and fma limits once per device and keeps them in a
JSON file in the user's cache folder, keyed by device name, platform and driver version.
It runs in the executor process (``Executor().call(device_limits, key)``), where PyOpenCL
may be used; nothing in this module imports PyOpenCL at import time.
"""

from __future__ import annotations

import datetime
import hashlib
import importlib
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from explorer.engine.launch.copy_kernel import (
    COPY_SOURCE,
    CopyKernel,
    baseline_kernel,
    group_size,
)
from explorer.engine.launch.devices import pick_device
from explorer.engine.launch.runtime import OpenCLRuntime, runtime
from explorer.families import fixed_family

CACHE_FILE = "device-limits.json"

# CHAINS independent chains of float8 multiply-adds per work-item, ITER steps each, all in
# registers; the sum is stored so that nothing is optimised away. FLOPs = 2 * 8 * CHAINS * ITER
# per work-item. float8 lets a CPU device use its widest vector units; a GPU runs the eight
# lanes as eight scalar chains. `x * a + b` is contracted to one fused multiply-add where the
# device has one (PoCL runs mad() and fma() as slow calls).
FMA_CHAINS = 8
FMA_ITER = 4096
FMA_SOURCE = (
    f"#define CHAINS {FMA_CHAINS}\n#define ITER {FMA_ITER}\n"
    """
__kernel void fma_peak(__global float* out, const float a, const float b)
{
    float8 x[CHAINS];
    #pragma unroll
    for (int c = 0; c < CHAINS; c++)
        x[c] = (float8)((float)get_global_id(0) * 1e-9f + (float)c)
               + (float8)(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f);
    for (int i = 0; i < ITER; i++) {
        #pragma unroll
        for (int c = 0; c < CHAINS; c++)
            x[c] = x[c] * a + b;
    }
    float8 s = (float8)(0.0f);
    #pragma unroll
    for (int c = 0; c < CHAINS; c++)
        s += x[c];
    out[get_global_id(0)] = (s.s0 + s.s1 + s.s2 + s.s3) + (s.s4 + s.s5 + s.s6 + s.s7);
}
"""
)

LIMIT_COPY_BYTES = 512 << 20  # bytes moved (read + write) by the cached copy limit


# -- running kernels in this (the executor's) process ---------------------------------------


def _device_and_queue(device_key: str | None) -> tuple[OpenCLRuntime, Any, Any, Any]:
    s = runtime()
    device = pick_device(s.devices, device_key)
    context, queue = s.queue(device)
    return s, device, context, queue


def _time_launches(
    cl: Any, queue: Any, kernel: Any, gsize: int, lsize: int, repeat: int
) -> list[float]:
    """One warm-up launch, then ``repeat`` timed ones; the samples in ms."""
    cl.enqueue_nd_range_kernel(queue, kernel, (gsize,), (lsize,)).wait()
    samples = []
    for _ in range(max(1, repeat)):
        event = cl.enqueue_nd_range_kernel(queue, kernel, (gsize,), (lsize,))
        event.wait()
        samples.append((event.profile.end - event.profile.start) * 1e-6)
    return samples


def measure_copy(device_key: str | None, bytes_moved: float, repeat: int = 10) -> dict:
    """Copy ``bytes_moved / 2`` bytes (rounded down to float4s, at least one) with the float4
    kernel; the time and the rate, counting bytes read plus bytes written."""
    s, device, context, queue = _device_and_queue(device_key)
    copy = CopyKernel(s, context, queue, device, bytes_moved)
    try:
        samples = [copy.time_ms() for _ in range(max(1, repeat))]
        copy.check()
    finally:
        copy.release()
    median = float(np.median(samples))
    return {
        "device": device.name,
        "bytes_moved": copy.bytes_moved,
        "samples_ms": samples,
        "ms": median,
        "gbps": copy.bytes_moved / (median * 1e-3) / 1e9,
    }


def measure_fma(device_key: str | None, repeat: int = 10) -> dict:
    """The multiply-add limit: GFLOP/s of :data:`FMA_SOURCE` over enough work-items to fill
    every compute unit several times."""
    s, device, context, queue = _device_and_queue(device_key)
    cl = s.cl
    kernel = baseline_kernel(s, context, device, FMA_SOURCE, "fma_peak")
    lsize = group_size(device)
    gsize = max(1, device.compute_units) * 2048
    gsize = -(-gsize // lsize) * lsize
    out = cl.Buffer(context, cl.mem_flags.WRITE_ONLY, gsize * 4)
    kernel.set_args(out, np.float32(0.9999999), np.float32(1e-7))
    samples = _time_launches(cl, queue, kernel, gsize, lsize, repeat)
    out.release()
    median = float(np.median(samples))
    flops = 2.0 * 8 * FMA_CHAINS * FMA_ITER * gsize
    return {
        "device": device.name,
        "flops": flops,
        "samples_ms": samples,
        "ms": median,
        "gflops": flops / (median * 1e-3) / 1e9,
    }


# -- the cached per-device limits --------------------------------------------------------------


def cache_dir() -> Path:
    """The explorer's one cache folder (``$EXPLORER_CACHE_DIR``, else ``$XDG_CACHE_HOME`` or
    ~/.cache, then opencl-kernel-explorer), where the parse and instrument caches live too."""
    from explorer.frontend import disk_cache  # the package's import is paid by its users

    return disk_cache.cache_root()


def device_cache_key(name: str, platform: str, driver_version: str) -> str:
    return f"{name} | {platform} | driver {driver_version}"


def _read_cache(path: Path) -> dict:
    """The cached limits: a cache is read as untrusted input (bounded in size and depth, a
    FIFO or a device refused); what cannot be read is no cache, and an entry whose figures
    are not positive numbers is measured again."""
    from explorer.documents import read_json
    from explorer.paths import UserFileError

    try:
        data = read_json(path, "device limits cache", 1 << 20, 3)
    except (UserFileError, ValueError):  # a DocumentError too
        return {}
    if not isinstance(data, dict):
        return {}
    return {key: entry for key, entry in data.items() if _usable(entry)}


def _usable(entry: Any) -> bool:
    figures = [entry.get(k) for k in ("copy_gbps", "fma_gflops")] if isinstance(entry, dict) else []
    return len(figures) == 2 and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < float("inf")
        for v in figures
    )


def _write_cache(path: Path, data: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass  # A read-only home still gets its limits, measured each time.


def device_limits(device_key: str | None, refresh: bool = False) -> dict:
    """``{"device", "copy_gbps", "fma_gflops", "measured", ...}`` for the device.

    Measured once per device (name, platform and driver version) and cached in
    ``cache_dir()/device-limits.json``; ``refresh`` measures again. Runs in the executor
    process: ``Executor().call(device_limits, key)``.
    """
    device = pick_device(runtime().devices, device_key)
    # The kernels' own text is part of the key: a better copy or FMA kernel measures again.
    digest = hashlib.sha256((COPY_SOURCE + FMA_SOURCE).encode()).hexdigest()[:12]
    key = device_cache_key(device.name, device.platform, device.driver_version) + "|" + digest
    path = cache_dir() / CACHE_FILE
    cached = _read_cache(path)
    entry = cached.get(key)
    if not refresh and isinstance(entry, dict) and {"copy_gbps", "fma_gflops"} <= set(entry):
        return dict(entry, cached=True)
    copy = measure_copy(device.key, LIMIT_COPY_BYTES)
    fma = measure_fma(device.key)
    entry = {
        "device": device.name,
        "platform": device.platform,
        "driver": device.driver_version,
        "copy_gbps": copy["gbps"],
        "copy_bytes": copy["bytes_moved"],
        "fma_gflops": fma["gflops"],
        "measured": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    cached = _read_cache(path)  # another process may have written meanwhile
    cached[key] = entry
    _write_cache(path, cached)
    return dict(entry, cached=False)


# -- torch (cuBLAS), in the calling process ------------------------------------------------------


def import_torch() -> Any:
    """torch, an optional dependency that may be absent (ImportError) or broken."""
    return importlib.import_module("torch")


def torch_device(device_name: str) -> tuple[int | None, str]:
    """The index of the CUDA device named like the OpenCL device, or None and why not."""
    try:
        torch = import_torch()
    except Exception as exc:  # ImportError, or a broken install
        return None, f"torch is not importable ({type(exc).__name__})"
    try:
        if not torch.cuda.is_available():
            return None, "torch has no CUDA device"
        names = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    except Exception as exc:
        return None, f"torch CUDA failed: {exc}"
    for i, name in enumerate(names):
        if name.strip() == device_name.strip():
            return i, name
    return None, f"no CUDA device is {device_name!r} (torch sees {', '.join(names) or 'none'})"


def torch_time(family: str, sizes: dict[str, int], index: int, repeat: int = 10) -> list[float]:
    """Kernel time samples (ms, CUDA events) of what a torch user would write instead
    (the family's :meth:`~explorer.families.Family.torch_op`)."""
    torch = import_torch()

    dev = torch.device("cuda", index)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    gen = torch.Generator(device=dev).manual_seed(1234)

    def rand(*shape: int) -> Any:
        return torch.rand(*shape, device=dev, generator=gen, dtype=torch.float32) * 2 - 1

    op = fixed_family(family).torch_op(sizes, rand)
    if op is None:
        raise ValueError(f"no torch baseline for {family}")
    with torch.cuda.device(index):
        op()
        torch.cuda.synchronize()
        samples = []
        for _ in range(max(1, repeat)):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            op()
            end.record()
            end.synchronize()
            samples.append(float(start.elapsed_time(end)))
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
    return samples


# -- CLBlast (pyclblast), in the executor process ------------------------------------------------

CLBLAST_FAMILIES = ("matmul",)


def import_clblast() -> Any:
    """pyclblast, an optional dependency: CLBlast's Python bindings, built from source against
    an installed CLBlast library (there are no wheels), so often absent."""
    return importlib.import_module("pyclblast")


def clblast_missing() -> str | None:
    """Why the CLBlast baseline cannot run in this process, or None when it can."""
    try:
        import_clblast()
    except Exception as exc:  # ImportError, or a library that fails to load
        return (
            f"pyclblast is not importable ({type(exc).__name__}: {exc}); the CLBlast baseline "
            "is optional: `pip install pyclblast` builds it against an installed CLBlast"
        )
    return None


def measure_clblast(
    device_key: str | None, family: str, sizes: dict[str, int], repeat: int
) -> dict:
    """CLBlast's SGEMM (row-major C = A·B, the family's shapes) on the OpenCL device: one
    warm-up call (CLBlast compiles its kernels then), ``repeat`` timed ones by the wall clock
    from an idle queue to the end of the call, and a check of the first rows against a
    float64 product. Returns ``{"error": why}`` where it cannot run. Runs in the executor
    process."""
    if family not in CLBLAST_FAMILIES:
        return {"error": f"CLBlast has no baseline for {family} here (matmul only)"}
    missing = clblast_missing()
    if missing is not None:
        return {"error": missing}
    clblast = import_clblast()
    from pyopencl.array import to_device

    _s, device, _context, queue = _device_and_queue(device_key)
    m, n, k = sizes["M"], sizes["N"], sizes["K"]
    rng = np.random.default_rng(1234)
    a_host = (rng.random((m, k), dtype=np.float32) * 2 - 1).astype(np.float32)
    b_host = (rng.random((k, n), dtype=np.float32) * 2 - 1).astype(np.float32)
    arrays = [to_device(queue, x) for x in (a_host, b_host, np.zeros((m, n), np.float32))]

    def launch() -> float:
        # The wall clock around the whole call: CLBlast may run several kernels (padding,
        # transposing, the product) and returns the event of one of them, whose profile
        # covered 0.045 ms of a 2.8 ms product on an H100. The clock adds the launch's
        # overhead (tens of microseconds) to CLBlast's time.
        a, b, c = arrays
        queue.finish()
        started = time.perf_counter()
        clblast.gemm(queue, m, n, k, a, b, c, a_ld=k, b_ld=n, c_ld=n)
        queue.finish()
        return (time.perf_counter() - started) * 1e3

    try:
        launch()
        samples = [launch() for _ in range(max(1, repeat))]
        rows = min(m, 8)
        got = arrays[2].get()[:rows].astype(np.float64)
        want = a_host[:rows].astype(np.float64) @ b_host.astype(np.float64)
        magnitude = np.abs(a_host[:rows]).astype(np.float64) @ np.abs(b_host).astype(np.float64)
        bound = (k + 2) * np.finfo(np.float32).eps * magnitude
        correct = bool(np.all(np.abs(got - want) <= bound + np.finfo(np.float32).tiny))
    except Exception as exc:  # a CLBlast status error, an unsupported device
        return {"error": f"CLBlast failed: {exc}"}
    finally:
        arrays.clear()  # the device memory goes with the arrays
    return {
        "device": device.name,
        "version": str(getattr(clblast, "__version__", "")),
        "samples_ms": samples,
        "verified": correct,
    }


def now_iso() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


__all__ = [
    "CLBLAST_FAMILIES",
    "COPY_SOURCE",
    "FMA_SOURCE",
    "cache_dir",
    "clblast_missing",
    "device_limits",
    "measure_clblast",
    "measure_copy",
    "measure_fma",
    "torch_device",
    "torch_time",
]
