"""Refused configurations are results with a reason and a suggested fix, never exceptions."""

import time
from dataclasses import replace

from explorer.engine.header.catalog import find_variant, load_variant_file
from explorer.engine.launch.plan import plan
from explorer.engine.records import Refusal, RunRequest
from tests.conftest import TEST_KERNELS


def test_local_size_beyond_the_device_is_refused_with_a_smaller_suggestion(device):
    variant = find_variant("matmul", "naive")
    too_big = (device.max_work_group_size, 2)
    outcome = plan(variant, {"M": 64, "N": 64, "K": 64}, too_big, {}, device)
    assert isinstance(outcome, Refusal)
    assert str(device.max_work_group_size) in outcome.reason
    assert "smaller local size" in outcome.fix


def test_size_constraint_names_the_values_and_the_nearest_good_ones(device):
    variant = find_variant("matmul", "seed003-func2")
    outcome = plan(variant, {"M": 100, "N": 100, "K": 100}, None, {}, device)
    assert isinstance(outcome, Refusal)
    assert "100" in outcome.reason
    assert "96" in outcome.fix and "112" in outcome.fix


def test_local_size_that_does_not_fit_the_kernel_is_refused(device):
    variant = find_variant("matvec", "nvidia-coalesced3")
    outcome = plan(variant, {"WIDTH": 256, "HEIGHT": 256}, (96,), {}, device)
    assert isinstance(outcome, Refusal)
    assert "L0" in outcome.reason


def test_wrong_dimensionality_and_unknown_define_are_refused(device):
    variant = find_variant("matmul", "tiled")
    sizes = {"M": 64, "N": 64, "K": 64}
    assert isinstance(plan(variant, sizes, (16,), {}, device), Refusal)
    assert isinstance(plan(variant, sizes, None, {"NOPE": 3}, device), Refusal)


def test_global_size_is_rounded_up_to_the_local_size(device):
    variant = find_variant("matmul", "naive")
    outcome = plan(variant, {"M": 100, "N": 17, "K": 5}, (16, 16), {}, device)
    assert not isinstance(outcome, Refusal)
    assert outcome.global_size == (32, 112)


def test_too_much_local_memory_is_refused_before_launch(executor, device):
    variant = load_variant_file(TEST_KERNELS / "huge_local.cl")
    result = executor.run(RunRequest(variant, {"WIDTH": 64, "HEIGHT": 64}, device_key=device.key))
    assert result.status == "refused"
    assert "local memory" in result.refused.reason
    assert str(device.local_mem_bytes) in result.refused.reason


def test_refused_run_is_a_result_not_an_exception(executor, device):
    variant = find_variant("matmul", "seed003-func2")
    request = RunRequest(variant, {"M": 100, "N": 100, "K": 100}, device_key=device.key)
    result = executor.run(request)
    assert result.status == "refused"
    assert result.refused.fix
    result = executor.run(replace(request, sizes={"M": 96, "N": 96, "K": 96}))
    assert result.status == "verified"


def _report_limit(monkeypatch, limit: int) -> None:
    """Make the driver report ``limit`` as the kernel's work-group limit, as NVIDIA's does
    for any kernel with a barrier (256, though it runs 32×32 groups of it)."""
    from explorer.engine.launch import prepare as preparing

    real = preparing.kernel_limits

    def reported(cl, kernel, cl_device):
        return limit, real(cl, kernel, cl_device)[1]

    monkeypatch.setattr(preparing, "kernel_limits", reported)


def test_group_above_the_kernels_reported_limit_runs_and_says_what_the_driver_reported(
    monkeypatch, device
):
    from explorer.engine.launch.run import run_request
    from explorer.engine.records import result_record

    _report_limit(monkeypatch, 64)
    variant = find_variant("transpose", "tiled")
    request = RunRequest(
        variant, {"WIDTH": 48, "HEIGHT": 40}, (16, 16), {"TILE": 16}, device.key, repeat=1
    )
    result = run_request(request)
    assert result.status == "verified"
    assert "at most 64" in result.note and "16x16" in result.note
    assert result_record(result)["note"] == result.note
    assert "at most 64" in result.summary()


