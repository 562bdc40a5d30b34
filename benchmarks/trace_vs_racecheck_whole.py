"""A first trace as a person types it, whole, beside compute-sanitizer racecheck's whole run.

    python benchmarks/trace_vs_racecheck_whole.py [--device NVIDIA] [--size 256] [--rounds 4]

Each round, in a new process each and in alternating order: ``python -m explorer trace
--family matmul --variant tiled --size N`` (race-free), the same trace of the tiled kernel
with its second barrier removed (racy: the trace reports the race), and, where ``nvcc`` and
``compute-sanitizer`` exist, ``compute-sanitizer --tool racecheck`` of the CUDA twin
(``matmul_tiled.cu`` beside this script, one launch) built race-free and with ``-DRACY``.
Every command is timed whole, from its start to its exit, as a shell times it; round 0
fills the caches (the drivers', PyOpenCL's, the explorer's), the later rounds are what a
second trace in a new process costs. The trace commands run with ``EXPLORER_TIMINGS=1``, so
each row also says the CPU time (user + system) of all its processes, of the command's own
and of its executor's (as it finished its report) and, with ``--stages``, each stage's time.
The ratios are racecheck's wall time over the trace's, each round's own. ``--against-tree
PATH`` times the race-free trace of another checkout of the explorer too, in the same rounds
(the code before a change, say).

A source checkout in an environment with ``PYTHONDONTWRITEBYTECODE`` set compiles every module
of both processes at every start (a quarter to half a second each on a fast host): an
installed explorer has its bytecode. ``--compile`` writes it first (``compileall``) and says
so in each row.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

_TIMING = re.compile(r"^timings\s+([\d.]+) s\s+cpu\s+([\d.]+) s\s+(\w+)\s+(.*)$")


def _tool(name: str) -> str | None:
    path = shutil.which(name)
    if path is None and os.path.exists(f"/usr/local/cuda/bin/{name}"):
        path = f"/usr/local/cuda/bin/{name}"
    return path


def racy_kernel(folder: Path) -> Path:
    """``kernels/matmul/tiled.cl`` with its second barrier (after the tile's products) made an
    empty statement, lines kept: the twin of ``matmul_tiled.cu -DRACY``."""
    source = (ROOT / "kernels" / "matmul" / "tiled.cl").read_text(encoding="utf-8")
    lines = source.splitlines(keepends=True)
    barriers = [at for at, line in enumerate(lines) if "barrier(CLK_LOCAL_MEM_FENCE);" in line]
    if len(barriers) != 2:
        raise SystemExit(f"kernels/matmul/tiled.cl has {len(barriers)} barriers, not 2")
    lines[barriers[1]] = lines[barriers[1]].replace("barrier(CLK_LOCAL_MEM_FENCE);", ";")
    path = folder / "tiled_racy.cl"
    path.write_text("".join(lines), encoding="utf-8")
    return path


def cuda_twins(folder: Path, arch: str) -> dict[str, Path]:
    """The CUDA twin built race-free and racy, by name; empty without nvcc."""
    nvcc = _tool("nvcc")
    if nvcc is None:
        return {}
    built = {}
    for name, extra in (("race-free", []), ("racy", ["-DRACY"])):
        binary = folder / f"matmul_tiled_{name}"
        command = [nvcc, "-O3", f"-arch={arch}", *extra, "-o", str(binary)]
        subprocess.run([*command, str(HERE / "matmul_tiled.cu")], check=True)
        built[name] = binary
    return built


def _adopt_orphans() -> None:
    """Become the parent of the processes a command leaves behind (its executor, stopped as
    it exits and not waited for), so that their CPU time is counted too (Linux)."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def timed(
    command: list[str], env: dict[str, str], cwd: Path = ROOT
) -> tuple[float, float, str, str, int]:
    """``command`` run whole: wall seconds to its exit, the CPU seconds (user + system) of it
    and of every process it started, its output, its standard error and its exit code."""
    before = os.times()
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, check=False)
    wall = time.perf_counter() - started
    while True:  # its orphans, now this process's children
        try:
            os.wait()
        except ChildProcessError:
            break
    after = os.times()
    cpu = after.children_user + after.children_system
    cpu -= before.children_user + before.children_system
    return wall, cpu, done.stdout, done.stderr, done.returncode


def stages(stderr: str) -> list[tuple[float, float, str, str]]:
    """The ``EXPLORER_TIMINGS`` lines: (seconds since the start, CPU seconds, process, what)."""
    found = []
    for line in stderr.splitlines():
        match = _TIMING.match(line.strip())
        if match:
            found.append((float(match[1]), float(match[2]), match[3], match[4]))
    return found


