"""What ``capture`` costs a program: each program run alone and under
``python -m explorer capture`` in turn (alternating, so both see the same machine), the
median wall time of each and their ratio.

    PYOPENCL_CTX=1 python benchmarks/capture_cost.py [--rounds 3]

Programs: ``tests/capture/programs`` pipeline.py (6 launches), bfs.py (18), lu.py (10) and
many.py (10,000 launches of a 16-element kernel). Times include starting Python.
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


def timed(command: list[str]) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)  # fmt: skip
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    print(f"{'program':<22}{'alone':>9}{'capture':>9}{'ratio':>7}")
    for program, *args in CASES:
        plain: list[float] = []
        captured: list[float] = []
        for _ in range(rounds):
            command = [sys.executable, str(PROGRAMS / program), *args]
            plain.append(timed(command))
            with tempfile.TemporaryDirectory() as out:
                captured.append(timed([sys.executable, "-m", "explorer", "capture",
                                       str(Path(out) / "c"), "--", *command]))  # fmt: skip
        alone, under = statistics.median(plain), statistics.median(captured)
        name = " ".join([program, *args])
        print(f"{name:<22}{alone:>8.2f}s{under:>8.2f}s{under / alone:>6.2f}x", flush=True)


if __name__ == "__main__":
    main()
