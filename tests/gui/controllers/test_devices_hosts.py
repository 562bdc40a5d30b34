"""A device remembered on a host: this machine's devices come first (a host answers later),
so the default stands in, without a notice, until the host's devices arrive and the
remembered one is chosen; a device picked meanwhile stays; a host that answered without it
gives the notice."""

from __future__ import annotations

from dataclasses import replace

from explorer.engine.launch.device_names import DeviceName
from explorer.gui.controllers.devices import DeviceController
from explorer.gui.model import ConfigModel
from tests.gui.controllers.fakes import FakeWorker, device, said, state, views

HERE = device("CPU")
GPU_HERE = device("GPU", "NVIDIA CUDA", index=1)
FAR = replace(device("GPU", "NVIDIA CUDA"), name="NVIDIA H100", host="gpu-server")


def _controller(monkeypatch):
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    v = views()
    worker = FakeWorker()
    controller = DeviceController(
        ConfigModel(), state(), worker, v.panel, v.result, v.roofline, v.status
    )
    controller.remember(DeviceName.of(FAR))
    return controller, worker, v


def test_the_remembered_hosts_device_is_chosen_when_the_host_answers(monkeypatch):
    controller, worker, v = _controller(monkeypatch)
    worker.devices_ready.emit([HERE], HERE.key)
    assert controller.model.device == HERE
    assert controller.state.notice is None and said(v.status) == f"Device: {HERE.label}"
    worker.devices_ready.emit([HERE, FAR], HERE.key)
    assert controller.model.device == FAR
    assert FAR.label.startswith("gpu-server: NVIDIA H100 (GPU")


def test_a_device_picked_meanwhile_stays(monkeypatch):
    controller, worker, _ = _controller(monkeypatch)
    worker.devices_ready.emit([HERE, GPU_HERE], GPU_HERE.key)
    controller.model.set_device(HERE.key)  # the person's choice, not the stand-in
    worker.devices_ready.emit([HERE, GPU_HERE, FAR], GPU_HERE.key)
    assert controller.model.device == HERE


def test_a_host_without_the_remembered_device_gives_the_notice(monkeypatch):
    controller, worker, v = _controller(monkeypatch)
    other = replace(FAR, name="NVIDIA A100")
    worker.devices_ready.emit([HERE, other], HERE.key)
    assert controller.model.device == other  # the default device: a GPU before a CPU
    assert "NVIDIA H100" in said(v.status) and "among gpu-server's devices" in said(v.status)
