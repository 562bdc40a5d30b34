"""``python -m explorer``: devices, variants, run and bench over the same engine as the app.

Exit codes: 0 verified, 1 wrong result, 2 usage or environment error, 3 refused,
4 crashed or timed out.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import sys
from collections.abc import Sequence

from explorer import desktop
from explorer.cli.options import (
    UsageError,
    add_selection,
    parse_defines,
    parse_local,
    selected_variant,
    session_conflicts,
    sizes_from_args,
)
from explorer.engine.bench import BASELINES, bench, parse_size, parse_sweep
from explorer.engine.catalog import CatalogError, catalog, find_variant
from explorer.engine.devices import NO_PLATFORM_HELP, NoDeviceError, pick_device
from explorer.engine.executor import Executor, ExecutorError
from explorer.engine.records import EXIT_CODES, RunRequest, Variant, result_record
from explorer.engine.tracing import DEFAULT_BUDGET_BYTES
from explorer.families import FAMILIES

USAGE_ERROR = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m explorer",
        description="Run, verify and time OpenCL kernels (OpenCL Kernel Explorer).",
        epilog="Exit codes: 0 verified, 1 wrong result, 2 usage or environment error, "
        "3 refused, 4 crashed or timed out.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    devices = sub.add_parser("devices", help="list OpenCL devices")
    devices.add_argument("--json", action="store_true")

    variants = sub.add_parser("variants", help="list kernel variants")
    variants.add_argument("--family", choices=list(FAMILIES))
    variants.add_argument("--json", action="store_true")

    run = sub.add_parser("run", help="run one configuration")
    add_selection(run)
    run.add_argument(
        "--session",
        metavar="PATH",
        help="run the configuration saved in a .kexp.json session (--device overrides its device)",
    )
    run.add_argument("--save-image", metavar="PATH", help="write the result as a PNG")
    run.add_argument("--json", action="store_true", help="print one JSON line")

    trace = sub.add_parser("trace", help="record every access the kernel makes; report findings")
    add_selection(trace)
    trace.add_argument(
        "--groups",
        default="all",
        help="work-groups to trace: 'all' (while they fit the budget), a group 'gx,gy[,gz]' "
        "to trace a window around, or ranges 'x0:x1,y0:y1'",
    )
    trace.add_argument("--warp", type=int, default=32, help="work-items per warp (default 32)")
    trace.add_argument("--banks", type=int, default=32, help="local memory banks (default 32)")
    trace.add_argument(
        "--budget-mb",
        type=int,
        default=DEFAULT_BUDGET_BYTES >> 20,
        help=f"memory for trace records (default {DEFAULT_BUDGET_BYTES >> 20} MiB)",
    )
    trace.add_argument("--json", action="store_true", help="print one JSON object")

    bench_trace = sub.add_parser(
        "bench-trace", help="time record + decode + analyse on the standard trace cases"
    )
    bench_trace.add_argument("--device")
    bench_trace.add_argument("--json", action="store_true")

    bench_ui = sub.add_parser("bench-ui", help="repaint cost of the animation (offscreen)")
    bench_ui.add_argument("--size", type=int, default=768, help="IOU matmul size (default 768)")
    bench_ui.add_argument("--device")
    bench_ui.add_argument("--json", action="store_true")

    bench_p = sub.add_parser("bench", help="time variants at several sizes beside numpy")
    bench_p.add_argument("--family", choices=list(FAMILIES), required=True)
    bench_p.add_argument("--variants", default="all", help="'all' or comma-separated ids")
    bench_p.add_argument("--sizes", default="256", help="comma-separated, e.g. 256,512 or 1100x300")
    bench_p.add_argument("--device")
    bench_p.add_argument("--repeat", type=int, default=10)
    bench_p.add_argument("--timeout", type=float, default=120.0)
    bench_p.add_argument(
        "--baseline",
        choices=list(BASELINES),
        help="add ratio_to_baseline to every row: copy (float4 copy kernel, GB/s ratio), "
        "fma (multiply-add kernel, GFLOP/s ratio), numpy or torch (time ratio); higher is better",
    )
    bench_p.add_argument(
        "--sweep",
        action="append",
        default=[],
        metavar="NAME=V1,V2",
        help="run every combination: local=8x8,16x16 or a define, e.g. TS=8,16,32 (repeatable)",
    )
    fmt = bench_p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="one JSON line per record")
    fmt.add_argument("--csv", action="store_true")

    desktop.add_arguments(
        sub.add_parser("install-desktop", help="add the app to a Linux desktop's applications menu")
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "install-desktop":  # no OpenCL, so no executor
        return desktop.run(args)
    try:
        with Executor() as executor:
            if args.command == "devices":
                return _devices(executor, args)
            if args.command == "variants":
                return _variants(args)
            if args.command == "run":
                return _run(executor, args)
            if args.command == "bench":
                return _bench(executor, args)
            if args.command == "trace":
                return _trace(executor, args)
            if args.command == "bench-trace":
                return _bench_trace(args)
            if args.command == "bench-ui":
                return _bench_ui(args)
    except (UsageError, CatalogError, NoDeviceError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    except BrokenPipeError:  # e.g. `python -m explorer variants | head`
        sys.stderr.close()
        return 0
    except ExecutorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CODES.get("crashed", 4) if exc.kind in ("crash", "timeout") else USAGE_ERROR
    parser.error(f"unknown command {args.command}")
    return USAGE_ERROR


def _list_devices(executor: Executor):  # type: ignore[no-untyped-def]
    devices = executor.devices()
    if not devices:
        raise NoDeviceError(NO_PLATFORM_HELP)
    return devices


def _devices(executor: Executor, args: argparse.Namespace) -> int:
    devices = _list_devices(executor)
    if args.json:
        print(json.dumps([d.to_json() for d in devices], indent=2))
        return 0
    default = pick_device(devices, None)
    for i, d in enumerate(devices):
        mark = "*" if d == default else " "
        print(
            f"{mark}[{i}] {d.key}  {d.name}  ({d.type}, {d.platform}; OpenCL {d.opencl_version})\n"
            f"       {d.compute_units} compute units, {d.clock_mhz} MHz, max work-group "
            f"{d.max_work_group_size}, local memory {d.local_mem_bytes // 1024} KiB, "
            f"global memory {d.global_mem_bytes / 2**30:.1f} GiB"
        )
    print("* default device")
    return 0


def _variant_json(v: Variant) -> dict:
    return {
        "family": v.family,
        "id": v.id,
        "name": v.name,
        "kernel": v.kernel,
        "source": v.source_ref,
        "bug": v.bug,
        "defines": v.default_defines,
        "local": list(v.local_size),
        "text": v.text,
    }


def _variants(args: argparse.Namespace) -> int:
    chosen = [v for v in catalog() if args.family in (None, v.family)]
    if args.json:
        print(json.dumps([_variant_json(v) for v in chosen], indent=2))
        return 0
    family = None
    for v in chosen:
        if v.family != family:
            family = v.family
            print(f"{family}: {FAMILIES[family].description}")
        bug = f"  [known bug] {v.bug}" if v.bug else ""
        defines = " ".join(f"{k}={val}" for k, val in v.defines)
        print(f"  {v.id:<22} {v.name}  ({v.source_ref or 'ours'}) {defines}{bug}")
    return 0


def request_from_args(args: argparse.Namespace, device_key: str | None) -> RunRequest:
    variant = selected_variant(args)
    problem = FAMILIES[variant.family]
    preset = args.input or ("iou" if "iou" in problem.input_presets else "random")
    if preset not in problem.input_presets:
        raise UsageError(
            f"{variant.family} inputs are {', '.join(problem.input_presets)}; not {preset!r}"
        )
    if args.repeat < 1:
        raise UsageError("--repeat must be at least 1")
    return RunRequest(
        variant=variant,
        sizes=sizes_from_args(variant.family, args),
        local=parse_local(args.local),
        defines=parse_defines(args.define),
        device_key=device_key,
        input=preset,
        text=args.text,
        image_path=args.image,
        repeat=args.repeat,
        timeout_s=args.timeout,
        keep_output=bool(args.save_image),
    )


def _groups(text: str) -> tuple[tuple[tuple[int, int], ...] | None, tuple[int, int, int] | None]:
    """``all`` | ``gx,gy[,gz]`` (a window around that group) | ``x0:x1,y0:y1`` (ranges)."""
    text = text.strip().lower()
    if text in ("", "all"):
        return None, None
    parts = [p.strip() for p in text.split(",")]
    try:
        if all(":" in p for p in parts):
            ranges = tuple((int(p.split(":")[0]), int(p.split(":")[1])) for p in parts)
            if any(hi <= lo or lo < 0 for lo, hi in ranges):
                raise ValueError
            return ranges, None
        values = [int(p) for p in parts]
    except ValueError:
        raise UsageError(f"--groups {text!r}: use 'all', 'gx,gy' or 'x0:x1,y0:y1'") from None
    if any(v < 0 for v in values) or not 1 <= len(values) <= 3:
        raise UsageError(f"--groups {text!r}: use 'all', 'gx,gy' or 'x0:x1,y0:y1'")
    return None, tuple((values + [0, 0, 0])[:3])  # type: ignore[return-value]


def _trace(executor: Executor, args: argparse.Namespace) -> int:
    from explorer.engine.tracing import TraceRequest

    selected_variant(args)  # usage errors before any OpenCL work
    args.save_image = None
    ranges, center = _groups(args.groups)
    if args.warp < 1 or args.banks < 1 or args.budget_mb < 1:
        raise UsageError("--warp, --banks and --budget-mb must be positive")
    device = pick_device(_list_devices(executor), args.device)
    run_request = request_from_args(args, device.key)
    request = TraceRequest(run_request, ranges, center, args.budget_mb << 20)
    traced = executor.trace(request, args.warp, args.banks)
    result = traced.result
    if traced.analysis is None:
        if args.json:
            print(json.dumps({"error": result.error, "refused": str(result.refused or "") or None}))
        else:
            print(result.summary())
            if result.build_log:
                print(result.build_log)
        if result.status == "refused":
            return EXIT_CODES["refused"]
        if result.status in ("crashed", "timeout"):
            return EXIT_CODES["crashed"]
        return USAGE_ERROR
    if args.json:
        print(json.dumps(traced.report_json))
    else:
        print(result.summary())
        print(traced.report_text)
    return 0


def _bench_trace(args: argparse.Namespace) -> int:
    from explorer.engine.tracing import TraceRequest

    cases = [
        ("tiled matmul 256², every group", "tiled", {"M": 256, "N": 256, "K": 256}, "random"),
        ("IOU matmul 768², default window", "tiled", {"M": 768, "N": 768, "K": 768}, "iou"),
    ]
    for label, vid, sizes, preset in cases:
        # A fresh executor per case, so its peak memory is the case's own.
        with Executor() as executor:
            device = pick_device(_list_devices(executor), args.device)
            request = TraceRequest(
                RunRequest(
                    find_variant("matmul", vid),
                    sizes,
                    device_key=device.key,
                    input=preset,
                    timeout_s=600,
                )
            )
            traced = executor.trace(request)
        if traced.analysis is None:
            print(
                f"error: {label}: {traced.result.error or traced.result.refused}", file=sys.stderr
            )
            return EXIT_CODES.get(traced.result.status, USAGE_ERROR)
        t = traced.timings_ms
        total = sum(t.get(k, 0) for k in ("count_ms", "record_ms", "decode_ms", "analyse_ms"))
        record = {
            "case": label,
            "device": traced.result.device,
            "records": traced.report_json["records"],
            "groups_traced": len(traced.report_json["groups_traced"]),
            "count_ms": round(t.get("count_ms", 0), 1),
            "record_ms": round(t.get("record_ms", 0), 1),
            "decode_ms": round(t.get("decode_ms", 0), 1),
            "analyse_ms": round(t.get("analyse_ms", 0), 1),
            "total_ms": round(total, 1),
            "peak_rss_mb": round(traced.peak_rss_mb, 1),
        }
        if args.json:
            print(json.dumps(record))
        else:
            print(
                f"{label}: {record['records']} records, {record['groups_traced']} groups; "
                f"count {record['count_ms']} ms + record {record['record_ms']} ms + decode "
                f"{record['decode_ms']} ms + analyse "
                f"{record['analyse_ms']} ms = {record['total_ms']} ms; peak memory "
                f"{record['peak_rss_mb']} MB"
            )
    return 0


def _bench_ui(args: argparse.Namespace) -> int:
    from explorer.gui.bench_ui import run

    if args.size < 16:
        raise UsageError("--size must be at least 16")
    record = run(args.size, args.device)
    if args.json:
        print(json.dumps(record))
    else:
        for key, value in record.items():
            print(f"{key}: {value}")
    return 0


# The selection a session holds: given beside --session, these options are refused.
def _session_request(executor: Executor, args: argparse.Namespace) -> RunRequest:
    from explorer.session import load_session, session_to_request

    conflicts = session_conflicts(args)
    if conflicts:
        raise UsageError(f"--session holds the configuration; drop {', '.join(conflicts)}")
    if args.repeat < 1:
        raise UsageError("--repeat must be at least 1")
    session = load_session(args.session)  # SessionError is a ValueError: exit 2
    devices = _list_devices(executor)
    request, notice = session_to_request(
        session,
        devices,
        repeat=args.repeat,
        timeout_s=args.timeout,
        keep_output=bool(args.save_image),
    )
    if args.device:
        return dataclasses.replace(request, device_key=pick_device(devices, args.device).key)
    if notice:
        print(f"note: {notice}", file=sys.stderr)
    return request


def _run(executor: Executor, args: argparse.Namespace) -> int:
    if args.session:
        request = _session_request(executor, args)
    else:
        selected_variant(args)  # usage errors before any OpenCL work
        device = pick_device(_list_devices(executor), args.device)
        request = request_from_args(args, device.key)
    result = executor.run(request)
    if args.json:
        print(json.dumps(result_record(result)))
    else:
        print(result.summary())
        if result.build_log:
            print(result.build_log)
        if result.output_text:
            print("--- kernel output ---")
            print(result.output_text)
    if args.save_image and result.output is not None:
        from explorer.families.images import save_png

        save_png(result.output, args.save_image)
    if result.status == "error" and result.error_kind in ("build", "input", "environment"):
        return USAGE_ERROR
    return EXIT_CODES.get(result.status, USAGE_ERROR)


_CSV_FIELDS = (
    "family",
    "variant",
    "device",
    "size",
    "local_size",
    "status",
    "kernel_ms_median",
    "kernel_ms_min",
    "kernel_ms_max",
    "gflops",
    "gbps",
    "max_abs_error",
    "refused",
    "error",
)


def _bench(executor: Executor, args: argparse.Namespace) -> int:
    available = [v for v in catalog() if v.family == args.family]
    if args.variants == "all":
        chosen = available
    else:
        chosen = [find_variant(args.family, vid.strip()) for vid in args.variants.split(",")]
    sizes = [parse_size(args.family, s.strip()) for s in args.sizes.split(",") if s.strip()]
    sweep = parse_sweep(args.sweep)
    if args.repeat < 1:
        raise UsageError("--repeat must be at least 1")
    device = pick_device(_list_devices(executor), args.device)

    def progress(result) -> None:  # type: ignore[no-untyped-def]
        print(f"  {result.summary()}", file=sys.stderr)

    records = bench(
        executor,
        chosen,
        sizes,
        device.key,
        args.repeat,
        args.timeout,
        progress,
        sweep=sweep,
        baseline=args.baseline,
        device_name=device.name,
    )
    fields = _CSV_FIELDS
    if sweep:
        fields += ("sweep", "defines")
    if args.baseline:
        fields += ("baseline", "ratio_to_baseline")
    if args.json:
        for record in records:
            print(json.dumps(record))
    elif args.csv:
        writer = csv.writer(sys.stdout)
        writer.writerow(fields)
        for record in records:
            row = []
            for field in fields:
                value = record.get(field)
                if isinstance(value, dict):
                    if field in ("sweep", "defines"):
                        value = " ".join(f"{k}={v}" for k, v in value.items())
                    else:
                        value = "x".join(str(v) for v in value.values())
                elif isinstance(value, list):
                    value = "x".join(str(v) for v in value)
                row.append("" if value is None else value)
            writer.writerow(row)
    else:
        head = f"{'variant':<24}{'size':<16}{'status':<10}{'median ms':>12}{'GFLOP/s':>10}"
        head += f"{'GB/s':>9}"
        if args.baseline:
            head += f"{'vs ' + args.baseline:>10}"
        if sweep:
            head += "  sweep"
        print(head)
        for r in records:
            size = "x".join(str(v) for v in r["size"].values())
            line = (
                f"{r['variant']:<24}{size:<16}{r['status']:<10}"
                f"{_fmt(r['kernel_ms_median'], 3):>12}{_fmt(r['gflops'], 1):>10}"
                f"{_fmt(r['gbps'], 1):>9}"
            )
            if args.baseline:
                line += f"{_fmt(r.get('ratio_to_baseline'), 3):>10}"
            if sweep and r.get("sweep"):
                line += "  " + " ".join(f"{k}={v}" for k, v in r["sweep"].items())
                if r["status"] == "refused":
                    line += f"  ({r['refused']})"
            if r["status"] == "skipped":
                line += f"  ({r['error']})"
            print(line)
    return 0


def _fmt(value: float | None, digits: int) -> str:
    return "" if value is None else f"{value:.{digits}f}"
