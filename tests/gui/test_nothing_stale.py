"""Nothing on screen belongs to another configuration: a lesson opened after a custom kernel,
a session opened after another kernel, show nothing of what ran before; a saved session
reopens at its source, trace, work-group and phase."""

import shutil

import pytest

from explorer.engine.record.oclgrind import find_oclgrind
from explorer.paths import resources_dir
from explorer.session import load_session
from tests.conftest import TEST_KERNELS
from tests.gui.conftest import (
    answer_file_dialogs,
    run_and_wait,
    trace_and_wait,
    trigger,
)

CUSTOM = TEST_KERNELS / "custom"


@pytest.fixture(autouse=True)
def no_message_boxes(monkeypatch):
    """A message box would wait for a click that never comes: fail with its text instead."""
    from PySide6.QtWidgets import QMessageBox

    def shown(*args, **kwargs):
        raise AssertionError(f"message box: {args[1:3]}")

    monkeypatch.setattr(QMessageBox, "warning", staticmethod(shown))
    monkeypatch.setattr(QMessageBox, "question", staticmethod(shown))


def open_kernel(window, monkeypatch, path):
    """File ▸ Open kernel…, answering the file dialog with ``path``."""
    answer_file_dialogs(monkeypatch, path)
    trigger(window, "Open kernel…")
    assert window.model.variant.path == str(path)


def everything_on_screen(window) -> str:
    """The text of every view a person can read, for "does it name the old kernel?"."""
    v = window.views
    findings = v.findings_view
    items = [
        findings.findings.topLevelItem(i).text(4)
        for i in range(findings.findings.topLevelItemCount())
    ]
    return "\n".join(
        [
            v.result_view.badge.text(),
            v.result_view.message.toPlainText(),
            " ".join(v.timing_view.labels),
            v.timing_view.details.text(),
            findings.summary.text(),
            findings.oclgrind.toPlainText(),
            *items,
            v.execution_view.code.toPlainText(),
            v.execution_view.lines.step_label.text(),
            v.execution_view.lines.reads_label.text(),
            v.source_view.output.toPlainText(),
            v.sweep_view.message.text(),
            v.sweep_view.canvas.title,
            window.statusBar().currentMessage(),
        ]
    )


def test_a_lesson_opened_after_a_custom_kernel_shows_nothing_of_it(window, qtbot, monkeypatch):
    path = CUSTOM / "local_sum.cl"
    open_kernel(window, monkeypatch, path)
    window.model.set_size("N", 256)
    v = window.views
    # The custom kernel run, traced (its warp shown), checked by Oclgrind and swept.
    assert run_and_wait(qtbot, window).status == "verified"
    assert v.timing_view.bar_count == 2 and v.result_view.showing == "plot"
    view = trace_and_wait(qtbot, window)
    view.controls.warp_box.setChecked(True)
    view.set_step(1)
    assert v.findings_view.summary.text() and view.timeline.steps
    if find_oclgrind(window.model.devices) is not None:
        trigger(window, "Check with Oclgrind")
        qtbot.waitUntil(lambda: window.state.oclgrind is not None, timeout=120000)
        assert "Oclgrind" in v.findings_view.oclgrind.toPlainText()
        assert "Checking" not in v.result_view.badge.text()  # the verdict is back
    sweep = v.sweep_view
    sweep.x_axis.setCurrentText("local")
    sweep.x_values.setText("32,64")
    sweep.run_button.click()
    qtbot.waitUntil(lambda: all(r is not None for row in sweep.grid for r in row), timeout=60000)
    qtbot.waitUntil(lambda: not window.worker.busy, timeout=60000)
    name = window.model.variant.name

    lesson = next(t for t in window.lessons if "barrier" in t)
    window.lessons[lesson].trigger()  # its trace starts; nothing of the custom kernel stays

    state = window.state
    assert window.model.variant.id == "seed004-local-vector"
    assert (state.result, state.traced, state.playback, state.oclgrind) == (None,) * 4
    assert state.comparison == ()
    assert name not in everything_on_screen(window)
    assert "group_sums" not in everything_on_screen(window)  # its source, anywhere
    # The result: no image or bars of the old output; the timing: no bars.
    assert v.result_view.showing == "message"
    assert v.timing_view.bar_count == 0
    # The execution view: no trace, no steps, no warp; the lesson's source, nothing marked.
    execution = v.execution_view
    assert execution.playback is None and execution.steps == 0
    assert execution.buffers.canvases == {} and execution.timeline.steps == []
    assert not execution.buffers.groups.isVisibleTo(execution)  # no work-groups of the old
    assert execution.warp_view.accesses == []
    assert execution.code.toPlainText() == window.model.variant.source
    assert execution.code.marked == []
    # Findings and their sites, the Oclgrind pane, the sweep's grid: empty.
    findings = v.findings_view
    assert findings.findings.topLevelItemCount() == 0 and findings.sites.topLevelItemCount() == 0
    assert findings.oclgrind.toPlainText() == ""
    assert sweep.axes is None and sweep.grid == []
    # The source shows the lesson's kernel, with no line marked from the old trace.
    assert "group_sums" not in v.source_view.editor.toPlainText()


