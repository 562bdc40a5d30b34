"""Every family of OpenCL C 1.2's built-in functions is known to the trace's front end: a
kernel that uses them (reinterpretations such as ``as_uint4`` included, which OpenCL C's own
header defines as macros) builds, runs and traces completely."""

from __future__ import annotations

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.trace.instrument import instrument
from tests.conftest import TEST_KERNELS

KERNEL = TEST_KERNELS / "builtins12.cl"


def test_the_front_end_reads_every_family_of_built_ins():
    variant = load_variant_file(KERNEL)
    instrumented = instrument(variant.source, variant.kernel, {})
    assert instrumented.not_traced == ()


def test_a_kernel_using_them_runs_and_traces_completely(executor, device):
    run = RunRequest(load_variant_file(KERNEL), {}, device_key=device.key)
    traced = executor.trace(TraceRequest(run))
    assert traced.result.status == "unchecked", traced.result.summary()
    assert traced.report_json["complete"]
    assert not [f for f in traced.analysis.findings if f.kind == "not-traced"]
