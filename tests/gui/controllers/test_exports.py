"""The export controller with mocked views: the history as CSV and JSON, a page as PNG and
SVG, and what it says when a file cannot be written or there is nothing to animate. (That
each File menu item reaches its export is the window's test:
tests/robustness/test_window_cases.py.)"""

from __future__ import annotations

import csv
import json

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QLabel

from explorer.gui.controllers.exports import ExportController
from tests.gui.conftest import answer_file_dialogs
from tests.gui.controllers.fakes import result, said, state, views


@pytest.fixture
def exports(qapp):
    v = views()
    page = QLabel("the page on screen")
    page.resize(320, 200)
    v.pages.current_page.return_value = page
    v.pages.page.return_value = page
    v.execution.steps = 0
    controller = ExportController(state(), v.execution, v.status, v.pages)
    return controller, v


def test_the_history_exports_hold_every_run_of_the_session(exports, tmp_path, monkeypatch):
    controller, v = exports
    controller.state.remember(result("naive", sizes={"M": 32, "N": 32, "K": 32}))
    controller.state.remember(result("tiled", status="wrong", sizes={"M": 32, "N": 32, "K": 32}))
    answer_file_dialogs(monkeypatch, tmp_path / "t.csv")
    controller.history_csv_dialog()
    with open(tmp_path / "t.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["variant"], r["verified"]) for r in rows] == [("naive", "True"), ("tiled", "False")]
    assert said(v.status) == f"Wrote 2 runs to {tmp_path / 't.csv'}"
    answer_file_dialogs(monkeypatch, tmp_path / "t.json")
    controller.history_json_dialog()
    records = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    assert [r["variant"] for r in records] == ["naive", "tiled"]
    assert records[1]["size"] == {"M": 32, "N": 32, "K": 32}


def test_the_page_on_screen_as_png_and_svg(exports, tmp_path, monkeypatch):
    controller, v = exports
    answer_file_dialogs(monkeypatch, tmp_path / "v.png")
    controller.view_png_dialog()
    assert QImage(str(tmp_path / "v.png")).size().width() == 320
    answer_file_dialogs(monkeypatch, tmp_path / "v.svg")
    controller.view_svg_dialog()
    assert "<svg" in (tmp_path / "v.svg").read_text(encoding="utf-8")
    answer_file_dialogs(monkeypatch, tmp_path / "t.png")
    controller.timing_png_dialog()
    v.pages.page.assert_called_with("timing")
    assert said(v.status) == f"Wrote {tmp_path / 't.png'}"


@pytest.mark.parametrize(
    "export", ["view_png_dialog", "view_svg_dialog", "history_csv_dialog", "history_json_dialog"]
)
def test_an_export_that_cannot_be_written_says_so(exports, tmp_path, monkeypatch, export):
    controller, v = exports
    target = tmp_path / "no-such-folder" / "out"
    answer_file_dialogs(monkeypatch, target)
    getattr(controller, export)()
    assert not target.exists()
    assert said(v.status).startswith(f"Could not write {target}")


def test_an_animation_export_before_any_trace_writes_nothing(exports, tmp_path, monkeypatch):
    controller, v = exports
    for export, name in (
        ("animation_gif_dialog", "a.gif"),
        ("animation_frames_dialog", "frame.png"),
        ("animation_mp4_dialog", "a.mp4"),
    ):
        answer_file_dialogs(monkeypatch, tmp_path / name)
        getattr(controller, export)()
        assert said(v.status) == "Trace a kernel first (Ctrl+T): nothing to animate", export
    assert list(tmp_path.iterdir()) == []
