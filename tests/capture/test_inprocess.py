"""``with explorer.capture("out"): ...`` records the launches of the running process into a
capture folder the command line replays, and leaves pyopencl as it was; the notebook cell
magic does the same for one cell; ``import explorer`` stays light."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from explorer.capture.folder import load_capture
from tests.capture.conftest import PROGRAMS
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")
ROOT = Path(__file__).resolve().parents[2]
FORMS = str(PROGRAMS / "launch_forms.py")


def python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], env=env,
                          capture_output=True, text=True, timeout=120, cwd=ROOT)  # fmt: skip


def test_importing_explorer_imports_neither_pyopencl_nor_the_recorder():
    done = python("""
        import sys, explorer
        print(sorted(m for m in sys.modules if m.startswith(("pyopencl", "explorer."))))
        print(callable(explorer.capture), "pyopencl" in sys.modules)
    """)
    assert done.stdout.splitlines() == ["[]", "True False"], done.stderr


def test_a_block_records_its_launches_and_restores_pyopencl(on_device, tmp_path):
    done = python("""
        import sys
        import explorer
        import pyopencl as cl
        wrapped = (cl.Program.build, cl._cl.Kernel._set_arg_multi, cl.enqueue_nd_range_kernel)
        print("before", file=sys.stderr)
        with explorer.capture(sys.argv[1]) as out:
            exec(open(sys.argv[2]).read())
        after = (cl.Program.build, cl._cl.Kernel._set_arg_multi, cl.enqueue_nd_range_kernel)
        print("restored", after == wrapped, out)
    """, str(tmp_path), FORMS)  # fmt: skip
    assert done.returncode == 0, done.stderr
    plain = subprocess.run([sys.executable, FORMS], capture_output=True, text=True, check=True,
                           timeout=120)  # fmt: skip
    assert done.stdout == plain.stdout + f"restored True {tmp_path}\n"
    capture = load_capture(tmp_path)
    assert [launch.args[2].value for launch in capture.launches[:8]] == [
        2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0,
    ]  # fmt: skip
    assert capture.exit_code == 0 and len(capture.launches) == 9
    replayed = cli("run", "--capture", str(tmp_path), "--launch", "affine#7", "--repeat", "1")
    assert replayed.code == 0 and "matches the original run" in replayed.out


def test_a_block_that_imports_pyopencl_itself_is_recorded(on_device, tmp_path):
    done = python("""
        import sys, explorer
        with explorer.capture(sys.argv[1], launches=1):
            exec(open(sys.argv[2]).read())
    """, str(tmp_path), FORMS)  # fmt: skip
    assert done.returncode == 0, done.stderr
    capture = load_capture(tmp_path)
    assert [launch.data for launch in capture.launches] == [True] + [False] * 8
    assert capture.launches[1].why == "past --launches 1"


def test_an_unknown_pyopencl_version_is_said_once_and_recorded(on_device, tmp_path):
    done = python("""
        import sys, explorer, pyopencl
        pyopencl.VERSION = (2031, 2)
        with explorer.capture(sys.argv[1]):
            exec(open(sys.argv[2]).read())
    """, str(tmp_path), FORMS)  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = "pyopencl 2031.2 is not one the recorder knows (2022.1 to 2026.1)"
    assert done.stderr.count(said) == 1
    capture = load_capture(tmp_path)
    assert len(capture.launches) == 9 and all(launch.data for launch in capture.launches)
    assert any(said in line for line in capture.lost)


def test_the_cell_magic_records_the_cell(on_device, tmp_path):
    # Without IPython: the magic's function, with a stand-in for the shell that runs a cell.
    done = python("""
        import sys
        from explorer.capture.inprocess import cell_magic, load_ipython_extension
        import explorer
        class Shell:
            def run_cell(self, cell):
                exec(cell, {})
            def register_magic_function(self, function, kind, name):
                self.magic = (function, kind, name)
        shell = Shell()
        explorer.load_ipython_extension(shell)
        function, kind, name = shell.magic
        print(kind, name)
        function(sys.argv[1] + " --launches 2", open(sys.argv[2]).read())
        function("", "pass")
        function(sys.argv[1] + " --wrong", "pass")
    """, str(tmp_path), FORMS)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "cell explorer_capture"
    assert lines[-1] == f"explorer: 9 launches recorded into {tmp_path}"
    assert "explorer capture: %%explorer_capture needs a folder" in done.stderr
    assert "'--wrong' was not expected" in done.stderr
    capture = load_capture(tmp_path)
    assert [launch.data for launch in capture.launches][:3] == [True, True, False]


def test_a_block_refuses_a_folder_of_other_files_and_a_second_block(tmp_path):
    (tmp_path / "mine.txt").write_text("mine")
    done = python("""
        import sys, explorer
        from explorer.capture.folder import CaptureError
        try:
            with explorer.capture(sys.argv[1]):
                pass
        except CaptureError as exc:
            print("refused:", exc)
        with explorer.capture(sys.argv[1] + "/new"):
            try:
                with explorer.capture(sys.argv[1] + "/other"):
                    pass
            except CaptureError as exc:
                print("refused:", exc)
    """, str(tmp_path))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "holds files capture did not write (mine.txt)" in done.stdout
    assert "this process is being recorded already" in done.stdout
    assert json.loads((tmp_path / "new" / "capture.json").read_text())["launches"] == []


def test_a_notebook_runs_the_magic(on_device, tmp_path):
    jupyter = shutil.which("jupyter")
    if jupyter is None:
        pytest.skip("jupyter is not installed: the magic is tested through its function above")
    cells = [
        "%load_ext explorer",
        f"%%explorer_capture {tmp_path / 'out'}\nexec(open({FORMS!r}).read())",
    ]
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None}
        for c in cells]}  # fmt: skip
    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps(notebook))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([jupyter, "nbconvert", "--to", "notebook", "--execute", str(path)], env=env,
                   check=True, timeout=300, capture_output=True)  # fmt: skip
    assert len(load_capture(tmp_path / "out").launches) == 9
