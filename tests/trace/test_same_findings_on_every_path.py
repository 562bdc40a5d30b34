"""The same kernel gives the same findings whatever the path: the command line's trace and
the window's trace record the same things (values included), so work-items that all write one
element the same value are a note on both, never a race on one of them. Every kernel of the
findings corpus and of our trace kernels goes both ways."""

from __future__ import annotations

import json

import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from tests.conftest import TEST_KERNELS
from tests.test_cli import cli
from tests.trace.findings.test_corpus import CORPUS, FINDINGS, SIZES
from tests.trace.test_same_findings_either_build import OWN

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


def _both_ways(executor, device, path, sizes: dict[str, int]) -> tuple[list[tuple], list[tuple]]:
    """(kind, line, buffer, count, phase) of each finding: `trace --json` and the window's."""
    given = [f"--{name.lower()}={value}" for name, value in sizes.items()]
    ran = cli("trace", "--kernel-file", str(path), *given, "--json")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    keys = ("kind", "line", "buffer", "count", "phase")
    on_the_command_line = [tuple(f[k] for k in keys) for f in json.loads(ran.stdout)["findings"]]
    request = RunRequest(load_variant_file(path), sizes, device_key=device.key)
    traced = executor.trace(TraceRequest(request, values=True))  # as the window asks
    assert traced.analysis is not None, traced.result.summary()
    in_the_window = [(f.kind, f.line, f.buffer, f.count, f.phase) for f in traced.analysis.findings]
    return on_the_command_line, in_the_window


@pytest.mark.parametrize("name", sorted(FINDINGS))
def test_the_findings_corpus_is_found_alike_both_ways(name, executor, device, fast_cli):
    line, window = _both_ways(executor, device, CORPUS / f"{name}.cl", SIZES)
    assert line == window


@pytest.mark.parametrize("path", OWN)
def test_our_trace_kernels_are_found_alike_both_ways(path, executor, device, fast_cli):
    line, window = _both_ways(executor, device, TEST_KERNELS / path, {})
    assert line == window
