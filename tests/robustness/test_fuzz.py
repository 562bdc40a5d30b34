"""Generated bad input through the command line: configurations, kernel headers, sessions and
images. Every case must end in a documented exit code (0-4) with a message, never a
traceback or a hang. Most run in this process on the session's executor (fast); a few run as
real subprocesses under an address-space cap."""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.robustness.generated import FUZZ_SCALE, session_cases, sim_cases
from tests.robustness.helpers import KERNELS, cli

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTED = {0, 1, 2, 3, 4}
CASE_LIMIT_S = 20.0
MEMORY_CAP = 6 << 30

SIZES = ["-3", "0", "1", "3", "17", "64", "100000", str(2**40), "9" * 40, "x", "1e3"]
LOCALS = ["0x0", "100000000x16", "16x16x16x16", "abc", "3", "7x5", "1x1", "-1x4", "x", "64"]
TIMEOUTS = ["nan", "-1", "0", "inf", "1e309", "5", "abc"]
FAMILIES = {
    "matmul": ["naive", "tiled"],
    "transpose": ["naive"],
    "stencil": ["naive"],
    "matvec": ["nvidia-coalesced3"],
    "nope": ["x"],
}
HEADER_LINES = {
    "name": ['"x"', "5", "[1]"],
    "family": ['"transpose"', '"nope"', "3"],
    "kernel": ['"copy"', '"missing"', "{ a = 1 }"],
    "args": ['["IN", "OUT", "WIDTH", "HEIGHT"]', '["IN"]', '"IN"', '["Q", "OUT"]'],
    "global": [
        '["WIDTH", "HEIGHT"]',
        '["WIDTH ** WIDTH ** WIDTH", "1"]',
        '["1 << 4096", "1"]',
        '["WIDTH / 0", "1"]',
        '["' + "-" * 3000 + '1", "1"]',
        '["cdiv(WIDTH)", "1"]',
        '["__import__(1)", "1"]',
        "[]",
        '"WIDTH"',
    ],
    "local": ['["1", "1"]', '["0", "1"]', '["2 ** -1", "1"]', '["L0", "1"]'],
    "sizes": ['["WIDTH % 7 == 0"]', '"WIDTH"', '["WIDTH >> -1"]'],
    "about": ["5", '{ text = "t" }', '"x"'],
    "defines": ["{ TS = 16 }", "5", '{ TS = "a" }', "{ TS = 99999999999999999999 }"],
}
BODY = """__kernel void copy(const __global float* in, __global float* out, int w, int h)
{ int x = get_global_id(0), y = get_global_id(1);
  if (x < w && y < h) out[x * h + y] = in[y * w + x]; }
"""


def configurations(rng: random.Random, count: int) -> list[list[str]]:
    cases = []
    for _ in range(count):
        family = rng.choice(list(FAMILIES))
        args = ["run", "--family", family, "--variant", rng.choice(FAMILIES[family])]
        args += ["--size", rng.choice(SIZES[:7]) if rng.random() < 0.8 else rng.choice(SIZES)]
        if rng.random() < 0.5:
            args += ["--local", rng.choice(LOCALS)]
        if rng.random() < 0.3:
            args += ["--timeout", rng.choice(TIMEOUTS)]
        else:
            args += ["--timeout", "10"]
        if rng.random() < 0.2:
            args += ["--define", rng.choice(["TS=0", "TS=-4", "NOPE=1", "TS=x", "TS=" + "9" * 30])]
        if rng.random() < 0.2:
            args += ["--input", rng.choice(["iou", "identity", "image", "nope"])]
        args += ["--repeat", rng.choice(["1"] * 8 + ["0", "-5"])]
        cases.append(args)
    return cases


def headers(rng: random.Random, folder: Path, count: int) -> list[list[str]]:
    cases = []
    for i in range(count):
        lines = ["/*---"]
        for key, options in HEADER_LINES.items():
            if rng.random() < 0.9 or key in ("family", "kernel", "args", "global", "local"):
                value = options[0] if rng.random() < 0.6 else rng.choice(options)
                lines.append(f"{key} = {value}")
        lines.append("---*/")
        text = "\n".join(lines) + "\n" + BODY
        path = folder / f"k{i}.cl"
        data = text.encode()
        if rng.random() < 0.1:
            data = data.replace(b"copy(", b"c\xe9py(", 1)
        if rng.random() < 0.05:
            data = data[: rng.randrange(len(data))]
        path.write_bytes(data)
        cases.append(
            [
                "run",
                "--kernel-file",
                str(path),
                "--size",
                rng.choice(["8", "16", "0"]),
                "--timeout",
                "10",
                "--repeat",
                "1",
            ]
        )
    return cases


