"""Custom kernels and Oclgrind .sim files in the app: opened, run, traced."""

from tests.conftest import TEST_KERNELS
from tests.gui.conftest import run_and_wait, trace_and_wait

CUSTOM = TEST_KERNELS / "custom"


def test_open_a_custom_kernel_runs_and_traces(qtbot, window):
    assert window.controllers.kernels.open_kernel(str(CUSTOM / "local_sum.cl"))
    result = run_and_wait(qtbot, window)
    assert result.status == "verified", result.summary()
    trace_and_wait(qtbot, window)
    assert window.state.traced is not None


def test_open_a_sim_file_runs_unchecked_and_traces(qtbot, window):
    kernels = window.controllers.kernels
    assert kernels.accepts(str(CUSTOM / "sim" / "scaled_copy.sim"))
    assert kernels.open_kernel(str(CUSTOM / "sim" / "scaled_copy.sim"))
    result = run_and_wait(qtbot, window)
    assert result.status == "unchecked", result.summary()
    trace_and_wait(qtbot, window)
    assert window.state.traced is not None