def trace_row(
    name: str, command: list[str], env: dict[str, str], cwd: Path, show_stages: bool
) -> dict[str, Any]:
    wall, cpu, out, err, code = timed(command, {**env, "EXPLORER_TIMINGS": "1"}, cwd)
    if code != 0:
        raise SystemExit(f"{' '.join(command)} exited with {code}:\n{err[-2000:]}")
    lines = stages(err)
    command_cpu = max((cpu for _, cpu, who, _ in lines if who == "command"), default=0.0)
    executor_cpu = max((cpu for _, cpu, who, _ in lines if who == "executor"), default=0.0)
    race = "[race]" in out
    row: dict[str, Any] = {
        "what": name,
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 2),  # every process of the command
        "command_cpu_s": command_cpu,
        "executor_cpu_s": executor_cpu,
        "race_reported": race,
    }
    if show_stages:
        row["stages"] = [
            f"{at:.3f} s {who}: {what} (cpu {cpu:.2f} s)" for at, cpu, who, what in lines
        ]
    return row


def sanitizer_row(name: str, binary: Path, size: int, env: dict[str, str]) -> dict[str, Any]:
    sanitizer = _tool("compute-sanitizer")
    assert sanitizer is not None
    command = [sanitizer, "--tool", "racecheck", str(binary), str(size), "1"]
    wall, cpu, out, err, code = timed(command, env)
    hazards = re.search(r"RACECHECK SUMMARY: (\d+) hazard", out + err)
    return {
        "what": f"racecheck {name}",
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 2),
        "hazards": int(hazards[1]) if hazards else 0,
        "exit_code": code,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", help="the trace's --device (default: the default device)")
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=4, help="rounds after round 0")
    parser.add_argument("--arch", default="sm_90", help="nvcc's -arch (default sm_90)")
    parser.add_argument("--no-cuda", action="store_true", help="time the traces alone")
    parser.add_argument("--compile", action="store_true", help="write the bytecode first")
    parser.add_argument("--stages", action="store_true", help="each trace's stage times too")
    parser.add_argument("--against-tree", metavar="PATH", help="another checkout to time too")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    _adopt_orphans()
    if args.compile:
        for tree in (ROOT, *([Path(args.against_tree)] if args.against_tree else [])):
            compileall.compile_dir(str(tree / "explorer"), quiet=1)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    device = ["--device", args.device] if args.device else []
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        racy = racy_kernel(folder)
        twins = {}
        if not args.no_cuda and _tool("compute-sanitizer") is not None:
            twins = cuda_twins(folder, args.arch)
        base = [sys.executable, "-m", "explorer", "trace", "--size", str(args.size), *device]
        tiled = ["--family", "matmul", "--variant", "tiled"]
        traces = {
            "trace race-free": ([*base, *tiled], env, ROOT),
            "trace racy": ([*base, "--kernel-file", str(racy)], env, ROOT),
        }
        if args.against_tree:
            other = dict(
                env,
                PYTHONPATH=os.pathsep.join(
                    p for p in (args.against_tree, os.environ.get("PYTHONPATH")) if p
                ),
            )
            tree = Path(args.against_tree).resolve()
            traces[f"trace race-free ({tree})"] = ([*base, *tiled], other, tree)
        for number in range(args.rounds + 1):
            rows = []
            names = list(traces) + [f"racecheck {n}" for n in twins]
            if number % 2:
                names.reverse()
            for name in names:
                if name in traces:
                    command, where, cwd = traces[name]
                    rows.append(trace_row(name, command, where, cwd, args.stages))
                else:
                    twin = name.removeprefix("racecheck ")
                    rows.append(sanitizer_row(twin, twins[twin], args.size, env))
            walls = {row["what"]: row["wall_s"] for row in rows}
            for kind in ("race-free", "racy"):
                if f"racecheck {kind}" in walls:
                    ratio = walls[f"racecheck {kind}"] / walls[f"trace {kind}"]
                    rows.append({"what": f"racecheck ÷ trace, {kind}", "ratio": round(ratio, 2)})
            for row in rows:
                row = {"round": number, "bytecode_written": args.compile, **row}
                if args.json:
                    print(json.dumps(row), flush=True)
                else:
                    shown = {k: v for k, v in row.items() if k != "stages"}
                    print(shown, flush=True)
                    for line in row.get("stages", []):
                        print("    " + line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
