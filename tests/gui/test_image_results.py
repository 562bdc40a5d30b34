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