def test_group_within_the_reported_limit_carries_no_note(monkeypatch, device):
    from explorer.engine.launch.run import run_request

    _report_limit(monkeypatch, 256)
    variant = find_variant("transpose", "tiled")
    request = RunRequest(
        variant, {"WIDTH": 48, "HEIGHT": 40}, (16, 16), {"TILE": 16}, device.key, repeat=1
    )
    result = run_request(request)
    assert result.status == "verified"
    assert result.note is None


def test_launch_the_runtime_rejects_is_refused_with_the_reported_figure(monkeypatch, device):
    import pyopencl as cl

    from explorer.engine.launch.run import run_request

    _report_limit(monkeypatch, 64)

    def rejecting(*args, **kwargs):
        record = cl._cl._ErrorRecord(
            msg="", code=cl.status_code.INVALID_WORK_GROUP_SIZE, routine="clEnqueueNDRangeKernel"
        )
        raise cl.LogicError(record)

    monkeypatch.setattr(cl, "enqueue_nd_range_kernel", rejecting)
    variant = find_variant("transpose", "tiled")
    request = RunRequest(
        variant, {"WIDTH": 48, "HEIGHT": 40}, (16, 16), {"TILE": 16}, device.key, repeat=1
    )
    result = run_request(request)
    assert result.status == "refused"
    assert "at most 64 work-items per group" in result.refused.reason
    assert "256" in result.refused.reason


def test_trace_above_the_reported_limit_runs_and_carries_the_note(monkeypatch, device):
    from explorer.engine.record.trace_launch import TraceRequest, run_trace

    _report_limit(monkeypatch, 64)
    variant = find_variant("transpose", "tiled")
    request = RunRequest(
        variant, {"WIDTH": 32, "HEIGHT": 32}, (16, 16), {"TILE": 16}, device.key, repeat=1
    )
    outcome = run_trace(TraceRequest(request))
    assert outcome.result.status == "verified"
    assert outcome.trace is not None
    assert "at most 64" in outcome.result.note


def test_a_local_size_suggested_for_the_kernels_constraints_fits_the_device(device):
    """A square local size asked for as (limit, 1): making it square by raising L1 to the
    limit would ask for limit² work-items, which no device takes; that is never suggested."""
    from explorer.exercises import find_exercise

    exercise = find_exercise("local-size")  # constraints L0 == L1, L0 * L1 >= 64
    variant = load_variant_file(exercise.start_path)
    limit = device.max_work_group_size
    outcome = plan(variant, {}, (limit, 1), {}, device)
    assert isinstance(outcome, Refusal) and "L0 == L1" in outcome.reason
    assert f"L1 = {limit}" not in outcome.fix


PADDED = """/*---
name = "transpose through a padded tile"
family = "custom"
kernel = "transpose"
global = ["64", "64"]
local = ["TILE", "TILE"]
[args.a]
buffer = "float"
count = "64 * 64"
access = "read"
[args.b]
buffer = "float"
count = "64 * 64"
access = "write"
[defines]
TILE = 16
PAD = 1
---*/
#line 1
#define ROW (TILE + PAD)
__kernel void transpose(__global const float *a, __global float *b)
{
    __local float tile[TILE][TILE + PAD];
    __local float flat[TILE * ROW], scratch[sizeof(float) * PAD];
    int x = get_global_id(0), y = get_global_id(1);
    int lx = get_local_id(0), ly = get_local_id(1);
    tile[ly][lx] = a[y * 64 + x];
    flat[ly * ROW + lx] = 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    b[x * 64 + y] = tile[lx][ly];
}

float pick(__local const float *t, float w)
{
    float s = w * t[PAD];
    return s + t[PAD];
}
"""


def _padded(tmp_path, device, **defines):
    path = tmp_path / "padded.cl"
    path.write_text(PADDED, encoding="utf-8")
    return plan(load_variant_file(path), {}, None, defines, device)


