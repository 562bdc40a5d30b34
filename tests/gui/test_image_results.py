"""An image result in the window: drawn as a 2-D picture, its channels side by side."""

import numpy as np

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.records import RunRequest
from tests.conftest import TEST_KERNELS


def test_an_rgba_image_result_and_its_input_are_drawn_as_pictures(qtbot, executor, device):
    from explorer.gui.result_view import ResultView

    variant = load_variant_file(TEST_KERNELS / "images" / "brighten.cl")
    result = executor.run(RunRequest(variant, {}, device_key=device.key, repeat=1))
    assert result.status == "verified", result.summary()
    view = ResultView()
    qtbot.addWidget(view)
    view.show_result(result)
    titles = [view.tabs.tabText(i) for i in range(view.tabs.count())]
    assert titles[:3] == ["Result", "Error |result − reference|", "Input src"]
    drawn = view.image.getImageItem().image
    assert drawn.shape[:2] in ((20, 32 * 4), (32 * 4, 20))  # rows of RGBA pixels
    assert np.allclose(np.sort(drawn.ravel()), np.sort(result.output.ravel()))


def test_a_traced_image_is_drawn_as_a_2d_buffer_of_its_pixels(qtbot, window, monkeypatch):
    """File ▸ Open kernel on a blur through an image: run, traced, the image drawn in the
    execution view as a buffer of 21 rows of 37 pixels with its reads."""
    from tests.gui.conftest import answer_file_dialogs, run_and_wait, trace_and_wait, trigger

    path = TEST_KERNELS / "images" / "box_blur.cl"
    answer_file_dialogs(monkeypatch, path)
    trigger(window, "Open kernel…")
    assert window.model.variant.path == str(path)
    assert run_and_wait(qtbot, window).status == "verified"
    view = trace_and_wait(qtbot, window)
    playback = window.state.playback
    grids = {g.name: g for g in playback.grids}
    assert (grids["src"].rows, grids["src"].cols) == (21, 37)
    src = grids["src"]
    assert playback.index.heat(src).max() > 0  # its reads are drawn
    titles = [canvas.frame.title for canvas in view.buffers.canvases.values()]
    assert "src 21×37" in titles
