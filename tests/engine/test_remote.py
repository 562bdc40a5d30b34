"""An executor on another machine, reached through a command (a local one here, over a real
pipe): its devices named with the host, the same results, a clear message where the explorer
is missing or another version, and no process left on either side whatever is stopped."""

from __future__ import annotations

import ntpath
import os
import posixpath
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from explorer import __version__
from explorer.engine import calls
from explorer.engine.header.catalog import find_variant, load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.engine.remote import client
from explorer.engine.remote.client import CommandExecutor
from explorer.engine.remote.hosts import Host
from explorer.engine.remote.install import HostNeedsInstall
from tests.conftest import TEST_KERNELS
from tests.engine.remote_helpers import (
    PYTHON,
    RELAY,
    SEARCH_PATH,
    SERVE,
    SERVE_URANDOM,
    alive,
    children,
    wait_for,
)


@pytest.fixture(scope="module")
def remote():
    with CommandExecutor(Host.parse("pipe", SERVE)) as executor:
        yield executor


def _on(device_key: str, variant=None, **changes) -> RunRequest:
    sizes = {"M": 32, "N": 32, "K": 32} if variant is None else {"WIDTH": 4, "HEIGHT": 4}
    return RunRequest(
        variant or find_variant("matmul", "tiled"),
        sizes,
        device_key=device_key,
        repeat=2,
        **changes,
    )


def _hang(device_key: str, **changes) -> RunRequest:
    return _on(device_key, load_variant_file(TEST_KERNELS / "hang.cl"), **changes)


def test_the_hosts_devices_are_named_with_it_and_run_as_here(remote, executor, device):
    here = executor.devices()
    there = remote.devices()
    assert [d.name for d in there] == [d.name for d in here]
    same = next(d for d in there if d.name == device.name and d.platform == device.platform)
    assert same.key == f"pipe/{device.key}" and same.label.startswith(f"pipe: {device.name} (")
    local, far = executor.run(_on(device.key)), remote.run(_on(same.key))
    assert far.status == local.status == "verified"
    assert far.device == f"pipe: {local.device}"
    assert len(far.timing.kernel_ms) == len(local.timing.kernel_ms) == 2
    assert (far.output == local.output).all()
    assert remote.facts["version"] == __version__


def test_a_long_transfer_tells_its_progress(monkeypatch):
    said: list[tuple[str, bool]] = []
    monkeypatch.setattr(client, "_SHOW_AFTER_S", 0.0)
    monkeypatch.setitem(calls._allowed, "posix:urandom", os.urandom)

    def progress(text: str, done: bool) -> None:
        said.append((text, done))

    with CommandExecutor(Host.parse("pipe", SERVE_URANDOM), progress=progress) as remote:
        data = remote.call(os.urandom, 3_000_000, what="random bytes")
    assert len(data) == 3_000_000
    text, finished = said[-1]
    assert finished and text.startswith("receiving random bytes from pipe: ")
    assert "of 3.0 MB compressed" in text


def test_another_version_there_says_what_to_install():
    older = (
        "env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 "
        f"PYTHONPATH={shlex.quote(SEARCH_PATH)} {PYTHON} -c "
        + shlex.quote(
            "import explorer; explorer.__version__ = '0.0.1'; "
            "from explorer.cli import main; main(['executor-serve'])"
        )
    )
    with CommandExecutor(Host.parse("old", older)) as executor, pytest.raises(Exception) as info:
        executor.devices()
    assert info.type is HostNeedsInstall
    message = str(info.value)
    assert "old runs the explorer 0.0.1" in message and f"this one is {__version__}" in message
    assert f"offers to install opencl-kernel-explorer {__version__} there" in message
    assert "on the command line --install does" in message


