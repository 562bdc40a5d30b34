"""The window asks before a capture's replays read files outside its folder (the program's
own #include folders, in a capture made before the headers were copied into it), as it asks
before a session's outside kernel: yes replays with them, no replays without them and the
timeline says why a launch that needs them does not run. A capture holding its headers asks
nothing."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMainWindow, QMessageBox

from explorer.capture.folder import load_capture
from explorer.gui.controllers.captures import CapturesController
from tests.capture.conftest import without_headers


class FakeTimeline(QObject):
    launch_chosen = Signal(int)
    run_requested = Signal()
    trace_requested = Signal()
    check_requested = Signal()
    save_requested = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.verdicts: list[str] = []

    def show_capture(self, capture) -> None: ...

    def select(self, number: int) -> None: ...

    def show_verdict(self, text: str, kind: str = "note") -> None:
        self.verdicts.append(text)

    def show(self) -> None: ...

    def raise_(self) -> None: ...


class Events(QObject):
    result = Signal(object)
    traced = Signal(object)
    variant_changed = Signal()


@pytest.fixture
def controller(qtbot):
    window = QMainWindow()
    qtbot.addWidget(window)
    traced: list[str] = []
    model = SimpleNamespace(device=object(), variants=[])
    model.add_user_variant = model.variants.append
    model.events = Events()  # kept: the signal lives with it
    model.variant_changed = model.events.variant_changed
    control = CapturesController(
        model,
        SimpleNamespace(events=Events()),
        runner=SimpleNamespace(run=lambda: None),
        tracer=SimpleNamespace(trace=lambda: traced.append("trace")),
        checker=SimpleNamespace(check_with_oclgrind=lambda: None),
        status=SimpleNamespace(say=lambda text: None),
        window=window,
        make_view=FakeTimeline,
    )
    control.traced = traced
    return control


def answer(monkeypatch, button) -> list[str]:
    asked: list[str] = []

    def question(parent, title, text, *rest):
        asked.append(text)
        return button

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    return asked


def test_agreeing_replays_with_the_programs_own_include_folders(
    controller, captured, monkeypatch, tmp_path
):
    capture = load_capture(without_headers(captured("includes.py"), tmp_path / "older"))
    asked = answer(monkeypatch, QMessageBox.StandardButton.Yes)
    assert controller.open_capture(str(capture.folder))
    (text,) = asked
    assert f"the folder the program was built in, {capture.programs[0].cwd}" in text
    variant = controller.model.variants[-1]
    assert any(capture.programs[0].cwd in option for option in variant.build_options)
    assert controller.traced == ["trace"]


def test_declining_replays_nothing_that_needs_them_and_says_why(
    controller, captured, monkeypatch, tmp_path
):
    capture = load_capture(without_headers(captured("includes.py"), tmp_path / "older"))
    answer(monkeypatch, QMessageBox.StandardButton.No)
    assert controller.open_capture(str(capture.folder))
    assert controller.model.variants == [] and controller.traced == []
    verdict = controller.view.verdicts[-1]
    assert verdict.startswith("Launch 1 (weigh#1) cannot be replayed: programs/0.cl line 1")
    assert "includes weights.h, which is not in the capture folder" in verdict


def test_a_capture_with_nothing_outside_asks_nothing(controller, captured, monkeypatch):
    asked = answer(monkeypatch, QMessageBox.StandardButton.No)
    assert controller.open_capture(str(captured("pipeline.py").folder))
    assert asked == [] and controller.traced == ["trace"]


def test_a_capture_holding_its_headers_asks_nothing_and_replays_with_them(
    controller, captured, monkeypatch
):
    capture = captured("includes.py")
    asked = answer(monkeypatch, QMessageBox.StandardButton.No)
    assert controller.open_capture(str(capture.folder))
    assert asked == [] and controller.traced == ["trace"]
    variant = controller.model.variants[-1]
    copies = [str(capture.folder / copy) for copy in capture.programs[0].include]
    searched = [o for o in variant.build_options if o.startswith("-I/")]
    assert [o for o in searched if "programs/include/" in o] == [f"-I{c}" for c in copies]
    assert all(o.startswith(f"-I{capture.folder}") for o in searched)  # nothing outside
