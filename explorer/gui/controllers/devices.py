"""Devices: the list the worker found (or why there is none), the device chosen (the one the
settings remember by name, else the default, which is never Oclgrind), and what follows it:
the roofline's ceilings and the CPU notice on the result."""

from __future__ import annotations

from explorer.engine.launch.device_names import DeviceName, remembered_device
from explorer.engine.launch.devices import NO_PLATFORM_HELP
from explorer.engine.records import DeviceInfo
from explorer.gui.controllers.roles import (
    ConfigCheck,
    ResultShower,
    RooflineShower,
    StatusLine,
    Worker,
)
from explorer.gui.model import ConfigModel
from explorer.gui.state import AppState


class DeviceController:
    """Gives the model the devices the worker found and measures the chosen one's limits."""

    def __init__(
        self,
        model: ConfigModel,
        state: AppState,
        worker: Worker,
        panel: ConfigCheck,
        result: ResultShower,
        roofline: RooflineShower,
        status: StatusLine,
    ) -> None:
        self.model = model
        self.state = state
        self.worker = worker
        self.panel = panel
        self.result = result
        self.roofline = roofline
        self.status = status
        self.remembered: DeviceName | None = None
        # The device standing in for a remembered host's while that host's are not listed yet.
        self._stand_in: str | None = None
        worker.devices_ready.connect(self.devices_ready)
        worker.devices_failed.connect(self.devices_failed)
        worker.limits_ready.connect(roofline.set_limits)
        model.device_changed.connect(self._device_changed)
        # A device restored from the settings is chosen before the devices are known, and
        # stays chosen when they arrive (no device_changed): the notice follows both.
        model.devices_changed.connect(self._show_device_type)
        model.family_changed.connect(self._show_device_type)  # the notice is matmul's

    def remember(self, name: DeviceName | None) -> None:
        """The device to choose once the devices are known (the settings')."""
        self.remembered = name

    def devices_ready(self, devices: list[DeviceInfo], default_key: str | None) -> None:
        """The remembered device when it is here, else the default with a notice; a
        session opened meanwhile chooses its own (see the session controller)."""
        if not devices:
            self.devices_failed(NO_PLATFORM_HELP)
            return
        chosen = None
        if self.remembered is not None:
            found, gone = remembered_device(devices, self.remembered)
            default_key = found.key
            host = self.remembered.host
            waiting = bool(gone and host and not any(d.host == host for d in devices))
            if gone and not waiting:
                old = self.state.notice
                self.state.notice = f"{old}  ·  {gone}" if old else gone
            if not gone and self.model.device_key == self._stand_in:
                chosen = found.key  # the host answered: its device replaces the stand-in
            self._stand_in = found.key if waiting else None
        self.model.set_devices(devices, default_key)
        if chosen is not None:
            self.model.set_device(chosen)
        self.panel.validate()
        device = self.model.device
        message = f"Device: {device.label if device else '?'}"
        notice = self.state.notice
        self.status.say(f"{notice}  ·  {message}" if notice else message)

    def devices_failed(self, message: str) -> None:
        self.status.say("No OpenCL device")
        self.result.show_message("No OpenCL device", message)
        self.result.set_badge("No OpenCL device: see below how to get one.")

    def _device_changed(self) -> None:
        self.roofline.set_limits(None)
        if self.model.device is not None:
            self.worker.measure_limits(self.model.device_key)
        self._show_device_type()

    def _show_device_type(self) -> None:
        """On a CPU device, the result says in one line why the tiled matmul ladder gains
        little there; not on other kernels, whose lesson it is not."""
        device = self.model.device
        ladder = self.model.family == "matmul"
        self.result.set_device_type(device.type if device is not None and ladder else None)
