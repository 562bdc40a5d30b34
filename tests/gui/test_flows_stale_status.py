"""The status bar names no trace that is gone: a size changed after a trace clears the
animation and its findings, and the status bar no longer counts its records."""

from tests.gui.conftest import trace_and_wait


def test_a_size_changed_after_a_trace_leaves_no_record_count_in_the_status_bar(window, qtbot):
    model = window.model
    model.set_family("stencil")
    for name in model.sizes:
        model.set_size(name, 32)
    trace_and_wait(qtbot, window)
    qtbot.waitUntil(lambda: not window.worker.busy, timeout=60000)
    status = window.statusBar()
    assert "records" in status.currentMessage()

    name = next(iter(model.sizes))
    model.set_size(name, 64)  # as the field's edit does

    assert window.state.playback is None  # the trace is gone from the view
    assert "records" not in status.currentMessage()
    assert "Trace" not in status.currentMessage()
