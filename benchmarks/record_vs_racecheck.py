"""The trace's record pass beside compute-sanitizer racecheck on the same tiled matmul.

    python benchmarks/record_vs_racecheck.py --sizes 256,1024 --rounds 3 [--device NVIDIA]

For each size: ``matmul/tiled`` traced in this process (every work-group: the budget is made
to fit them all), the stages of each round timed, the recording launch's and the transfers'
own times from OpenCL's profiling events; then its CUDA twin (``matmul_tiled.cu`` beside this
script, built with ``nvcc``) launched as it is and under ``compute-sanitizer --tool racecheck``,
each launch timed with the host clock around the launch and a synchronize. Where there is no
``nvcc`` or ``compute-sanitizer`` only the trace is timed. ``--json`` prints one object per
line instead of the table.

The record pass is what the trace pays to have every access of the launch on the host: the
recording launch and the records' transfer (``record_ms``, the trace's own stage). The
counting launch before it (``count_ms``) and the decode after it are reported beside it.

With ``--windowed`` every group is traced in successive windows of groups instead of one
trace (at 1024³ the records of every group are 30 GB with values): one counting launch of
every group first, then bands of group rows whose records fit ``--window-bytes`` (by default
what the device's and the host's memory allow, at most 8 GiB), each band one trace of
``TraceRequest.groups`` whose planes are dropped before the next. A round's row sums the
windows' record passes and reports what windows cost beside it (each window's own counting
launch, the verify step's launch of the kernel as written and merge, the decode), the
records of all windows against the counting launch's, and the process's peak RSS.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.append(str(HERE.parent))  # the repository's code, unless PYTHONPATH names another

# Stages of the trace whose time is split further by the OpenCL calls made inside them.
_STAGES = (
    "prepare",
    "_instrument",
    "bind",
    "_count",
    "launch",
    "_planes",
    "read_results",
    "decode",
    "plain_results",
    "window_results",
    "global_writes",
    "records_of_sites",
    "judge",
)


class Phases:
    """Wall time of each stage of ``run_trace``, and the OpenCL work inside each: kernels by
    their profiling events (``.kernel``; the host's call and wait, ``.kernel_call``), copies
    and maps by the host clock."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = defaultdict(float)
        self.stack: list[str] = []

    def stage(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            self.stack.append(name)
            path = "/".join(self.stack)
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.ms[path] += (time.perf_counter() - started) * 1e3
                self.stack.pop()

        return timed

    def call(self, kind: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            value = function(*args, **kwargs)
            where = "/".join(self.stack) or "other"
            label = kind
            if kind == "kernel":  # its profiled time, and apart the call and wait around it
                value.wait()
                self.ms[f"{where}.kernel"] += (value.profile.end - value.profile.start) * 1e-6
                label = "kernel_call"
            self.ms[f"{where}.{label}"] += (time.perf_counter() - started) * 1e3
            return value

        return timed


@contextlib.contextmanager
def phases_of_run_trace(phases: Phases | None = None) -> Iterator[Phases]:
    """Wrap the trace's stages and OpenCL calls for as long as the block runs (adding to
    ``phases`` where given)."""
    import pyopencl as cl

    from explorer.engine.record import trace_launch as tl
    from explorer.engine.record import window_verify as wv

    phases = phases or Phases()
    saved: list[tuple[Any, str, Any]] = []

    def patch(owner: Any, name: str, wrapped: Any) -> None:
        saved.append((owner, name, getattr(owner, name)))
        setattr(owner, name, wrapped)

    for name in _STAGES:
        # Where the stage is looked up when it runs: a method, or a module's global.
        for owner in (tl.TraceLaunch, tl, wv):
            if hasattr(owner, name):
                patch(owner, name, phases.stage(name, getattr(owner, name)))
                break
    from explorer.engine.launch.build import BuildCache

    patch(BuildCache, "kernel", phases.stage("build", BuildCache.kernel))
    patch(cl, "enqueue_nd_range_kernel", phases.call("kernel", cl.enqueue_nd_range_kernel))
    patch(cl, "enqueue_copy", phases.call("copy", cl.enqueue_copy))
    patch(cl, "enqueue_map_buffer", phases.call("map", cl.enqueue_map_buffer))
    try:
        yield phases
    finally:
        for owner, name, original in reversed(saved):
            setattr(owner, name, original)


def trace_rounds(
    size: int, rounds: int, device: str | None, values: bool, window: bool = False
) -> list[dict]:
    """``rounds`` traces of matmul/tiled at size³ in this process after a first one (round
    0: the builds' first in the process): every group, or with ``window`` the IOU input and
    the default budget (``bench-trace``'s second case)."""
    from explorer.engine.header.catalog import find_variant
    from explorer.engine.launch.devices import list_devices, pick_device
    from explorer.engine.record.trace_launch import TraceRequest, run_trace
    from explorer.engine.records import RunRequest

    chosen = pick_device(list_devices(), device)
    sizes = {"M": size, "N": size, "K": size}
    tiled = find_variant("matmul", "tiled")
    run = RunRequest(tiled, sizes, device_key=chosen.key, input="iou" if window else "random")
    tiles = -(-size // 16)
    # Every group: 4 accesses, 2 barriers and 32 local reads per tile step, and one store per
    # work-item; 8 bytes a record and 4 more for its value.
    records = size * size * (tiles * 38 + 1)
    request = TraceRequest(run, budget_bytes=records * 12 + (64 << 20), values=values)
    if window:
        request = TraceRequest(run, values=values)
    out = []
    for number in range(rounds + 1):
        with phases_of_run_trace() as phases:
            started = time.perf_counter()
            outcome = run_trace(request)
            wall = (time.perf_counter() - started) * 1e3
        trace = outcome.trace
        if trace is None or outcome.result.status != "verified":
            raise SystemExit(f"{size}³: the trace did not verify: {outcome.result.summary()}")
        row = {
            "case": "window" if window else "every group",
            "size": size,
            "round": number,
            "device": outcome.result.device,
            "values": values,
            "records": int(trace.word.size),
            "wall_ms": round(wall, 1),
            **{k: round(v, 1) for k, v in outcome.timings_ms.items()},
            **{f"phase.{k}": round(v, 2) for k, v in sorted(phases.ms.items())},
        }
        del outcome, trace
        out.append(row)
        with contextlib.suppress(ImportError):  # the code before the staged planes has none
            from explorer.engine.record.staging import grow_pending

            grow_pending()  # as the executor does once its reply is sent
    return out


def parse_bytes(text: str) -> int:
    """``8G``, ``512M``, ``3000000``: a size in bytes (binary multiples)."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper().removesuffix("B").removesuffix("I")
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def default_window_bytes(device: Any, record_bytes: int) -> int:
    """The most bytes of records one window holds: a plane (4 bytes a record) within one
    allocation of the device, the planes within half its memory, and within a quarter of the
    host's free memory (the first window's planes land in new memory, and as much is then
    page-locked for the next ones); at most 8 GiB."""
    from explorer.engine.launch.memory import available_host_bytes

    limits = [8 << 30, available_host_bytes() // 4]
    if device.max_alloc_bytes:
        limits.append(device.max_alloc_bytes * record_bytes // 4)
    if device.global_mem_bytes:
        limits.append(device.global_mem_bytes // 2)
    return min(limits)


def window_bands(counts: Any, window_bytes: int, record_bytes: int) -> list[tuple]:
    """``TraceRequest.groups`` of successive windows covering every group once: bands of the
    outermost dimension that has more than one group, as few as hold ``window_bytes`` of
    records each (a single slice of groups larger than that is a window alone), the records
    shared out evenly between them where that fits too."""
    gx, gy, gz = counts.num_groups
    dim = 2 if gz > 1 else 1 if gy > 1 else 0
    per = counts.records.reshape(gz, gy, gx)
    other = tuple(axis for axis in (0, 1, 2) if axis != 2 - dim)
    slices = per.sum(axis=other) * record_bytes
    cuts, used = [0], 0
    for i, nbytes in enumerate(slices):
        if i > cuts[-1] and used + nbytes > window_bytes:
            cuts.append(i)
            used = 0
        used += int(nbytes)
    cuts.append(len(slices))
    n = len(cuts) - 1
    total = slices.cumsum()
    even = [0, *(int(total.searchsorted(total[-1] * k / n, "right")) for k in range(1, n))]
    even.append(len(slices))
    if all(lo < hi and slices[lo:hi].sum() <= window_bytes for lo, hi in itertools.pairwise(even)):
        cuts = even
    whole = [(0, gx), (0, gy), (0, gz)]
    return [
        tuple(whole[:dim] + [(lo, hi)] + whole[dim + 1 :]) for lo, hi in itertools.pairwise(cuts)
    ]


def windowed_rounds(
    size: int, rounds: int, device: str | None, values: bool, window_bytes: int | None
) -> Iterator[dict]:
    """``rounds`` traces of every group of matmul/tiled at size³, each in successive windows
    of groups, after a first one (round 0: the builds' and the page-locked memory's first in
    the process): the sums over the windows of each stage, the counting launch of every
    group, each window's record pass and the peak RSS."""
    import resource

    from explorer.engine.header.catalog import find_variant
    from explorer.engine.launch.devices import list_devices, pick_device
    from explorer.engine.record.staging import grow_pending
    from explorer.engine.record.trace_launch import TraceRequest, count_groups, run_trace
    from explorer.engine.records import RunRequest

    chosen = pick_device(list_devices(), device)
    sizes = {"M": size, "N": size, "K": size}
    run = RunRequest(find_variant("matmul", "tiled"), sizes, device_key=chosen.key)
    record_bytes = 12 if values else 8  # offset and word, and a float's value
    limit = window_bytes or default_window_bytes(chosen, record_bytes)
    started = time.perf_counter()
    counts = count_groups(TraceRequest(run, values=values))
    count_all_ms = (time.perf_counter() - started) * 1e3
    if not hasattr(counts, "records"):
        raise SystemExit(f"{size}³: the counting launch failed: {counts.summary()}")
    counted = int(counts.records.sum())
    bands = window_bands(counts, limit, record_bytes)
    tiles = -(-size // 16)
    expected = size * size * (tiles * 38 + 1)
    for number in range(rounds + 1):
        sums: dict[str, float] = defaultdict(float)
        windows: list[dict] = []
        records = 0
        phases = Phases()
        for groups in bands:
            started = time.perf_counter()
            with phases_of_run_trace(phases):
                outcome = run_trace(TraceRequest(run, groups=groups, values=values))
            wall = (time.perf_counter() - started) * 1e3
            trace = outcome.trace
            if trace is None or outcome.result.status != "verified":
                raise SystemExit(f"{size}³ {groups}: not verified: {outcome.result.summary()}")
            records += int(trace.word.size)
            windows.append(
                {
                    "groups": groups,
                    "records": int(trace.word.size),
                    "record_ms": round(outcome.timings_ms["record_ms"], 1),
                }
            )
            for key, value in outcome.timings_ms.items():
                sums[key] += value
            sums["wall_ms"] += wall
            del outcome, trace  # the planes go back before the next window
            started = time.perf_counter()
            grow_pending()  # as the executor does once its reply is sent
            sums["pin_ms"] += (time.perf_counter() - started) * 1e3
        yield (
            {
                "case": f"every group, {len(bands)} window{'s' if len(bands) > 1 else ''}",
                "size": size,
                "round": number,
                "device": chosen.name,
                "values": values,
                "window_bytes": limit,
                "windows": len(bands),
                "records": records,
                "records_counted": counted,
                "records_expected": expected,
                "records_match": records == counted == expected,
                "count_all_ms": round(count_all_ms, 1),
                **{k: round(v, 1) for k, v in sums.items()},
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                "window_record_ms": [w["record_ms"] for w in windows],
                "window_records": [w["records"] for w in windows],
                "window_groups": [w["groups"] for w in windows],
                **{f"phase.{k}": round(v, 2) for k, v in sorted(phases.ms.items())},
            }
        )


def cuda_rounds(
    size: int,
    rounds: int,
    binary: Path,
    sanitizer: str | None,
    timeout_s: float,
    launches: int,
    logs: str | None = None,
) -> list[dict]:
    """The twin's launches at size³, plain and under racecheck, ``rounds`` processes each;
    the first launch of each process (module load, the checker's patching) is reported
    apart from the later ones."""
    out = []
    for tool in ("plain", "racecheck"):
        if tool == "racecheck" and sanitizer is None:
            continue
        command = [str(binary), str(size), str(launches)]
        if tool == "racecheck":
            command = [sanitizer, "--tool", "racecheck", "--print-limit", "10", *command]
        for number in range(rounds):
            started = time.perf_counter()
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
            except subprocess.TimeoutExpired:
                out.append({"size": size, "tool": tool, "timeout_s": timeout_s})
                break
            wall = (time.perf_counter() - started) * 1e3
            if logs:
                log = Path(logs) / f"{tool}-{size}-{number + 1}.txt"
                log.write_text(done.stdout + "\n--- stderr ---\n" + done.stderr)
            timed = [float(m) for m in re.findall(r"launch \d+: ([0-9.]+) ms", done.stdout)]
            hazards = re.search(r"RACECHECK SUMMARY: (\d+) hazard", done.stdout + done.stderr)
            out.append(
                {
                    "size": size,
                    "tool": tool,
                    "round": number + 1,
                    "first_launch_ms": timed[0] if timed else None,
                    "later_launch_ms": min(timed[1:]) if len(timed) > 1 else None,
                    "process_ms": round(wall, 1),
                    "hazards": int(hazards.group(1)) if hazards else None,
                    "rc": done.returncode,
                    "tail": (done.stdout + done.stderr)[-300:] if done.returncode else "",
                }
            )
    return out


def build_twin(workdir: Path, arch: str) -> Path | None:
    nvcc = shutil.which("nvcc") or (
        "/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None
    )
    if nvcc is None:
        return None
    binary = workdir / "matmul_tiled"
    source = str(HERE / "matmul_tiled.cu")
    command = [nvcc, "-O3", f"-arch={arch}", "-lineinfo", "-o", str(binary), source]
    subprocess.run(command, check=True)
    return binary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="256,1024")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--device")
    parser.add_argument("--no-values", action="store_true", help="the trace without values")
    parser.add_argument("--no-cuda", action="store_true", help="the trace only")
    parser.add_argument(
        "--window", type=int, default=0, help="also trace the IOU case at this size, default window"
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--cuda-timeout", type=float, default=300.0, help="seconds per process")
    parser.add_argument("--arch", default="native", help="nvcc's -arch (default: native)")
    parser.add_argument("--logs", help="a folder for each CUDA process's whole output")
    parser.add_argument(
        "--first-read", choices=("fresh", "map"), help="how a process's first trace reads"
    )
    parser.add_argument("--launches", type=int, default=3, help="launches per CUDA process")
    parser.add_argument("--trace-sizes", help="sizes to trace (default: --sizes)")
    parser.add_argument(
        "--windowed",
        action="store_true",
        help="trace every group in successive windows of groups (see the module)",
    )
    parser.add_argument(
        "--window-bytes",
        help="with --windowed: the most records per window, e.g. 8G; several, comma-separated, "
        "each traced in turn (default: what the device's and the host's memory allow)",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    def emit(rows: Iterable[dict]) -> None:
        """Each row printed as soon as it is measured: a later stage that fails or runs out
        of time leaves the earlier ones."""
        for row in rows:
            print(json.dumps(row) if args.json else row, flush=True)

    traced = [int(s) for s in args.trace_sizes.split(",")] if args.trace_sizes else sizes
    if args.first_read:
        from explorer.engine.record import trace_launch

        trace_launch.FIRST_READ = args.first_read
    limits = [parse_bytes(b) for b in args.window_bytes.split(",")] if args.window_bytes else [0]
    for size in traced:
        if not args.windowed:
            emit(trace_rounds(size, args.rounds, args.device, not args.no_values))
            continue
        for limit in limits:
            try:
                emit(windowed_rounds(size, args.rounds, args.device, not args.no_values, limit))
            except (SystemExit, Exception) as exc:  # the next stages still run
                emit([{"size": size, "window_bytes": limit, "error": repr(exc)[:500]}])
    if args.window:
        emit(trace_rounds(args.window, args.rounds, args.device, False, window=True))
    if not args.no_cuda:
        sanitizer = shutil.which("compute-sanitizer") or (
            "/usr/local/cuda/bin/compute-sanitizer"
            if os.path.exists("/usr/local/cuda/bin/compute-sanitizer")
            else None
        )
        with tempfile.TemporaryDirectory() as workdir:
            binary = build_twin(Path(workdir), args.arch)
            if binary is not None:
                for size in sizes:
                    emit(
                        cuda_rounds(
                            size,
                            args.rounds,
                            binary,
                            sanitizer,
                            args.cuda_timeout,
                            args.launches,
                            args.logs,
                        )
                    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
