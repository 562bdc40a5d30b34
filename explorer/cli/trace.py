"""``trace``: record every access the kernel makes and report the findings."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from explorer.cli.command import USAGE_ERROR, Command, available_devices
from explorer.cli.run import add_anyway, anyway_hint
from explorer.engine import stage_times
from explorer.engine.executor import Executor, ExecutorError
from explorer.engine.launch.devices import pick_device
from explorer.engine.record.requests import DEFAULT_BUDGET_BYTES, TracedRun, TraceRequest
from explorer.engine.records import EXIT_CODES, RunRequest, Variant
from explorer.selection import (
    UsageError,
    add_selection,
    reference_variant,
    request_from_args,
    selected_variant,
)

if TYPE_CHECKING:
    from explorer.engine.measure.fix_cost import FixCost
    from explorer.engine.record.anatomy_run import Ranges
    from explorer.trace.analysis import Analysis
    from explorer.trace.anatomy import TraceAnatomy

# The analysis, the explanations and the fix's timing are imported where a trace asks for
# them: the executor analyses, and a plain trace's report comes back as text and JSON.

# The widths a local memory bank can have (explorer.trace.analysis.BANK_BYTES, which a test
# holds this to: that package is the executor's to import, not this command's).
BANK_BYTES = (4, 8)

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
    parser.add_argument(
        "--measure-fix",
        action="store_true",
        help="time each bank-conflict or uncoalesced finding's counterpart (named in the "
        "kernel's header) beside the kernel, alternately, and put the time ratio beside it",
    )
    parser.add_argument(
        "--against",
        metavar="FILE|VARIANT",
        help="trace this reference kernel too, at the same launch, and report where the "
        "accesses part from it (the trace diff): a kernel file with a header, an Oclgrind "
        ".sim file, FAMILY/VARIANT, or a variant of the same family",
    )
    parser.add_argument(
        "--against-device",
        metavar="DEVICE",
        help="trace the reference on this device (key, index or name substring, as "
        "--device): without --against, the same kernel on two devices",
    )
    parser.add_argument(
        "--explain",
        action="append",
        default=[],
        metavar="ELEMENT",
        help="why is this element of the result wrong: the work-item that wrote it, every "
        "input element that flowed into it (through local memory and registers) beside those "
        "its reference needs, and the first input that should not be there, with its line; "
        "ELEMENT as C[3,5] (C[3][5], OUT[7]; 3,5 for the first result); repeatable",
    )
    parser.add_argument(
        "--anatomy",
        action="append",
        default=[],
        metavar="LINE",
        help="the index anatomy of the accesses at this line of the kernel's file: the value "
        "of each term of each index and where it came from, back to the definitions "
        "(repeat for more lines; 'findings' for the lines of the bug findings). The trace "
        "runs as without it; a second build that records these values runs after it",
    )
    parser.add_argument(
        "--work-item",
        metavar="GX,GY[,GZ]/LX,LY[,LZ]",
        help="whose accesses --anatomy explains: a work-group and a local id (default: the "
        "first traced work-item that made one)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_anyway(parser)


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


def parse_anatomy(values: list[str]) -> tuple[tuple[int, ...], bool]:
    """``--anatomy`` values: the lines asked, and whether the findings' lines are too."""
    lines: list[int] = []
    findings = False
    for value in values:
        for part in value.split(","):
            part = part.strip().lower()
            if part == "findings":
                findings = True
                continue
            try:
                line = int(part)
            except ValueError:
                line = 0
            if line < 1:
                raise UsageError(
                    f"--anatomy {value!r}: give a line number of the kernel's file (1 or more), "
                    "or 'findings'"
                )
            lines.append(line)
    return tuple(dict.fromkeys(lines)), findings


