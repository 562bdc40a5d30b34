"""Through a real ``sshd`` on 127.0.0.1 (its own throwaway keys and configuration, on a free
port): the host's devices, a verified run, and a dropped connection that ends the executor on
the far side. Skipped, with the reason, where sshd cannot be started here."""

from __future__ import annotations

import getpass
import os
import shlex
import shutil
import signal
import socket
import subprocess
import threading
import uuid
from pathlib import Path

import pytest

from explorer.engine.remote.client import CommandExecutor
from explorer.engine.remote.hosts import Host
from tests.engine.remote_helpers import PYTHON, SEARCH_PATH, alive, wait_for
from tests.engine.test_remote import _hang, _on


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _keys(folder: Path) -> None:
    for name in ("host_key", "user_key"):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(folder / name)], check=True
        )
    (folder / "authorized_keys").write_text((folder / "user_key.pub").read_text())
    for path in folder.iterdir():
        path.chmod(0o600)


def _config(folder: Path, port: int) -> Path:
    config = folder / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {folder / 'host_key'}\n"
        f"AuthorizedKeysFile {folder / 'authorized_keys'}\nPidFile {folder / 'sshd.pid'}\n"
        "StrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
        "PubkeyAuthentication yes\nPermitRootLogin prohibit-password\nLogLevel ERROR\n"
    )
    return config


@pytest.fixture(scope="module")
def ssh_target(tmp_path_factory):
    """``(ssh words, mark)``: the ssh command reaching this machine's own sshd, and a mark
    the executor started through it carries in its environment."""
    sshd = shutil.which("sshd") or ("/usr/sbin/sshd" if os.path.exists("/usr/sbin/sshd") else "")
    if not sshd or not shutil.which("ssh") or not shutil.which("ssh-keygen"):
        pytest.skip("sshd, ssh or ssh-keygen is not installed (openssh-server, openssh-client)")
    folder = tmp_path_factory.mktemp("sshd")
    _keys(folder)
    port = _free_port()
    server = subprocess.Popen(
        [sshd, "-D", "-e", "-f", str(_config(folder, port))],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    ssh = ["ssh", "-F", "/dev/null", "-T", "-p", str(port), "-i", str(folder / "user_key")]
    ssh += ["-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o", "IdentitiesOnly=yes"]
    ssh += ["-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"]
    ssh += [f"{getpass.getuser()}@127.0.0.1"]
    try:
        reached = wait_for(lambda: _answers(ssh) or server.poll() is not None, 15)
        if server.poll() is not None or not reached:
            server.kill()
            why = (server.communicate(timeout=5)[1] or "no answer").strip().splitlines()
            pytest.skip(f"sshd could not be started here: {why[-1] if why else 'no answer'}")
        yield ssh, uuid.uuid4().hex
    finally:
        server.kill()
        server.communicate(timeout=10)


def _answers(ssh: list[str]) -> bool:
    done = subprocess.run([*ssh, "true"], capture_output=True, timeout=20, check=False)
    return done.returncode == 0


def _host(ssh: list[str], mark: str) -> Host:
    far = f"env EXPLORER_TEST_MARK={mark} PYTHONPATH={shlex.quote(SEARCH_PATH)}"
    command = shlex.join(ssh) + f" {far} {PYTHON} -m explorer executor-serve"
    return Host.parse(ssh[-1], command)


def _marked(mark: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and mark.encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return [pid for pid in found if alive(pid)]


def test_a_host_through_sshd_runs_and_a_dropped_connection_ends_its_executor(ssh_target, device):
    ssh, mark = ssh_target
    with CommandExecutor(_host(ssh, mark)) as executor:
        devices = executor.devices()
        assert any(d.label.startswith(f"127.0.0.1: {device.name}") for d in devices)
        key = f"127.0.0.1/{device.key}"
        assert executor.run(_on(key)).status == "verified"
        (server,) = _marked(mark)
        transport = executor._process
        assert transport is not None
        threading.Timer(1.0, os.kill, (transport.pid, signal.SIGKILL)).start()
        result = executor.run(_hang(key, timeout_s=60))
        assert result.status == "crashed" and "while running transpose/hang" in result.error
        assert wait_for(lambda: not alive(server))
        assert executor.run(_on(key)).status == "verified"  # connected again
    assert wait_for(lambda: not _marked(mark))
