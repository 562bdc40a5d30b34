"""A program whose launches wait for a user event it completes only after making them: the
capture must not wait for it (before, the recorder read the first launch's buffers at once,
waiting for the queue, which waited for the program: the program never ended)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.capture.conftest import PROGRAMS
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")
ROOT = Path(__file__).resolve().parents[2]


def _capture(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "explorer", "capture", str(folder), "--"]
    program = [sys.executable, str(PROGRAMS / "user_event.py"), *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(command + program, env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("held", [(), ("fill",)], ids=["launch", "fill"])
def test_launches_behind_a_user_event_are_listed_without_hanging_the_program(
    on_device, tmp_path, held
):
    done = _capture(tmp_path, *held)
    assert (done.returncode, done.stdout) == (0, "gate 3 3\n"), done.stderr
    launches = json.loads((tmp_path / "capture.json").read_text())["launches"]
    assert [(entry["kernel"], entry["data"]) for entry in launches] == [
        ("add1", False), ("add1", False), ("add1", True),
    ]  # fmt: skip
    assert "user event" in launches[0]["why"] and "user event" in launches[1]["why"]
    ran = cli("run", "--capture", str(tmp_path), "--launch", "3", "--repeat", "1")
    assert ran.code == 0 and "matches the original run" in ran.out, ran.out + ran.err


def test_a_user_event_never_completed_leaves_the_program_its_end(on_device, tmp_path):
    """The small launch is read behind it, by reads that wait for the gate: at the program's
    end they are not waited for (before, the program never ended), and the capture says so."""
    done = _capture(tmp_path, "never")
    assert done.returncode == 1 and "gave up before opening the gate" in done.stderr
    document = json.loads((tmp_path / "capture.json").read_text())
    assert document["exit_code"] == 1
    assert any("never completed" in line for line in document["lost"]), document