def parse_work_item(text: str | None) -> tuple[int, ...]:
    """``--work-item gx,gy[,gz]/lx,ly[,lz]`` as six numbers (group, then local id)."""
    if not text:
        return ()
    usage = f"--work-item {text!r}: use 'gx,gy[,gz]/lx,ly[,lz]', such as 2,1/5,3"
    group, slash, local = text.partition("/")
    if not slash:
        raise UsageError(usage)
    try:
        g = [int(v) for v in group.split(",")]
        lo = [int(v) for v in local.split(",")]
    except ValueError:
        raise UsageError(usage) from None
    if not (1 <= len(g) <= 3 and 1 <= len(lo) <= 3) or min(g + lo) < 0:
        raise UsageError(usage)
    return (*(g + [0, 0])[:3], *(lo + [0, 0])[:3])


def run(args: argparse.Namespace, executor: Executor) -> int:
    """Trace and analyse; print the report (or one JSON object). A trace that did not run
    exits with its run's code: refused 3, crashed or timed out 4, otherwise 2; a trace that
    could not be compared with ``--against`` (another launch shape, a reference that failed)
    exits with 2 after its report."""
    mine = selected_variant(args)  # usage errors before any OpenCL work
    if args.explain:
        from explorer.trace.explain import ElementError, parse_element

        for text in args.explain:
            try:
                parse_element(text)
            except ElementError as exc:
                raise UsageError(f"--explain {exc}") from None
    against = reference_variant(args.against, mine) if args.against else None
    ranges, center = parse_groups(args.groups)
    anatomy_lines, anatomy_findings = parse_anatomy(args.anatomy)
    work_item = parse_work_item(args.work_item)
    if work_item and not (anatomy_lines or anatomy_findings):
        raise UsageError("--work-item says whose accesses --anatomy explains: give --anatomy too")
    if args.warp < 1 or args.banks < 1 or args.budget_mb < 1:
        raise UsageError("--warp, --banks and --budget-mb must be positive")
    devices = available_devices(executor)
    stage_times.mark("devices answered")
    device = pick_device(devices, args.device)
    other = pick_device(devices, args.against_device).key if args.against_device else None
    if other is not None and against is None:
        against = mine  # the same kernel, on another device
    # An element explained is read beside its reference: the arrays come back with it.
    keep = bool(args.explain)
    run_request = replace(request_from_args(args, device.key, keep), anyway=args.anyway)
    request = TraceRequest(
        run_request,
        ranges,
        center,
        args.budget_mb << 20,
        against=against,
        against_device=other,
        anatomy_lines=anatomy_lines,
        anatomy_findings=anatomy_findings,
        anatomy_work_item=work_item,
        # The findings' kinds are read here only to time their fixes.
        report_only=not args.measure_fix,
    )
    traced = executor.trace(
        request, args.warp, args.banks, keep_trace=bool(args.explain), bank_bytes=args.bank_bytes
    )
    stage_times.mark("trace answered")
    result = traced.result
    report_json, report_text = traced.report_json, traced.report_text
    shown = traced.analysis
    if report_json is None:  # the trace did not run
        if args.json:
            print(json.dumps({"error": result.error, "refused": str(result.refused or "") or None}))
        else:
            print(result.summary())
            hint = anyway_hint(result)
            if hint:
                print(hint)
            if result.build_log:
                print(result.build_log)
        if result.status == "refused":
            return EXIT_CODES["refused"]
        if result.status in ("crashed", "timeout"):
            return EXIT_CODES["crashed"]
        return USAGE_ERROR
    if args.measure_fix and shown is not None:
        report_text += _measure_fixes(executor, request.run, shown, report_json)
    explained, failed = _explain(
        args.explain, traced, mine, device.compute_units, executor, request
    )
    if args.json:
        groups = report_json.pop("groups", None)  # the executor's, for a report_only trace
        if args.explain:
            report_json["explain"] = explained
        report_json["outside_constraints"] = list(result.outside_constraints)
        report_json["build_log"] = result.build_log  # the compiler's warnings
        report_json["status"] = result.status
        report_json["explained_by"] = list(result.explained_by)
        unreferenced = result.verdict.unreferenced if result.verdict else ""
        report_json["not_checked_reason"] = unreferenced or None
        if shown is not None:
            from explorer.trace.analysis.report import groups_json

            groups = groups_json(shown.findings)
            for number, group in enumerate(groups):
                for index in group["findings"]:
                    report_json["findings"][index]["group"] = number
        if groups is not None:
            report_json["groups"] = groups
        print(json.dumps(report_json))
    else:
        print(result.summary())
        if result.build_log:
            print(result.build_log)
        print(report_text)
        for item in explained:
            print("\n" + str(item["text"]))
    if failed:
        return USAGE_ERROR  # an element that cannot be explained (named in its text)
    if traced.against is not None and traced.against.refused:
        return USAGE_ERROR  # the traces ran, but could not be compared
    return 0


