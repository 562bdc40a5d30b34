"""A trace judges its launch as a run does, whatever lies past a buffer's end, and names an
unsigned index that wrapped below zero by the element the device addressed.

A forward difference ``d[i] = x[i + 1] - x[i]`` launched over all n values reads x[n] in the
work-item n - 1: d's last element is decided by memory the kernel was not given. A run tells
that element from the rest (not judged, named: ``run.undetermined``); the trace build, which
redirects an access out of bounds to a scratch slot of its own, judged what the slot happened
to hold (WRONG at d[n - 1] one trace, VERIFIED the next). Each kernel below was derived by
hand: x holds 63 - i, so x[63] is 0 and d[63] is whatever x[64] reads as a float."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from explorer.capture.folder import load_capture
from explorer.engine.header.catalog import load_variant_file
from explorer.engine.header.sim import load_sim
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from tests.capture.conftest import replace_contents
from tests.robustness.helpers import cli

ROOT = Path(__file__).resolve().parents[2]
N = 64
KERNEL = """\
__kernel void diff(__global const float *x, __global float *d)
{
    int i = get_global_id(0);
    d[i] = x[i + 1] - x[i];
}
"""


def _values(last: float = 0.0) -> np.ndarray:
    """x: 63 - i, plus ``last`` (x[63] is ``last``)."""
    return np.arange(N - 1, -1, -1, dtype=np.float32) + np.float32(last)


def _header(folder: Path, expected: np.ndarray, last: float = 0.0) -> Path:
    """The difference as a kernel file whose answer for d is ``expected``, x from
    ``_values(last)``."""
    np.save(folder / "x.npy", _values(last))
    np.save(folder / "d.npy", expected.astype(np.float32))
    path = folder / "diff.cl"
    path.write_text(
        textwrap.dedent(f"""\
        /*---
        name = "Forward difference over all {N} values: work-item {N - 1} reads x[{N}]"
        family = "custom"
        kernel = "diff"
        global = ["{N}"]
        local = ["16"]
        [args.x]
        buffer = "float"
        count = "{N}"
        contents = "npy"
        file = "x.npy"
        access = "read"
        [args.d]
        buffer = "float"
        count = "{N}"
        contents = "zeros"
        access = "write"
        [reference]
        expected = {{d = "d.npy"}}
        expected_from = "the original run"
        ---*/
        #line 1
        """)
        + KERNEL
    )
    return path


def _answer(past_end: float, last: float = 0.0) -> np.ndarray:
    x = _values(last)
    return np.append(np.diff(x), np.float32(past_end) - x[-1])


@pytest.mark.parametrize("last", [0.0, 1.0])
def test_a_read_past_the_end_is_not_judged_by_the_trace_as_by_the_run(
    executor, device, tmp_path, last
):
    """The recorded answer says 1234 lay past x in the original run: d[63] is not judged, by
    the run and by every trace alike (before: the trace judged WRONG at 1 element, the
    scratch slot holding something else, or VERIFIED where it happened to agree). With
    x[63] = 1 too: the other bytes the launch that tells fills the guards with read as a
    float that 1 does not swallow (before, zeros, and the guards' own pattern reads as
    -2.9e-16: both gave d[63] = -1, so the run judged it WRONG)."""
    variant = load_variant_file(_header(tmp_path, _answer(1234.0, last), last))
    run = RunRequest(variant, {}, device_key=device.key, repeat=1, warmup=1)
    ran = executor.run(run)
    assert ran.status == "verified", ran.summary()
    assert ran.verdict.undetermined == (("d", 1, (63,)),)
    for _ in range(3):
        traced = executor.trace(TraceRequest(run)).result
        assert traced.status == "verified", traced.summary()
        assert traced.verdict.undetermined == ran.verdict.undetermined
    # A wrong element the inputs decide is still wrong: d[0] (x[1] - x[0] is -1).
    wrong = _answer(1234.0, last)
    wrong[0] = 7.0
    variant = load_variant_file(_header(tmp_path, wrong, last))
    run = RunRequest(variant, {}, device_key=device.key, repeat=1, warmup=1)
    for result in (executor.run(run), executor.trace(TraceRequest(run)).result):
        assert result.status == "wrong", result.summary()
        assert result.verdict.undetermined == (("d", 1, (63,)),), result.summary()


SIM = f"""\
# the difference over all {N} values, launched as its kernel file is
diff.cl
diff
{N} 1 1
16 1 1

