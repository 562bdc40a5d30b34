"""``EXPLORER_TIMINGS=1``: a trace command prints its own stages and its executor's, the
analysis's among them, on one timeline on standard error; without it, nothing."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(r"^timings\s+([\d.]+) s\s+cpu\s+([\d.]+) s\s+(command|executor|drivers)\s+(.+)$")


def trace(timings: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXPLORER_TIMINGS")}
    if timings:
        env["EXPLORER_TIMINGS"] = "1"
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    command = [sys.executable, "-m", "explorer", "trace", "--family", "transpose",
               "--variant", "naive", "--size", "16"]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)


def test_each_stage_of_both_processes_is_timed_in_order_the_analysis_kind_by_kind():
    done = trace(timings=True)
    assert done.returncode == 0, done.stderr
    lines = [LINE.match(line) for line in done.stderr.splitlines() if line.startswith("timings")]
    assert lines and all(lines), done.stderr
    stages = [(m.group(3), m.group(4)) for m in lines if m]
    names = [name for _, name in stages]
    for expected in ("interpreter started", "trace: counted", "trace: analysis: split",
                     "trace: analysis: race", "trace: analysis: uninitialized",
                     "trace: analysed", "command done"):  # fmt: skip
        assert expected in names, done.stderr
    assert names.index("trace: analysis: split") < names.index("trace: analysis: race")
    assert names.index("trace: analysis: race") < names.index("trace: analysed")
    assert ("executor", "trace: analysis: race") in stages
    # one timeline: the executor's lines among the command's, the times going up in each
    for role in ("command", "executor", "drivers"):
        times = [float(m.group(1)) for m in lines if m and m.group(3) == role]
        assert times == sorted(times), done.stderr
    assert "VERIFIED" in done.stdout


def test_without_the_variable_nothing_is_timed():
    done = trace(timings=False)
    assert done.returncode == 0, done.stderr
    assert "timings" not in done.stderr
    assert "VERIFIED" in done.stdout
