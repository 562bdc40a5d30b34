"""Installing this very explorer on a host that lacks it (or runs another version), through
the host's own command: the wheel of the running code (:mod:`.wheel`) travels over the same
channel as the executor's frames, and a small program there puts it in a virtual environment
in the host's cache folder (``~/.cache/opencl-kernel-explorer/venv-VERSION``), where the
host's own pip installs its dependencies from the package index that machine uses.

For ``user@server`` the command is ``ssh -T user@server`` with that program after it, and the
host's executor command finds the environment from then on (:data:`.hosts.DEFAULT_SERVE`).
For a command given whole, the words before its ``PYTHON -m explorer executor-serve`` reach
the host; after the install the host is the same command with the environment's Python.
What the far end prints while it installs is shown line by line.
"""

from __future__ import annotations

import base64
import collections
import contextlib
import posixpath
import re
import shlex
import subprocess
import threading
from collections.abc import Callable

from explorer import __version__
from explorer.engine.executor import ExecutorError, exit_text
from explorer.engine.remote.hosts import SERVE, Host
from explorer.engine.remote.wheel import DISTRIBUTION, WheelError, running_wheel

# The far end's last line, after which comes the Python of the environment it made.
INSTALLED = "opencl-kernel-explorer installed with"

# The program the host runs (``python3 -I -u -c PROGRAM ARGS``), with the wheel on its
# standard input. Python 3.6 syntax, so that an old Python there says it is too old.
PROGRAM = r"""
import hashlib, os, platform, subprocess, sys
version, size, digest, minimum, name, mark = sys.argv[1:7]
size = int(size)

def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()

def fail(text, code=1):
    say("error: " + text)
    sys.exit(code)

data = b""
while len(data) < size:
    piece = sys.stdin.buffer.read(size - len(data))
    if not piece:
        break
    data += piece
if len(data) != size or hashlib.sha256(data).hexdigest() != digest:
    fail("the wheel arrived incomplete (%d of %d bytes)" % (len(data), size))
want = tuple(int(part) for part in minimum.split(".")) if minimum else ()
if tuple(sys.version_info[: len(want)]) < want:
    fail("%s is Python %s; the explorer needs Python %s or newer: give a command that starts "
         "a newer one (--executor-command \"... python3.X -m explorer executor-serve\")"
         % (sys.executable, platform.python_version(), minimum))
home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
cache = os.path.join(os.path.abspath(home), "opencl-kernel-explorer")
venv = os.path.join(cache, "venv-" + version)
os.makedirs(cache, exist_ok=True)
wheel = os.path.join(cache, name)
with open(wheel + ".part", "wb") as f:
    f.write(data)
os.replace(wheel + ".part", wheel)
say("received %s on %s (Python %s)" % (name, platform.node(), platform.python_version()))
env = dict(os.environ, PYTHONUNBUFFERED="1", PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1")

def run(what, *command):
    code = subprocess.call(command, stdin=subprocess.DEVNULL, stderr=subprocess.STDOUT, env=env)
    if code:
        fail("%s failed (exit code %d)" % (what, code), code if code > 0 else 1)

say("making the virtual environment " + venv)
run("making the virtual environment (python3 -m venv: on Debian and Ubuntu it needs the "
    "python3-venv package)", sys.executable, "-m", "venv", "--clear", venv)
python = os.path.join(venv, "Scripts" if os.name == "nt" else "bin", "python")
say("installing %s and its dependencies (pip, from this machine's package index)" % name)
run("pip install", python, "-m", "pip", "install", "--progress-bar", "off", wheel)
say("checking that the executor loads")
run("loading the installed explorer", python, "-c", "import explorer.engine.remote.server")
say(mark + " " + python)
"""


class HostNeedsInstall(ExecutorError):
    """The host's command runs no explorer, or another version of it: this one can be
    installed there (``found`` says what was found)."""

    def __init__(self, host: Host, found: str) -> None:
        super().__init__(
            f"{found}: Devices ▸ Add host… offers to install {DISTRIBUTION} {__version__} "
            "there, and on the command line --install does",
            "error",
        )
        self.host = host
        self.found = found


