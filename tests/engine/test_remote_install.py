"""A host without the explorer gets this very version installed through its own command: the
wheel of the running code (the same files setuptools would pack, and one that installs and
packs itself again once installed), sent over ``ssh`` (a stand-in that runs the far end's
shell here, in a home of its own, with a Python that does not see this checkout) into a
virtual environment in the host's cache folder, after which the host's command starts it.

The stand-in host's pip finds the dependencies already there (this environment's
site-packages, without the explorer, on its PYTHONPATH) and never reaches a package index
(``PIP_NO_INDEX``), as a host configured with its own index would resolve them there.
"""

from __future__ import annotations

import getpass
import importlib.metadata
import os
import shlex
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from explorer import __version__
from explorer.engine.remote.client import CommandExecutor
from explorer.engine.remote.hosts import Host
from explorer.engine.remote.install import HostNeedsInstall, Installation, InstallError
from explorer.engine.remote.wheel import running_wheel
from tests.engine.remote_helpers import ROOT
from tests.install.conftest import setuptools_wheel
from tests.robustness.helpers import cli

# Never in a wheel of the explorer's, nor needed from the stand-in host's PYTHONPATH.
_LEFT_OUT = ("explorer", "opencl_kernel_explorer", "pip", "setuptools", "pkg_resources")


@dataclass(frozen=True)
class FakeHost:
    """A machine reached through a command, on this one: its own home, a Python without
    the explorer, the dependencies on its PYTHONPATH, no package index."""

    home: Path
    bin: Path  # holds ``ssh``: put first on PATH, ``--host me@fakehost`` reaches the host
    env: tuple[str, ...]  # ``env -i …`` words that run a command there (no shell between)

    @property
    def venv(self) -> Path:
        return self.home / ".cache" / "opencl-kernel-explorer" / f"venv-{__version__}"


def make_fake_host(folder: Path) -> FakeHost:
    """The host, under ``folder``; skipped where this Python cannot make one (no venv or
    ensurepip module, as on a Debian without python3-venv)."""
    try:
        import ensurepip  # noqa: F401  (the install makes its environment with pip in it)
    except ImportError:
        pytest.skip("this Python has no ensurepip: the host's install could not make its venv")
    home, bin_folder = folder / "home", folder / "bin"
    home.mkdir()
    bin_folder.mkdir()
    python = folder / "python"  # the host's python3: a Python with nothing installed
    made = subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(python)], capture_output=True
    )
    if made.returncode:
        pytest.skip(f"no virtual environment could be made here: {made.stderr[-300:]!r}")
    search = ":".join(str(p) for p in _shadows(folder / "site"))
    env = (
        "env", "-i", f"HOME={home}", f"PATH={python / 'bin'}:/usr/bin:/bin",
        f"PYTHONPATH={search}", "PIP_NO_INDEX=1", "PIP_CONFIG_FILE=/dev/null",
        "PIP_DISABLE_PIP_VERSION_CHECK=1",
    )  # fmt: skip
    ssh = bin_folder / "ssh"
    ssh.write_text(
        "#!/bin/sh\n# ssh to the stand-in host: its shell runs the words after the target\n"
        'while [ "$1" = -T ]; do shift; done\nshift\n'
        f'exec {shlex.join(env)} sh -c "cd && $*"\n'
    )
    ssh.chmod(0o755)
    return FakeHost(home, bin_folder, (*env[:2], "-C", str(home), *env[2:]))


def _shadows(folder: Path) -> list[Path]:
    """Every site folder this Python's distributions live in, seen through links that leave
    out the explorer (and pip, which the host's own environment has)."""
    sites = {Path(str(d.locate_file(""))).resolve() for d in importlib.metadata.distributions()}
    shadows = []
    for n, site in enumerate(sorted(s for s in sites if s.is_dir() and s != ROOT)):
        shadow = folder / str(n)
        shadow.mkdir(parents=True)
        for entry in site.iterdir():
            name = entry.name
            if name.split("-")[0] in _LEFT_OUT or name.startswith("__editable__"):
                continue
            if name.endswith(".pth") or name == "__pycache__" or name == "_distutils_hack":
                continue
            (shadow / name).symlink_to(entry)
        shadows.append(shadow)
    return shadows


@pytest.fixture
def fake_host(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))  # this end's wheels
    return make_fake_host(tmp_path)


