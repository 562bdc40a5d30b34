"""A launch whose sizes are numpy integers (pyopencl's scan passes them, with ``g_times_l``)
is recorded as any other: the recorder failed to write its journal line and raised a
TypeError into the program, which then ended with it."""

from __future__ import annotations

import pytest

from tests.capture.conftest import run_capture
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")


def test_numpy_integer_sizes_are_recorded_and_the_scan_replays(on_device, tmp_path, capfd):
    outcome = run_capture(tmp_path / "out", "numpy_sizes.py")
    assert outcome.code == 0, outcome.err
    assert "scanned 4501500" in capfd.readouterr().out
    from explorer.capture.folder import load_capture

    capture = load_capture(tmp_path / "out")
    twice = capture.find("twice")
    assert (twice.global_size, twice.local_size) == ((64,), (16,))
    scans = [launch for launch in capture.launches if launch.kernel != "twice"]
    assert scans and all(launch.data for launch in scans)
    for launch in (*scans, twice):
        ran = cli("run", "--capture", str(tmp_path / "out"), "--launch", str(launch.number),
                  "--repeat", "1")  # fmt: skip
        assert ran.code == 0 and "matches the original run" in ran.out, ran.out + ran.err
