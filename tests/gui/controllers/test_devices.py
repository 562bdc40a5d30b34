"""The device controller with a fake worker and mocked views: no device, a device found, a
device restored from the settings, the roofline's ceilings."""

from __future__ import annotations

from explorer.engine.launch.devices import NO_PLATFORM_HELP
from explorer.gui.controllers.devices import DeviceController
from explorer.gui.model import ConfigModel
from tests.gui.controllers.fakes import FakeWorker, device, said, state, views


def _devices(model=None):
    v = views()
    worker = FakeWorker()
    controller = DeviceController(
        model or ConfigModel(), state(), worker, v.panel, v.result, v.roofline, v.status
    )
    return controller, worker, v


def test_no_device_is_explained_where_the_result_would_be():
    controller, worker, v = _devices()
    worker.devices_ready.emit([], None)
    assert controller.model.device is None
    assert said(v.status) == "No OpenCL device"
    title, text = v.result.show_message.call_args.args
    assert title == "No OpenCL device" and text == NO_PLATFORM_HELP
    assert "pip install pocl-binary-distribution" in text
    v.result.set_badge.assert_called_with("No OpenCL device: see below how to get one.")
    worker.devices_failed.emit("the executor died")
    assert v.result.show_message.call_args.args[1] == "the executor died"


def test_a_device_found_is_chosen_validated_measured_and_announced():
    controller, worker, v = _devices()
    controller.state.notice = "Settings reset to defaults"
    cpu = device()
    worker.devices_ready.emit([cpu], cpu.key)
    assert controller.model.device == cpu
    v.panel.validate.assert_called()
    assert worker.limits_asked == [cpu.key]
    v.roofline.set_limits.assert_called_with(None)  # the last device's ceilings leave
    v.result.set_device_type.assert_called_with("CPU")
    assert said(v.status) == f"Settings reset to defaults  ·  Device: {cpu.label}"
    limits = {"copy_gbps": 10.0, "fma_gflops": 100.0}
    worker.limits_ready.emit(limits)
    v.roofline.set_limits.assert_called_with(limits)


def test_the_cpu_notice_follows_a_device_restored_from_the_settings():
    model = ConfigModel()
    gpu = device("GPU", "NVIDIA CUDA")
    model.set_device(gpu.key)  # as the settings restore it, before any device is known
    controller, worker, v = _devices(model)
    v.result.set_device_type.reset_mock()
    worker.devices_ready.emit([gpu], device().key)  # the same key: no device_changed
    v.result.set_device_type.assert_called_with("GPU")
    assert controller.model.device == gpu
