"""The navigation controller with mocked views: the source follows the kernel, a new variant
takes the old trace off the screen, a finding or a line selected is shown."""

from __future__ import annotations

import pytest

from explorer.engine.header.catalog import find_variant
from explorer.gui.controllers.navigation import MARK, NavigationController
from explorer.trace.recorded import Finding
from tests.gui.controllers.fakes import FakeWorker, model_on, said, state, traced_run, views


@pytest.fixture
def navigation():
    v = views()
    worker = FakeWorker()
    controller = NavigationController(
        model_on(), state(), worker, v.source, v.execution, v.result, v.status, v.pages
    )
    return controller, worker, v


def test_the_source_follows_the_variant(navigation):
    controller, _worker, v = navigation
    naive = controller.model.variant
    v.source.show_source.assert_called_with(
        f"<b>{naive.name}</b> — {naive.path}", naive.source, "naive.cl"
    )
    tiled = find_variant("matmul", "tiled")
    controller.model.set_variant(tiled)
    v.source.show_source.assert_called_with(
        f"<b>{tiled.name}</b> — {tiled.path}", tiled.source, "tiled.cl"
    )


def test_a_new_variant_takes_the_trace_its_marks_and_banner_off_the_screen(navigation):
    controller, _worker, v = navigation
    controller.state.playback = object()
    controller.model.set_variant(find_variant("matmul", "tiled"))
    assert controller.state.playback is None
    message = v.execution.clear.call_args.args[0]
    assert message.startswith("Tiled") and "trace it (Ctrl+T)" in message
    v.source.mark_lines.assert_called_with([])
    assert "press Run (Ctrl+R)" in v.result.set_badge.call_args.args[0]
    assert said(v.status) == ""


def test_while_work_runs_the_banner_says_what_runs(navigation):
    controller, worker, v = navigation
    worker.busy = True
    controller.model.set_variant(find_variant("matmul", "tiled"))
    v.execution.clear.assert_called_once()
    v.result.set_badge.assert_not_called()
    v.status.say.assert_not_called()


def test_a_saved_kernel_file_keeps_its_trace_on_screen(navigation):
    controller, _worker, v = navigation
    controller.state.playback = playback = object()
    variant = controller.model.variant
    controller.model.replace_variant(variant)  # the same file again, as a reload gives it
    assert controller.state.playback is playback
    v.execution.clear.assert_not_called()


def test_a_finding_selected_is_shown_in_the_animation_and_the_source(navigation):
    controller, _worker, v = navigation
    finding = Finding("race", 12, 1, "Asub", ((0, 0, 0, 1, 0, 0),), 2, "race")
    controller.show_finding(finding)
    v.execution.show_finding.assert_not_called()  # nothing to animate yet
    controller.state.playback = traced_run().trace
    controller.show_finding(finding)
    v.execution.show_finding.assert_called_with(finding)
    v.source.mark_lines.assert_called_with([12], MARK)
    v.pages.show_page.assert_called_with("execution")


def test_a_line_named_anywhere_is_marked_in_the_source(navigation):
    controller, _worker, v = navigation
    controller.goto_line(9)
    v.source.mark_lines.assert_called_with([9], MARK)
    v.pages.show_page.assert_called_with("source")
    v.pages.reset_mock()
    controller.step_shown(2, 14)  # the animation's step
    v.source.mark_lines.assert_called_with([14], MARK)
    v.pages.show_page.assert_not_called()
