"""A device remembered by its name, so that settings and sessions find it again after the
platforms have changed order (a newly installed Oclgrind can become platform 0).

A device is remembered as its name and its platform's name, and its host's where it is
another machine's; its ``platform:device`` position is kept only to tell two identical devices
apart. An older file that remembered a position
alone is still read: the device now at that position is used, unless it is a simulator
(Oclgrind is used only when asked for by name).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from explorer.engine.launch.devices import default_device, is_simulator
from explorer.engine.records import DeviceInfo
from explorer.paths import shown

_POSITION = re.compile(r"\d+:\d+")


@dataclass(frozen=True)
class DeviceName:
    """How a device is remembered: ``name`` and ``platform`` ("" where an older file gave
    none), ``index`` (``platform:device``) only as a tie-break between identical devices,
    ``host`` the machine it is on ("" for the one the window runs on)."""

    name: str
    platform: str = ""
    index: str = ""
    host: str = ""

    @classmethod
    def of(cls, device: DeviceInfo) -> DeviceName:
        return cls(device.name, device.platform, device.key, device.host)

    @property
    def label(self) -> str:
        """As a person reads it: ``host: name (platform)``, or the position an older file
        gave."""
        if not self.name:
            return f"at position {self.index}"
        name = f"{self.host}: {self.name}" if self.host else self.name
        return f"{name} ({self.platform})" if self.platform else name

    def to_json(self) -> dict[str, str]:
        named = {"name": self.name, "platform": self.platform, "index": self.index}
        return {**named, "host": self.host} if self.host else named

    @classmethod
    def from_json(cls, value: Any) -> DeviceName | None:
        """From what a file holds: ``{"name", "platform", "index"}``, a device name, or an
        older file's ``platform:device`` position; None for nothing. ``ValueError`` for
        anything else."""
        if value is None or value == "":
            return None
        if isinstance(value, str):
            text = value.strip()
            return cls("", "", text) if _POSITION.fullmatch(text) else cls(text)
        fields = ("name", "platform", "index", "host")
        if isinstance(value, dict) and set(value) <= set(fields):
            parts = [value.get(k, "") for k in fields]
            if all(isinstance(p, str) for p in parts) and parts[0].strip():
                return cls(*(p.strip() for p in parts))
        raise ValueError(
            'a device name (a string) or {"name": …, "platform": …, "index": …, "host": …} '
            f"expected, not {shown(repr(value))}"
        )


def find_device(devices: Sequence[DeviceInfo], wanted: DeviceName) -> DeviceInfo | None:
    """The device ``wanted`` names, or None when it is not among ``devices``."""
    if wanted.name:
        same = [
            d
            for d in devices
            if d.name == wanted.name
            and d.host == wanted.host
            and (not wanted.platform or d.platform == wanted.platform)
        ]
        return next((d for d in same if d.key == wanted.index), same[0] if same else None)
    at = next((d for d in devices if d.key == wanted.index and not d.host), None)
    return None if at is None or is_simulator(at) else at


def remembered_device(
    devices: Sequence[DeviceInfo], wanted: DeviceName | None, whose: str = "remembered"
) -> tuple[DeviceInfo, str | None]:
    """The device ``wanted`` names, else the default device with a notice saying why.
    ``NoDeviceError`` when there is no device at all."""
    default = default_device(list(devices))
    if wanted is None:
        return default, None
    found = find_device(devices, wanted)
    if found is not None:
        return found, None
    if not wanted.name:
        now = next((d for d in devices if d.key == wanted.index), None)
        if now is not None:  # a simulator took the position an older file remembered
            return default, (
                f"The {whose} device at position {wanted.index} is now {now.label}, a "
                f"simulator; running on {default.label} instead."
            )
    where = (
        f"among {shown(wanted.host)}'s devices (add that host, or pass --host)"
        if wanted.host
        else "on this machine"
    )
    return default, (
        f"The {whose} device {shown(wanted.label)} is not {where}; running on {default.label} "
        "instead."
    )
