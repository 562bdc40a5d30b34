"""A capture cut short keeps what it recorded, and never outlives, outlasts or alters the
program it records: TERM, HUP and INT sent to ``capture`` end the program (its whole process
group), a SIGKILL of ``capture`` ends it too (a watchdog sees ``capture`` go), and a disk that
fills costs the record, not the run: the program prints the same and exits with its own code,
and the capture says what it could not keep."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from explorer.capture import load_capture
from tests.capture.conftest import PROGRAMS

ROOT = Path(__file__).resolve().parents[2]
STEPS = str(PROGRAMS / "steps.py")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie has ended, only not been waited for
        return stat.read().rsplit(")", 1)[1].split()[0] != "Z"


def explorer(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "explorer", *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(check, capture: subprocess.Popen[str] | None = None, timeout: float = 90) -> None:
    """Until ``check`` holds (while ``capture`` runs)."""
    deadline = time.monotonic() + timeout
    while not check():
        if capture is not None and capture.poll() is not None:
            pytest.fail(f"capture ended first: {capture.communicate()[1]}")
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.05)


def launches_in(folder: Path) -> int:
    journal = folder / "journal.jsonl"
    return journal.read_text().count('"type": "launch"') if journal.exists() else 0


@pytest.mark.usefixtures("on_device")
def test_a_signal_to_capture_ends_the_program_and_keeps_what_was_recorded(tmp_path):
    signals = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGKILL)
    runs = {}
    try:
        for sig in signals:  # all at once: each waits on its own program
            folder, pidfile = tmp_path / sig.name, tmp_path / f"{sig.name}.pid"
            program = [sys.executable, STEPS, "2000", "64", "0.05", str(pidfile)]
            runs[sig] = (folder, pidfile, explorer("capture", str(folder), "--", *program))
        for sig, (folder, pidfile, capture) in runs.items():
            wait_for(lambda folder=folder: launches_in(folder) >= 2, capture)
            program = int(pidfile.read_text())
            capture.send_signal(sig)
            err = capture.communicate(timeout=60)[1]
            assert capture.returncode == (-sig if sig == signal.SIGKILL else 128 + sig), err
            wait_for(lambda program=program: not alive(program), timeout=15)
            recorded = load_capture(folder)  # capture.json, or the journal after a SIGKILL
            assert len(recorded.launches) >= 2 and recorded.launches[0].data
            assert (folder / "capture.json").exists() == (sig != signal.SIGKILL)
            assert str(ROOT / "explorer") not in err  # the program's own traceback at most
    finally:
        for _, pidfile, capture in runs.values():
            if capture.poll() is None:
                capture.kill()
            capture.communicate()
            if pidfile.exists() and alive(int(pidfile.read_text())):
                os.kill(int(pidfile.read_text()), signal.SIGKILL)


def _mount_tmpfs(where: Path, size: str) -> bool:
    where.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True
    )
    return done.returncode == 0


@pytest.mark.usefixtures("on_device")
def test_a_disk_that_fills_costs_the_record_not_the_run(tmp_path):
    disk = tmp_path / "disk"
    if not _mount_tmpfs(disk, "1m"):
        pytest.skip("mounting a small tmpfs needs root (mount -t tmpfs)")
    try:
        # All but 16 KiB of it taken (four pages): the marker, the program's source and a few
        # journal lines fit, no buffer does.
        free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
        with open(disk / "filler", "wb") as filler:
            filler.write(b"\0" * (free - (16 << 10)))
        args = [sys.executable, STEPS, "40", "16384", "0", str(tmp_path / "pid")]
        alone = subprocess.run(args, capture_output=True, text=True)
        captured = explorer("capture", str(disk / "out"), "--", *args)
        out, err = captured.communicate(timeout=120)
        assert (captured.returncode, out) == (alone.returncode, alone.stdout) == (3, alone.stdout)
        assert "sum " in out, err
        assert "not everything could be recorded" in err
        assert "No space left on device" in err
        assert "capture.json could not be written" in err
        recorded = load_capture(disk / "out")  # read from its journal
        assert recorded.launches and not any(launch.data for launch in recorded.launches)
        assert (
            "its buffers could not be written (No space left on device)" in recorded.launches[0].why
        )
        assert len(recorded.launches) < 40
    finally:
        subprocess.run(["umount", str(disk)], check=True)