class InstallError(ExecutorError):
    """The install could not be made or did not finish; the message says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "error")


def by_hand(host: Host, why: str) -> str:
    """What to do when the install cannot go through the host's command."""
    try:
        wheel = str(running_wheel().path)
    except WheelError:
        wheel = f"{DISTRIBUTION} {__version__}'s wheel"
    return (
        f"{why}: install it there by hand (copy {wheel} there and pip install it into the "
        f"Python that {host.label}'s command runs), or give a command that ends with "
        "'PYTHON -m explorer executor-serve'"
    )


class Installation:
    """This version's install on ``host``; :meth:`run` does it, :meth:`cancel` (from any
    thread) stops it."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self._cancelled = threading.Event()
        self._process: subprocess.Popen[bytes] | None = None

    def cancel(self) -> None:
        self._cancelled.set()
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()

    def run(self, progress: Callable[[str], None]) -> Host:
        """Install, saying each line of the far end's output to ``progress``; the host whose
        command starts the installed executor (``host`` itself for ``user@server``)."""
        host = self.host
        try:
            reach = host.reach()
        except ValueError as exc:
            raise InstallError(by_hand(host, str(exc))) from None
        try:
            wheel = running_wheel()
        except (WheelError, OSError) as exc:
            raise InstallError(f"the wheel of this explorer could not be made: {exc}") from None
        data = wheel.path.read_bytes()
        minimum = re.fullmatch(r">=\s*([0-9]+(?:\.[0-9]+)*)", wheel.requires_python)
        command = reach.command(
            reach.python, "-I", "-u", "-c", _one_line(PROGRAM), wheel.version, str(len(data)),
            wheel.sha256, minimum.group(1) if minimum else "", wheel.name, INSTALLED,
        )  # fmt: skip
        progress(f"sending {wheel.name} ({len(data) / 1e6:.1f} MB)")
        python, tail = self._far_end(command, data, progress)
        if self._cancelled.is_set():
            raise InstallError(f"the install on {host.label} was cancelled")
        if not python:
            raise InstallError(f"the install on {host.label} failed: {tail}")
        if host.by_name:
            return host
        words = (*reach.prefix, reach.quoted(python), *reach.options, *SERVE)
        return Host(host.label, words, shlex.join(words))

    def _far_end(
        self, command: tuple[str, ...], data: bytes, progress: Callable[[str], None]
    ) -> tuple[str, str]:
        """Run ``command`` with ``data`` on its input: the Python it installed (or ""), and
        what it said last (why it failed)."""
        try:
            process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
            )
        except OSError as exc:
            raise InstallError(
                f"{self.host.label}: {command[0]} could not be started ({exc.strerror or exc})"
            ) from None
        self._process = process
        if self._cancelled.is_set():
            process.kill()
        writer = threading.Thread(target=_feed, args=(process, data), name="wheel-sender")
        writer.start()
        python, last = "", collections.deque[str](maxlen=20)
        try:
            assert process.stdout is not None
            for raw in iter(process.stdout.readline, b""):
                line = _printable(raw.decode("utf-8", "replace").rstrip())
                if line.startswith(INSTALLED):
                    python = line[len(INSTALLED) :].strip()
                elif line.strip():
                    last.append(line)
                    progress(line)
            code = process.wait()
        finally:
            if process.poll() is None:
                process.kill()
            process.wait()
            writer.join()
            if process.stdout is not None:
                process.stdout.close()
        errors = [line for line in last if line.startswith("error: ")]
        said = errors[-1][len("error: ") :] if errors else (last[-1] if last else "nothing")
        if code == 0 and not posixpath.isabs(python):
            return "", f"it named no Python to start ({python or 'nothing'})"
        return (python if code == 0 else ""), f"{said} ({exit_text(code)})"


def _one_line(program: str) -> str:
    """``program`` as one line of safe characters, whichever shell reads it there (a csh's
    quotes cannot hold a line break)."""
    encoded = base64.b64encode(program.encode()).decode()
    return f'import base64;exec(base64.b64decode("{encoded}").decode())'


def _printable(line: str, limit: int = 400) -> str:
    """A line the host printed, without control characters (a terminal's escape codes)."""
    return "".join(c if c.isprintable() else " " for c in line)[:limit]


def _feed(process: subprocess.Popen[bytes], data: bytes) -> None:
    """The wheel on the far end's input, which then ends (one that stopped reading early
    says why on its output)."""
    stream = process.stdin
    if stream is None:
        return
    with contextlib.suppress(OSError):
        stream.write(data)
    with contextlib.suppress(OSError):
        stream.close()