def test_a_saved_session_reopens_at_its_source_trace_group_and_phase(
    window, qtbot, monkeypatch, tmp_path
):
    path = tmp_path / "local_sum.cl"  # beside the session, as a person keeps them
    shutil.copy(CUSTOM / "local_sum.cl", path)
    open_kernel(window, monkeypatch, path)
    window.model.set_size("N", 256)  # four work-groups of 64, seven phases each
    view = trace_and_wait(qtbot, window)
    assert view.select_group((2, 0, 0))
    step = window.state.playback.first_step_of(3)
    view.set_step(step)
    session_path = tmp_path / "sums.kexp.json"
    answer_file_dialogs(monkeypatch, session_path)
    trigger(window, "Save session…")
    saved = load_session(session_path)
    assert saved.view["group"] == [2, 0, 0] and saved.view["phase"] == 3

    # Another kernel, traced: its source, groups and steps on screen.
    open_kernel(window, monkeypatch, CUSTOM / "double_it.cl")
    trace_and_wait(qtbot, window)
    assert "double_it" in view.code.toPlainText()

    before = window.state.playback
    answer_file_dialogs(monkeypatch, session_path)
    trigger(window, "Open session…")
    # At once: the session's kernel, nothing of the other one.
    assert window.model.variant.path == str(path)
    assert "group_sums" in window.views.source_view.editor.toPlainText()
    assert "double_it" not in view.code.toPlainText() and view.playback is None
    assert not view.buffers.groups.isVisibleTo(view)
    # Then its trace, at the saved group and phase.
    qtbot.waitUntil(
        lambda: window.state.playback is not None and window.state.playback is not before,
        timeout=120000,
    )
    playback = window.state.playback
    assert playback.group == (2, 0, 0)
    assert playback.steps[view.current].phase == 3
    assert "group_sums" in view.code.toPlainText()
    assert window.model.sizes == {"N": 256}


def test_every_lesson_has_a_title_of_its_own_in_the_menu(window):
    for path in sorted((resources_dir() / "lessons").glob("*.kexp.json")):
        title = load_session(path).title
        assert title, f"{path.name} has no title"
        number = path.name.split("-")[0]
        assert f"{number} · {title}" in window.lessons
    assert "3 · The IOU at 768³, around one work-group" in window.lessons


def test_the_roofline_draws_only_the_chosen_devices_runs(qtbot):
    from dataclasses import replace

    from explorer.gui.roofline_view import RooflineView
    from tests.gui.controllers.fakes import result

    view = RooflineView()
    qtbot.addWidget(view)
    here, there = result("naive"), replace(result("tiled"), device="another gpu")
    view.show_results([here, there])
    assert len(view.points) == 2
    view.set_device("test cpu")
    assert [p[0].split()[0] for p in view.points] == ["naive"]
    assert "1 run(s) on other devices not shown" in view.note.text()