def test_a_define_of_zero_added_to_an_array_size_is_no_refusal(tmp_path, device):
    """``-D PAD=0`` turns the padding off: the tile is TILE wide, ``flat`` TILE * TILE;
    ``t[PAD]`` in an expression or a return is no array's size."""
    assert not isinstance(_padded(tmp_path, device, PAD=0), Refusal)
    assert not isinstance(_padded(tmp_path, device, PAD=-4), Refusal)


def test_an_array_size_below_one_is_refused_at_the_line_the_person_sees(tmp_path, device):
    outcome = _padded(tmp_path, device, PAD=-16)  # TILE + PAD = 0, on line 4 after #line 1
    assert isinstance(outcome, Refusal)
    assert outcome.reason.startswith(
        "PAD=-16 (with TILE=16) sizes the array tile (line 4) as TILE + PAD = 0;"
    )
    assert "TILE + PAD at least 1" in outcome.fix
    outcome = _padded(tmp_path, device, TILE=0)
    assert isinstance(outcome, Refusal)
    assert outcome.reason.startswith("TILE=0 sizes the array tile (line 4)")
    assert "TILE ≥ 1 (its default is 16)" in outcome.fix


def test_an_array_size_through_the_sources_own_macro_is_evaluated(tmp_path, device):
    outcome = _padded(tmp_path, device, TILE=4, PAD=-8)  # tile: -4; flat: 4 * ROW = -16
    assert isinstance(outcome, Refusal) and "the array tile (line 4)" in outcome.reason
    text = PADDED.replace("tile[TILE][TILE + PAD]", "tile[TILE][TILE]")
    (tmp_path / "padded.cl").write_text(text, encoding="utf-8")
    outcome = plan(load_variant_file(tmp_path / "padded.cl"), {}, None, {"PAD": -20}, device)
    assert isinstance(outcome, Refusal)
    assert "the array flat (line 5) as TILE * ROW = -64" in outcome.reason
    assert outcome.reason.startswith("PAD=-20 (with TILE=16) sizes the array flat")
    outcome = plan(
        load_variant_file(tmp_path / "padded.cl"), {}, None, {"PAD": -20, "TILE": 8}, device
    )
    assert outcome.reason.startswith("TILE=8, PAD=-20 size the array flat")


def test_array_sizes_of_hostile_macros_are_left_to_the_compiler(tmp_path, device):
    """A size written as a sum of thousands of terms, and macros that square each other line
    by line, are no crash and no hang of the plan: C's integers hold 64 bits, and an
    expression too deep to walk is left to the compiler as one not evaluated."""
    long_sum = " + ".join(["1"] * 3000)
    squares = "#define S0 ((1L << 62) * (1L << 62))\n" + "".join(
        f"#define S{i + 1} (S{i} * S{i})\n" for i in range(22)
    )
    text = PADDED.replace("#line 1\n", "#line 1\n" + squares).replace(
        "scratch[sizeof(float) * PAD]", f"scratch[{long_sum} + PAD], big[S22 + PAD]"
    )
    (tmp_path / "padded.cl").write_text(text, encoding="utf-8")
    started = time.perf_counter()
    outcome = plan(load_variant_file(tmp_path / "padded.cl"), {}, None, {"PAD": 0}, device)
    assert time.perf_counter() - started < 2
    assert not isinstance(outcome, Refusal)


def test_array_sizes_are_read_in_time_linear_in_the_sources_lines(tmp_path, device):
    """A source of many lines of words (here left out by #if 0) or of blank lines is read
    for array sizes without scanning the lines after each line again."""
    text = PADDED + "#if 0\n" + "x\n" * 12000 + "\n" * 12000 + "#endif\n"
    (tmp_path / "padded.cl").write_text(text, encoding="utf-8")
    started = time.perf_counter()
    outcome = plan(load_variant_file(tmp_path / "padded.cl"), {}, None, {"PAD": 0}, device)
    assert time.perf_counter() - started < 2
    assert not isinstance(outcome, Refusal)
    outcome = plan(load_variant_file(tmp_path / "padded.cl"), {}, None, {"PAD": -16}, device)
    assert isinstance(outcome, Refusal) and "the array tile (line 4)" in outcome.reason
