"""Generated hostile files for the fuzz tests: Oclgrind ``.sim`` files and sessions whose
embedded headers point at reference kernels, arrays and images inside and outside their
folder, at devices, FIFOs and folders. Each case knows the files outside its session's folder
that the command must name before using them."""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

FUZZ_SCALE = int(os.environ.get("KEXP_FUZZ_SCALE", "1"))  # KEXP_FUZZ_SCALE=10: ten times more

VECADD = """__kernel void vecadd(__global const int* a, __global int* b, int n)
{ int i = get_global_id(0); if (i < n) b[i] = a[i] + n; }
"""
BODY = """__kernel void dbl(__global const float* x, __global float* y)
{ int i = get_global_id(0); if (i < 16) y[i] = 2 * x[i]; }
"""
PROGRAMS = ["vecadd.cl"] * 6 + [
    "missing.cl",
    "pipe.cl",
    "/dev/zero",
    "folder",
    "../outside/vecadd.cl",
    "sparse.cl",
    "x" * 5000,
]
NDRANGES = ["16 1 1"] * 6 + [
    "0 1 1",
    "4294967296 4294967296 1",
    "18446744073709551616 1 1",
    "9223372036854775808 1 1",
    "x 1 1",
    "16 1",
    "1" * 40 + " 1 1",
]
GROUPS = ["4 1 1"] * 6 + ["0 1 1", "3 1 1", "2048 1 1", "4 4 4"]
BUFFERS = ["<size=64 range=0:1:15 ro>"] * 4 + [
    "<size=64 fill=1>",
    "<size=63>",
    "<size=-4>",
    "<size=99999999999999999999999>",
    "<size=1099511627776 fill=0>",
    "<size=64 fill=nan>",
    "<size=64 range=0:0:15>",
    "<size=64 range=0:1:inf>",
    "<size=64 null>",
    "<size=64 noinit>",
    "<size",
    "<bogus>",
    "<size=64 hex fill=zz>",
    "<size=64 ro wo>",
]
RESULTS = ["<size=64 fill=0 dump wo>"] * 4 + ["<size=64 dump>", "<size=4096 dump>", "<size=64>"]
SCALARS = ["<size=4>\n16"] * 4 + [
    "<size=268435456 fill=1>",
    "<size=4 fill=1>",
    "<size=4>",
    "<size=4>\n" + "9" * 5000,
    "<size=1024 range=0:1:255>",
    "<size=8>\n1 2",
    "<size=4>\n16\nextra",
]


@dataclass
class Case:
    args: list[str]
    outside: list[str] = field(default_factory=list)  # files the command must name


def _folder(root: Path) -> Path:
    """Fixtures every case may name: a FIFO, a folder, a sparse 64 MiB file, and a folder
    outside the cases' own."""
    (root / "cases").mkdir(exist_ok=True)
    for name in ("pipe.cl", "pipe.npy"):
        if not (root / "cases" / name).exists():
            os.mkfifo(root / "cases" / name)
    (root / "cases" / "folder").mkdir(exist_ok=True)
    with open(root / "cases" / "sparse.cl", "wb") as sparse:
        sparse.truncate(64 << 20)
    (root / "cases" / "vecadd.cl").write_text(VECADD)
    outside = root / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "vecadd.cl").write_text(VECADD)
    np.save(outside / "x.npy", np.ones(16, dtype=np.float32))
    np.save(root / "cases" / "x.npy", np.ones(16, dtype=np.float32))
    np.save(root / "cases" / "objects.npy", np.array([{"a": 1}] * 16, dtype=object))
    (outside / "naive.cl").write_text(header() + BODY)
    return root / "cases"


