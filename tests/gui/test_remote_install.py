"""Devices ▸ Add host… with a host that has no explorer (a stand-in reached through a local
command, see tests/engine/test_remote_install.py): the window asks whether to install this
version there; Yes installs it, showing the far end's progress in the status bar, then uses
the host's devices, runs there, and remembers the command that starts the installed one; No
adds nothing; an install that cannot go through the command says why."""

from __future__ import annotations

import shlex

import pytest
from PySide6.QtWidgets import QInputDialog, QMessageBox

from explorer import __version__
from explorer.engine.header.catalog import find_variant
from explorer.gui.settings import hosts
from tests.engine.test_remote_install import make_fake_host
from tests.gui.conftest import trigger

QUESTION = f"Install opencl-kernel-explorer {__version__} on remote?"


@pytest.fixture
def fake_host(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    return make_fake_host(tmp_path)


def _add(monkeypatch, window, command: str, answer: QMessageBox.StandardButton) -> list[str]:
    """Add the host ``command`` starts, answering the install question with ``answer``; the
    questions asked."""
    asked: list[str] = []

    def question(parent, title, text, *args):  # type: ignore[no-untyped-def]
        asked.append(text)
        return answer

    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *a, **k: (command, True)))
    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    trigger(window, "Add host…")
    return asked


def _said(window) -> list[str]:
    shown: list[str] = []
    window.statusBar().messageChanged.connect(shown.append)
    return shown


@pytest.mark.long
def test_yes_installs_there_with_progress_then_runs_and_is_remembered(
    qtbot, window, monkeypatch, settings, fake_host
):
    shown = _said(window)
    command = shlex.join(fake_host.env) + " python3 -m explorer executor-serve"
    asked = _add(monkeypatch, window, command, QMessageBox.StandardButton.Yes)
    far = lambda: [d for d in window.model.devices if d.host == "remote"]  # noqa: E731
    qtbot.waitUntil(lambda: bool(far()), timeout=180000)
    assert len(asked) == 1 and asked[0].startswith(QUESTION)
    assert "remote has no OpenCL Kernel Explorer" in asked[0]
    assert f"Installing opencl-kernel-explorer {__version__} on remote…" in shown
    assert any(m.startswith("remote: Successfully installed opencl-kernel-explorer") for m in shown)
    assert shown[-1].startswith("remote: ") and shown[-1].endswith("added to the device list")
    (saved,) = hosts(settings)
    installed = str(fake_host.venv / "bin" / "python")
    assert saved.command == (*fake_host.env, installed, "-m", "explorer", "executor-serve")
    device = next(d for d in far() if d.name == window.model.device.name)
    combo = window.views.panel.device_combo
    combo.setCurrentIndex(combo.findData(device.key))
    window.model.set_family("matmul")
    window.model.set_variant(find_variant("matmul", "tiled"))
    for name in ("M", "N", "K"):
        window.model.set_size(name, 32)
    finished = []
    window.worker.finished.connect(lambda _g, result: finished.append(result))
    trigger(window, "Run")
    qtbot.waitUntil(lambda: bool(finished), timeout=60000)
    assert finished[-1].status == "verified" and finished[-1].device == f"remote: {device.name}"


def test_no_adds_nothing_and_says_why(qtbot, window, monkeypatch, settings, fake_host):
    shown = _said(window)
    command = shlex.join(fake_host.env) + " python3 -m explorer executor-serve"
    asked = _add(monkeypatch, window, command, QMessageBox.StandardButton.No)
    qtbot.waitUntil(lambda: bool(asked) and "not added" in shown[-1], timeout=30000)
    assert asked[0].startswith(QUESTION)
    assert shown[-1] == "remote was not added: remote has no OpenCL Kernel Explorer"
    assert hosts(settings) == [] and window.controllers.hosts.hosts == []
    assert not fake_host.venv.exists()


def test_an_install_the_command_cannot_carry_says_why(qtbot, window, monkeypatch, fake_host):
    warned: list[str] = []
    monkeypatch.setattr(
        QMessageBox, "warning", staticmethod(lambda parent, title, text: warned.append(text))
    )
    command = shlex.join([*fake_host.env, "sh", "-c", "python3 -m explorer executor-serve"])
    asked = _add(monkeypatch, window, command, QMessageBox.StandardButton.Yes)
    qtbot.waitUntil(lambda: bool(warned), timeout=30000)
    assert asked[0].startswith(QUESTION)
    assert warned[0].startswith("remote was not added: the command of remote")
    assert "does not end with 'PYTHON -m explorer executor-serve'" in warned[0]
    assert "install it there by hand" in warned[0]
    assert not fake_host.venv.exists()
