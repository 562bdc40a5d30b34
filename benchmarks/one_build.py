"""One trace program with its barriers switched by each launch, beside two builds (one without
barriers that counts, one with them that records): what each costs, in new processes.

    python benchmarks/one_build.py [--device NVIDIA] [--case matmul/tiled:256] [--rounds 3]

Each round runs two new interpreters one after the other, the two schemes in alternating
order (``explorer.engine.record.trace_launch.ONE_BUILD`` False, then True, or the other way),
each tracing the case twice as ``python -m explorer trace`` does (values recorded, the default
budget, random input): the first trace of a process pays its builds (from the drivers' and
PyOpenCL's caches once a first round has filled them), the second only its launches. Per
trace: the stages (``build`` is instrument, prepare and the counting build), the whole trace
with the process's CPU time in it (a CPU device's threads included), and whether the report
is the same in both schemes (the order the groups started in aside, which a device chooses
anew each launch). ``--json`` prints one object per trace.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.append(str(HERE.parent))  # the repository's code, unless PYTHONPATH names another

STAGES = ("build_ms", "count_ms", "record_ms", "verify_ms", "decode_ms", "analyse_ms")


def traces(device: str | None, case: str, one_build: bool) -> list[dict[str, Any]]:
    """Two traces of ``case`` in this process, with one build or two."""
    from explorer.engine.early import SINGLE_THREADED

    os.environ.update(SINGLE_THREADED)  # as the executor's process has them
    from explorer.engine.serve import prepare_process

    prepare_process()
    from explorer.engine.header.catalog import find_variant, load_variant_file
    from explorer.engine.launch.devices import list_devices, pick_device
    from explorer.engine.record import trace_launch
    from explorer.engine.record.trace_launch import TraceRequest, trace_and_analyse
    from explorer.engine.records import RunRequest

    trace_launch.ONE_BUILD = one_build
    name, _, size = case.rpartition(":")
    if name.endswith((".cl", ".sim")):  # a kernel file with a header
        variant = load_variant_file(name)
    else:
        family, _, variant_id = name.partition("/")
        variant = find_variant(family, variant_id)
    sizes = {size_name: int(size) for size_name in variant.model.size_names}
    chosen = pick_device(list_devices(), device)
    run = RunRequest(variant, sizes, device_key=chosen.key, input="random")
    rows = []
    for number in range(2):
        started, before = time.perf_counter(), os.times()
        traced = trace_and_analyse(TraceRequest(run))
        wall, after = (time.perf_counter() - started) * 1e3, os.times()
        cpu = (after.user + after.system - before.user - before.system) * 1e3
        report = dict(traced.report_json or {})
        report.pop("dispatch_order", None)
        t = traced.timings_ms
        rows.append(
            {
                "case": case,
                "one_build": one_build,
                "trace": number,
                "device": traced.result.device,
                "status": traced.result.status,
                **{stage: round(t.get(stage, 0.0), 1) for stage in STAGES},
                "trace_ms": round(wall, 1),
                "cpu_ms": round(cpu, 1),  # the process's, PoCL's threads included
                "report": json.dumps(report, sort_keys=True),
            }
        )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device")
    parser.add_argument(
        "--case", action="append", help="FAMILY/VARIANT:SIZE or KERNEL_FILE:SIZE (repeatable)"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", choices=("one", "two"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    cases = args.case or ["matmul/tiled:256"]
    if args.child:
        for case in cases:
            for row in traces(args.device, case, args.child == "one"):
                print(json.dumps(row), flush=True)
        return 0
    for number in range(args.rounds):
        order = ("two", "one") if number % 2 == 0 else ("one", "two")
        reports: dict[tuple[str, int], str] = {}
        for scheme in order:
            command = [sys.executable, __file__, "--child", scheme, "--rounds", "1"]
            for case in cases:
                command += ["--case", case]
            if args.device:
                command += ["--device", args.device]
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                print(done.stdout + done.stderr, file=sys.stderr)
                return done.returncode
            for line in done.stdout.splitlines():
                if not line.startswith("{"):
                    continue
                row = json.loads(line)
                reports.setdefault((row["case"], row["trace"]), row["report"])
                row["same_report"] = reports[row["case"], row["trace"]] == row["report"]
                row["round"] = number
                del row["report"]
                if args.json:
                    print(json.dumps(row), flush=True)
                    continue
                stages = " + ".join(f"{s[:-3]} {row[s]}" for s in STAGES)
                scheme_name = "one build " if row["one_build"] else "two builds"
                print(
                    f"round {number}, {row['case']}, {scheme_name}"
                    f", trace {row['trace']}: {stages}; whole {row['trace_ms']} ms, CPU "
                    f"{row['cpu_ms']} ms"
                    f"{'' if row['same_report'] else '; REPORT DIFFERS'}",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
