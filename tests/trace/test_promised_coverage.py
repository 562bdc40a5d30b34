"""Coverage only where it was promised: a custom buffer's ``writes`` ("all", or a region such
as a stencil's interior) makes the promised elements no work-item wrote a coverage finding;
elements outside the promise, and every element of a buffer that promised nothing, are the
buffer's initial contents, never a finding. The same kernels go through the command line and
the window's trace alike in tests/trace/test_same_findings_on_every_path.py."""

from __future__ import annotations

import json

import pytest

from explorer.engine.header.catalog import CatalogError, load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from tests.conftest import TEST_KERNELS
from tests.test_cli import cli

PROMISED = TEST_KERNELS / "promised"


def _findings(executor, device, path):
    run = RunRequest(load_variant_file(path), {}, device_key=device.key)
    traced = executor.trace(TraceRequest(run))
    assert traced.analysis is not None, traced.result.summary()
    assert traced.report_json["complete"] is True
    return traced, list(traced.analysis.findings)


def test_a_stencil_that_writes_the_interior_it_promised_has_no_finding(executor, device):
    traced, found = _findings(executor, device, PROMISED / "interior.cl")
    assert found == []
    assert traced.result.status == "verified"  # the border kept its declared zeros


def test_the_promised_row_a_stencil_skips_is_named(executor, device):
    _, found = _findings(executor, device, PROMISED / "skips_a_row.cl")
    (never,) = found
    assert (never.kind, never.buffer, never.line) == ("coverage", "dst", None)
    # Row 14 of 16, columns 1 to 14: the interior's last row, and nothing of the border.
    assert never.count == 14
    assert never.elements == tuple(14 * 16 + x for x in range(1, 5))
    assert "14 of the 196 elements of dst its declaration promises" in never.message
    assert 'writes = "[1:-1, 1:-1]"' in never.message
    assert "dst[14, 1], dst[14, 2]" in never.message


def test_a_partial_output_that_promised_every_element_is_a_finding(executor, device):
    _, found = _findings(executor, device, PROMISED / "triangle_promises_all.cl")
    (never,) = found
    assert (never.kind, never.buffer, never.count) == ("coverage", "low", 16 * 15 // 2)
    assert "120 of 256 elements of low were never written" in never.message
    assert "low[0, 1]" in never.message


def test_without_a_promise_the_skipped_row_is_the_initial_contents(executor, device, tmp_path):
    text = (PROMISED / "skips_a_row.cl").read_text(encoding="utf-8")
    path = tmp_path / "no_promise.cl"
    path.write_text(text.replace('writes = "[1:-1, 1:-1]"\n', ""), encoding="utf-8")
    _, found = _findings(executor, device, path)
    assert found == []


def test_the_command_line_names_the_same_row(tmp_path, fast_cli):
    ran = cli("trace", "--kernel-file", str(PROMISED / "skips_a_row.cl"), "--json")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    (never,) = json.loads(ran.stdout)["findings"]
    assert (never["kind"], never["buffer"], never["count"]) == ("coverage", "dst", 14)


@pytest.mark.parametrize(
    ("writes", "says"),
    [
        ('"[1:-1, 1:-1"', 'is not "all", "none" or a subscript in brackets'),
        ('"[1:-1, 1:-1, 0]"', "3 subscripts for a buffer of 2 dimensions"),
        ('"[H:, 1:-1]"', "neither an integer nor a slice"),
        ('"[::0, :]"', "a step of 0"),
        ('"[]"', "an empty subscript"),
        ("3", 'must be "all", "none" or a region'),
    ],
)
def test_a_bad_region_names_the_file_the_parameter_and_the_key(tmp_path, writes, says):
    text = (PROMISED / "interior.cl").read_text(encoding="utf-8")
    path = tmp_path / "bad.cl"
    path.write_text(text.replace('"[1:-1, 1:-1]"', writes), encoding="utf-8")
    with pytest.raises(CatalogError) as caught:
        load_variant_file(path)
    message = str(caught.value)
    assert str(path) in message and "parameter 'dst'" in message and "key 'writes'" in message
    assert says in message


def test_a_read_buffer_promises_no_writes(tmp_path):
    text = (PROMISED / "interior.cl").read_text(encoding="utf-8")
    path = tmp_path / "bad.cl"
    path.write_text(text.replace('access = "read"\n', 'access = "read"\nwrites = "all"\n'), "utf-8")
    with pytest.raises(CatalogError, match=r"parameter 'src': key 'writes': .*is not written"):
        load_variant_file(path)


def test_an_index_outside_the_shape_is_refused_before_the_run(tmp_path, fast_cli):
    text = (PROMISED / "interior.cl").read_text(encoding="utf-8")
    path = tmp_path / "outside.cl"
    path.write_text(text.replace('"[1:-1, 1:-1]"', '"[16, :]"'), encoding="utf-8")
    ran = cli("run", "--kernel-file", str(path))
    assert ran.returncode != 0
    assert "parameter 'dst': key 'writes'" in ran.stdout + ran.stderr
    assert "index 16 is outside dimension 0 of the buffer's shape 16 × 16" in ran.stdout


HALF = """__kernel void evens(__global float* out)
{
    int i = get_global_id(0);
    if (i % 2 == 0)
        out[i] = 1.0f;
}
"""


def test_a_sim_file_promises_nothing(executor, device, tmp_path):
    """Oclgrind's format has no promise: a ``noinit`` result written in every other element
    is what the device left in the others, not a coverage finding."""
    (tmp_path / "half.cl").write_text(HALF, encoding="utf-8")
    sim = tmp_path / "half.sim"
    sim.write_text("half.cl\nevens\n64 1 1\n16 1 1\n<size=256 float noinit dump>\n", "utf-8")
    _, found = _findings(executor, device, sim)
    assert found == []
