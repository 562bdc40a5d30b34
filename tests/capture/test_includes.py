"""A captured program whose kernel includes files of its own (from the folder it ran in and
through ``-I``): its launches replay and trace in memory, the includes found where the program
found them."""

from __future__ import annotations

from explorer.capture import launch_variant
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest


def test_a_launch_whose_kernel_includes_files_replays_and_traces(captured, executor, device):
    capture = captured("includes.py")
    program = capture.programs[0]
    assert program.cwd.endswith("include") and program.options == ("-I", "more", "-I", ".")
    variant = launch_variant(capture, "weigh")
    ran = executor.run(RunRequest(variant, {}, device_key=device.key, repeat=1))
    assert ran.status == "verified", ran.summary()
    assert ran.verdict.compared_with == "the original run"
    traced = executor.trace(TraceRequest(RunRequest(variant, {}, device_key=device.key)))
    assert traced.analysis is not None, traced.result.summary()
    assert {s.line for s in traced.analysis.sites} == {6}  # the program's own line
