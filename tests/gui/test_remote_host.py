"""Devices ▸ Add host… with a command that starts the executor (a local one here, the same
protocol as through ssh): the host's devices join the list as 'remote: …', choosing one runs
and traces there, the host is remembered for the next start, and closing the window leaves
no executor behind."""

from __future__ import annotations

import os

from PySide6.QtWidgets import QInputDialog

from explorer.engine.header.catalog import find_variant
from explorer.engine.remote import client
from tests.engine.remote_helpers import SERVE, alive, children, wait_for
from tests.gui.conftest import trigger


def _answer(monkeypatch, text):
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *a, **k: (text, True)))


def _host_devices(window):
    return [d for d in window.model.devices if d.host == "remote"]


def test_a_host_added_from_the_menu_runs_and_traces_there(qtbot, window, monkeypatch, settings):
    local = list(window.model.devices)
    monkeypatch.setattr(client, "_SHOW_AFTER_S", 0.0)  # every transfer counts as long
    _answer(monkeypatch, SERVE)
    shown: list[str] = []
    window.statusBar().messageChanged.connect(shown.append)
    trigger(window, "Add host…")
    qtbot.waitUntil(lambda: bool(_host_devices(window)), timeout=60000)
    count = len(_host_devices(window))
    assert shown[0] == "Connecting to remote…"
    assert shown[-1] == f"remote: {count} device{'s' if count > 1 else ''} added to the device list"
    assert window.model.devices[: len(local)] == local  # this machine's first, unchanged
    combo = window.views.panel.device_combo
    texts = [combo.itemText(i) for i in range(combo.count())]
    assert any(t.startswith("remote: ") for t in texts)
    far = next(d for d in _host_devices(window) if d.name == window.model.device.name)
    combo.setCurrentIndex(combo.findData(far.key))  # as a person picks it
    assert window.model.device == far
    window.model.set_family("matmul")
    window.model.set_variant(find_variant("matmul", "tiled"))
    for name in ("M", "N", "K"):
        window.model.set_size(name, 32)
    finished = []
    window.worker.finished.connect(lambda _g, result: finished.append(result))
    trigger(window, "Run")
    qtbot.waitUntil(lambda: bool(finished), timeout=60000)
    assert finished[-1].status == "verified"
    assert finished[-1].device == f"remote: {far.name}"
    shown.clear()
    trigger(window, "Trace")
    qtbot.waitUntil(lambda: window.state.traced is not None, timeout=60000)
    assert window.state.traced.result.device == f"remote: {far.name}"
    assert window.state.traced.analysis is not None
    assert any(m.startswith("receiving trace of matmul/tiled") for m in shown)  # status bar
    assert "remote" in str(settings.value("hosts"))


def _servers() -> list[int]:
    """The executors this process started through a command (their command line says so)."""
    return [pid for pid in children(os.getpid()) if "executor-serve" in _command_line(pid)]


def test_a_remembered_host_is_connected_at_start_forgotten_and_closed(qtbot, settings, monkeypatch):
    from explorer.engine.remote.hosts import Host
    from explorer.gui.main_window import MainWindow
    from explorer.gui.settings import hosts, save_hosts

    save_hosts(settings, [Host.parse("", SERVE)])
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: bool(_host_devices(window)), timeout=60000)
    first = _servers()
    assert first
    pick = staticmethod(lambda parent, title, label, items, *rest: (items[0], True))
    monkeypatch.setattr(QInputDialog, "getItem", pick)
    trigger(window, "Forget host…")
    qtbot.waitUntil(lambda: not _host_devices(window), timeout=30000)
    assert hosts(settings) == []
    assert wait_for(lambda: not any(alive(pid) for pid in first))
    _answer(monkeypatch, SERVE)
    trigger(window, "Add host…")
    qtbot.waitUntil(lambda: bool(_host_devices(window)), timeout=60000)
    second = _servers()
    assert second
    window.close()  # the window's close ends its executors, here and there
    assert wait_for(lambda: not any(alive(pid) for pid in second))


def _command_line(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode()
    except OSError:
        return ""
