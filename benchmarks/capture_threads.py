"""Where ``capture``'s time goes in a loop of small launches: per launch, the wall time of the
loop, the CPU time of the program's thread, of its whole process (PoCL's threads too) and of
the recorder's finishing thread, for ``many.py``'s loop run alone and under ``python -m
explorer capture``, round after round; and, with ``--bare``, under capture with a finishing
thread that only waits for the reads (no contents kept, no line written: what the program
would pay were that work done elsewhere; the folder it leaves is not a whole capture).
``--pocl``: what the driver alone costs a launch back to back, with a copy between buffers
queued behind each (as the recorder's staging does), and with some Python between them.

    PYOPENCL_CTX=1 python benchmarks/capture_threads.py [--rounds 5] [--launches 10000] \
        [--bare] [--pocl] [--out-dir /dev/shm]

Each figure is the median of the rounds, with the least beside it (the machine's other work
adds to every figure, never takes from it).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# many.py's loop, timed; under capture the finishing thread's turns are timed too (and, with
# BARE set, made to wait for each launch's reads and keep nothing).
LOOP = r"""
import os, sys, time
import numpy as np
import pyopencl as cl

recorder = sys.modules.get("_explorer_capture_bootstrap.recorder")
finishing = [0.0]
if recorder is not None:
    take = recorder._Finisher._take_turn

    def timed(self):
        start = time.thread_time()
        take(self)
        finishing[0] += time.thread_time() - start

    recorder._Finisher._take_turn = timed
    if os.environ.get("BARE"):
        whole = recorder.Recorder._finish_record

        def bare(self, record):
            if record.quick is None:
                return whole(self, record)
            for after in record.quick[5]:
                if after.batch is not None:
                    after.batch.contents(after.offset, after.nbytes)
            record.done = True

        recorder.Recorder._finish_record = bare
count = int(sys.argv[1])
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, "__kernel void inc(__global int *v) { v[get_global_id(0)] += 1; }")
inc = program.build().inc
values = np.zeros(16, np.int32)
buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=values)
inc(queue, (16,), None, buffer)
queue.finish()
wall, mine, every = time.perf_counter(), time.thread_time(), time.process_time()
for _ in range(count):
    inc(queue, (16,), None, buffer)
cl.enqueue_copy(queue, values, buffer)
wall, mine = time.perf_counter() - wall, time.thread_time() - mine
every = time.process_time() - every
print("per launch", *(f"{1e6 * t / count:.2f}" for t in (wall, mine, every, finishing[0])),
      file=sys.stderr)
"""

# The driver alone: n launches of the same kernel, with a copy queued behind each and some
# microseconds of Python between them.
POCL = r"""
import sys, time
import numpy as np
import pyopencl as cl
import pyopencl._cl as _cl

n = int(sys.argv[1])
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
source = "__kernel void inc(__global int *v) { v[get_global_id(0)] += 1; }"
kernel = cl.Program(context, source).build().inc
buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE, 64)
stage = cl.Buffer(context, cl.mem_flags.READ_WRITE, 2 << 20)
kernel.set_arg(0, buffer)

def run(copy, python_us):
    queue.finish()
    wall, cpu = time.perf_counter(), time.process_time()
    offset = 0
    for _ in range(n):
        _cl.enqueue_nd_range_kernel(queue, kernel, (16,), None)
        if copy:
            _cl._enqueue_copy_buffer(queue, buffer, stage, 64, 0, offset, None)
            offset = (offset + 64) % (2 << 20)
        if python_us:
            until = time.perf_counter() + python_us * 1e-6
            while time.perf_counter() < until:
                pass
    queue.finish()
    return time.perf_counter() - wall, time.process_time() - cpu

for copy, python_us in ((False, 0), (True, 0), (False, 5), (True, 5), (True, 10)):
    wall, cpu = run(copy, python_us)
    print(f"pocl {int(copy)} {python_us} {1e6 * wall / n:.2f} {1e6 * cpu / n:.2f}", file=sys.stderr)
"""


def run(command: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:6])} ... ended with {done.returncode}:\n"
                         f"{done.stderr[-2000:]}")  # fmt: skip
    return done.stderr


def figures(text: str) -> list[float]:
    found = re.search(r"^per launch (\S+) (\S+) (\S+) (\S+)$", text, re.M)
    assert found is not None, text
    return [float(v) for v in found.groups()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--launches", type=int, default=10_000)
    parser.add_argument("--bare", action="store_true", help="also with a finishing thread "
                        "that keeps nothing")  # fmt: skip
    parser.add_argument("--pocl", action="store_true", help="also the driver alone")
    parser.add_argument("--out-dir", type=Path, help="record into folders made here")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    kinds = ["alone", "capture"] + (["bare"] if args.bare else [])
    seen: dict[str, list[list[float]]] = {kind: [] for kind in kinds}
    pocl: dict[tuple[str, str], list[tuple[float, float]]] = {}
    loop = [sys.executable, "-c", LOOP, str(args.launches)]
    for _ in range(args.rounds + 1):  # the first round fills the build caches
        for kind in kinds:
            if kind == "alone":
                seen[kind].append(figures(run(loop, env)))
                continue
            with tempfile.TemporaryDirectory(dir=args.out_dir) as out:
                capture = [sys.executable, "-m", "explorer", "capture", str(Path(out) / "c"), "--"]
                extra = {"BARE": "1"} if kind == "bare" else {}
                seen[kind].append(figures(run([*capture, *loop], {**env, **extra})))
        if args.pocl:
            text = run([sys.executable, "-c", POCL, str(args.launches // 2)], env)
            for line in text.splitlines():
                if line.startswith("pocl "):
                    _, copy, python_us, wall, cpu = line.split()
                    pocl.setdefault((copy, python_us), []).append((float(wall), float(cpu)))
    print(f"{args.launches} launches, {args.rounds} rounds; µs a launch, median (least)")
    print(f"{'':10}{'loop wall':>16}{'thread CPU':>16}{'process CPU':>16}{'finishing CPU':>16}")
    for kind in kinds:
        columns = list(zip(*seen[kind][1:], strict=True))
        cells = "".join(f"{statistics.median(c):>9.1f} ({min(c):4.1f})" for c in columns)
        print(f"{kind:<10}{cells}")
    if pocl:
        print("the driver alone:       wall          CPU")
        for (copy, python_us), values in pocl.items():
            walls, cpus = zip(*values[1:], strict=True)
            label = ("launch + copy" if copy == "1" else "launch") + (
                f" + {python_us} µs Python" if python_us != "0" else ""
            )
            print(f"  {label:<26}{statistics.median(walls):>5.1f} ({min(walls):4.1f})"
                  f"{statistics.median(cpus):>6.1f} ({min(cpus):4.1f})")  # fmt: skip


if __name__ == "__main__":
    main()