def sessions(rng: random.Random, folder: Path, count: int) -> list[list[str]]:
    good = {
        "format": "kernel-explorer-session",
        "version": 1,
        "family": "transpose",
        "variant": "naive",
        "sizes": {"WIDTH": 16, "HEIGHT": 16},
    }
    mutations = [
        lambda s: {**s, "version": "BIG"},
        lambda s: {**s, "sizes": {"WIDTH": -1}},
        lambda s: {**s, "sizes": {"WIDTH": 2**40}},
        lambda s: {**s, "local": [0]},
        lambda s: {**s, "local": "16x16"},
        lambda s: {**s, "variant": None, "kernel_path": str(KERNELS / "latin1.cl")},
        lambda s: {**s, "variant": None, "kernel_path": "/nonexistent.cl"},
        lambda s: {**s, "family": "nope"},
        lambda s: {**s, "view": {"tab": 5}},
        lambda s: {**s, "defines": {"TS": "x"}},
        lambda s: {**s, "input": "image", "image_path": "missing.png"},
        lambda s: {**s, "extra": 1},
        lambda s: [s],
        lambda s: s,
    ]
    cases = []
    for i in range(count):
        path = folder / f"s{i}.kexp.json"
        kind = rng.random()
        if kind < 0.1:
            path.write_text("[" * 50000 + "]" * 50000)
        elif kind < 0.15:
            path.write_bytes(b"\xff\xfe{\x00")
        elif kind < 0.2:
            path.write_text('{"format": "kernel-explorer-session", "version": NaN}')
        else:
            mutation = rng.choice(mutations)
            text = json.dumps(mutation(dict(good))) if kind < 0.95 else "{"
            path.write_text(text.replace('"BIG"', "9" * 5000))  # a 5000-digit integer
        cases.append(["run", "--session", str(path), "--timeout", "10", "--repeat", "1"])
    return cases


def images(rng: random.Random, folder: Path, count: int) -> list[list[str]]:
    contents = [
        b"P5\n32",
        b"P5\n# c\n",
        b"P2\n4 4\n255\n1 2",
        b"",
        b"P5\n100000 100000\n255\n",
        b"\x89PNG\r\n\x1a\n" + bytes(20),
        bytes(rng.randrange(256) for _ in range(64)),
    ]
    cases = []
    for i in range(count):
        if rng.random() < 0.3:
            path = folder / f"i{i}.npy"
            array = np.ones((rng.choice([0, 1, 8]), 8))
            if array.size and rng.random() < 0.5:
                array[0, 0] = rng.choice([np.nan, np.inf])
            np.save(path, array if rng.random() < 0.8 else array.astype(complex))
        else:
            path = folder / f"i{i}.pgm"
            path.write_bytes(rng.choice(contents))
        cases.append(
            [
                "run",
                "--family",
                "stencil",
                "--variant",
                "naive",
                "--size",
                "16",
                "--input",
                "image",
                "--image",
                str(path),
                "--timeout",
                "10",
                "--repeat",
                "1",
            ]
        )
    return cases