def test_an_explorer_without_executor_serve_there_says_what_to_install():
    older = f"env PYTHONPATH={shlex.quote(SEARCH_PATH)} {PYTHON} -c " + shlex.quote(
        "import explorer.cli as cli; "
        "cli.COMMANDS = tuple(c for c in cli.COMMANDS if c.name != 'executor-serve'); "
        "cli.main(['executor-serve'])"
    )
    with CommandExecutor(Host.parse("old", older)) as executor, pytest.raises(Exception) as info:
        executor.devices()
    assert info.type is HostNeedsInstall
    assert "old has an older OpenCL Kernel Explorer, without executor-serve" in str(info.value)
    assert f"offers to install opencl-kernel-explorer {__version__} there" in str(info.value)


def test_a_host_without_the_explorer_says_what_to_install(tmp_path):
    bare = f"{PYTHON} -I -S -m explorer executor-serve"  # no site-packages, no checkout
    host = Host("bare", tuple(shlex.split(bare)), bare)
    with CommandExecutor(host) as executor, pytest.raises(Exception) as info:
        executor.devices()
    assert info.type is HostNeedsInstall
    assert "bare has no OpenCL Kernel Explorer" in str(info.value)
    assert f"offers to install opencl-kernel-explorer {__version__} there" in str(info.value)


def _server_of(executor: CommandExecutor) -> int:
    process = executor._process
    assert process is not None
    return process.pid


def test_a_timeout_stops_the_far_end_and_the_next_run_connects_again(remote, device):
    key = f"pipe/{device.key}"
    assert remote.run(_on(key)).status == "verified"
    server = _server_of(remote)
    result = remote.run(_hang(key, timeout_s=2))
    assert result.status == "timeout" and "timed out after 2 s" in result.error
    assert wait_for(lambda: not alive(server))
    assert remote.run(_on(key)).status == "verified"


def test_cancel_stops_the_far_end_even_in_a_kernel_that_never_returns(remote, device):
    key = f"pipe/{device.key}"
    remote.devices()
    server = _server_of(remote)
    threading.Timer(1.0, remote.cancel).start()
    result = remote.run(_hang(key, timeout_s=60))
    assert (
        result.error_kind == "cancelled"
        and "cancelled while running transpose/hang" in result.error
    )
    assert wait_for(lambda: not alive(server))


def test_a_killed_far_end_is_reported_as_a_crash_naming_the_work(remote, device):
    key = f"pipe/{device.key}"
    remote.devices()
    server = _server_of(remote)
    threading.Timer(1.0, os.kill, (server, signal.SIGKILL)).start()
    result = remote.run(_hang(key, timeout_s=60))
    assert result.status == "crashed"
    assert "the executor on pipe stopped (signal 9, SIGKILL) while running transpose/hang" in (
        result.error
    )
    assert "the next action connects again" in result.error
    assert remote.run(_on(key)).status == "verified"


def test_a_dropped_connection_ends_the_far_end_and_is_reported(device):
    """The relay stands for ssh: killing it drops the connection mid-kernel."""
    with CommandExecutor(Host.parse("relayed", RELAY)) as executor:
        key = f"relayed/{device.key}"
        executor.devices()
        relay = _server_of(executor)
        (server,) = children(relay)
        threading.Timer(1.0, os.kill, (relay, signal.SIGKILL)).start()
        result = executor.run(_hang(key, timeout_s=60))
        assert result.status == "crashed" and "while running transpose/hang" in result.error
        assert wait_for(lambda: not alive(server))
        assert executor.run(_on(key)).status == "verified"


def test_a_killed_client_leaves_no_executor_on_the_far_end(device):
    command = [sys.executable, "-m", "explorer", "run", "--kernel-file"]
    command += [str(TEST_KERNELS / "hang.cl"), "--width", "4", "--height", "4"]
    command += ["--timeout", "60", "--executor-command", SERVE, "--device", device.key]
    env = {**os.environ, "PYTHONPATH": SEARCH_PATH}
    client_process = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
    try:
        assert wait_for(lambda: bool(children(client_process.pid)), 30)
        (server,) = children(client_process.pid)
        # The OpenCL runtime's threads there: the kernel has been handed to the device.
        assert wait_for(lambda: len(os.listdir(f"/proc/{server}/task")) > 2, 30)
        client_process.kill()
        client_process.wait()
        assert wait_for(lambda: not alive(server))
    finally:
        client_process.kill()
        client_process.wait()


