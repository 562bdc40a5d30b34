"""A session names the host of its device: saved on a host's device, it opens on that host's
device again, never on this machine's device of the same name; without the host's devices it
runs on the default device and says which host is missing."""

from __future__ import annotations

from dataclasses import replace

from explorer.engine.header.catalog import find_variant
from explorer.engine.records import RunRequest
from explorer.session import load_session, save_session, session_from_request, session_to_request
from tests.test_session_devices import _device

GPU = _device("NVIDIA H100 80GB HBM3", "NVIDIA CUDA", "GPU", 0)
FAR_GPU = replace(GPU, host="gpu-server")
CPU = _device("pthread-EPYC", "Portable Computing Language", "CPU", 0)


def _saved(tmp_path):
    request = RunRequest(find_variant("matmul", "tiled"), {"M": 64, "N": 64, "K": 64})
    path = tmp_path / "lesson.kexp.json"
    save_session(session_from_request(request, FAR_GPU), path)
    return path


def test_a_session_on_a_hosts_device_opens_on_it_again(tmp_path):
    path = _saved(tmp_path)
    assert '"host": "gpu-server"' in path.read_text()
    request, notice = session_to_request(load_session(path), [GPU, FAR_GPU])
    assert request.device_key == "gpu-server/0:0" and notice is None


def test_without_the_host_it_runs_here_and_names_the_missing_host(tmp_path):
    request, notice = session_to_request(load_session(_saved(tmp_path)), [CPU, GPU])
    assert request.device_key == GPU.key  # the default device, this machine's GPU
    assert notice is not None
    assert "NVIDIA H100 80GB HBM3" in notice and "among gpu-server's devices" in notice
