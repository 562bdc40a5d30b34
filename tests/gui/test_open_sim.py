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


def test_a_sim_file_with_smaller_last_groups_runs_traces_and_shows_each_group(
    qtbot, window, monkeypatch
):
    """A 5×3 range in 2×2 groups: the last group of each dimension is smaller. The app runs
    it as the range says, traces every work-item, and a smaller group animates too."""
    answer_file_dialogs(monkeypatch, TEST_KERNELS / "custom" / "sim" / "partial_groups.sim")
    trigger(window, "Open kernel…")
    result = run_and_wait(qtbot, window)
    assert result.status == "unchecked", result.summary()
    written = result.output.ravel()[:15].tolist()
    # Work-item (4, 0) is alone in its group along x: local size 1 there, 2 enqueued.
    assert written[4] == 0 + 10 * 1 + 100 * 2 + 1000 * 2 + 10000 * 5
    view = trace_and_wait(qtbot, window)
    playback = window.state.playback
    assert playback.index.num_groups == (3, 2, 1)
    assert playback.traced_groups == set(range(6))
    assert playback.select_group((2, 1, 0))  # the corner group: one work-item
    view.select_group((2, 1, 0))
    assert view.steps >= 1
    assert (
        playback.cursor.group_steps.work_item(0) is not None
        and playback.cursor.group_steps.work_item(1) is None
    )
