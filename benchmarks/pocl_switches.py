"""What PoCL's own switches do to a kernel's first run (its compile) and to its speed after:
each catalog variant's first run at sizes of no tile's multiple (bench-first-run's), then a
timed run at a larger size, under each setting, in a process of its own with empty caches.

    python benchmarks/pocl_switches.py [--variants matmul/tiled,rowdot/fast] [--rounds 1]
        [--setting NAME=VALUE[,NAME=VALUE]] ...

The settings compared are PoCL's defaults and, unless ``--setting`` names others, the
switches that change how it makes a kernel's work-group function: no specialisation per
local size (``POCL_WORK_GROUP_SPECIALIZATION=0``: one compile per kernel whatever its local
size) and work-item loops without the implicit vectoriser (``POCL_WORK_GROUP_METHOD=loops``).
Per variant and setting: the CPU seconds of the first run (its builds: PoCL compiles most
of a kernel at its first launch) and the median kernel milliseconds of the timed run. The
processes run one after another, the settings alternating within each round; CPU seconds
say what a shared machine's wall seconds cannot.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

DEFAULT_SETTINGS = ["", "POCL_WORK_GROUP_SPECIALIZATION=0", "POCL_WORK_GROUP_METHOD=loops"]
DEFAULT_VARIANTS = (
    "matmul/tiled,matmul/wpt,matmul/fast,transpose/naive,transpose/tiled,matvec/fast,"
    "matvec/nvidia-coalesced0,rowdot/fast,stencil/tiled,histogram/local-bins"
)
# The timed run: sizes where a launch takes milliseconds on two CPU cores.
TIMED_SIZES = {
    "matmul": {"M": 256, "N": 256, "K": 256},
    "transpose": {"WIDTH": 2048, "HEIGHT": 2048},
    "matvec": {"WIDTH": 2048, "HEIGHT": 2048},
    "rowdot": {"D": 2048},
    "stencil": {"WIDTH": 2048, "HEIGHT": 2048},
    "histogram": {"VALUES": 1 << 22, "BINS": 256},
}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    waited = resource.getrusage(resource.RUSAGE_CHILDREN)  # PoCL links with ld
    return usage.ru_utime + usage.ru_stime + waited.ru_utime + waited.ru_stime


def child(variants: list[str]) -> None:
    """In a process whose environment holds the setting and empty caches: one JSON line per
    variant."""
    from explorer.benchmarks.first_run import ODD_SIZES
    from explorer.engine.header.catalog import catalog
    from explorer.engine.launch import run as runner
    from explorer.engine.launch.devices import default_device, list_devices
    from explorer.engine.records import RunRequest
    from explorer.engine.serve import prepare_process

    prepare_process()
    device = default_device(list_devices())
    by_id = {v.qualified_id: v for v in catalog()}
    for name in variants:
        variant = by_id[name]
        first = RunRequest(variant, ODD_SIZES[variant.family], device_key=device.key)
        started = _cpu()
        result = runner.run_request(first)
        built = _cpu() - started
        timed = runner.run_request(
            RunRequest(variant, TIMED_SIZES[variant.family], device_key=device.key, repeat=5)
        )
        line = {
            "variant": name,
            "status": result.status,
            "timed_status": timed.status,
            "first_cpu_s": round(built, 3),
            "median_ms": None if timed.timing is None else round(timed.timing.median_ms, 3),
        }
        print(json.dumps(line), flush=True)


def measure(setting: str, variants: list[str]) -> list[dict]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    for pair in filter(None, setting.split(",")):
        name, _, value = pair.partition("=")
        env[name] = value
    with tempfile.TemporaryDirectory(prefix="pocl-switches-") as folder:
        env["XDG_CACHE_HOME"] = str(Path(folder, "cache"))
        env["POCL_CACHE_DIR"] = str(Path(folder, "pocl"))
        out = subprocess.run(
            [sys.executable, __file__, "--child", ",".join(variants)],
            env=env,
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
    if out.returncode != 0:
        raise SystemExit(f"{setting or 'defaults'}: {out.stderr[-2000:]}")
    return [json.loads(x) for x in out.stdout.splitlines() if x.startswith("{")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", default=DEFAULT_VARIANTS, help="comma-separated ids")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--setting", action="append", help="NAME=VALUE[,NAME=VALUE] (repeatable; '' : defaults)"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child.split(","))
        return 0
    variants = [v for v in args.variants.split(",") if v]
    settings = args.setting if args.setting is not None else DEFAULT_SETTINGS
    rows: dict[tuple[str, str], list[dict]] = {}
    for _ in range(args.rounds):
        for setting in settings:
            for line in measure(setting, variants):
                rows.setdefault((line["variant"], setting), []).append(line)
    names = [s or "defaults" for s in settings]
    print("first run CPU s / timed run median ms, per setting:")
    print(f"{'variant':28} " + " ".join(f"{n:>36}" for n in names))
    totals = [0.0] * len(settings)
    for variant in variants:
        cells = []
        for i, setting in enumerate(settings):
            lines = rows.get((variant, setting), [])
            cpu = [x["first_cpu_s"] for x in lines]
            ms = [x["median_ms"] for x in lines if x["median_ms"] is not None]
            totals[i] += sum(cpu) / max(1, len(cpu))
            text = f"{min(cpu):.2f}-{max(cpu):.2f} s" if cpu else "-"
            text += f" / {min(ms):.2f}-{max(ms):.2f} ms" if ms else " / -"
            if any(x["status"] != "verified" or x["timed_status"] != "verified" for x in lines):
                text += " !"
            cells.append(f"{text:>36}")
        print(f"{variant:28} " + " ".join(cells))
    print(f"{'first runs, CPU s in all':28} " + " ".join(f"{t:>36.1f}" for t in totals))
    print(f"load average {os.getloadavg()[0]:.1f}; '!' marks a run that did not verify")
    return 0


if __name__ == "__main__":
    sys.exit(main())
