"""A kernel that crashes the runtime or never returns costs only the executor process."""

import os

from explorer.engine import calls
from explorer.engine.executor import Executor
from explorer.engine.header.catalog import find_variant, load_variant_file
from explorer.engine.records import RunRequest
from tests.conftest import TEST_KERNELS


def _good(device):
    return RunRequest(
        find_variant("matmul", "naive"),
        {"M": 32, "N": 32, "K": 32},
        device_key=device.key,
        repeat=2,
    )


def test_runtime_crash_is_named_and_the_next_run_works(device):
    crash = load_variant_file(TEST_KERNELS / "crash.cl")
    with Executor() as executor:
        result = executor.run(RunRequest(crash, {"WIDTH": 64, "HEIGHT": 1}, device_key=device.key))
        assert result.status == "crashed"
        assert "crashed (signal 11, SIGSEGV)" in result.error
        assert "transpose/crash" in result.error
        assert executor.run(_good(device)).status == "verified"


def test_hung_kernel_times_out_and_the_next_run_works(device):
    hang = load_variant_file(TEST_KERNELS / "hang.cl")
    with Executor() as executor:
        assert executor.run(_good(device)).status == "verified"  # warm process
        result = executor.run(
            RunRequest(hang, {"WIDTH": 4, "HEIGHT": 4}, device_key=device.key, timeout_s=2)
        )
        assert result.status == "timeout"
        assert "timed out after 2 s" in result.error
        assert executor.run(_good(device)).status == "verified"


def test_build_error_carries_the_log_with_the_users_line_numbers(executor, device, tmp_path):
    source = (
        (TEST_KERNELS / "hang.cl")
        .read_text()
        .replace("volatile float x = in[0];", "volatile float x = in[0] +;")
    )
    line = source.splitlines().index(next(s for s in source.splitlines() if "in[0] +;" in s)) + 1
    path = tmp_path / "broken.cl"
    path.write_text(source)
    result = executor.run(
        RunRequest(load_variant_file(path), {"WIDTH": 4, "HEIGHT": 4}, device_key=device.key)
    )
    assert result.status == "error" and result.error_kind == "build"
    assert f"broken.cl:{line}:" in result.build_log
    assert "tempfile" not in result.build_log


def _launch_stopped_by_the_runtime(request: RunRequest) -> object:
    """What the runner returns when the runtime stops a launch: NVIDIA reports -9999 for a
    kernel that faulted, and the device's context is unusable afterwards."""
    from explorer.engine.records import RunHead

    class Fault(Exception):
        code = -9999

    head = RunHead(
        family=request.variant.family,
        variant=request.variant.id,
        device="GPU",
        platform="NVIDIA CUDA",
        sizes=request.sizes,
        global_size=(64,),
        local_size=(64,),
        defines={},
    )
    return head.runtime_failed(Fault("clWaitForEvents failed: <unknown error -9999>"))


calls.allow(os.getpid)
calls.allow(_launch_stopped_by_the_runtime)


def test_a_launch_the_runtime_stopped_is_explained_and_its_process_not_reused(device):
    request = RunRequest(find_variant("matmul", "naive"), {"M": 16, "N": 16, "K": 16})
    with Executor() as ex:
        before = ex.call(os.getpid)
        result = ex.call(_launch_stopped_by_the_runtime, request)
        assert result.status == "error" and "faulted on the device" in result.error
        assert "trace it" in result.error
        assert ex.call(os.getpid) != before  # a fresh process (and context) for the next run
        next_run = ex.run(RunRequest(request.variant, request.sizes, device_key=device.key))
        assert next_run.status == "verified"


def test_device_types_are_named_from_their_bits_alone():
    """A simulator reports every type: the list names them, and nothing of PyOpenCL's own."""
    import pyopencl as cl

    from explorer.engine.launch.devices import _type_name

    assert _type_name(cl, int(cl.device_type.GPU)) == "GPU"
    every = _type_name(cl, int(cl.device_type.ALL))
    assert {"CPU", "GPU", "ACCELERATOR"} <= set(every.split(" | "))
    assert "_" not in every