def sim_cases(rng: random.Random, root: Path, count: int) -> list[Case]:
    """``run``/``trace --sim`` on generated .sim files."""
    folder = _folder(root)
    cases = []
    for i in range(count):

        def pick(options: list[str]) -> str:  # mostly the good value: most files run
            return options[0] if rng.random() < 0.8 else rng.choice(options)

        parts = [
            pick(PROGRAMS),
            pick(["vecadd", "nope"]),
            pick(NDRANGES),
            pick(GROUPS),
            pick(BUFFERS),
            pick(RESULTS),
            pick(SCALARS),
        ]
        text = "\n".join(parts) + "\n"
        data = text.encode()
        kind = rng.random()
        if kind < 0.05:
            data = text.encode("utf-16")
        elif kind < 0.1:
            data = b"# caf\xe9\n" + data
        elif kind < 0.13:
            data = data[: rng.randrange(1, len(data))]
        path = folder / f"g{i}.sim"
        path.write_bytes(data)
        command = "trace" if rng.random() < 0.2 else "run"
        args = [command, "--sim", str(path), "--timeout", "10"]
        cases.append(Case(args + (["--repeat", "1"] if command == "run" else [])))
    return cases


HEADER = """/*---
name = "double"
family = "custom"
kernel = "dbl"
global = [GLOBAL]
local = ["4"]
[sizes]
N = 16
XEXTRA
[args.x]
buffer = "float"
count = "N"
access = "read"
XCONTENTS
[args.y]
buffer = "float"
count = "N"
result = true
[reference]
REFERENCE
---*/
"""


def header(
    global_size: str = '"N"', contents: str = "", reference: str = 'numpy = "2 * x"', extra=""
) -> str:
    return (
        HEADER.replace("GLOBAL", global_size)
        .replace("XCONTENTS", contents)
        .replace("REFERENCE", reference)
        .replace("XEXTRA", extra)
    )


def session_cases(rng: random.Random, root: Path, count: int) -> list[Case]:
    """``run --session`` on sessions with embedded headers that name files everywhere."""
    folder = _folder(root)
    outside = root / "outside"
    (folder / "k.cl").write_text(BODY)
    references: list[tuple[str, str | None]] = [('numpy = "2 * x"', None)] * 3 + [
        ('kernel = "../outside/naive.cl"', str(outside / "naive.cl")),
        (f'kernel = "{outside / "naive.cl"}"', str(outside / "naive.cl")),
        ('kernel = "missing.cl"', None),
        ('kernel = "pipe.cl"', None),
        ('kernel = "/dev/zero"', None),
        ('numpy = "9 ** 9 ** 9"', None),
        ('expected = { y = "../outside/x.npy" }', str(outside / "x.npy")),
        ('expected = { y = "objects.npy" }', None),
    ]
    contents: list[tuple[str, str | None]] = [("", None)] * 3 + [
        ('contents = "npy"\nfile = "x.npy"', None),
        ('contents = "npy"\nfile = "../outside/x.npy"', str(outside / "x.npy")),
        ('contents = "npy"\nfile = "pipe.npy"', None),
        ('contents = "npy"\nfile = "/dev/zero"', None),
        ('contents = "npy"\nfile = "folder"', None),
        ('contents = "npy"\nfile = "objects.npy"', None),
        ("seed = -1", None),
        ("range = [-inf, inf]", None),
        ('contents = "random"\nseed = 99999999999999999999999', None),
    ]
    globals_ = ['"N"'] * 4 + ['"1 << 63"', '"1 << 40"', '"N ** N ** N"', '"N / 0"']
    extras = [""] * 4 + [
        '[defines]\nT = 1\n[[by_size]]\nwhen = "N ** N ** N > 0"\nT = 2',
        '[defines]\nT = 1\n[[by_size]]\nwhen = "Q > 1"\nT = 2',
    ]
    cases = []
    for i in range(count):
        reference, ref_out = rng.choice(references)
        content, content_out = rng.choice(contents)
        text = header(rng.choice(globals_), content, reference, rng.choice(extras))
        data = {
            "format": "kernel-explorer-session",
            "version": 1,
            "family": "custom",
            "kernel_path": "k.cl",
            "header": text,
        }
        if rng.random() < 0.1:
            data["kernel_path"] = rng.choice(["x" * 10000, "/dev/zero", "pipe.cl", "folder"])
        path = folder / f"s{i}.kexp.json"
        path.write_text(json.dumps(data))
        args = ["run", "--session", str(path), "--timeout", "10", "--repeat", "1"]
        cases.append(Case(args, [p for p in (ref_out, content_out) if p]))
    return cases
