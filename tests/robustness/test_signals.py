"""Case 1: whatever ends the command line during a hung kernel, its executor ends too.

The command runs in a subprocess on a kernel that never returns; once its executor process
exists, the command is killed with each signal, and that executor (found by its pid, a child
of the command) must be gone within seconds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import TEST_KERNELS

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


def children(pid: int) -> list[int]:
    """Processes whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


def running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's zombie may wait for a reaper that never comes)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


@pytest.mark.parametrize(
    "sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL, signal.SIGINT], ids=lambda s: s.name
)
def test_1_the_executor_dies_with_the_command_whatever_kills_it(sig):
    command = [
        sys.executable,
        "-m",
        "explorer",
        "run",
        "--kernel-file",
        str(TEST_KERNELS / "hang.cl"),
        "--size",
        "4",
        "--timeout",
        "300",
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        executors: list[int] = []
        while not executors and time.monotonic() < deadline:
            time.sleep(0.2)
            executors = [p for p in children(parent.pid) if running(p)]
        assert executors, "the command never started its executor"
        time.sleep(3)  # into the kernel that never returns
        assert parent.poll() is None
        os.kill(parent.pid, sig)
        parent.wait(30)
        deadline = time.monotonic() + 10
        while any(running(p) for p in executors) and time.monotonic() < deadline:
            time.sleep(0.1)
        orphans = [p for p in executors if running(p)]
        assert not orphans, f"executor {orphans} outlived the command killed by {sig.name}"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        for pid in children(parent.pid):
            if running(pid):
                os.kill(pid, signal.SIGKILL)
