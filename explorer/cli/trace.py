"""``trace``: record every access the kernel makes and report the findings."""

from __future__ import annotations

import argparse
import json

from explorer.cli.command import USAGE_ERROR, Command, available_devices
from explorer.cli.options import UsageError, add_selection, request_from_args, selected_variant
from explorer.engine.devices import pick_device
from explorer.engine.executor import Executor
from explorer.engine.records import EXIT_CODES
from explorer.engine.tracing import DEFAULT_BUDGET_BYTES, TraceRequest
from explorer.trace.analysis import BANK_BYTES, analyse, format_report

_GROUPS_HELP = "use 'all', 'gx,gy' or 'x0:x1,y0:y1'"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The selection, which work-groups to trace, the warp and bank model, the budget."""
    add_selection(parser)
    parser.add_argument(
        "--groups",
        default="all",
        help="work-groups to trace: 'all' (while they fit the budget), a group 'gx,gy[,gz]' "
        "to trace a window around, or ranges 'x0:x1,y0:y1'",
    )
    parser.add_argument("--warp", type=int, default=32, help="work-items per warp (default 32)")
    parser.add_argument("--banks", type=int, default=32, help="local memory banks (default 32)")
    parser.add_argument(
        "--bank-bytes",
        type=int,
        choices=BANK_BYTES,
        default=4,
        help="bytes per local memory bank: 4, or 8 as Kepler's 8-byte mode (default 4)",
    )
    parser.add_argument(
        "--budget-mb",
        type=int,
        default=DEFAULT_BUDGET_BYTES >> 20,
        help=f"memory for trace records (default {DEFAULT_BUDGET_BYTES >> 20} MiB)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def parse_groups(
    text: str,
) -> tuple[tuple[tuple[int, int], ...] | None, tuple[int, int, int] | None]:
    """``all`` → (None, None); ``gx,gy[,gz]`` → a window around that group; ``x0:x1,y0:y1``
    → those ranges of groups."""
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
        raise UsageError(f"--groups {text!r}: {_GROUPS_HELP}") from None
    if any(v < 0 for v in values) or not 1 <= len(values) <= 3:
        raise UsageError(f"--groups {text!r}: {_GROUPS_HELP}")
    gx, gy, gz = (values + [0, 0, 0])[:3]
    return None, (gx, gy, gz)


def run(args: argparse.Namespace, executor: Executor) -> int:
    """Trace and analyse; print the report (or one JSON object). A trace that did not run
    exits with its run's code: refused 3, crashed or timed out 4, otherwise 2."""
    selected_variant(args)  # usage errors before any OpenCL work
    ranges, center = parse_groups(args.groups)
    if args.warp < 1 or args.banks < 1 or args.budget_mb < 1:
        raise UsageError("--warp, --banks and --budget-mb must be positive")
    device = pick_device(available_devices(executor), args.device)
    request = TraceRequest(
        request_from_args(args, device.key), ranges, center, args.budget_mb << 20
    )
    wide = args.bank_bytes != 4
    traced = executor.trace(request, args.warp, args.banks, keep_trace=wide)
    result = traced.result
    report_json, report_text = traced.report_json, traced.report_text
    if wide and traced.trace is not None:
        # The executor analyses with 4-byte banks; other widths are analysed here, from the
        # trace it sent back.
        analysis = analyse(traced.trace, args.warp, args.banks, args.bank_bytes)
        report_json = analysis.to_json(traced.trace)
        report_text = format_report(traced.trace, analysis)
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
        print(json.dumps(report_json))
    else:
        print(result.summary())
        print(report_text)
    return 0


COMMAND = Command(
    "trace", "record every access the kernel makes; report findings", add_arguments, run, order=40
)