<size={4 * N} float range={N - 1}:-1:0>    # x
<size={4 * N} float fill=0 dump>           # d
"""


def test_the_trace_build_reads_past_the_end_what_a_run_reads(executor, device, tmp_path):
    """A .sim file has no answer to judge by: what the trace build computes from the read
    past x is what the run computed (the bytes a run finds past a buffer), the same at
    every trace (before: the scratch slot's leftovers, 0.0 on a fresh one)."""
    (tmp_path / "diff.cl").write_text(KERNEL)
    (tmp_path / "diff.sim").write_text(SIM)
    run = RunRequest(load_sim(tmp_path / "diff.sim"), {}, device_key=device.key, repeat=1)
    ran = executor.run(run)
    assert ran.status == "unchecked" and ran.outputs is not None, ran.summary()
    for _ in range(2):
        traced = executor.trace(TraceRequest(run)).result
        assert traced.status == "unchecked" and traced.outputs is not None, traced.summary()
        assert traced.outputs["d"].tobytes() == ran.outputs["d"].tobytes()


PROGRAM = f"""\
import numpy as np
import pyopencl as cl

ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
prg = cl.Program(ctx, '''{KERNEL}''').build()
x = np.arange({N - 1}, -1, -1, dtype=np.float32)
xb = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
db = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, x.nbytes)
prg.diff(q, ({N},), (16,), xb, db)
q.finish()
"""


@pytest.mark.usefixtures("fast_cli")
def test_a_captured_launch_traces_with_the_verdict_of_its_replay(device, tmp_path):
    """The captured difference, its recorded d[63] edited as if 1234 lay past x in the
    program: the replay and the trace both verify it, d[63] not judged."""
    (tmp_path / "program.py").write_text(PROGRAM)
    folder = tmp_path / "captured"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "explorer", "capture", str(folder), "--",
         sys.executable, "program.py"],
        env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    capture = load_capture(folder)
    (launch,) = capture.launches
    replace_contents(capture, launch.args[1].after, _answer(1234.0))
    selection = ["--capture", str(folder), "--launch", "1"]
    ran = cli("run", *selection, "--repeat", "1", "--json")
    assert ran.code == 0, ran.out + ran.err
    record = json.loads(ran.out)
    assert record["status"] == "verified" and record["undetermined"] == {
        "d": {"count": 1, "first": [63]}
    }
    for _ in range(2):
        traced = cli("trace", *selection)
        assert traced.code == 0, traced.out + traced.err
        first = traced.out.splitlines()[0]
        assert first.startswith("VERIFIED") and "not judged: 1 element of d (at 63)" in first


# -- an unsigned index below zero ----------------------------------------------------------------

WRAPS = """\
/*---
name = "Indices below zero: uint into floats and uchars, two uints apart, a long far below, an int"
family = "custom"
kernel = "wraps"
global = ["GLOBAL"]
local = ["16"]
[args.in]
buffer = "float"
count = "32"
access = "read"
[args.c]
buffer = "uchar"
count = "32"
access = "read"
[args.two]
buffer = "float"
count = "32"
access = "read"
[args.far]
buffer = "float"
count = "32"
access = "read"
[args.d]
buffer = "float"
count = "GLOBAL"
contents = "zeros"
access = "write"
---*/
#line 1
__kernel void wraps(__global const float *in, __global const uchar *c, __global const float *two,
                    __global const float *far, __global float *d)
{
    uint u = (uint)get_global_id(0);
    int s = (int)get_global_id(0);
    long l = (long)get_global_id(0) - (1L << 40);
    float a = (u < 32u) ? in[u - 1u] + c[u - 1u] : 0.0f;
    float b = (u < 32u) ? two[u - 2u] + in[s - 1] : 0.0f;
    float e = (u == 0u) ? far[l] : 0.0f;
    d[u] = a + b + e;
}
"""


@pytest.mark.parametrize("work_items", [32, 32768])  # the quick build, and the optimised one
def test_an_unsigned_index_below_zero_is_named_by_the_element_it_reached(
    executor, device, tmp_path, work_items
):
    """`in[u - 1u]` at u = 0 reaches in[4294967295], 16 GiB past the start of a float
    buffer on a 64-bit device: the record's 32-bit offset read -4, and the finding named
    in[-1], an element below the start it never touched. Now: the element reached, said to
    be -1 wrapped (c[u - 1u] on uchars too, 4 GiB past); two elements wrapped at one site,
    of which the trace keeps one offset, said to be wrapped, that one named; a signed index
    below zero and a long one 2^40 elements below are below the start, as named before. The
    guard stays `u >= 1u`."""
    path = tmp_path / "wraps.cl"
    path.write_text(WRAPS.replace("GLOBAL", str(work_items)))
    run = RunRequest(load_variant_file(path), {}, device_key=device.key)
    traced = executor.trace(TraceRequest(run))
    assert traced.analysis is not None, traced.result.summary()
    found = {(f.line, f.buffer): (f.count, f.elements, f.message) for f in traced.analysis.findings}
    # The one element of two named is one the kernel reached: u - 2u at u = 0 or 1.
    two = re.fullmatch(
        r"line 8 reads two at indices past the end \(wrapped below zero as unsigned; one of "
        r"them two\[(\d+)\], (-\d) wrapped\) outside two \(32 elements\), 2 accesses; the "
        r"accesses were skipped\. Guard it in the kernel's own terms: if \(u >= 2u\)",
        found.pop((8, "two"))[2],
    )
    assert two is not None and two.groups() in (("4294967294", "-2"), ("4294967295", "-1"))
    assert found == {
        (7, "in"): (
            1,
            (4294967295,),
            "line 7 reads in[4294967295] (-1 wrapped as a 32-bit unsigned index, 16 GiB past "
            "the start) outside in (32 elements); the access was skipped. Guard it in the "
            "kernel's own terms: if (u >= 1u)",
        ),
        (7, "c"): (
            1,
            (4294967295,),
            "line 7 reads c[4294967295] (-1 wrapped as a 32-bit unsigned index, 4 GiB past "
            "the start) outside c (32 elements); the access was skipped. Guard it in the "
            "kernel's own terms: if (u >= 1u)",
        ),
        (8, "in"): (
            1,
            (-1,),
            "line 8 reads in[-1] outside in (32 elements); the access was skipped. Guard it "
            "in the kernel's own terms: if (s >= 1)",
        ),
        (9, "far"): (
            1,
            (-(1 << 40),),
            "line 9 reads far[-1099511627776] outside far (32 elements); the access was "
            "skipped. Guard it in the kernel's own terms: if (l >= 0)",
        ),
    }
