"""A program that imports pyopencl and hands work to a pool of workers started by fork or by
spawn runs under capture as it runs alone: the recorder touches nothing of OpenCL before the
program does (a platform started before the fork would hang the workers), the workers are
left alone (not recorded), and the main process's launches are recorded."""

from __future__ import annotations

import pytest

from explorer.capture.folder import load_capture
from tests.capture.conftest import run_capture

pytestmark = pytest.mark.usefixtures("fast_cli")


def squares(start: int) -> int:
    return sum(i * i for i in range(start, start + 16))


@pytest.mark.timeout(120)
def test_fork_and_spawn_pools_run_and_the_main_process_is_recorded(on_device, tmp_path, capfd):
    outcome = run_capture(tmp_path, "workers.py")
    printed = capfd.readouterr()
    assert outcome.code == 0, printed.err
    pools = f"[{squares(0)}, {squares(100)}]"
    assert printed.out.splitlines() == [f"fork {pools}", f"spawn {pools}",
                                        f"main {squares(1000)}"]  # fmt: skip
    capture = load_capture(tmp_path)
    # Only the main process's launch: each worker's launch ran unrecorded.
    assert [launch.label for launch in capture.launches] == ["square#1"]
    assert capture.launches[0].args[0].before is not None
