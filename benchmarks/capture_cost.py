"""What ``capture`` costs a program: each program run alone and under
``python -m explorer capture OUT -- python PROGRAM`` in turn, round after round (alternating,
so both see the same machine), with the medians of their wall and CPU seconds and the ratio
of each; with ``--baseline DIR`` also under the capture of another checkout of the explorer
(``git archive OLD | tar -x -C DIR``), in the same rounds, for a before/after comparison on
the same machine.

    PYOPENCL_CTX=1 python benchmarks/capture_cost.py [--rounds 5] [--baseline DIR] \
        [--only many.py] [--only ...] [PROGRAM.py ...]

Programs: ours from ``tests/capture/programs`` (pipeline.py: 6 launches, bfs.py: 18, lu.py:
10, many.py: 10,000 launches of a 16-element kernel, each changing its buffer), then any
PROGRAM.py given (PyOpenCL's examples, say), each run in its own folder with its standard
input empty. CPU seconds are those of every process of the run (the command, the program,
the device's threads), as the kernel counts them for the children waited for; wall seconds
include starting Python. A first round (not counted) fills the build caches: the recorder
builds with ``-cl-kernel-arg-info`` added, another cache entry than the program's own.
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

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "tests" / "capture" / "programs"
OURS = [("pipeline.py",), ("bfs.py",), ("lu.py",), ("many.py", "10000")]


def timed(command: list[str], cwd: Path, root: Path) -> tuple[float, float]:
    """Wall and CPU seconds of ``command`` run in ``cwd`` with ``root`` first on PYTHONPATH
    (the CPU seconds of it and every process it waited for)."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.splitlines()[-5:])
        raise SystemExit(f"{' '.join(command)} ended with {done.returncode}:\n{tail}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def captured(command: list[str], cwd: Path, root: Path) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as out:
        capture = [sys.executable, "-m", "explorer", "capture", str(Path(out) / "c"), "--"]
        return timed([*capture, *command], cwd, root)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="another checkout of the explorer")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help="of ours, only this one (many.py); again for more",
    )
    parser.add_argument("programs", nargs="*", type=Path, help="more programs to run")
    args = parser.parse_args()
    roots = [("capture", ROOT)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
    cases = [
        (PROGRAMS / name, list(extra))
        for name, *extra in OURS
        if not args.only or name in args.only
    ] + [(path.resolve(), []) for path in args.programs]
    print(f"PYOPENCL_CTX={os.environ.get('PYOPENCL_CTX', '')!r}, {args.rounds} rounds, medians")
    header = f"{'program':<24}{'alone':>15}"
    for name, _ in roots:
        header += f"{name:>16}{'x wall':>8}{'x cpu':>7}"
    print(
        header
        + "\n"
        + " " * 24
        + f"{'wall   cpu':>15}"
        + f"{'wall   cpu':>16}{'':>15}" * len(roots)
    )
    for program, extra in cases:
        command = [sys.executable, str(program), *extra]
        alone: list[tuple[float, float]] = []
        under: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in roots}
        for round_ in range(args.rounds + 1):
            plain = timed(command, program.parent, ROOT)
            runs = {name: captured(command, program.parent, root) for name, root in roots}
            if round_:  # the first round fills the build caches
                alone.append(plain)
                for name, run in runs.items():
                    under[name].append(run)
        wall = statistics.median(w for w, _ in alone)
        cpu = statistics.median(c for _, c in alone)
        line = f"{' '.join([program.name, *extra]):<24}{wall:>7.2f}s{cpu:>6.2f}s"
        for name, _ in roots:
            w = statistics.median(w for w, _ in under[name])
            c = statistics.median(c for _, c in under[name])
            # Each round's ratio to the run alone beside it, the median of those.
            w_ratio = statistics.median(
                u[0] / a[0] for u, a in zip(under[name], alone, strict=True)
            )
            c_ratio = statistics.median(
                u[1] / a[1] for u, a in zip(under[name], alone, strict=True)
            )
            line += f"{w:>9.2f}s{c:>6.2f}s{w_ratio:>7.2f}x{c_ratio:>6.2f}x"
        print(line, flush=True)


if __name__ == "__main__":
    main()
