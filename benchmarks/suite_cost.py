"""Where the test suite's time goes, file by file: the CPU seconds of each test (pytest and
every process it started: executors, commands, compilers), its wall seconds, and how many
programs PoCL compiled for it (new entries in PoCL's kernel cache), with the load average of
the machine beside them.

    python benchmarks/suite_cost.py [--cold] [--top 40] [--out FILE] [-- PYTEST ARGS]

It runs pytest in one process (``-n 0``: the tests one after another, so that each one's
CPU seconds are its own), then prints the files by CPU seconds, the costliest tests, and one
line of totals. ``--cold`` gives the run an empty cache folder (``XDG_CACHE_HOME``: PoCL's
compiled kernels, the explorer's parse and instrument caches, mypy's cache), as a fresh
clone on a fresh machine has; without it the caches are the ones there. ``--out`` keeps one
JSON line per test. The exit code is pytest's.

The count of a test's CPU seconds is its process's own, those of the processes it waited
for, and those its live child processes (the session's executor) spent meanwhile, read from
``/proc``: Linux only. PoCL builds a program once per source, options and device, then
compiles each kernel at its first launch for the local size; both land in its cache folder
(``$POCL_CACHE_DIR``, else ``$XDG_CACHE_HOME/pocl/kcache``), which this counts.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
_OUT = "SUITE_COST_OUT"
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


# -- the pytest plugin (``-p suite_cost``) ----------------------------------------------------
def _live_children_cpu() -> float:
    """CPU seconds of this process's live children and of the children they waited for."""
    me = os.getpid()
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        if int(fields[1]) == me:  # utime, stime, cutime, cstime
            total += sum(int(x) for x in fields[11:15]) / _TICKS
    return total


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    waited = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = own.ru_utime + own.ru_stime + waited.ru_utime + waited.ru_stime
    return spent + _live_children_cpu()


def pocl_cache() -> Path:
    """PoCL's kernel cache folder, as PoCL picks it."""
    if os.environ.get("POCL_CACHE_DIR"):
        return Path(os.environ["POCL_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base, "pocl", "kcache")


def _compiled() -> tuple[int, int]:
    """(programs, kernels) in PoCL's cache: a program's bitcode, a kernel's shared object
    per work-group specialisation."""
    programs = kernels = 0
    for _, _, files in os.walk(pocl_cache()):
        programs += files.count("program.bc")
        kernels += sum(name.endswith(".so") for name in files)
    return programs, kernels


_record: Any = None


def pytest_configure(config: Any) -> None:
    global _record
    if os.environ.get(_OUT):
        _record = open(os.environ[_OUT], "a", encoding="utf-8")  # noqa: SIM115


def pytest_unconfigure(config: Any) -> None:
    if _record is not None:
        _record.close()


try:
    import pytest
except ImportError:  # the command itself does not need pytest imported
    pass
else:

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(item: Any, nextitem: Any) -> Iterator[None]:
        if _record is None:
            return (yield)
        cpu, wall, built = _cpu(), time.monotonic(), _compiled()
        try:
            return (yield)
        finally:
            after = _compiled()
            line = {
                "test": item.nodeid,
                "cpu_s": round(_cpu() - cpu, 3),
                "wall_s": round(time.monotonic() - wall, 3),
                "programs": after[0] - built[0],
                "kernels": after[1] - built[1],
                "load": round(os.getloadavg()[0], 2),
            }
            _record.write(json.dumps(line) + "\n")
            _record.flush()


# -- the command ------------------------------------------------------------------------------
def report(lines: list[dict[str, Any]], top: int) -> str:
    """The files by CPU seconds, the costliest tests, and the totals."""
    files: dict[str, list[Any]] = collections.defaultdict(lambda: [0, 0.0, 0.0, 0, []])
    for line in lines:
        row = files[line["test"].split("::")[0]]
        row[0] += 1
        row[1] += line["cpu_s"]
        row[2] += line["wall_s"]
        row[3] += line["programs"]
        row[4].append(line["load"])
    out = [f"{'file':64} {'tests':>5} {'CPU s':>7} {'wall s':>7} {'PoCL programs':>13}  load"]
    for name, (count, cpu, wall, programs, loads) in sorted(files.items(), key=lambda f: -f[1][1])[
        :top
    ]:
        load = f"{min(loads):.1f}-{max(loads):.1f}"
        out.append(f"{name:64} {count:5} {cpu:7.1f} {wall:7.1f} {programs:13}  {load}")
    out.append("")
    out.append(f"{'test':100} {'CPU s':>6} {'wall s':>6} {'programs':>8}")
    for line in sorted(lines, key=lambda x: -x["cpu_s"])[:top]:
        name = line["test"] if len(line["test"]) <= 100 else line["test"][:97] + "..."
        out.append(f"{name:100} {line['cpu_s']:6.1f} {line['wall_s']:6.1f} {line['programs']:8}")
    compiling = [x for x in lines if x["programs"] or x["kernels"]]
    out.append("")
    out.append(
        f"{len(lines)} tests: {sum(x['cpu_s'] for x in lines):.1f} CPU s in tests, "
        f"{sum(x['programs'] for x in lines)} PoCL programs and "
        f"{sum(x['kernels'] for x in lines)} kernels compiled; the {len(compiling)} tests that "
        f"compiled took {sum(x['cpu_s'] for x in compiling):.1f} CPU s"
    )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cold", action="store_true", help="an empty cache folder for the run")
    parser.add_argument("--top", type=int, default=40, help="files and tests listed (40)")
    parser.add_argument("--out", type=Path, help="keep one JSON line per test here")
    parser.add_argument("pytest_args", nargs="*", help="after --: more arguments for pytest")
    args = parser.parse_args(argv)
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    here = str(Path(__file__).resolve().parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), here, env.get("PYTHONPATH")) if p)
    command = [sys.executable, "-m", "pytest", "-n", "0", "-p", "suite_cost", "-q"]
    command += ["-p", "no:cacheprovider", *args.pytest_args]
    with tempfile.TemporaryDirectory(prefix="suite-cost-") as folder:
        if args.cold:
            env["XDG_CACHE_HOME"] = str(Path(folder, "cache"))
            for name in ("EXPLORER_CACHE_DIR", "POCL_CACHE_DIR"):
                env.pop(name, None)
        record = args.out or Path(folder, "tests.jsonl")
        record.unlink(missing_ok=True)
        env[_OUT] = str(record)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        load = os.getloadavg()[0]
        started = time.monotonic()
        code = subprocess.run(command, env=env, cwd=ROOT).returncode
        wall = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        lines = [json.loads(x) for x in record.read_text(encoding="utf-8").splitlines() if x]
    print(report(lines, args.top))
    user = after.ru_utime - before.ru_utime
    system = after.ru_stime - before.ru_stime
    print(
        f"pytest exit {code}; wall {wall:.1f} s, CPU {user + system:.1f} s "
        f"({user:.1f} user + {system:.1f} system); load average {load:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end"
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
