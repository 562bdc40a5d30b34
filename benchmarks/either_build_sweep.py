"""The whole either-build sweep: every kernel of the findings corpus, of our own trace kernels
and of the catalog, traced with the compiler's optimiser and without it, must give the same
findings (tests/trace/test_same_findings_either_build.py). The test suite runs a sample of
each list, the fewest kernels that show every feature of the list; this runs them all.

    python benchmarks/either_build_sweep.py [--workers 2] [--cold] [--sample] [-- PYTEST ARGS]
    python benchmarks/either_build_sweep.py --list

It runs pytest on that file with ``EXPLORER_EITHER_BUILD=all`` (``--sample``: the suite's
sample, to compare), the slowest cases listed at the end, then one line: the cases, pytest's
outcome, the wall time and the CPU time of pytest and everything it started. ``--cold``
gives the run an empty cache folder (``XDG_CACHE_HOME``: PoCL's compiled kernels, the
explorer's parse and instrument caches), as a fresh machine has. ``--list`` prints each
list's kernels with their features, the sample's marked, and runs nothing. The exit code is
pytest's.
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
TESTS = "tests/trace/test_same_findings_either_build.py"


def list_cases() -> None:
    """Each list's kernels and their features; ``*`` marks the suite's sample."""
    sys.path.insert(0, str(ROOT))
    os.environ.pop("EXPLORER_EITHER_BUILD", None)
    from tests.trace import test_same_findings_either_build as either

    catalog_cases, cost = either.catalog_features()
    lists = [
        ("findings corpus", either.corpus_features(), None),
        ("our trace kernels", either.own_features(), None),
        ("catalog", catalog_cases, cost),
    ]
    for title, features, costs in lists:
        chosen = set(either.sample(features, costs))
        print(f"{title}: {len(chosen)} of {len(features)} in the suite's sample")
        for name in sorted(features):
            mark = "*" if name in chosen else " "
            print(f"  {mark} {name}: {', '.join(sorted(features[name]))}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--workers", type=int, default=2, help="pytest-xdist workers (0: one process)"
    )
    parser.add_argument("--cold", action="store_true", help="an empty cache folder for the run")
    parser.add_argument("--sample", action="store_true", help="the suite's sample, not all")
    parser.add_argument("--list", action="store_true", help="print the cases, run nothing")
    parser.add_argument("pytest_args", nargs="*", help="after --: more arguments for pytest")
    args = parser.parse_args(argv)
    if args.list:
        list_cases()
        return 0
    if args.workers < 0:
        parser.error("--workers must be 0 or more")
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    if args.sample:
        env.pop("EXPLORER_EITHER_BUILD", None)
    else:
        env["EXPLORER_EITHER_BUILD"] = "all"
    command = [sys.executable, "-m", "pytest", TESTS, "-n", str(args.workers)]
    command += ["-p", "no:cacheprovider", "--durations=15", "-q", *args.pytest_args]
    with tempfile.TemporaryDirectory(prefix="either-build-cache-") as cache:
        if args.cold:
            env["XDG_CACHE_HOME"] = cache
            env.pop("EXPLORER_CACHE_DIR", None)
            env.pop("POCL_CACHE_DIR", None)
        started = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, env=env)
        wall = time.perf_counter() - started
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    what = "the suite's sample" if args.sample else "every kernel"
    caches = "empty caches" if args.cold else "the caches as they were"
    print(
        f"either-build sweep, {what}, {args.workers} workers, {caches}: pytest exit code "
        f"{done.returncode}, {wall:.1f} s wall, {used.ru_utime + used.ru_stime:.1f} s CPU "
        f"(user {used.ru_utime:.1f} s, system {used.ru_stime:.1f} s)"
    )
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
