"""The window remembers its device by name: installing another platform (Oclgrind, with the
test extras) moves the devices' positions but not the window's choice; a device that is gone
gives the default device with a notice in the status bar; Oclgrind is never the default."""

from __future__ import annotations

import json
from dataclasses import replace

from explorer.engine.launch.device_names import DeviceName
from explorer.engine.launch.devices import is_simulator
from explorer.gui import settings as settings_store
from explorer.gui.controllers.devices import DeviceController
from explorer.gui.model import ConfigModel
from tests.gui.controllers.fakes import FakeWorker, device, said, state, views

POCL = device("CPU", "Portable Computing Language", index=0)
OCLGRIND = replace(
    device("ACCELERATOR | CPU | GPU", "Oclgrind", index=0), name="Oclgrind Simulator"
)
# The quick start's second command installs Oclgrind, which becomes platform 0.
AFTER_EXTRAS = [OCLGRIND, replace(POCL, platform_index=1)]


def _found(remembered, devices, monkeypatch):
    """The device the controller chooses when ``devices`` arrive, and the status line."""
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    v = views()
    worker = FakeWorker()
    controller = DeviceController(
        ConfigModel(), state(), worker, v.panel, v.result, v.roofline, v.status
    )
    controller.remember(remembered)
    default = next(d for d in devices if not is_simulator(d))
    worker.devices_ready.emit(devices, default.key)
    return controller.model.device, said(v.status)


def test_a_device_that_moved_to_another_position_is_chosen_again(monkeypatch):
    chosen, status = _found(DeviceName.of(POCL), AFTER_EXTRAS, monkeypatch)
    assert chosen == AFTER_EXTRAS[1]
    assert status == f"Device: {chosen.label}"


def test_oclgrind_remembered_by_name_is_chosen_but_never_by_position(monkeypatch):
    chosen, _ = _found(DeviceName.of(OCLGRIND), AFTER_EXTRAS, monkeypatch)
    assert chosen == OCLGRIND
    # an older version's settings said "0:0", which was PoCL before the extras came
    chosen, status = _found(DeviceName.from_json("0:0"), AFTER_EXTRAS, monkeypatch)
    assert chosen == AFTER_EXTRAS[1]
    assert "Oclgrind" in status and "simulator" in status and POCL.name in status


def test_a_gone_device_gives_the_default_with_a_notice(monkeypatch):
    gone = DeviceName("Radeon RX 7900", "AMD Accelerated Parallel Processing", "0:0")
    chosen, status = _found(gone, AFTER_EXTRAS, monkeypatch)
    assert chosen == AFTER_EXTRAS[1]
    assert status.startswith(
        "The remembered device Radeon RX 7900 (AMD Accelerated Parallel Processing) is not "
        "on this machine; running on"
    )
    assert status.endswith(f"Device: {chosen.label}")


def test_the_settings_keep_the_device_by_name_and_platform(window, settings):
    chosen = window.model.device
    settings_store.save(settings, window.model)
    assert json.loads(settings.value("device")) == {
        "name": chosen.name,
        "platform": chosen.platform,
        "index": chosen.key,
    }


def _window_on(qtbot, settings, remembered: dict[str, str]):
    from explorer.gui.main_window import MainWindow

    settings.setValue("device", json.dumps(remembered))
    w = MainWindow(settings=settings)
    qtbot.addWidget(w)
    qtbot.waitUntil(lambda: w.model.device is not None, timeout=60000)
    return w


def test_a_settings_file_naming_a_device_at_its_old_position_opens_on_it(
    qtbot, settings, kept_executor
):
    devices = kept_executor.devices()
    wanted = devices[-1]
    moved = f"{wanted.platform_index + 3}:{wanted.device_index}"
    w = _window_on(
        qtbot, settings, {"name": wanted.name, "platform": wanted.platform, "index": moved}
    )
    assert w.model.device == wanted
    assert w.views.panel.device_combo.currentData() == wanted.key
    w.close()


def test_a_settings_file_naming_a_gone_device_opens_on_the_default_and_says_so(
    qtbot, settings, kept_executor, monkeypatch
):
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    w = _window_on(
        qtbot, settings, {"name": "GeForce 256", "platform": "NVIDIA CUDA", "index": "0:0"}
    )
    assert not is_simulator(w.model.device)
    message = w.statusBar().currentMessage()
    assert "GeForce 256 (NVIDIA CUDA) is not on this machine" in message
    assert w.model.device.label in message
    w.close()
