"""Remembered hosts are connected at start together: the devices are listed once, not once
per host (each listing asks every host added so far again, an unreachable one up to its
timeout)."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from explorer.engine.remote.hosts import Host
from explorer.gui.controllers.hosts import HostsController
from explorer.gui.settings import save_hosts
from tests.gui.controllers.fakes import said, views


class _HostsWorker(QObject):
    devices_ready = Signal(list, object)
    hosts_failed = Signal(str)
    transfer = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.added: list[list[Host]] = []

    def add_hosts(self, hosts: list[Host]) -> None:
        self.added.append(list(hosts))


def test_remembered_hosts_are_added_in_one_request(qtbot, settings):
    remembered = [Host.parse("me@one"), Host.parse("me@two")]
    save_hosts(settings, remembered)
    window = QWidget()
    qtbot.addWidget(window)
    worker, status = _HostsWorker(), views().status
    controller = HostsController(window, settings, worker, status)
    qtbot.waitUntil(lambda: bool(worker.added))
    assert worker.added == [remembered]
    assert controller.hosts == remembered
    assert said(status) == "Connecting to one, two…"
