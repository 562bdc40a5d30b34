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
    # The sum, then the dot product, each a first stage and, where pyopencl splits it over
    # more groups than one (it does on a GPU of many compute units), a second.
    stages = "".join("+" if k == "reduce_kernel_stage1" else "2" for k in kernels)
    assert stages in ("++", "+2+", "++2", "+2+2"), kernels
    for number in range(1, len(kernels) + 1):
        replayed = cli("run", "--capture", str(tmp_path), "--launch", str(number), "--json")
        verdict = json.loads(replayed.out)
        assert (replayed.code, verdict["status"]) == (0, "verified"), (number, replayed.err)
    # The dot product's map multiplies pyopencl's complex type in the kernel: traced whole.
    dot = str(stages.rindex("+") + 1)
    traced = cli("trace", "--capture", str(tmp_path), "--launch", dot, "--json")
    report = json.loads(traced.out)
    assert report["complete"] is True, report["findings"]
