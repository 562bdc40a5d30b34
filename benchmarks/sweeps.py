"""The whole sweeps of the test files that run a sample: every case they leave out, run.

    python benchmarks/sweeps.py [--workers 2] [--cold] [--sample] [-- PYTEST ARGS]

The suite keeps a sample of each of these (the cases that between them show every feature,
construct, path or size class of the list; each file says which and why), so that it stays
quick; this runs them whole with ``EXPLORER_SWEEP=all``:

- tests/trace/test_same_findings_either_build.py: every kernel of the findings corpus, of our
  trace kernels and of the catalog, with the optimiser and without it;
- tests/trace/test_same_findings_on_every_path.py: every kernel of the findings corpus and of
  our trace kernels through the command line's trace and the window's.

``--sample``: the suite's sample, to compare. ``--cold``: an empty cache folder
(``XDG_CACHE_HOME``: PoCL's compiled kernels, the explorer's parse and instrument caches), as
a fresh machine has. It ends with one line: pytest's exit code, the wall time and the CPU
time of pytest and everything it started. The exit code is pytest's. Run it after a change
to the trace's instrumentation, its runtime or the build options, and before a PoCL
upgrade.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILES = (
    "tests/trace/test_same_findings_either_build.py",
    "tests/trace/test_same_findings_on_every_path.py",
)
SWEEP = "EXPLORER_SWEEP"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--workers", type=int, default=2, help="pytest-xdist workers (0: one process)"
    )
    parser.add_argument("--cold", action="store_true", help="an empty cache folder for the run")
    parser.add_argument("--sample", action="store_true", help="the suite's sample, not all")
    parser.add_argument("pytest_args", nargs="*", help="after --: more arguments for pytest")
    args = parser.parse_args(argv)
    if args.workers < 0:
        parser.error("--workers must be 0 or more")
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.pop("EXPLORER_EITHER_BUILD", None)
    if args.sample:
        env.pop(SWEEP, None)
    else:
        env[SWEEP] = "all"
    command = [sys.executable, "-m", "pytest", *FILES, "-n", str(args.workers)]
    command += ["-p", "no:cacheprovider", "--durations=15", "-q", *args.pytest_args]
    with tempfile.TemporaryDirectory(prefix="sweeps-cache-") as cache:
        if args.cold:
            env["XDG_CACHE_HOME"] = cache
            env.pop("EXPLORER_CACHE_DIR", None)
            env.pop("POCL_CACHE_DIR", None)
        started = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, env=env)
        wall = time.perf_counter() - started
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    what = "the suite's samples" if args.sample else "every case"
    caches = "empty caches" if args.cold else "the caches as they were"
    print(
        f"sweeps, {what}, {args.workers} workers, {caches}: pytest exit code "
        f"{done.returncode}, {wall:.1f} s wall, {used.ru_utime + used.ru_stime:.1f} s CPU "
        f"(user {used.ru_utime:.1f} s, system {used.ru_stime:.1f} s)"
    )
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
