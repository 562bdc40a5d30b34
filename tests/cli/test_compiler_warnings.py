"""A kernel that OpenCL compilers build with a warning (an integer stored into a pointer
without a cast) runs and traces from the command line, the warning printed with its result."""

import json
from pathlib import Path

import pytest

from tests.robustness.helpers import cli as explorer

KERNEL = Path(__file__).parents[1] / "trace" / "constructs" / "18_integer_pointers.cl"
SIZES = ("--width", "32", "--height", "16")
INTEGER_TO_POINTER = (
    "18_integer_pointers.cl:13:27: warning: incompatible integer to pointer conversion"
)


@pytest.mark.usefixtures("fast_cli")
def test_trace_prints_the_warning_and_traces_the_kernel():
    out = explorer("trace", "--kernel-file", str(KERNEL), *SIZES)
    assert out.code == 0, out.err
    assert out.out.startswith("VERIFIED")
    assert INTEGER_TO_POINTER in out.out
    assert "(complete)" in out.out
    report = json.loads(explorer("trace", "--kernel-file", str(KERNEL), *SIZES, "--json").out)
    assert INTEGER_TO_POINTER in report["build_log"]
    assert report["complete"] and not [f for f in report["findings"] if f["kind"] == "not-traced"]


@pytest.mark.usefixtures("fast_cli")
def test_run_prints_the_warning_with_its_verdict():
    out = explorer("run", "--kernel-file", str(KERNEL), *SIZES, "--json")
    assert out.code == 0, out.err
    record = json.loads(out.out)
    assert record["status"] == "verified"
    assert [line.split(":")[1] for line in record["build_log"].splitlines()] == [
        "12",
        "13",
        "14",
        "16",
    ]