DOUBLE_FROM_FILE = """/*---
name = "Doubles a file's numbers"
family = "custom"
kernel = "double_it"
global = ["N"]
local = ["32"]
[sizes]
N = 64
[args.data]
buffer = "float"
count = "N"
contents = "npy"
file = "numbers.npy"
result = true
[reference]
expected = { data = "doubled.npy" }
---*/
__kernel void double_it(__global float* data)
{
    data[get_global_id(0)] *= 2.0f;
}
"""


def test_the_files_a_run_reads_travel_with_it_and_go_with_the_executor(remote, device, tmp_path):
    import numpy as np
    from PIL import Image

    numbers = np.arange(64, dtype=np.float32)
    np.save(tmp_path / "numbers.npy", numbers)
    np.save(tmp_path / "doubled.npy", numbers * 2)
    (tmp_path / "double.cl").write_text(DOUBLE_FROM_FILE)
    picture = tmp_path / "picture.png"
    Image.fromarray((np.arange(32 * 32) % 251).astype(np.uint8).reshape(32, 32)).save(picture)
    key = f"pipe/{device.key}"
    custom = RunRequest(load_variant_file(tmp_path / "double.cl"), {"N": 64}, device_key=key)
    image = _on(key, input="image", image_path=str(picture))
    assert remote.run(custom).status == "verified"
    assert remote.run(image).status == "verified"
    server = _server_of(remote)
    kept = Path(tempfile.gettempdir()) / f"opencl-explorer-files-{server}"
    names = {p.name for p in kept.rglob("*") if p.is_file()}
    assert names == {"numbers.npy", "doubled.npy", "picture.png"}  # copies there, once each
    remote.close()
    assert wait_for(lambda: not kept.exists())


INCLUDING = """/*---
name = "offset"
family = "custom"
kernel = "offset"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.x]
buffer = "float"
count = "N"
access = "read"
[args.y]
buffer = "float"
count = "N"
contents = "zeros"
access = "write"
result = true
[reference]
numpy = "2 * x + 5"
[options]
all = "-I shared"
---*/
#include "ops.h"
__kernel void offset(__global const float *x, __global float *y)
{
    int i = get_global_id(0);
    y[i] = twice(x[i]) + FIVE;
}
"""


