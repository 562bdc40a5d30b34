"""What ``capture`` costs a program: each program run alone and under
``python -m explorer capture OUT -- python PROGRAM`` in turn, round after round (alternating,
so both see the same machine), with the medians of their wall and CPU seconds and the ratio
of each; with ``--baseline DIR`` also under the capture of another checkout of the explorer
(``git archive OLD | tar -x -C DIR``), in the same rounds, for a before/after comparison on
the same machine.

    PYOPENCL_CTX=1 python benchmarks/capture_cost.py [--rounds 5] [--baseline DIR] \
        [--only many.py] [--only ...] [--out-dir /dev/shm] [PROGRAM.py ...]

Programs: ours from ``tests/capture/programs`` (pipeline.py: 6 launches, bfs.py: 18, lu.py:
10, many.py: 10,000 launches of a 16-element kernel, each changing its buffer), then any
PROGRAM.py given (PyOpenCL's examples, say), each run in its own folder with its standard
input empty. CPU seconds are those of every process of the run (the command, the program,
the device's threads), as the kernel counts them for the children waited for; wall seconds
include starting Python. A first round (not counted) fills the build caches: the recorder
builds with ``-cl-kernel-arg-info`` added, another cache entry than the program's own.

Each checkout's modules are byte-compiled first, as an installed explorer's are (and as a
checkout's are after its first run, unless ``PYTHONDONTWRITEBYTECODE`` is set: then every
run would compile the recorder and ``capture``'s modules again, some 30 ms that no install
pays); ``--source`` leaves them as they are.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "tests" / "capture" / "programs"
OURS = [("pipeline.py",), ("bfs.py",), ("lu.py",), ("many.py", "10000")]


class Run(NamedTuple):
    wall: float  # seconds
    cpu: float  # seconds of CPU of every process of the run
    listing: int  # bytes the run wrote to stderr (capture's listing)


def timed(command: list[str], cwd: Path, root: Path) -> Run:
    """``command`` run in ``cwd`` with ``root`` first on PYTHONPATH: its wall seconds, the CPU
    seconds of it and of every process it waited for, and what it wrote to stderr."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.decode(errors="replace").splitlines()[-5:])
        raise SystemExit(f"{' '.join(command)} ended with {done.returncode}:\n{tail}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(wall, cpu, len(done.stderr))


def captured(command: list[str], cwd: Path, root: Path, where: Path | None) -> Run:
    """``command`` under ``python -m explorer capture`` (of the checkout ``root``), into a
    new folder (in ``where``)."""
    with tempfile.TemporaryDirectory(dir=where) as out:
        capture = [sys.executable, "-m", "explorer", "capture", str(Path(out) / "c"), "--"]
        return timed([*capture, *command], cwd, root)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="another checkout of the explorer")
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="of ours, only this one (many.py); again for more")  # fmt: skip
    parser.add_argument("--out-dir", type=Path, help="record into folders made here (/dev/shm: "
                        "no disk)")  # fmt: skip
    parser.add_argument("--source", action="store_true", help="no byte-compiling of the "
                        "checkouts (they are compiled at every run where nothing writes their "
                        "bytecode)")  # fmt: skip
    parser.add_argument("programs", nargs="*", type=Path, help="more programs to run")
    args = parser.parse_args()
    roots = [("capture", ROOT)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
    if not args.source:
        for _, root in roots:
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(root / "explorer")],
                           check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    cases = [
        (PROGRAMS / name, list(extra))
        for name, *extra in OURS
        if not args.only or name in args.only
    ] + [(path.resolve(), []) for path in args.programs]
    print(f"PYOPENCL_CTX={os.environ.get('PYOPENCL_CTX', '')!r}, {args.rounds} rounds, medians; "
          "x: the median of each round's ratio to the run alone beside it; "
          f"{'modules as source' if args.source else 'modules byte-compiled'}")  # fmt: skip
    header = f"{'program':<24}{'alone':>15}" + "".join(
        f"{name:>16}{'x wall':>8}{'x cpu':>7}" for name, _ in roots
    )
    print(header + f"{'listing':>9}")
    print(" " * 24 + f"{'wall   cpu':>15}" + f"{'wall   cpu':>16}{'':>15}" * len(roots))
    for program, extra in cases:
        command = [sys.executable, str(program), *extra]
        alone: list[Run] = []
        under: dict[str, list[Run]] = {name: [] for name, _ in roots}
        for round_ in range(args.rounds + 1):
            plain = timed(command, program.parent, ROOT)
            runs = {name: captured(command, program.parent, root, args.out_dir)
                    for name, root in roots}  # fmt: skip
            if round_:  # the first round fills the build caches
                alone.append(plain)
                for name, run in runs.items():
                    under[name].append(run)
        line = f"{' '.join([program.name, *extra]):<24}"
        line += f"{statistics.median(r.wall for r in alone):>7.2f}s"
        line += f"{statistics.median(r.cpu for r in alone):>6.2f}s"
        for name, _ in roots:
            mine = under[name]
            wall = statistics.median(r.wall / a.wall for r, a in zip(mine, alone, strict=True))
            cpu = statistics.median(r.cpu / a.cpu for r, a in zip(mine, alone, strict=True))
            line += f"{statistics.median(r.wall for r in mine):>9.2f}s"
            line += f"{statistics.median(r.cpu for r in mine):>6.2f}s{wall:>7.2f}x{cpu:>6.2f}x"
        print(line + f"{under['capture'][-1].listing:>8}B", flush=True)


if __name__ == "__main__":
    main()
