"""The same kernel gives the same findings whatever the path: the command line's trace and
the window's trace record the same things (values included), so work-items that all write one
element the same value are a note on both, never a race on one of them."""

from __future__ import annotations

import json

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from tests.test_cli import cli

UNIFORM = """/*---
name = "Every work-item raises the same flag"
family = "custom"
kernel = "flagged_copy"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.src]
buffer = "float"
count = "N"
access = "read"
[args.dst]
buffer = "float"
count = "N"
contents = "zeros"
access = "write"
[args.done]
buffer = "int"
count = "1"
contents = "zeros"
access = "write"
[reference.numpy]
dst = "src"
done = "done + 1"
---*/
#line 1
__kernel void flagged_copy(__global const float* src, __global float* dst, __global int* done)
{
    int i = get_global_id(0);
    dst[i] = src[i];
    done[0] = 1;
}
"""


def test_the_command_line_and_the_window_find_the_same(executor, device, tmp_path, fast_cli):
    path = tmp_path / "flagged.cl"
    path.write_text(UNIFORM, encoding="utf-8")
    ran = cli("trace", "--kernel-file", str(path), "--json")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    on_the_command_line = sorted({f["kind"] for f in json.loads(ran.stdout)["findings"]})
    request = RunRequest(load_variant_file(path), {}, device_key=device.key)
    in_the_window = executor.trace(TraceRequest(request, values=True))  # as the window asks
    assert on_the_command_line == sorted({f.kind for f in in_the_window.analysis.findings})
    assert "same-value-writes" in on_the_command_line
    assert "race" not in on_the_command_line
