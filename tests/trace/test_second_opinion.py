"""A second opinion on a wrong result: a run that is WRONG on PoCL (whose compiler has
miscompiled valid kernels) offers a check on Oclgrind, in its verdict line and in ``--json``;
where Oclgrind verifies the configuration, the verdict says the device disagrees, not that
the kernel is wrong. Oclgrind's own failures are named as Oclgrind's."""

from __future__ import annotations

import dataclasses

import pytest

from explorer.cli import check as check_command
from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.oclgrind import (
    OCLGRIND_CRASH,
    OclgrindCheck,
    _own_failure,
    fatal_error,
    parse,
)
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import (
    CHECK_ON_OCLGRIND,
    DeviceInfo,
    RunRequest,
    RunResult,
    Verdict,
    failed_result,
    result_record,
)
from tests.conftest import TEST_KERNELS

WRONG = Verdict(False, 3.0, 1.0, 12, "1e-5")
RIGHT = Verdict(True, 0.0, 0.0, 0, "1e-5")


def _result(verdict: Verdict, device: str, platform: str) -> RunResult:
    return RunResult("custom", "k", device, platform, {}, (64,), (16,), {}, verdict=verdict)


def test_a_wrong_result_on_pocl_offers_a_check_on_oclgrind():
    wrong = _result(WRONG, "pthread-AMD EPYC", "Portable Computing Language")
    assert wrong.second_opinion == CHECK_ON_OCLGRIND
    assert "check on Oclgrind" in wrong.summary()
    assert result_record(wrong)["second_opinion"] == "check on Oclgrind"


def test_no_offer_for_a_right_result_or_another_device():
    right = _result(RIGHT, "pthread-AMD EPYC", "Portable Computing Language")
    nvidia = _result(WRONG, "NVIDIA H100 80GB HBM3", "NVIDIA CUDA")
    assert right.second_opinion == "" and nvidia.second_opinion == ""
    assert result_record(nvidia)["second_opinion"] is None
    assert "Oclgrind" not in nvidia.summary()


def test_a_wrong_run_on_the_default_device_carries_the_offer(executor, device):
    """A real wrong run (a tile index off by one): the offer where the device is PoCL."""
    variant = load_variant_file(TEST_KERNELS / "tiled_off_by_one.cl")
    sizes = {"M": 32, "N": 32, "K": 32}
    result = executor.run(RunRequest(variant, sizes, device_key=device.key))
    assert result.status == "wrong", result.summary()
    pocl = "portable computing language" in device.platform.lower()
    assert result_record(result)["second_opinion"] == (CHECK_ON_OCLGRIND if pocl else None)


def test_a_wrong_result_whose_trace_found_its_bugs_names_them_not_the_device():
    for found, says in (
        (("race",), "race"),
        (("race", "uninitialized", "coverage"), "race, uninitialized and coverage"),
    ):
        wrong = dataclasses.replace(
            _result(WRONG, "pthread-AMD EPYC", "Portable Computing Language"), explained_by=found
        )
        assert wrong.second_opinion == ""
        assert f"; the trace's {says} findings can explain it" in wrong.summary()
        assert "Oclgrind" not in wrong.summary()
        assert result_record(wrong)["explained_by"] == list(found)
    right = dataclasses.replace(_result(RIGHT, "pthread-AMD EPYC", "Portable"), explained_by=())
    assert "can explain" not in right.summary()


def _traced(executor, device, name: str, sizes: dict[str, int]):
    variant = load_variant_file(TEST_KERNELS / name)
    return executor.trace(TraceRequest(RunRequest(variant, sizes, device_key=device.key)))


def test_a_traced_race_explains_the_wrong_result_it_makes(executor, device):
    """ring[l] written and ring[l + 1] read with no barrier: PoCL runs the work-items of a
    group one after another between barriers, so each reads its neighbour's slot before it is
    written. The trace finds the race; the verdict points to it, not to PoCL's compiler."""
    traced = _traced(executor, device, "causes/rotate_without_barrier.cl", {})
    assert [f.kind for f in traced.analysis.findings] == ["race"]
    result = traced.result
    if "portable computing language" not in device.platform.lower():
        pytest.skip("the race makes the result wrong where work-items run one after another")
    assert result.status == "wrong", result.summary()
    assert result.explained_by == ("race",)
    assert result.second_opinion == ""
    assert "the trace's race findings can explain it" in result.summary()
    assert "miscompile" not in result.summary()


def test_a_wrong_trace_with_no_bug_found_keeps_the_offer(executor, device):
    """B read one column off is a wrong formula, not a race or a read outside a buffer: the
    trace finds nothing that explains the result, so the verdict still suggests a second
    opinion on PoCL."""
    traced = _traced(
        executor, device, "mutants/naive_b_column_shift.cl", {"M": 32, "N": 32, "K": 32}
    )
    result = traced.result
    assert result.status == "wrong", result.summary()
    assert result.explained_by == ()
    pocl = "portable computing language" in device.platform.lower()
    assert result.second_opinion == (CHECK_ON_OCLGRIND if pocl else "")


