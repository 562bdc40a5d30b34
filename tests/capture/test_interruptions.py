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
import threading
import time
from pathlib import Path

import pytest

from explorer.capture.folder import load_capture
from tests.capture.conftest import PROGRAMS
from tests.robustness.helpers import cli

ROOT = Path(__file__).resolve().parents[2]
STEPS = str(PROGRAMS / "steps.py")


SLEEPER = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(60)"


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


def _signal_when(sig: int, ready) -> threading.Thread:
    """Send ``sig`` to this process (where ``capture`` runs, in the main thread) once
    ``ready()`` holds."""

    def send() -> None:
        deadline = time.monotonic() + 90
        while not ready() and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(os.getpid(), sig)

    thread = threading.Thread(target=send)
    thread.start()
    return thread


@pytest.mark.usefixtures("on_device")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_to_capture_is_passed_on_and_what_was_recorded_is_kept(tmp_path, sig):
    folder, pidfile = tmp_path / "out", tmp_path / "pid"
    handler = signal.getsignal(sig)
    if sig == signal.SIGTERM:  # a recording program, stopped after two launches
        program = [sys.executable, STEPS, "2000", "64", "0.05", str(pidfile)]
        thread = _signal_when(sig, lambda: launches_in(folder) >= 2)
    else:  # any program: what matters is that the signal reaches it
        program = [sys.executable, "-c", SLEEPER, str(pidfile)]
        thread = _signal_when(sig, pidfile.exists)
    outcome = cli("capture", str(folder), "--", *program)
    thread.join()
    assert outcome.code == 128 + sig, outcome.err
    assert not alive(int(pidfile.read_text()))
    recorded = load_capture(folder)
    assert recorded.exit_code == -sig and (folder / "capture.json").exists()
    if sig == signal.SIGTERM:
        assert len(recorded.launches) >= 2 and recorded.launches[0].data
    assert signal.getsignal(sig) == handler  # capture's own handler is gone again
    assert "Traceback" not in outcome.err


@pytest.mark.usefixtures("on_device")
def test_a_capture_killed_ends_its_program_which_leaves_its_record(tmp_path):
    folder, pidfile = tmp_path / "out", tmp_path / "pid"
    program = [sys.executable, STEPS, "2000", "64", "0.05", str(pidfile)]
    capture = explorer("capture", str(folder), "--", *program)
    try:
        wait_for(lambda: launches_in(folder) >= 2, capture)
        capture.kill()
        capture.communicate(timeout=60)
        wait_for(lambda: not alive(int(pidfile.read_text())), timeout=15)
    finally:
        if capture.poll() is None:
            capture.kill()
        capture.communicate()
        if pidfile.exists() and alive(int(pidfile.read_text())):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)
    recorded = load_capture(folder)  # from its journal: capture.json was never written
    assert not (folder / "capture.json").exists()
    assert len(recorded.launches) >= 2 and recorded.launches[0].data
    assert cli("capture-save", str(folder), "--launch", "1", "--out", str(tmp_path / "k")).code == 0


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