@dataclass(frozen=True)
class Installed:
    """A stand-in host on which ``run --install`` put this version, and that first run."""

    host: FakeHost
    env: dict[str, str]  # this end's: ``ssh`` reaches the host, the checkout's explorer runs
    command: list[str]  # the run, without ``--install``
    first: subprocess.CompletedProcess[str]  # the run with ``--install``


@pytest.fixture(scope="module")
def installed_host(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The one install of this module that goes through the command line: the tests that
    need an installed host read this install and its output instead of making another."""
    folder = tmp_path_factory.mktemp("installed")
    host = make_fake_host(folder)
    env = {
        **os.environ,
        "PATH": f"{host.bin}:{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        "EXPLORER_CACHE_DIR": str(folder / "cache"),  # this end's wheels
    }
    run = ["run", "--family", "matmul", "--variant", "tiled", "--size", "32", "--json"]
    command = [sys.executable, "-m", "explorer", *run, "--host", "me@fakehost"]
    first = subprocess.run(
        [*command, "--install"], env=env, capture_output=True, text=True, cwd=host.home
    )
    return Installed(host, env, command, first)


# -- the wheel ------------------------------------------------------------------------------
def _entries(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _code(entries: dict[str, bytes]) -> dict[str, bytes]:
    """The package's files, without the metadata each packer writes its own way."""
    return {k: v for k, v in entries.items() if not k.split("/")[0].endswith(".dist-info")}


@pytest.mark.long
def test_the_wheel_holds_what_setuptools_packs_and_every_module_that_runs(
    tmp_path, monkeypatch, tmp_path_factory, worker_id
):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    wheel = running_wheel()
    assert wheel.path.is_relative_to(tmp_path / "cache" / "wheels")
    assert wheel.name == f"opencl_kernel_explorer-{__version__}-py3-none-any.whl"
    assert running_wheel().path == wheel.path  # made once for the same code
    ours = _entries(wheel.path)
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "explorer").rglob("*.py")}
    assert modules <= set(ours), sorted(modules - set(ours))
    assert "explorer/engine/remote/server.py" in ours
    pytest.importorskip("setuptools")
    theirs = setuptools_wheel(tmp_path_factory, worker_id)  # the install tests' own build
    assert _code(_entries(theirs)) == _code(ours)


