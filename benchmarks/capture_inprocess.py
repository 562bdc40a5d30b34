"""The recorder's own cost, measured in the program's process (``explorer.capture.inprocess
.capture`` around it), for this checkout and, with ``--baseline DIR``, another one
(``git archive OLD | tar -x -C DIR``), alternating run after run:

- ``--loop``: many.py's loop (``--launches`` launches of its 16-element kernel, after 200
  not counted), per launch: the loop's wall time, the CPU time of the program's thread and of
  the recorder's finishing thread (its turns timed with ``time.thread_time``);
- ``PROGRAM.py`` (PyOpenCL's ``demo_mandelbrot.py``, say): the wall and CPU time the
  program's thread spends in the recorder's ``launch`` (the kernel's own time in the wall,
  where the recorder waits for it), over the whole program, run from its own folder.

    PYOPENCL_CTX=1 python benchmarks/capture_inprocess.py [--rounds 8] [--baseline DIR] \
        (--loop [--launches 5000] | PROGRAM.py)

Each figure is the median of the rounds, with the least beside it. The capture folder is
made in ``--out-dir`` (the system's temporary folder by default) and removed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

COMMON = r"""
import os, shutil, sys, tempfile, time
from explorer.capture.bootstrap import recorder as rec
from explorer.capture.inprocess import capture

assert rec.__file__.startswith(sys.argv[3]), rec.__file__  # the checkout's own recorder
out = tempfile.mkdtemp(dir=sys.argv[2] or None)
"""

LOOP = (
    COMMON
    + r"""
import numpy as np
finishing = [0.0]
take = rec._Finisher._take_turn

def timed(self):
    start = time.thread_time()
    take(self)
    finishing[0] += time.thread_time() - start

rec._Finisher._take_turn = timed
count = int(sys.argv[1])
with capture(os.path.join(out, "c")):
    import pyopencl as cl
    context = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(context)
    source = "__kernel void inc(__global int *v) { v[get_global_id(0)] += 1; }"
    inc = cl.Program(context, source).build().inc
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    buffer = cl.Buffer(context, flags, hostbuf=np.zeros(16, np.int32))
    for _ in range(200):
        inc(queue, (16,), None, buffer)
    queue.finish()
    finishing[0] = 0.0
    wall, cpu = time.perf_counter(), time.thread_time()
    for _ in range(count):
        inc(queue, (16,), None, buffer)
    cpu = time.thread_time() - cpu
    queue.finish()
    wall = time.perf_counter() - wall
print(1e6 * wall / count, 1e6 * cpu / count, 1e6 * finishing[0] / count)
shutil.rmtree(out, ignore_errors=True)
"""
)

PROGRAM = (
    COMMON
    + r"""
import contextlib, io, runpy
spent = [0.0, 0.0]
launch = rec.Recorder.launch

def timed(*args, **kwargs):
    wall, cpu = time.perf_counter(), time.thread_time()
    try:
        return launch(*args, **kwargs)
    finally:
        spent[0] += time.perf_counter() - wall
        spent[1] += time.thread_time() - cpu

rec.Recorder.launch = timed
program = os.path.abspath(sys.argv[1])
os.chdir(os.path.dirname(program))
sys.argv = [program]
with contextlib.redirect_stdout(io.StringIO()), capture(os.path.join(out, "c")):
    runpy.run_path(program, run_name="__main__")
print(1e3 * spent[0], 1e3 * spent[1])
shutil.rmtree(out, ignore_errors=True)
"""
)


def run(root: Path, code: str, argument: str, out_dir: str) -> list[float]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    # Run from the system's temporary folder: ``-c`` puts the current folder first on the
    # path, which would find the explorer of a checkout run from.
    command = [sys.executable, "-c", code, argument, out_dir, str(root)]
    done = subprocess.run(command, env=env,
                          cwd=tempfile.gettempdir(), capture_output=True, text=True,
                          check=False)  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"{root}: ended with {done.returncode}:\n{done.stderr[-2000:]}")
    return [float(v) for v in done.stdout.splitlines()[-1].split()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--baseline", type=Path, help="another checkout of the explorer")
    parser.add_argument("--loop", action="store_true", help="many.py's loop")
    parser.add_argument("--launches", type=int, default=5000)
    parser.add_argument("--out-dir", default="", help="make the capture folders here")
    parser.add_argument("program", nargs="?", type=Path, help="a program to run whole")
    args = parser.parse_args()
    if args.loop == (args.program is not None):
        parser.error("give --loop or a PROGRAM.py")
    roots = [("capture", ROOT)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
    code, argument = (LOOP, str(args.launches)) if args.loop else (PROGRAM, str(args.program))
    names = (
        ["loop wall µs", "program's thread µs", "finishing thread µs"]
        if args.loop
        else ["launch wall ms", "launch CPU ms"]
    )
    figures: dict[str, list[list[float]]] = {name: [] for name, _ in roots}
    for _ in range(args.rounds):
        for name, root in roots:
            figures[name].append(run(root, code, argument, args.out_dir))
    print(f"PYOPENCL_CTX={os.environ.get('PYOPENCL_CTX', '')!r}, {args.rounds} rounds, "
          "median (least)")  # fmt: skip
    print(f"{'':<10}" + "".join(f"{n:>24}" for n in names))
    for name, _ in roots:
        columns = list(zip(*figures[name], strict=True))
        print(f"{name:<10}" + "".join(
            f"{statistics.median(c):>16.1f} ({min(c):.1f})" for c in columns
        ))  # fmt: skip


if __name__ == "__main__":
    main()
