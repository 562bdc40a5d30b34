"""Other machines' devices: Devices ▸ Add host… asks for ``user@server`` (reached with ssh)
or a whole command that starts the explorer's executor there; the host is remembered in the
settings and connected to again at the next start, and its devices join the device list as
``server: NVIDIA H100 …``. Work on one of them runs on that machine; the window stays here.

A host added is connected to first (off the GUI thread): where it has no explorer, or
another version, the window offers to install this one there (:mod:`explorer.engine.remote.
install`), showing the far end's progress in the status bar, and then uses it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QInputDialog, QLineEdit, QMessageBox, QWidget

from explorer import __version__
from explorer.engine.executor import ExecutorError
from explorer.engine.records import DeviceInfo
from explorer.engine.remote.client import CommandExecutor
from explorer.engine.remote.hosts import Host
from explorer.engine.remote.install import HostNeedsInstall, Installation
from explorer.engine.remote.wheel import DISTRIBUTION
from explorer.gui import settings as settings_store
from explorer.gui.actions import Action, Actions
from explorer.gui.background import Lane
from explorer.gui.controllers.roles import StatusLine, Worker

ASK = (
    "user@server: its devices are used through ssh (the explorer is installed there if it\n"
    "is missing, when you agree). Or a whole command that starts the executor there, e.g.\n"
    "ssh -p 2222 me@gpu ~/venv/bin/python -m explorer executor-serve"
)
_CLOSE_WAIT_S = 5.0
_Job = CommandExecutor | Installation  # a connection check or an install, on the lane


class HostsController:
    """Adds hosts, remembers them, and says why one's devices are missing."""

    def __init__(
        self, window: QWidget, settings: QSettings, worker: Worker, status: StatusLine
    ) -> None:
        self.window = window
        self.settings = settings
        self.worker = worker
        self.status = status
        self.hosts: list[Host] = []
        self._connecting: set[str] = set()  # hosts whose devices have not come yet
        self._lane = Lane("host-setup", owner=window)
        self._in_flight: _Job | None = None  # what close() stops
        self._closed = False
        worker.hosts_failed.connect(self._unreachable)
        worker.transfer.connect(status.say)
        worker.devices_ready.connect(self._devices_came)
        # After the window's first listing of this machine's devices, never before it: a
        # host that is slow to answer must not hold up the local devices.
        QTimer.singleShot(0, window, self._connect_remembered)  # dropped if the window goes

    def _connect_remembered(self) -> None:
        """Every remembered host at once: one listing of the devices, not one per host (each
        listing asks every host added so far again, an unreachable one up to its timeout)."""
        remembered = settings_store.hosts(self.settings)
        if remembered:
            self._use(*remembered)

    def add_host(self) -> None:
        """Ask for a host, connect to it, offer to install this explorer there where it is
        missing or another version, and use its devices."""
        if self._lane.busy:
            self.status.say("A host is being added: wait until it is connected or installed")
            return
        text, ok = QInputDialog.getText(
            self.window, "Add host", ASK, QLineEdit.EchoMode.Normal, "user@server"
        )
        if not ok or not text.strip():
            return
        try:
            host = self._host_from(text.strip())
        except ValueError as exc:
            QMessageBox.warning(self.window, "Add host", str(exc))
            return
        self.status.say(f"Connecting to {host.label}…")
        executor = CommandExecutor(host)
        self._start(executor, lambda: self._check(executor), lambda o: self._checked(host, o))

    def close(self) -> None:
        """Stop a connection check or an install in flight (the window is closing)."""
        self._closed = True
        if self._in_flight is not None:
            self._in_flight.cancel()
        self._lane.stop(_CLOSE_WAIT_S)

    def _start(self, job: _Job, work: Callable[[], Any], then: Callable[[Any], None]) -> None:
        """``work()`` on the lane, ``then(what it returned)`` back here; :meth:`close`
        cancels ``job``."""
        self._in_flight = job
        self._lane.submit(work, then)

    @staticmethod
    def _check(executor: CommandExecutor) -> ExecutorError | None:
        """On the lane: whether this version of the explorer runs on the executor's host
        (None), or why not."""
        try:
            executor.connect()
        except ExecutorError as exc:
            return exc
        finally:
            executor.close()
        return None

    def _checked(self, host: Host, outcome: ExecutorError | None) -> None:
        self._in_flight = None
        if self._closed:
            return
        if isinstance(outcome, HostNeedsInstall):
            self._offer_install(host, outcome)
            return
        # Used and remembered even where it did not answer: the listing says why, and asks
        # it again whenever the devices are listed.
        self._use(host)
        settings_store.save_hosts(self.settings, self.hosts)

    def _offer_install(self, host: Host, need: HostNeedsInstall) -> None:
        answer = QMessageBox.question(
            self.window,
            "Add host",
            f"Install {DISTRIBUTION} {__version__} on {host.label}?\n\n"
            f"{need.found}. This version's wheel goes there through the host's own command "
            f"({host.text}) into a virtual environment in ~/.cache/opencl-kernel-explorer; "
            f"the pip of {host.label} installs its dependencies (numpy, PyOpenCL, …) from the "
            "package index it uses.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.Yes,
        )
        if answer != QMessageBox.StandardButton.Yes:
            self.status.say(f"{host.label} was not added: {need.found}")
            return
        self.status.say(f"Installing {DISTRIBUTION} {__version__} on {host.label}…")
        installation = Installation(host)
        self._start(
            installation,
            lambda: self._install(host, installation),
            lambda outcome: self._installed(host, outcome),
        )

    def _install(self, host: Host, installation: Installation) -> Host | ExecutorError:
        """On the lane: install this version on ``host``, saying each line there; the host
        that starts the installed one, or why it was not installed."""
        try:
            return installation.run(
                lambda line: self._lane.post(self.status.say, f"{host.label}: {line}")
            )
        except ExecutorError as exc:
            return exc

    def _installed(self, host: Host, outcome: Host | ExecutorError) -> None:
        self._in_flight = None
        if self._closed:
            return
        if not isinstance(outcome, Host):
            self.status.say(f"{host.label} was not added: {outcome}")
            QMessageBox.warning(self.window, "Add host", f"{host.label} was not added: {outcome}")
            return
        self._use(outcome)
        settings_store.save_hosts(self.settings, self.hosts)

    def forget_host(self) -> None:
        """Stop using a host: its executor there ends and its devices leave the list."""
        if not self.hosts:
            self.status.say("No host to forget: Devices ▸ Add host… adds one")
            return
        names = [f"{h.label}  ({h.text})" for h in self.hosts]
        chosen, ok = QInputDialog.getItem(
            self.window, "Forget host", "Stop using this host's devices:", names, 0, False
        )
        if not ok or chosen not in names:
            return
        host = self.hosts.pop(names.index(chosen))
        self._connecting.discard(host.label)
        self.worker.remove_host(host.label)
        settings_store.save_hosts(self.settings, self.hosts)
        self.status.say(f"{host.label}'s devices are no longer used")

    def _host_from(self, text: str) -> Host:
        """``user@server``, or a command (it has spaces), named by the ``user@server`` word
        in it where there is one; a name already used gets a number."""
        if not any(c.isspace() for c in text):
            host = Host.parse(target=text)
        else:
            at = next((w for w in text.split() if "@" in w and not w.startswith("-")), "")
            host = Host.parse(target=at, command=text)
        taken = {h.label for h in self.hosts if h.text != host.text}
        label, n = host.label, 2
        while label in taken:
            label, n = f"{host.label}-{n}", n + 1
        return Host(label, host.command, host.text)

    def _use(self, *hosts: Host) -> None:
        labels = [h.label for h in hosts]
        self.hosts = [h for h in self.hosts if h.label not in labels] + list(hosts)
        self.status.say(f"Connecting to {', '.join(labels)}…")
        self._connecting.update(labels)
        self.worker.add_hosts(list(hosts))

    def _devices_came(self, devices: list[DeviceInfo], _default: object) -> None:
        """Say which host's devices joined the list (after the device chosen is said)."""
        for label in sorted(self._connecting):
            count = sum(d.host == label for d in devices)
            if count:
                self._connecting.discard(label)
                plural = "s" if count > 1 else ""
                self.status.say(f"{label}: {count} device{plural} added to the device list")

    def _unreachable(self, why: str) -> None:
        self._connecting.clear()
        self.status.say(f"A host's devices are missing: {why}")


ACTIONS = Actions(
    HostsController,
    Action(
        "add_host",
        "Add &host…",
        "D&evices",
        HostsController.add_host,
        tip="Use another machine's devices (a GPU server) through ssh; the window stays here",
    ),
    Action(
        "forget_host",
        "&Forget host…",
        "D&evices",
        HostsController.forget_host,
        tip="Stop using a host's devices (its executor there ends)",
    ),
)
