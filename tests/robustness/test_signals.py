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
from tests.robustness.helpers import in_kernel, wait_until_each

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


SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGKILL, signal.SIGINT)


@pytest.mark.long
def test_1_the_executor_dies_with_the_command_whatever_kills_it():
    """One command per signal, run side by side: each is killed with its own signal once its
    executor is inside the hung kernel."""
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
    parents = {
        sig: subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        for sig in SIGNALS
    }
    executors: dict[signal.Signals, list[int]] = {}
    try:
        deadline = time.monotonic() + 60
        while len(executors) < len(SIGNALS) and time.monotonic() < deadline:
            time.sleep(0.2)
            for sig, parent in parents.items():
                found = [p for p in children(parent.pid) if running(p)]
                if found:
                    executors.setdefault(sig, found)
        assert len(executors) == len(SIGNALS), "a command never started its executor"
        # each executor into the kernel that never returns
        wait_until_each(
            {
                sig.name: (lambda pid=parent.pid: any(map(in_kernel, children(pid))))
                for sig, parent in parents.items()
            }
        )
        for sig, parent in parents.items():
            assert parent.poll() is None, sig.name
            os.kill(parent.pid, sig)
        for parent in parents.values():
            parent.wait(30)
        deadline = time.monotonic() + 10
        every = [p for pids in executors.values() for p in pids]
        while any(running(p) for p in every) and time.monotonic() < deadline:
            time.sleep(0.1)
        orphans = {sig.name: [p for p in pids if running(p)] for sig, pids in executors.items()}
        assert not any(orphans.values()), f"executors outlived their command: {orphans}"
    finally:
        for pid in (p for pids in executors.values() for p in pids):
            if running(pid):  # an orphan left by a failure must not outlive the test
                os.kill(pid, signal.SIGKILL)
        for parent in parents.values():
            if parent.poll() is None:
                parent.kill()
                parent.wait()
            for pid in children(parent.pid):
                if running(pid):
                    os.kill(pid, signal.SIGKILL)
