"""Compare trace with…: the app traces the kernel on screen and a reference at the same
launch; each work-group's first difference is a finding at its line (F8 goes there) and the
cells of each work-item's first differing access are boxed at their step."""

from PySide6.QtCore import Qt

from explorer.engine.header.catalog import find_variant
from explorer.gui.cell_colours import DIFF_OUTLINE
from explorer.paths import kernels_dir
from tests.gui.conftest import answer_file_dialogs, trigger

COALESCED2 = kernels_dir() / "matvec" / "nvidia-coalesced2.cl"  # where the dialog opens


def _coalesced3(window, qtbot):
    """Seed 002's warp-synchronous reduction, small, on screen."""
    window.model.set_family("matvec")
    window.model.set_variant(find_variant("matvec", "nvidia-coalesced3"))
    window.model.set_size("WIDTH", 100)
    window.model.set_size("HEIGHT", 2)
    window.model.set_local((64,))
    window.show()
    qtbot.waitExposed(window)
    return window.views.execution_view


def _boxed(view):
    """The cells boxed as a first difference in the buffers drawn now."""
    return [
        box
        for canvas in view.buffers.canvases.values()
        for box, colour, _ in canvas.frame.outlines
        if colour == DIFF_OUTLINE
    ]


def test_compare_with_names_the_reduction_line_and_f8_shows_its_boxed_cells(
    window, qtbot, monkeypatch
):
    view = _coalesced3(window, qtbot)
    answer_file_dialogs(monkeypatch, COALESCED2)
    with qtbot.waitSignal(window.controllers.trace_diff.compared, timeout=120000) as signal:
        trigger(window, "Compare trace with…")
    against = signal.args[0]
    assert against.diff is not None and not against.diff.identical
    source = window.model.variant.source.splitlines()
    reduction = {i + 1 for i, text in enumerate(source) if "p[0] += p[" in text}
    findings = window.views.findings_view
    differs = [f for f in findings.shown if f.kind == "differs"]
    assert differs and differs[0].line in reduction
    caption = view.lines.caption.text()
    assert caption.startswith(
        f"Parts from matvec/nvidia-coalesced2 first at line {differs[0].line}"
    )
    # F8 from the configuration panel: the first finding is the difference, at its step
    view.set_step(0)
    assert _boxed(view) == []  # nothing differs at the first step (the loads of the rows)
    window.views.panel.setFocus()
    qtbot.keyClick(window.views.panel, Qt.Key.Key_F8)
    step = view.playback.steps[view.current]
    assert (step.line, step.phase) == (differs[0].line, differs[0].phase)
    boxed = _boxed(view)
    assert boxed, "the first differing access is boxed at its step"


def test_a_kernel_compared_with_itself_boxes_nothing_and_a_plain_trace_drops_the_caption(
    window, qtbot
):
    view = _coalesced3(window, qtbot)
    controller = window.controllers.trace_diff
    with qtbot.waitSignal(controller.compared, timeout=120000) as signal:
        assert controller.compare_with("matvec/nvidia-coalesced3")
    assert signal.args[0].diff.identical
    assert view.lines.caption.text().startswith("Same accesses as matvec/nvidia-coalesced3")
    assert not [f for f in window.views.findings_view.shown if f.kind == "differs"]
    for step in range(view.steps):
        view.set_step(step)
        assert _boxed(view) == []
    before = window.state.playback
    trigger(window, "Trace")
    qtbot.waitUntil(lambda: window.state.playback is not before, timeout=120000)
    assert not view.lines.caption.isVisibleTo(view)


def test_a_reference_of_another_family_is_refused_in_the_windows_words(window, qtbot, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    shown = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda *a, **k: shown.append(a[1:3])))
    _coalesced3(window, qtbot)
    assert not window.controllers.trace_diff.compare_with("matmul/tiled")
    assert len(shown) == 1
    title, text = shown[0]
    assert title == "Cannot compare the trace"
    assert text.startswith("matmul/tiled is a matmul kernel, and ")
    assert "on screen a matvec kernel" in text and "--against" not in text
    assert window.statusBar().currentMessage() == f"Not compared: {text}"


def test_the_verdict_names_no_line_where_the_kernel_makes_no_access_at_all():
    from explorer.engine.record.trace_against import Against
    from explorer.gui.controllers.trace_diff import verdict
    from explorer.trace.diff_records import Access, Difference, TraceDiff

    theirs = Access(line=7, phase=0, op="write", buffer="out", element=0, text="out[i]")
    first = Difference((0, 0, 0), (0, 0, 0), 0, 0, None, "missing", None, theirs)
    diff = TraceDiff(False, first, (first,), 4, 4, 1, 1, (), True)
    text = verdict(Against("solution", None, diff))
    assert "line None" not in text
    assert text.startswith("Parts from solution first at its first access, phase 0")


def test_no_difference_in_an_incomplete_trace_is_not_called_the_same_accesses():
    from explorer.engine.record.trace_against import Against
    from explorer.gui.controllers.trace_diff import verdict
    from explorer.trace.diff_records import TraceDiff

    complete = verdict(Against("solution", None, TraceDiff(True, None, (), 4, 0, 1, 0, (), True)))
    partial = verdict(Against("solution", None, TraceDiff(True, None, (), 4, 0, 1, 0, (), False)))
    assert complete.startswith("Same accesses as solution")
    assert "Same accesses" not in partial
    assert "incomplete" in partial