@pytest.mark.long
@pytest.mark.usefixtures("fast_cli")
def test_fuzz_in_process_every_case_ends_in_a_documented_code(tmp_path, capfd):
    rng = random.Random(16)
    cases = (
        configurations(rng, 120)
        + headers(rng, tmp_path, 80)
        + sessions(rng, tmp_path, 60)
        + images(rng, tmp_path, 40)
    )
    failures, codes = [], {}
    for args in cases:
        started = time.monotonic()
        outcome = cli(*args)
        elapsed = time.monotonic() - started
        captured = capfd.readouterr()
        text = outcome.out + outcome.err + captured.out + captured.err
        codes[outcome.code] = codes.get(outcome.code, 0) + 1
        if outcome.code not in DOCUMENTED or "Traceback" in text or elapsed > CASE_LIMIT_S:
            failures.append((args, outcome.code, round(elapsed, 1), text[-400:]))
        elif outcome.code == 2 and not (outcome.err.strip() or outcome.out.strip()):
            failures.append((args, outcome.code, "no message", ""))
    print(f"fuzz: {len(cases)} cases, exit codes {dict(sorted(codes.items()))}")
    assert not failures, failures[:5]
    assert len(cases) >= 300


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--family", "matmul", "--variant", "naive", "--size", "20000"],
        [
            "run",
            "--family",
            "matmul",
            "--variant",
            "naive",
            "--size",
            "64",
            "--local",
            "100000000x16",
        ],
        ["run", "--family", "transpose", "--variant", "naive", "--size", "16", "--timeout", "nan"],
        [
            "bench",
            "--family",
            "transpose",
            "--variants",
            "naive",
            "--sizes",
            "100000",
            "--repeat",
            "1",
        ],
    ],
    ids=["huge-size", "huge-local", "nan-timeout", "bench-huge"],
)
def test_fuzz_in_a_subprocess_under_a_memory_cap(args):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "explorer", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_capped,
    )
    assert done.returncode in DOCUMENTED, done.stderr[-800:]
    assert "Traceback" not in done.stderr + done.stdout


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root`` (FIFOs included) with its size and modification time."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            info = os.lstat(os.path.join(folder, name))
            found[os.path.join(folder, name)] = (info.st_size, info.st_mtime_ns)
    return found


@pytest.mark.long
@pytest.mark.usefixtures("fast_cli")
def test_fuzz_sim_files_and_sessions_that_point_elsewhere(tmp_path, capfd):
    """Generated .sim files (FIFOs, devices and huge sizes among their programs and fields,
    other encodings, cut files) and sessions whose embedded headers name reference kernels,
    arrays and images in and out of their folder. Each ends in a documented code with a short
    message, in time; each file outside the session's folder is named before it is used; no
    file is written. ``KEXP_FUZZ_SCALE=10`` runs ten times as many."""
    rng = random.Random(27)
    cases = sim_cases(rng, tmp_path, 40 * FUZZ_SCALE) + session_cases(
        rng, tmp_path, 30 * FUZZ_SCALE
    )
    before = _snapshot(tmp_path)
    failures, codes = [], {}
    for case in cases:
        started = time.monotonic()
        outcome = cli(*case.args)
        elapsed = time.monotonic() - started
        captured = capfd.readouterr()
        text = outcome.out + outcome.err + captured.out + captured.err
        codes[outcome.code] = codes.get(outcome.code, 0) + 1
        long_line = max((len(line) for line in text.splitlines()), default=0)
        unnamed = [p for p in case.outside if outcome.code != 2 and p not in outcome.err]
        if (
            outcome.code not in DOCUMENTED
            or "Traceback" in text
            or elapsed > CASE_LIMIT_S
            or long_line > 800
            or unnamed
            or not text.strip()
        ):
            failures.append((case.args, outcome.code, round(elapsed, 1), unnamed, text[-400:]))
    print(f"fuzz: {len(cases)} .sim and session cases, exit codes {dict(sorted(codes.items()))}")
    assert not failures, failures[:3]
    assert _snapshot(tmp_path) == before  # nothing written, nothing replaced


def _group_left(pgid: int) -> list[int]:
    """Processes still alive in a process group (zombies excluded)."""
    left = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            left.append(int(entry))
    return left


@pytest.mark.long
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_fuzz_generated_files_in_real_processes_leave_nothing_running(tmp_path):
    """A sample of the generated .sim and session cases as real commands, each in a process
    group of its own under a memory cap: a documented code, no traceback, no hang, and no
    process of the group left once the command has ended."""
    rng = random.Random(28)
    cases = sim_cases(rng, tmp_path, 3 * FUZZ_SCALE) + session_cases(rng, tmp_path, 3 * FUZZ_SCALE)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    failures = []
    for case in cases:
        process = subprocess.Popen(
            [sys.executable, "-m", "explorer", *case.args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
            preexec_fn=_capped,
        )
        try:
            out, _ = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            out, _ = process.communicate()
            failures.append((case.args, "hang", out[-300:]))
            continue
        deadline = time.monotonic() + 5
        while _group_left(process.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = _group_left(process.pid)
        for pid in left:
            os.kill(pid, 9)
        if process.returncode not in DOCUMENTED or "Traceback" in out or left:
            failures.append((case.args, process.returncode, left, out[-300:]))
    assert not failures, failures[:3]