def _explain(
    elements: list[str],
    traced: TracedRun,
    variant: Variant,
    compute_units: int,
    executor: Executor,
    request: TraceRequest,
) -> tuple[list[dict[str, Any]], bool]:
    """Each element of ``--explain`` explained by the trace (its JSON with its text), with
    the index anatomy of its first offending input's accesses (recorded by an anatomy build
    over their group, after the trace), and whether one could not be (outside the result,
    not a result)."""
    if not elements:
        return [], False
    from explorer.engine.record.explain import (
        anatomy_request,
        answered,
        explain_anatomy,
        explain_element,
        record_anatomy,
    )
    from explorer.trace.explain import ElementError

    out: list[dict[str, Any]] = []
    failed = False
    recorded: dict[tuple[tuple[int, ...], Ranges], TraceAnatomy | str | None] = {}

    def record(lines: tuple[int, ...], groups: Ranges) -> TraceAnatomy | str | None:
        assert traced.trace is not None
        if (lines, groups) not in recorded:  # elements explained by the same accesses
            asked = anatomy_request(request, traced.trace)
            outcome: object
            try:
                outcome = executor.call(
                    record_anatomy,
                    asked,
                    traced.trace.sites,
                    lines,
                    groups,
                    timeout_s=asked.run.timeout_s,
                    what=f"the index anatomy of line(s) {', '.join(map(str, lines))}",
                )
            except ExecutorError as exc:
                outcome = exc
            recorded[lines, groups] = answered(outcome)
        return recorded[lines, groups]

    for text in elements:
        if traced.trace is None:
            out.append({"element": text, "error": "the trace did not come back", "text": ""})
            failed = True
            continue
        try:
            explanation = explain_element(traced.trace, traced.result, variant, text, compute_units)
        except ElementError as exc:
            out.append({"element": text, "error": str(exc), "text": f"--explain {exc}"})
            failed = True
            continue
        explanation = explain_anatomy(explanation, traced.trace, traced.anatomy, record)
        out.append({**explanation.to_json(), "text": explanation.text()})
    return out, failed


def _measure_fixes(
    executor: Executor, run_request: RunRequest, analysis: Analysis, report: dict[str, Any]
) -> str:
    """Measure every cost finding's counterpart (once per counterpart), set each finding's
    ``fix`` field in ``report`` (null where the kernel names none) and return the lines of
    the human report."""
    from explorer.engine.measure.fix_cost import measure_fix, offer_fix
    from explorer.trace.analysis import Category, registry

    measured: dict[str, FixCost] = {}
    lines = []
    for finding, shown in zip(analysis.findings, report["findings"], strict=True):
        if registry.category(finding.kind) is not Category.COST:
            continue
        offer = offer_fix(run_request, finding.kind)
        if offer is None:
            shown["fix"] = None
            continue
        key = repr((offer.fix.variant.path, sorted(offer.fix.defines.items()), offer.fix.local))
        if key not in measured:
            measured[key] = measure_fix(executor, offer)
        cost = measured[key]
        shown["fix"] = cost.to_json()
        lines.append(f"  line {finding.line} [{finding.kind}]: {cost.sentence()}")
    if not lines:
        return "\nMeasure the fix: no cost finding has a counterpart named in the kernel."
    return "\nMeasure the fix (original time / counterpart time):\n" + "\n".join(lines)


COMMAND = Command(
    "trace",
    "record every access the kernel makes; report findings",
    add_arguments,
    run,
    order=40,
    ends_at_once=True,  # its report is all it writes
)
