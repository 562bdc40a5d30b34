"""What a first ``trace`` in a new process imports, in the command and in its executor: the
start of a new process is most of what a small trace costs (docs/benchmarks.md), and a module
imported for nothing there is paid by every trace. Neither process loads Qt or the window;
the command loads no OpenCL and no analysis (its executor analyses and sends the report);
neither loads Pillow (images), the trace diff or the comparison (``--against``) for a plain
trace of a kernel without images."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# ``python -m explorer trace …`` as typed, its executor forked from it as usual; each process
# writes the modules it has loaded: the executor once it has traced, the command as it exits.
_SCRIPT = r"""
import atexit, json, os, runpy, sys
import explorer.engine.serve as serve

out = sys.argv[1]
traced = serve.handle

def handle(kind, payload):
    reply = traced(kind, payload)
    if kind == "trace":
        with open(out + ".executor", "w") as file:
            json.dump(sorted(sys.modules), file)
    return reply

serve.handle = handle  # the executor is a fork of this process: it has this one too
atexit.register(lambda: open(out + ".command", "w").write(json.dumps(sorted(sys.modules))))
sys.argv = ["explorer", *sys.argv[2:]]
runpy.run_module("explorer", run_name="__main__", alter_sys=True)
"""

QT = ("PySide6", "shiboken6", "pyqtgraph")
NEITHER = (*QT, "PIL", "explorer.gui", "explorer.app", "explorer.trace.diff",
           "explorer.engine.record.trace_against")  # fmt: skip
NOT_THE_COMMAND = ("pyopencl", "explorer.trace.analysis", "explorer.engine.record.trace_launch")


def loaded(tmp_path: Path, *args: str) -> tuple[set[str], set[str]]:
    out = tmp_path / "modules"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(out), "trace", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    command = set(json.loads((tmp_path / "modules.command").read_text()))
    executor = set(json.loads((tmp_path / "modules.executor").read_text()))
    return command, executor


def under(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_a_plain_trace_imports_only_what_it_uses(tmp_path):
    command, executor = loaded(tmp_path, "--family", "transpose", "--variant", "naive",
                               "--size", "16")  # fmt: skip
    assert "explorer.engine.record.trace_launch" in executor  # it did trace there
    assert "explorer.cli.trace" in command
    assert under(command, NEITHER + NOT_THE_COMMAND) == []
    assert under(executor, NEITHER) == []


def test_a_trace_against_another_kernel_imports_the_diff(tmp_path):
    command, executor = loaded(tmp_path, "--family", "matmul", "--variant", "tiled",
                               "--size", "32", "--against", "matmul/naive")  # fmt: skip
    assert "explorer.trace.diff" in executor
    assert under(command, QT + ("PIL", "pyopencl")) == []
