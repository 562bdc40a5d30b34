"""A program that reduces complex numbers on the device (``programs/complex_reduction.py``:
pyopencl.array's sum of a complex64 array and a complex dot product ReductionKernel of our
own) prints under capture the results numpy gives, both launches replay matching from the
capture alone, and the dot product's trace is complete."""

from __future__ import annotations

import json

import pytest

from tests.capture.conftest import run_capture
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")


def test_complex_reductions_replay_matching_and_trace_complete(on_device, tmp_path, capfd):
    capfd.readouterr()
    captured = run_capture(tmp_path, "complex_reduction.py")
    assert captured.code == 0, captured.err
    printed = capfd.readouterr().out.splitlines()  # the program prints to the process's stdout
    # Each line: the device's result, then numpy's, rounded alike: the same under capture.
    assert [line.split()[0] for line in printed] == ["sum", "dot"]
    assert all(line.split()[1] == line.split()[3] for line in printed), printed
    record = json.loads((tmp_path / "capture.json").read_text())
    kernels = [launch["kernel"] for launch in record["launches"]]
    # One launch each at this size: the sum, then the dot product (pyopencl adds a second
    # stage only for longer arrays).
    assert kernels == ["reduce_kernel_stage1", "reduce_kernel_stage1"]
    for number in (1, 2):
        replayed = cli("run", "--capture", str(tmp_path), "--launch", str(number), "--json")
        verdict = json.loads(replayed.out)
        assert (replayed.code, verdict["status"]) == (0, "verified"), (number, replayed.err)
    # The dot product's map multiplies pyopencl's complex type in the kernel: traced whole.
    traced = cli("trace", "--capture", str(tmp_path), "--launch", "2", "--json")
    report = json.loads(traced.out)
    assert report["complete"] is True, report["findings"]
