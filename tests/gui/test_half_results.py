"""A kernel whose buffers are `half`, opened in the window: it runs verified, its result is
drawn as the picture it holds (the values a person reads, as numbers), its input beside it,
and its trace draws the half buffers as matrices of their elements with their values."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from tests.engine.test_half_buffers import INVERT
from tests.gui.conftest import answer_file_dialogs, run_and_wait, trace_and_wait, trigger


def test_a_half_image_runs_is_drawn_and_traced(qtbot, window, monkeypatch, tmp_path):
    path = tmp_path / "invert.cl"
    path.write_text(INVERT)
    answer_file_dialogs(monkeypatch, path)
    trigger(window, "Open kernel…")
    assert window.model.variant.path == str(path)
    result = run_and_wait(qtbot, window)
    assert result.status == "verified", result.summary()

    view = window.views.result_view
    window.views.show_page("result")
    bar = view.tabs.tabBar()
    titles = [view.tabs.tabText(i) for i in range(view.tabs.count())]

    def open_tab(title: str):
        i = titles.index(title)
        qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(i).center())
        return view.tabs.widget(i).getImageItem().image

    img = result.inputs["img"]
    shown = open_tab("Result")
    assert shown.shape == (32, 64)
    assert np.array_equal(shown, 1.0 - img.astype(np.float64))  # the text, inverted
    assert set(np.unique(shown)) == {0.0, 1.0}
    assert np.array_equal(open_tab("Input img"), img.astype(np.float64))
    assert not open_tab("Error |result − reference|").any()

    trace_and_wait(qtbot, window)
    playback = window.state.playback
    grids = {g.name: g for g in playback.grids}
    assert (grids["img"].rows, grids["img"].cols) == (32, 64)
    # Each vload_half4 starts at a pixel of its own, four 2-byte pixels after the last one.
    heat = playback.index.heat(grids["img"])
    assert (heat[:, ::4] == 1).all()
    drawn = playback.values.buffer(grids["out"])
    assert np.array_equal(drawn, 1.0 - img.astype(np.float64))
