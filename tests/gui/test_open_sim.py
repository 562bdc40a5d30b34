"""File ▸ Open kernel… with an Oclgrind .sim file, as a person does it: it runs, traces and
animates."""

from tests.conftest import TEST_KERNELS
from tests.gui.conftest import answer_file_dialogs, run_and_wait, trace_and_wait, trigger


def test_a_sim_file_opened_from_the_menu_runs_traces_and_steps(qtbot, window, monkeypatch):
    answer_file_dialogs(monkeypatch, TEST_KERNELS / "custom" / "sim" / "forms.sim")
    trigger(window, "Open kernel…")
    assert window.model.variant.kernel == "forms"
    result = run_and_wait(qtbot, window)
    assert result.status == "unchecked", result.summary()
    assert result.output.ravel().tolist() == [42, 6, 66, -18] * 2
    view = trace_and_wait(qtbot, window)
    assert window.views.tabs.currentWidget() is view
    assert view.steps > 1
    view.set_step(0)
    view.step_forward()
    assert view.current == 1
