"""Remembered hosts are connected at start together: the devices are listed once, not once
per host (each listing asks every host added so far again, an unreachable one up to its
timeout); a host forgotten ends every executor the window had there, its Oclgrind one
too."""

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


class _Router:
    def __init__(self) -> None:
        self.problems: dict[str, str] = {}
        self.removed: list[str] = []

    def remove(self, label: str) -> None:
        self.removed.append(label)

    def devices(self) -> list:
        return []


def test_forgetting_a_host_ends_its_oclgrind_executor_too():
    from unittest.mock import MagicMock

    from explorer.gui.worker import _Job

    job = _Job(_Router())  # type: ignore[arg-type]
    checker = MagicMock()
    job.checker, job._checker_host = checker, "gpu"
    job.remove_host("other")
    assert job.checker is checker and not checker.close.called
    job.remove_host("gpu")
    assert job.checker is None and checker.close.called
