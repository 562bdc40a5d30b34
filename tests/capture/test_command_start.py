"""``python -m explorer capture`` starts the program before it imports the engine or numpy (its
own process stays small beside the program), says what the whole command line says of a
command line it cannot run, and lists a long capture in a summary."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.capture.command_line import LISTED, listed, listing
from tests.robustness.helpers import cli

ROOT = Path(__file__).resolve().parents[2]
# The program: which of numpy and pyopencl its parent (capture's process) has loaded.
PROBE = (
    "import os; maps = open(f'/proc/{os.getppid()}/maps').read(); "
    "print('numpy' in maps, '_cl.cpython' in maps)"
)


def explorer(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "explorer", *args], capture_output=True,
                          text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})  # fmt: skip


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="reads /proc/PID/maps")
def test_the_program_starts_before_capture_imports_numpy(tmp_path):
    done = explorer("capture", str(tmp_path / "out"), "--", sys.executable, "-c", PROBE)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "False False\n"  # capture's process, while the program ran
    assert "capture: no kernel launch was recorded" in done.stderr


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["--launches", "x"], "error: --launches 'x': expected a whole number, e.g. 20"),
        (["--max-mb=nan"], "error: --max-mb nan: expected a number of MiB from 0 to 1073741824"),
        ([], "error: cannot start no-such-program-here: no such program on the PATH"),
    ],
)
def test_a_command_line_it_cannot_run_is_refused_as_the_whole_cli_does(tmp_path, words, message):
    command = ["capture", str(tmp_path / "out"), *words, "--", "no-such-program-here"]
    started = explorer(*command)
    in_process = cli(*command)
    assert (started.returncode, started.stderr.strip()) == (2, message)
    assert (in_process.code, in_process.err.strip()) == (2, message)


def test_help_is_the_whole_command_lines(tmp_path):
    done = explorer("capture", "--help")
    assert done.returncode == 0
    assert "--launches N" in done.stdout and "--host USER@SERVER" in done.stdout


def _document(count: int) -> dict:
    return {
        "launches": [
            {"number": n, "kernel": "inc" if n % 3 else "scale", "occurrence": n,
             "global": [16], "local": None, "data": n <= 5,
             **({} if n <= 5 else {"why": "past --launches 5"})}
            for n in range(1, count + 1)
        ]
    }  # fmt: skip


def test_ten_thousand_launches_are_listed_in_a_summary(tmp_path):
    text = listing(listed(_document(10_000)), tmp_path)
    lines = text.splitlines()
    assert lines[0] == f"capture: 10000 launches recorded into {tmp_path}"
    assert len(lines) == 1 + 20 + 2 + 10 + 1 and len(text) < 4000
    scale = sum(1 for n in range(21, 9991) if n % 3 == 0)  # 21 is the first between
    assert lines[21] == f"  ....  launches 21 to 9990 (9970): scale {scale}, inc {9970 - scale}"
    assert lines[22] == "        9970 of them without their buffers: past --launches 5"
    assert lines[23].split()[:2] == ["9991", "inc#9991"]
    assert lines[1].split()[:2] == ["1", "inc#1"]
    rows = lines[1:21] + lines[23:-1]
    assert len({line.index(line.split()[1]) for line in rows}) == 1  # the labels in one column
    short = listing(listed(_document(LISTED)), tmp_path).splitlines()
    assert len(short) == LISTED + 2  # every launch, one a line


def test_the_listing_shows_odd_fields_as_they_are(tmp_path):
    odd = {"launches": [
        {"number": "one", "kernel": 7, "global": 16, "local": 4, "data": "yes"},
        "not a launch",
        {"number": 3, "kernel": "k", "occurrence": 1, "global": [8, 8], "local": [4, 4],
         "data": False, "why": ["a", "list"]},
    ]}  # fmt: skip
    lines = listing(listed(odd), tmp_path).splitlines()
    assert lines[1].split() == ["1", "7#None", "16", "/", "4", "(without", "its", "buffers:", ")"]
    assert lines[2].split()[:4] == ["3", "k#1", "8x8", "/"]