class _Executor:
    """The default device and its (wrong) result, as the check command sees them."""

    def __init__(self, result: RunResult) -> None:
        self.result = result
        self.asked: list[RunRequest] = []

    def devices(self) -> list[DeviceInfo]:
        pocl = DeviceInfo(
            1,
            0,
            "pthread-AMD EPYC",
            "v",
            "Portable Computing Language",
            "CPU",
            "",
            "",
            1,
            1,
            (1,),
            1,
            1,
            1,
            1,
            1,
        )
        sim = dataclasses.replace(
            pocl, platform_index=0, name="Oclgrind Simulator", platform="Oclgrind"
        )
        return [sim, pocl]

    def run(self, request: RunRequest) -> RunResult:
        self.asked.append(request)
        return self.result


def _checked(verdict: Verdict, messages=()) -> OclgrindCheck:
    return OclgrindCheck(_result(verdict, "Oclgrind Simulator", "Oclgrind"), messages, "")


def test_where_oclgrind_verifies_a_wrong_run_the_device_disagrees():
    wrong = _result(WRONG, "pthread-AMD EPYC", "Portable Computing Language")
    fake = _Executor(wrong)
    request = RunRequest(
        load_variant_file(TEST_KERNELS / "tiled_off_by_one.cl"), {}, device_key="0:0"
    )
    outcome = check_command._against_the_default_device(_checked(RIGHT), request, fake)
    assert [r.device_key for r in fake.asked] == ["1:0"]  # PoCL, never the simulator again
    assert outcome.device_disagrees
    assert "the device disagrees" in outcome.verdict and "not the kernel" in outcome.verdict
    record = check_command.to_json(outcome)
    assert record["device_disagrees"] is True
    assert record["device_result"]["status"] == "wrong"
    assert check_command.exit_code(outcome) == 0


def test_a_kernel_oclgrind_finds_wrong_is_not_compared():
    fake = _Executor(_result(WRONG, "pthread-AMD EPYC", "Portable Computing Language"))
    request = RunRequest(load_variant_file(TEST_KERNELS / "tiled_off_by_one.cl"), {})
    outcome = check_command._against_the_default_device(_checked(WRONG), request, fake)
    assert fake.asked == [] and not outcome.device_disagrees
    assert "disagrees" not in outcome.verdict


FATAL_WHILE_RUNNING = """
OCLGRIND FATAL ERROR (WorkItem.cpp:1215)
Unsupported intrinsic: llvm.fshl.i32
\tKernel: k
\tEntity: Global(0,0,0) Local(0,0,0) Group(0,0,0)
\t  %r = call i32 @llvm.fshl.i32(i32 %v, i32 %v, i32 5)
\tAt line 4 (column 14) of input.cl:

Read-write data race at local memory address 0x1000000000004
\tKernel: k
\tFirst entity:  Global(1,0,0) Local(1,0,0) Group(0,0,0)
\tAt line 9 (column 16) of input.cl:
"""

FATAL_CREATING_KERNEL = """
OCLGRIND FATAL ERROR (Kernel.cpp:78)
Unhandled argument type for kernel parameter
When creating kernel 'k'
"""


def test_oclgrinds_fatal_error_is_not_a_problem_of_the_kernel():
    assert [(m.kind, m.line) for m in parse(FATAL_WHILE_RUNNING)] == [("Read-write data race", 9)]
    assert fatal_error(FATAL_WHILE_RUNNING) == (
        "Unsupported intrinsic: llvm.fshl.i32 (raised in Oclgrind's WorkItem.cpp:1215)"
    )
    assert fatal_error("Read-write data race at global memory\n\tKernel: k\n") is None


def test_a_kernel_oclgrind_could_not_create_is_oclgrinds_failure_not_a_missing_kernel():
    request = RunRequest(load_variant_file(TEST_KERNELS / "tiled_off_by_one.cl"), {})
    missing = failed_result(request, "k.cl has no kernel named 'k'", "build")
    result = _own_failure(request, missing, FATAL_CREATING_KERNEL)
    assert result.error_kind == OCLGRIND_CRASH
    assert "Oclgrind itself failed" in result.error and "no kernel named" not in result.error
    outcome = OclgrindCheck(result, parse(FATAL_CREATING_KERNEL), FATAL_CREATING_KERNEL)
    assert outcome.crashed and outcome.messages == ()
    assert check_command.exit_code(outcome) == check_command.OCLGRIND_CRASHED
    assert "problem" not in outcome.verdict
