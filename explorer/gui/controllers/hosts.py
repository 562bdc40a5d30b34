"""Other machines' devices: Devices ▸ Add host… asks for ``user@server`` (reached with ssh)
or a whole command that starts the explorer's executor there; the host is remembered in the
settings and connected to again at the next start, and its devices join the device list as
``server: NVIDIA H100 …``. Work on one of them runs on that machine; the window stays here."""

from __future__ import annotations

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QInputDialog, QLineEdit, QMessageBox, QWidget

from explorer.engine.records import DeviceInfo
from explorer.engine.remote.hosts import Host
from explorer.gui import settings as settings_store
from explorer.gui.actions import Action, Actions
from explorer.gui.controllers.roles import StatusLine, Worker

ASK = (
    "user@server: its devices are used through ssh (the explorer must be installed there).\n"
    "Or a whole command that starts the executor there, e.g.\n"
    "ssh -p 2222 me@gpu ~/venv/bin/python -m explorer executor-serve"
)


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
        """Ask for a host and use its devices."""
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
        self._use(host)
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