@pytest.mark.long
def test_the_wheel_installs_and_an_installed_explorer_packs_the_same_wheel(
    installed_host, tmp_path, monkeypatch
):
    """The wheel the install sent, installed there by the host's pip, packs itself again
    from what pip installed: the same bytes."""
    assert installed_host.first.returncode == 0, installed_host.first.stderr
    monkeypatch.setenv("EXPLORER_CACHE_DIR", installed_host.env["EXPLORER_CACHE_DIR"])
    wheel = running_wheel()  # the one the install sent: made once for the same code
    python = str(installed_host.host.venv / "bin" / "python")
    again = subprocess.run(
        [python, "-I", "-c",
         "import explorer.engine.remote, pathlib, sys; from explorer.engine.remote.wheel import "
         "running_wheel; print(running_wheel(pathlib.Path(sys.argv[1])).path)",
         str(tmp_path / "there")],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    repacked = Path(again.stdout.strip())
    assert repacked.is_relative_to(tmp_path / "there")
    assert _entries(repacked) == _entries(wheel.path)  # the same bytes: nothing lost or added


# -- the host's command ---------------------------------------------------------------------
def _run_default_command(home: Path, bin_folder: Path) -> str:
    """What ``user@server``'s remote command runs, there (``python3`` and the installed
    Python both say their arguments)."""
    host = Host.parse("me@gpu")
    remote = host.command[-1]
    env = {"HOME": str(home), "PATH": f"{bin_folder}:/usr/bin:/bin"}
    done = subprocess.run(["sh", "-c", remote], env=env, capture_output=True, text=True)
    return done.stdout.strip()


def _say_what_runs(path: Path, who: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\necho {who} "$@"\n')
    path.chmod(0o755)


def test_a_host_by_name_runs_the_installed_explorer_where_there_is_one(tmp_path):
    host = Host.parse("me@gpu.example.org")
    assert host.label == "gpu.example.org" and host.command[:3] == ("ssh", "-T", host.text)
    _say_what_runs(tmp_path / "bin" / "python3", "python3")
    home = tmp_path / "home"
    assert _run_default_command(home, tmp_path / "bin") == "python3 -m explorer executor-serve"
    venv = home / ".cache" / "opencl-kernel-explorer" / f"venv-{__version__}"
    _say_what_runs(venv / "bin" / "python", "installed")
    assert _run_default_command(home, tmp_path / "bin") == "installed -m explorer executor-serve"


def test_a_host_saved_by_another_version_runs_this_versions_explorer():
    saved = Host.parse("me@gpu").to_json()
    older = {**saved, "command": saved["command"].replace(f"venv-{__version__}", "venv-0.0.1")}
    assert older != saved
    assert Host.from_json(older) == Host.parse("me@gpu")
    before = {**saved, "command": "ssh -T me@gpu python3 -m explorer executor-serve"}
    assert Host.from_json(before) == Host.parse("me@gpu")  # saved before installs existed
    custom = Host.parse("gpu", "ssh gpu /opt/venv-0.0.1/bin/python -m explorer executor-serve")
    assert Host.from_json(custom.to_json()) == custom  # a command given whole stays as given


@pytest.mark.parametrize(
    ("command", "prefix", "python", "shell"),
    [
        ("ssh -p 2222 me@gpu ~/venv/bin/python -u -m explorer executor-serve",
         ("ssh", "-p", "2222", "me@gpu"), "~/venv/bin/python", True),
        ("env A=1 /usr/bin/python3 -m explorer executor-serve",
         ("env", "A=1"), "/usr/bin/python3", False),
        ("ssh gpu .local/bin/kernel-explorer-cli executor-serve", ("ssh", "gpu"), "python3", True),
        ("python3.12 -X dev -m explorer executor-serve", (), "python3.12", False),
    ],
)  # fmt: skip
def test_the_words_of_a_command_that_reach_the_host(command, prefix, python, shell):
    reach = Host.parse("gpu", command).reach()
    assert (reach.prefix, reach.python, reach.shell) == (prefix, python, shell)
    if " -m explorer " in command:  # the Python's options stay with the installed one
        tail = (reach.python, *reach.options, "-m", "explorer", "executor-serve")
        assert (*reach.prefix, *tail) == tuple(shlex.split(command))


def test_a_command_not_ending_in_the_executor_cannot_install_and_says_why(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))
    host = Host.parse("gpu", "ssh gpu ./start-executor.sh")
    with pytest.raises(InstallError) as info:
        Installation(host).run(print)
    message = str(info.value)
    assert "does not end with 'PYTHON -m explorer executor-serve'" in message
    assert "install it there by hand" in message and ".whl" in message


def test_an_explorer_there_that_cannot_read_this_ones_frames_needs_an_install():
    complaint = "executor-serve: not the executor's protocol: 'OKX2'"
    older = f"{shlex.quote(sys.executable)} -c " + shlex.quote(
        f"import sys; sys.stdin.buffer.read(4); sys.stderr.write({complaint!r} + chr(10))"
    )
    with CommandExecutor(Host.parse("old", older)) as executor, pytest.raises(Exception) as info:
        executor.connect()
    assert info.type is HostNeedsInstall
    assert (
        info.value.found == "old runs an older OpenCL Kernel Explorer (protocol 1); this one "
        f"is {__version__} (protocol 2) and cannot speak with it"
    )


# -- installing ------------------------------------------------------------------------------
def test_without_install_the_command_line_says_the_command_that_installs(fake_host, monkeypatch):
    monkeypatch.setenv("PATH", f"{fake_host.bin}:{os.environ['PATH']}")
    done = cli("run", "--family", "matmul", "--variant", "tiled", "--host", "me@fakehost", "--json")
    assert done.code == 2
    assert (
        f"fakehost has no OpenCL Kernel Explorer. To install opencl-kernel-explorer {__version__}"
        in done.err
    )
    assert done.err.rstrip().endswith(
        "python -m explorer run --family matmul --variant tiled --host me@fakehost --install --json"
    )
    assert not fake_host.venv.exists()


@pytest.mark.long
def test_install_puts_this_version_there_and_the_host_runs_it(installed_host):
    done, env, command = installed_host.first, installed_host.env, installed_host.command
    assert done.returncode == 0, done.stderr
    said = done.stderr.splitlines()
    assert "fakehost has no OpenCL Kernel Explorer: installing" in done.stderr
    assert "fakehost: sending opencl_kernel_explorer-" in done.stderr
    assert any(
        line.startswith("fakehost: Successfully installed opencl-kernel-explorer") for line in said
    )
    assert f"fakehost: the explorer {__version__} is installed" in said
    assert '"status": "verified"' in done.stdout and '"device": "fakehost: ' in done.stdout
    assert (installed_host.host.venv / "bin" / "python").exists()
    home = installed_host.host.home
    again = subprocess.run(command, env=env, capture_output=True, text=True, cwd=home)
    assert again.returncode == 0, again.stderr  # the next run finds it, nothing installed
    assert "install" not in again.stderr and '"status": "verified"' in again.stdout


# -- through a real sshd --------------------------------------------------------------------
@pytest.fixture
def sshd_host(tmp_path, fake_host):
    """``me@127.0.0.1`` through this machine's sshd (its own keys and configuration, on a
    free port), whose sessions see the stand-in host's environment; ``ssh`` on PATH is the
    real one with the options a person's ssh configuration would give. Skipped, with the
    reason, where sshd cannot be started here."""
    from tests.engine.remote_helpers import wait_for
    from tests.engine.test_remote_ssh import _answers, _free_port, _keys

    sshd = shutil.which("sshd") or ("/usr/sbin/sshd" if os.path.exists("/usr/sbin/sshd") else "")
    if not sshd or not shutil.which("ssh") or not shutil.which("ssh-keygen"):
        pytest.skip("sshd, ssh or ssh-keygen is not installed (openssh-server, openssh-client)")
    folder = tmp_path / "sshd"
    folder.mkdir()
    _keys(folder)
    port = _free_port()
    settings = dict(w.split("=", 1) for w in fake_host.env[4:])  # after env -i -C HOME
    (folder / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {folder / 'host_key'}\n"
        f"AuthorizedKeysFile {folder / 'authorized_keys'}\nPidFile {folder / 'sshd.pid'}\n"
        "StrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
        "PubkeyAuthentication yes\nPermitRootLogin prohibit-password\nLogLevel ERROR\n"
        f"SetEnv XDG_CACHE_HOME={fake_host.home / '.cache'} "
        + " ".join(f"{k}={v}" for k, v in settings.items() if k != "HOME")
        + "\n"
    )
    ssh = ["ssh", "-F", "/dev/null", "-p", str(port), "-i", str(folder / "user_key")]
    ssh += ["-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o", "IdentitiesOnly=yes"]
    ssh += ["-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"]
    wrapper = folder / "bin" / "ssh"
    wrapper.parent.mkdir()
    wrapper.write_text(
        f'#!/bin/sh\nexec {shlex.join([shutil.which("ssh") or "ssh", *ssh[1:]])} "$@"\n'
    )
    wrapper.chmod(0o755)
    server = subprocess.Popen(
        [sshd, "-D", "-e", "-f", str(folder / "sshd_config")],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    target = f"{getpass.getuser()}@127.0.0.1"
    try:
        reached = wait_for(lambda: _answers([*ssh, target]) or server.poll() is not None, 15)
        if server.poll() is not None or not reached:
            server.kill()
            why = (server.communicate(timeout=5)[1] or "no answer").strip().splitlines()
            pytest.skip(f"sshd could not be started here: {why[-1] if why else 'no answer'}")
        there = subprocess.run(
            [*ssh, target, "python3 -c 'import sys; print(sys.version_info[:2])'"],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        if there.stdout.strip() != str(sys.version_info[:2]):  # a login script chose another
            pytest.skip(f"python3 over ssh is {there.stdout.strip()}, whose libraries differ")
        yield target, wrapper.parent
    finally:
        server.kill()
        server.communicate(timeout=10)


@pytest.mark.long
def test_through_sshd_a_host_without_the_explorer_gets_it_and_runs(
    sshd_host, fake_host, monkeypatch
):
    target, bin_folder = sshd_host
    monkeypatch.setenv("PATH", f"{bin_folder}:{os.environ['PATH']}")
    host = Host.parse(target)
    with CommandExecutor(host) as executor, pytest.raises(HostNeedsInstall):
        executor.connect()
    said: list[str] = []
    assert Installation(host).run(said.append) == host
    assert any(line.startswith("Successfully installed opencl-kernel-explorer") for line in said)
    assert (fake_host.venv / "bin" / "python").exists()
    with CommandExecutor(host) as executor:  # connects to the installed one (the CLI's
        executor.connect()  # test above runs a kernel on it)
        assert executor.facts["version"] == __version__
