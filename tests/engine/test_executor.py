"""A kernel that crashes the runtime or never returns costs only the executor process."""

from explorer.engine.catalog import find_variant, load_variant_file
from explorer.engine.executor import Executor
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
