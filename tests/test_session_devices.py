"""A session's device is found by name and platform wherever the platforms now stand: an
Oclgrind installed since takes no one's place, a device that is gone gives the default device
with a notice, and sessions of older versions (a name, a ``platform:device`` position) still
open."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from explorer.engine.launch.device_names import DeviceName, find_device, remembered_device
from explorer.engine.records import DeviceInfo
from explorer.session import (
    Session,
    SessionError,
    load_session,
    save_session,
    session_to_request,
)


def _device(name: str, platform: str, kind: str, p: int, d: int = 0) -> DeviceInfo:
    return DeviceInfo(
        platform_index=p,
        device_index=d,
        name=name,
        vendor="test",
        platform=platform,
        type=kind,
        opencl_version="OpenCL 3.0",
        driver_version="1",
        compute_units=8,
        max_work_group_size=1024,
        max_work_item_sizes=(1024, 1024, 1024),
        local_mem_bytes=65536,
        global_mem_bytes=2**32,
        max_alloc_bytes=2**30,
        clock_mhz=1000,
        preferred_multiple=32,
    )


POCL = _device("pthread-EPYC", "Portable Computing Language", "CPU", 0)
BEFORE = [POCL]  # the quick start's first command: PoCL alone
OCLGRIND = _device("Oclgrind Simulator", "Oclgrind", "ACCELERATOR | CPU | GPU", 0)
AFTER = [OCLGRIND, replace(POCL, platform_index=1)]  # the test extras put Oclgrind first


@pytest.fixture(autouse=True)
def _no_context_variable(monkeypatch):
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)


def _saved(tmp_path, device: object) -> Session:
    path = tmp_path / "s.kexp.json"
    save_session(Session(family="matmul", variant="tiled", sizes={"M": 32, "N": 32, "K": 32}), path)
    data = json.loads(path.read_text())
    data["device"] = device
    path.write_text(json.dumps(data))
    return load_session(path)


def test_a_session_saved_before_oclgrind_came_runs_on_the_same_device_after(tmp_path):
    saved = DeviceName.of(BEFORE[0])
    session = _saved(tmp_path, saved.to_json())
    assert session.device == DeviceName("pthread-EPYC", "Portable Computing Language", "0:0")
    request, notice = session_to_request(session, AFTER)
    assert request.device_key == "1:0" and notice is None


def test_a_session_of_an_older_version_by_name_or_position_still_opens(tmp_path):
    by_name = _saved(tmp_path, "pthread-EPYC")
    assert session_to_request(by_name, AFTER)[0].device_key == "1:0"
    # "0:0" was PoCL when it was saved; it is Oclgrind now, which only a name can choose.
    by_position = _saved(tmp_path, "0:0")
    request, notice = session_to_request(by_position, AFTER)
    assert request.device_key == "1:0"
    assert notice is not None and "Oclgrind" in notice and "pthread-EPYC" in notice
    assert session_to_request(by_position, BEFORE) == (
        replace(request, device_key="0:0"),
        None,
    )


def test_a_session_whose_device_is_gone_runs_on_the_default_with_a_notice(tmp_path):
    session = _saved(tmp_path, {"name": "H100", "platform": "NVIDIA CUDA", "index": "0:0"})
    request, notice = session_to_request(session, AFTER)
    assert request.device_key == "1:0"  # the default: the CPU, never the simulator
    assert notice == (
        "The session's device H100 (NVIDIA CUDA) is not on this machine; running on "
        "pthread-EPYC (CPU, Portable Computing Language) instead."
    )


def test_oclgrind_is_used_when_a_session_names_it():
    session = Session(family="matmul", variant="tiled", device=DeviceName.of(OCLGRIND))
    assert session_to_request(session, AFTER)[0].device_key == "0:0"


@pytest.mark.parametrize("bad", [1, ["pthread-EPYC"], {"name": ""}, {"name": "x", "kind": "y"}])
def test_a_device_field_of_another_shape_is_refused_naming_it(tmp_path, bad):
    path = tmp_path / "s.kexp.json"
    save_session(Session(family="matmul", variant="tiled"), path)
    data = json.loads(path.read_text())
    data["device"] = bad
    path.write_text(json.dumps(data))
    with pytest.raises(SessionError, match="device"):
        load_session(path)


def test_two_identical_devices_are_told_apart_by_their_index():
    twins = [_device("A100", "NVIDIA CUDA", "GPU", 0, d) for d in range(2)]
    assert find_device(twins, DeviceName("A100", "NVIDIA CUDA", "0:1")) == twins[1]
    assert find_device(twins, DeviceName("A100", "NVIDIA CUDA", "3:0")) == twins[0]  # moved
    assert find_device(twins, DeviceName("A100", "AMD APP", "0:1")) is None  # another platform
    assert remembered_device(twins, None) == (twins[0], None)
