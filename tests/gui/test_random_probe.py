"""The window's Run judges the input shown and a random probe: a matmul that reads A's
subscripts swapped draws the right IOU picture, and the badge still says it is wrong, on
random data, and why the picture cannot show it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.conftest import TEST_KERNELS
from tests.gui.conftest import answer_file_dialogs, run_and_wait, trigger

MUTANTS = TEST_KERNELS / "mutants"


def _open_and_run(qtbot, window, monkeypatch, path):
    answer_file_dialogs(monkeypatch, path)
    trigger(window, "Open kernel…")
    assert window.model.variant.path == str(path)
    for name in ("M", "N", "K"):
        window.views.panel.size_spins[name].setValue(32)
    assert window.model.input == "iou"
    return run_and_wait(qtbot, window)


@pytest.mark.parametrize("name", ["naive_a_swapped", "tiled_a_tile_transposed"])
def test_the_badge_calls_a_bug_the_picture_hides_wrong(qtbot, window, monkeypatch, name):
    from explorer.gui.result_view import BADGE_COLOURS

    result = _open_and_run(qtbot, window, monkeypatch, MUTANTS / f"{name}.cl")
    assert result.status == "wrong", result.summary()
    badge = window.views.result_view.badge
    assert badge.shown_text().startswith("✘ Wrong on random data (seed 4321)")
    assert "Right on the IOU input, which cannot show this bug: A = 1.5·I is symmetric" in (
        badge.text()
    )
    assert BADGE_COLOURS["wrong"] in badge.styleSheet()
    # The window still draws the input shown: the IOU product C = 1.5·B, right as it is.
    shown = window.views.result_view.image.getImageItem().image
    assert np.array_equal(shown, 1.5 * result.inputs["B"].astype(np.float64))


def test_the_badge_of_a_right_kernel_says_random_data_verified_it_too(qtbot, window, monkeypatch):
    path = TEST_KERNELS.parent.parent / "kernels" / "matmul" / "tiled.cl"
    result = _open_and_run(qtbot, window, monkeypatch, path)
    assert result.status == "verified", result.summary()
    assert window.views.result_view.badge.text().startswith("✔ Verified, also on random data")


def test_the_exported_history_keeps_the_probe(qtbot, window, monkeypatch, tmp_path):
    """File ▸ Export timing history as JSON: each run's record names its probe."""
    result = _open_and_run(qtbot, window, monkeypatch, MUTANTS / "naive_a_swapped.cl")
    assert result.status == "wrong"
    path = tmp_path / "history.json"
    answer_file_dialogs(monkeypatch, path)
    trigger(window, "Export timing history as JSON…")
    (record,) = json.loads(path.read_text(encoding="utf-8"))
    assert record["status"] == "wrong" and record["max_abs_error"] == 0.0
    assert record["probe_seed"] == 4321 and record["probe_verified"] is False
    assert "the IOU input cannot show this bug" in record["probe"]
