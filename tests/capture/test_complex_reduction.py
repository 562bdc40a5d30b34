"""A program that reduces complex numbers on the device (``programs/complex_reduction.py``:
pyopencl.array's sum of a complex64 array and a complex dot product ReductionKernel of our
own) prints the same under capture, and both launches replay matching and trace complete
from the capture alone."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.capture.conftest import PROGRAMS, run_capture
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")


def test_complex_reductions_print_the_same_and_replay_and_trace(on_device, tmp_path, capfd):
    program = PROGRAMS / "complex_reduction.py"
    plain = subprocess.run(
        [sys.executable, str(program)], capture_output=True, text=True, timeout=120, check=True
    )
    capfd.readouterr()
    captured = run_capture(tmp_path, "complex_reduction.py")
    assert captured.code == 0, captured.err
    assert capfd.readouterr().out == plain.stdout  # the program prints to the process's stdout
    record = json.loads((tmp_path / "capture.json").read_text())
    kernels = [launch["kernel"] for launch in record["launches"]]
    # One launch each at this size: the sum, then the dot product (pyopencl adds a second
    # stage only for longer arrays).
    assert kernels == ["reduce_kernel_stage1", "reduce_kernel_stage1"]
    for number in (1, 2):
        replayed = cli("run", "--capture", str(tmp_path), "--launch", str(number), "--json")
        verdict = json.loads(replayed.out)
        assert (replayed.code, verdict["status"]) == (0, "verified"), (number, replayed.err)
        traced = cli("trace", "--capture", str(tmp_path), "--launch", str(number), "--json")
        report = json.loads(traced.out)
        assert report["complete"] is True, (number, report["findings"])
