"""The wheel installed into a fresh virtual environment runs every entry point from a folder
outside the checkout, in an environment without ``PYTHONPATH``: the window (offscreen), a run,
a capture and its replay, a trace, an exercise's check and a host reached through
``--executor-command``.

The environment is made with ``venv`` without the system's site-packages, so neither this
checkout nor any installed copy of the explorer is on its path. Its dependencies are this
environment's own, seen through a folder of links to this environment's site-packages less
every file the explorer's own distribution installed there: installing PySide6, pyopencl and
PoCL again would take minutes and a network, and would test pip rather than the wheel. The
wheel itself is installed by pip, as a person installs it, and the test first checks that
``import explorer`` fails in the environment before it is installed.
"""

from __future__ import annotations

import importlib.metadata
import os
import shlex
import signal
import site
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from tests.install.conftest import ROOT

DISTRIBUTION = "opencl-kernel-explorer"

# A PyOpenCL program of the person's own: two launches of one kernel, the second reading what
# the first left.
PROGRAM = """\
import numpy as np
import pyopencl as cl

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
source = "__kernel void scale(__global float *x, const float a) { x[get_global_id(0)] *= a; }"
scale = cl.Kernel(cl.Program(context, source).build(), "scale")
x = np.arange(64, dtype=np.float32)
buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
scale(queue, x.shape, (16,), buffer, np.float32(2))
scale(queue, x.shape, (16,), buffer, np.float32(3))
cl.enqueue_copy(queue, x, buffer)
print("sum", int(x.sum()))
"""

# Where the environment finds the package and its files, and its whole path.
WHERE = """\
import sys, explorer.engine.remote as remote, explorer.paths as paths
print(remote.__file__, paths.kernels_dir(), paths.resources_dir(), *sys.path, sep="\\n")
"""


def _ours(site_dir: Path) -> set[str]:
    """The names in ``site_dir`` that the explorer's distribution installed (its package, its
    metadata, an editable install's path file), read from its RECORD."""
    names: set[str] = set()
    for dist in importlib.metadata.distributions(name=DISTRIBUTION, path=[str(site_dir)]):
        names |= {Path(str(file)).parts[0] for file in dist.files or ()}
    return names - {".."}  # its scripts, outside site-packages


def _dependencies(dest: Path) -> list[Path]:
    """For each of this interpreter's site-packages folders, a folder of links to its
    entries less the explorer's own."""
    folders = site.getsitepackages()
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    views = []
    for number, folder in enumerate(Path(f) for f in folders if Path(f).is_dir()):
        view = dest / str(number)
        view.mkdir(parents=True)
        skip = _ours(folder) | {"explorer"}
        for entry in folder.iterdir():
            if entry.name not in skip and not entry.name.startswith("opencl_kernel_explorer"):
                (view / entry.name).symlink_to(entry)
        views.append(view)
    return views


def _clean_env(venv: Path, home: Path) -> dict[str, str]:
    """A person's shell: the environment's bin first, a home of its own, no PYTHONPATH."""
    env = {
        "PATH": os.pathsep.join([str(venv / "bin"), os.defpath]),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "QT_QPA_PLATFORM": "offscreen",
    }
    # Compiled kernels are cached per user; the cache only saves time.
    env["XDG_CACHE_HOME"] = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    if "PYOPENCL_CTX" in os.environ:  # the device this machine's person chose
        env["PYOPENCL_CTX"] = os.environ["PYOPENCL_CTX"]
    return env


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``command`` to its end; on a timeout its whole process group (an executor too) ends."""
    with subprocess.Popen(
        command, cwd=cwd, env=env, text=True, start_new_session=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    ) as process:  # fmt: skip
        try:
            out, err = process.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
            pytest.fail(f"{shlex.join(command)} did not end in 120 s:\n{err[-3000:]}")
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def _ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, (
        f"{shlex.join(done.args)} exited {done.returncode}:\n{done.stdout[-2000:]}\n"
        f"{done.stderr[-3000:]}"
    )
    return done


def _installed(wheel: Path, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A fresh environment with ``wheel`` installed by pip; its folder and a clean shell's
    variables."""
    venv, home = tmp_path / "venv", tmp_path / "home"
    home.mkdir()
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python, env = str(venv / "bin" / "python"), _clean_env(venv, home)
    purelib = _ok(
        _run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], home, env)
    ).stdout.strip()
    views = _dependencies(tmp_path / "dependencies")
    lines = [f"import site; site.addsitedir({str(view)!r})" for view in views]
    (Path(purelib) / "explorer-test-dependencies.pth").write_text("\n".join(lines) + "\n")

    before = _run([python, "-c", "import explorer"], home, env)
    assert before.returncode == 1 and "No module named 'explorer'" in before.stderr, before
    pip = [python, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet"]
    _ok(_run([*pip, "--disable-pip-version-check", str(wheel)], home, env))
    where = _ok(_run([python, "-c", WHERE], home, env)).stdout.splitlines()
    assert where[0].startswith(purelib), where[0]
    assert where[1:3] == [f"{purelib}/explorer/kernels", f"{purelib}/explorer/resources"]
    assert not [entry for entry in where if entry.startswith(str(ROOT))], "the checkout is seen"
    return venv, env


@pytest.mark.long
def test_the_installed_wheel_runs_every_entry_point_outside_the_checkout(wheel, tmp_path):
    venv, env = _installed(wheel, tmp_path)
    work = tmp_path / "work"  # a folder of the person's own
    work.mkdir()
    python = str(venv / "bin" / "python")

    def ok(*command: str) -> subprocess.CompletedProcess[str]:
        return _ok(_run(list(command), work, env))

    def explorer(*args: str) -> subprocess.CompletedProcess[str]:
        return ok(python, "-m", "explorer", *args)

    cli = str(venv / "bin" / "kernel-explorer-cli")
    tiled = ("--family", "matmul", "--variant", "tiled", "--size", "32")
    done = ok(cli, "run", *tiled)
    assert done.stdout.startswith("VERIFIED  matmul/tiled on "), done.stdout

    shot = work / "shot.png"
    ok(str(venv / "bin" / "kernel-explorer"), "--screenshot", str(shot), *tiled, "--run")
    with Image.open(shot) as picture:
        assert (picture.format, picture.size) == ("PNG", (1600, 1000))

    (work / "host.py").write_text(PROGRAM, encoding="utf-8")
    done = explorer("capture", "out", "--", python, "host.py")
    assert done.stdout == f"sum {2 * 3 * sum(range(64))}\n", done.stdout  # the program's own
    assert "capture: 2 launches recorded into out" in done.stderr, done.stderr
    done = explorer("run", "--capture", "out", "--launch", "scale#2")
    assert done.stdout.startswith("VERIFIED  ") and "matches the original run" in done.stdout

    done = ok(cli, "trace", *tiled)
    assert "(complete)" in done.stdout and "Findings: none." in done.stdout, done.stdout

    solution = ROOT / "resources" / "exercises" / "01-index-map" / "solution.cl"
    (work / "mine.cl").write_text(solution.read_text(encoding="utf-8"), encoding="utf-8")
    done = explorer("exercise", "check", "index-map", "mine.cl")
    assert "PASSED  index-map" in done.stdout, done.stdout

    serve = shlex.join([python, "-m", "explorer", "executor-serve"])
    done = ok(cli, "run", *tiled, "--executor-command", serve)
    assert done.stdout.startswith("VERIFIED  matmul/tiled on remote: "), done.stdout