def test_a_kernels_headers_travel_with_it_keeping_their_places(remote, device, tmp_path):
    """ops.h (in the -I folder) includes "detail/five.h" beside itself, which includes
    "../../config.h" from the kernel's own folder: each is found there as it is here."""
    folder = tmp_path / "mine"
    (folder / "shared" / "detail").mkdir(parents=True)
    (folder / "shared" / "ops.h").write_text(
        '#include "detail/five.h"\ninline float twice(float v) { return 2.0f * v; }\n'
    )
    (folder / "shared" / "detail" / "five.h").write_text('#include "../../config.h"\n')
    (folder / "config.h").write_text("#define FIVE 5.0f\n")
    path = folder / "offset.cl"
    path.write_text(INCLUDING)
    variant = load_variant_file(path)
    request = RunRequest(variant, {}, device_key=f"pipe/{device.key}", repeat=1)
    assert remote.run(request).status == "verified"
    traced = remote.trace(TraceRequest(request))
    assert traced.result.status == "verified"
    line = next(i + 1 for i, t in enumerate(INCLUDING.splitlines()) if "y[i] =" in t)
    assert {s.line for s in traced.analysis.sites} == {line}
    assert not [f for f in traced.analysis.findings if f.kind == "not-traced"]
    server = _server_of(remote)
    kept = Path(tempfile.gettempdir()) / f"opencl-explorer-files-{server}"
    copies = {p.relative_to(kept).as_posix() for p in kept.rglob("*.h")}
    here = {p.resolve().as_posix().lstrip("/") for p in folder.rglob("*.h")}
    assert copies >= here  # each header at its place, under the host's own folder
    # The build there reads the copies, not this machine's files: a header changed here
    # behind the executor's back (the same size and time, so it is not sent again) leaves
    # the host's build as it was.
    config = folder / "config.h"
    stamp = config.stat()
    config.write_text("#define FIVE 6.0f\n")
    os.utime(config, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert remote.run(request).status == "verified"


def test_a_header_that_cannot_be_read_here_is_a_failed_run_naming_it(
    remote, device, tmp_path, monkeypatch
):
    """A header the build reads that this machine cannot read (its permissions) is not sent:
    the run fails saying which file, as a run here fails to build, and the next run goes on."""
    folder = tmp_path / "mine"
    (folder / "shared" / "detail").mkdir(parents=True)
    (folder / "shared" / "ops.h").write_text(
        '#include "detail/five.h"\ninline float twice(float v) { return 2.0f * v; }\n'
    )
    (folder / "shared" / "detail" / "five.h").write_text("#define FIVE 5.0f\n")
    path = folder / "offset.cl"
    path.write_text(INCLUDING)
    request = RunRequest(load_variant_file(path), {}, device_key=f"pipe/{device.key}", repeat=1)
    unreadable = str(folder / "shared" / "detail" / "five.h")

    class Guarded(type(Path())):
        def read_bytes(self):
            if str(self) == unreadable:
                raise PermissionError(13, "Permission denied", str(self))
            return super().read_bytes()

    monkeypatch.setattr(client, "Path", Guarded)
    result = remote.run(request)
    assert result.status == "error" and unreadable in result.error
    assert "Permission denied" in result.error
    monkeypatch.undo()
    assert remote.run(request).status == "verified"


@pytest.mark.parametrize(
    ("here", "there", "root"),
    [
        (ntpath, posixpath, "/tmp/opencl-explorer-files-7"),  # a window on Windows
        (posixpath, ntpath, "C:\\Temp\\opencl-explorer-files-7"),  # a host on Windows
    ],
)
def test_the_include_folder_names_the_hosts_copies_whichever_system_each_end_runs(
    monkeypatch, here, there, root
):
    """The host keeps a header at its path from the window under a folder of its own; the
    build there gets the -I folder where that copy is, however either system spells paths."""
    from types import SimpleNamespace

    from explorer.engine.build_inputs import include_dirs
    from explorer.engine.remote import files

    window_folder = "C:\\Users\\me\\kernels" if here is ntpath else "/home/me/kernels"
    header = here.join(window_folder, "scale.h")
    monkeypatch.setattr(files, "os", SimpleNamespace(path=there))
    where = {header: files.kept_at(root, header)}  # as the host answers
    monkeypatch.setattr(files, "os", SimpleNamespace(path=here))
    variant = find_variant("matmul", "naive")
    request = RunRequest(replace(variant, build_options=(f"-I{window_folder}",)), {})
    (folder,) = include_dirs(files.moved(request, where).variant.build_options)
    assert where[header].replace("\\", "/") == folder.replace("\\", "/") + "/scale.h"


def test_a_files_copy_stays_inside_the_hosts_folder():
    from explorer.engine.remote.files import kept_at

    for path in ("C:\\k\\..\\..\\..\\etc\\x.h", "/k/../../etc/x.h", "../../x.h"):
        assert kept_at("/tmp/kept", path).startswith("/tmp/kept/")
        assert ".." not in kept_at("/tmp/kept", path).split("/")


def test_a_runtime_crash_there_is_named_and_the_next_run_connects_again(remote, device):
    key = f"pipe/{device.key}"
    crash = load_variant_file(TEST_KERNELS / "crash.cl")
    result = remote.run(RunRequest(crash, {"WIDTH": 64, "HEIGHT": 1}, device_key=key))
    assert result.status == "crashed"
    assert "the executor on pipe stopped (signal 11, SIGSEGV) while running transpose/crash" in (
        result.error
    )
    assert remote.run(_on(key)).status == "verified"
