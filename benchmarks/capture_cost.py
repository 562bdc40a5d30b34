"""What ``capture`` costs a program: each program run alone and under
``python -m explorer capture`` in turn (alternating, so both see the same machine), the
median wall time of each and their ratio; with ``--baseline DIR`` also under the capture of
another checkout of the explorer (e.g. ``git archive OLD | tar -x -C DIR``), in the same
rounds, for a before/after comparison on the same machine.

    PYOPENCL_CTX=1 python benchmarks/capture_cost.py [--rounds 5] [--baseline DIR] [many.py ...]

Programs: ``tests/capture/programs`` pipeline.py (6 launches), bfs.py (18), lu.py (10) and
many.py (10,000 launches of a 16-element kernel). Times include starting Python; the
``inside`` column is the program's own run under capture (without the command's start and
its writing of capture.json), from a shell's clock around it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "tests" / "capture" / "programs"
CASES = [("pipeline.py",), ("bfs.py",), ("lu.py",), ("many.py", "10000")]
# Runs the program and prints how long it took (the capture's listing goes to stderr too).
STAMP = 's=$(date +%s%N); "$@"; c=$?; echo "inside $(( $(date +%s%N) - s ))" >&2; exit $c'


def timed(command: list[str], root: Path = ROOT) -> tuple[float, float]:
    """Wall seconds of ``command`` (with ``root`` first on PYTHONPATH) and of the program
    inside it where it reports it (else the whole)."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    start = time.perf_counter()
    done = subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)  # fmt: skip
    wall = time.perf_counter() - start
    inside = [line for line in done.stderr.splitlines() if line.startswith("inside ")]
    return wall, (int(inside[-1].split()[1]) / 1e9 if inside else wall)


def captured(root: Path, command: list[str]) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as out:
        wrapped = ["bash", "-c", STAMP, "stamp", *command]
        return timed([sys.executable, "-m", "explorer", "capture", str(Path(out) / "c"), "--",
                      *wrapped], root)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="another checkout of the explorer")
    parser.add_argument("programs", nargs="*", help="only these (e.g. many.py)")
    args = parser.parse_args()
    roots = [("capture", ROOT)] + ([("baseline", args.baseline)] if args.baseline else [])
    header = f"{'program':<16}{'alone':>8}"
    for name, _ in roots:
        header += f"{name:>10}{'inside':>8}{'ratio':>7}"
    print(header, flush=True)
    for program, *extra in CASES:
        if args.programs and program not in args.programs:
            continue
        command = [sys.executable, str(PROGRAMS / program), *extra]
        plain: list[float] = []
        under: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in roots}
        for _ in range(args.rounds):
            plain.append(timed(command)[0])
            for name, root in roots:
                under[name].append(captured(root, command))
        alone = statistics.median(plain)
        line = f"{' '.join([program, *extra]):<16}{alone:>7.2f}s"
        for name, _ in roots:
            wall = statistics.median(w for w, _ in under[name])
            inside = statistics.median(i for _, i in under[name])
            line += f"{wall:>9.2f}s{inside:>7.2f}s{wall / alone:>6.2f}x"
        print(line, flush=True)


if __name__ == "__main__":
    main()
