"""How a declared result is judged against a numpy reference: in float64, with a tolerance
from the absolute value of every term, every result judged or named, and expressions as people
write them (a buffer called ``in``, ``pad``, ``None``, long formulas)."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.description.expressions import ExpressionError
from explorer.description.numpy_expressions import evaluate_reference
from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest, result_record


def _kernel(tmp_path, header: str, body: str):
    path = tmp_path / "k.cl"
    path.write_text(header + "#line 1\n" + body, encoding="utf-8")
    return load_variant_file(path)


# A second difference of a smooth signal: large terms that cancel. Over |inputs| with the
# signs kept, the bound cancels too and a correct kernel is called wrong.
LAPLACE = """/*---
name = "Second difference"
family = "custom"
kernel = "laplace"
global = ["N - 2"]
local = ["1"]
[sizes]
N = 4099
[args.u]
buffer = "float"
count = "N"
contents = "iota"
value = 1000.0
step = 0.001
access = "read"
[args.out]
buffer = "float"
count = "N - 2"
contents = "zeros"
access = "write"
[reference]
numpy = "u[2:] - 2 * u[1:-1] + u[:-2]"
---*/
"""
LAPLACE_BODY = """__kernel void laplace(__global const float* u, __global float* out)
{
    int i = get_global_id(0);
    out[i] = u[i + 2] - 2.0f * u[i + 1] + u[i];
}
"""


def test_cancelling_terms_keep_their_magnitude_in_the_tolerance(executor, device, tmp_path):
    variant = _kernel(tmp_path, LAPLACE, LAPLACE_BODY)
    result = executor.run(RunRequest(variant, {}, device_key=device.key, repeat=1))
    assert result.status == "verified", result.summary()


def test_the_magnitude_adds_what_subtraction_takes_away():
    u = np.array([1.0, 2.0, 4.0])
    value, magnitude = evaluate_reference("u[2:] - 2 * u[1:-1] + u[:-2]", {"u": u})
    assert value.tolist() == [1.0]
    assert magnitude.tolist() == [4.0 + 4.0 + 1.0]


# A division of nearly equal float32 values, as in a Gaussian elimination's multipliers: in
# float32 the reference itself is off by more than the tolerance.
RATIO = """/*---
name = "Ratio of differences"
family = "custom"
kernel = "ratio"
global = ["N"]
local = ["1"]
[sizes]
N = 64
[args.a]
buffer = "float"
count = "N"
contents = "iota"
value = 1.0
step = 0.37
access = "read"
[args.b]
buffer = "float"
count = "N"
contents = "iota"
value = 1.000001
step = 0.37
access = "read"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
access = "write"
[reference]
numpy = "(b - a) / (b + a)"
---*/
"""
RATIO_BODY = """__kernel void ratio(__global const float* a, __global const float* b,
                    __global float* out)
{
    int i = get_global_id(0);
    out[i] = (b[i] - a[i]) / (b[i] + a[i]);
}
"""


def test_the_reference_is_computed_in_float64(executor, device, tmp_path):
    variant = _kernel(tmp_path, RATIO, RATIO_BODY)
    result = executor.run(RunRequest(variant, {}, device_key=device.key, repeat=1))
    assert result.status == "verified", result.summary()
    a = np.float32(1.0) + np.float32(0.37) * np.arange(64, dtype=np.float32)
    value, _ = evaluate_reference("(b - a) / (b + a)", {"a": a, "b": a + np.float32(1e-6)})
    assert value.dtype == np.float64


KEYWORD = """/*---
name = "A buffer called in"
family = "custom"
kernel = "copy_in"
global = ["N"]
local = ["8"]
[sizes]
N = 64
[args.in]
buffer = "float"
count = "N"
access = "read"
[args.out]
buffer = "float"
count = "N + 2"
contents = "zeros"
access = "write"
[args.twice]
buffer = "float"
count = "N"
contents = "zeros"
access = "write"
[reference.numpy]
out = "pad(in, 1)"
---*/
"""
KEYWORD_BODY = """__kernel void copy_in(__global const float* in, __global float* out,
                      __global float* twice)
{
    int i = get_global_id(0);
    out[i + 1] = in[i];
    if (i == 0) { out[0] = 0.0f; out[get_global_size(0) + 1] = 0.0f; }
    twice[i] = 2.0f * in[i];
}
"""


def test_a_buffer_named_like_a_keyword_and_an_unchecked_result_are_said(executor, device, tmp_path):
    variant = _kernel(tmp_path, KEYWORD, KEYWORD_BODY)
    result = executor.run(RunRequest(variant, {}, device_key=device.key, repeat=1))
    assert result.status == "verified", result.summary()
    assert result.verdict.not_checked == ("twice",)
    assert "not checked: twice" in result.summary()


def test_none_and_newaxis_add_an_axis_and_long_formulas_are_taken():
    x = np.arange(3.0)
    assert evaluate_reference("x[:, None] * x[newaxis, :]", {"x": x})[0].shape == (3, 3)
    long = " + ".join(f"x[{i % 3}]" for i in range(800))  # over 4,000 characters
    assert len(long) > 4000
    assert evaluate_reference(long, {"x": x})[0] == pytest.approx(sum(i % 3 for i in range(800)))
    with pytest.raises(ExpressionError, match=r"the attribute \.__class__ is not supported"):
        evaluate_reference("x.__class__", {"x": x})


def test_a_reference_too_large_to_compute_is_refused_at_once():
    """Python integers grow without bound: ``9 ** 9 ** 9`` would compute for minutes."""
    for text in ("9 ** 9 ** 9", "1 << 100000000"):
        with pytest.raises(ExpressionError, match="too large to compute"):
            evaluate_reference(text, {})
    assert evaluate_reference("2 ** 63", {})[0] == 2.0**63


# A transpose whose reference was written for the header's own sizes: the slice keeps 24
# columns of the transpose, which is all of it at ROWS = 24 and not at any other size.
FIXED_SIZE_REFERENCE = """/*---
name = "Transpose with a reference written for 24 rows"
family = "custom"
kernel = "transpose_int"
global = ["COLS", "ROWS"]
local = ["8", "8"]
[sizes]
ROWS = 24
COLS = 40
[args.src]
buffer = "int"
count = "ROWS * COLS"
access = "read"
shape = ["ROWS", "COLS"]
[args.dst]
buffer = "int"
count = "ROWS * COLS"
access = "write"
result = true
shape = ["COLS", "ROWS"]
[args.rows]
scalar = "int"
value = "ROWS"
[args.cols]
scalar = "int"
value = "COLS"
[reference]
numpy = "src.T[:, :24]"
---*/
"""
TRANSPOSE_BODY = """__kernel void transpose_int(__global const int* src, __global int* dst,
                            int rows, int cols)
{
    int c = get_global_id(0), r = get_global_id(1);
    if (r < rows && c < cols)
        dst[c * rows + r] = src[r * cols + c];
}
"""
NOT_FITTING = "[reference] numpy for 'dst' has 960 values; the buffer has 1280"


def test_a_reference_that_no_longer_fits_leaves_the_run_timed_and_not_checked(
    executor, device, tmp_path
):
    variant = _kernel(tmp_path, FIXED_SIZE_REFERENCE, TRANSPOSE_BODY)
    fits = executor.run(RunRequest(variant, {}, device_key=device.key, repeat=1))
    assert fits.status == "verified", fits.summary()
    sizes = {"ROWS": 32, "COLS": 40}  # changed in the panel: the slice no longer fits
    result = executor.run(RunRequest(variant, sizes, device_key=device.key, repeat=2))
    assert result.status == "unchecked" and result.error is None, result.summary()
    assert result.verdict.unreferenced == f"{variant.path}: {NOT_FITTING}"
    assert not result.verdict.verified
    assert len(result.timing.kernel_ms) == 2  # it ran and was timed
    src = result.inputs["src"]
    assert np.array_equal(result.outputs["dst"], src.T)  # its output is kept and shown
    summary = result.summary()
    assert summary.startswith("RAN, NOT CHECKED") and "VERIFIED" not in summary
    assert f"not checked: {variant.path}: {NOT_FITTING}" in summary
    record = result_record(result)
    assert record["status"] == "unchecked" and record["verified"] is False
    assert record["not_checked_reason"] == f"{variant.path}: {NOT_FITTING}"


def test_a_reference_that_cannot_be_computed_does_not_stop_the_trace(executor, device, tmp_path):
    header = FIXED_SIZE_REFERENCE.replace('numpy = "src.T[:, :24]"', 'numpy = "src.T @ dst"')
    variant = _kernel(tmp_path, header, TRANSPOSE_BODY)
    request = RunRequest(variant, {}, device_key=device.key, repeat=1)
    traced = executor.trace(TraceRequest(request))
    assert traced.analysis is not None and traced.report_json["complete"]
    assert traced.report_json["records"] == 2 * 24 * 40  # a read and a write per element
    verdict = traced.result.verdict
    assert traced.result.status == "unchecked" and not verdict.verified
    assert verdict.unreferenced.startswith(f"{variant.path}: [reference] numpy for 'dst'")
    assert "not checked: " in traced.result.summary()


def test_the_reason_names_the_file_run_even_where_the_same_answers_were_made(
    executor, device, tmp_path
):
    """Two files with the same header: the second run reuses the inputs made for the first
    and still names its own file."""
    first, second = tmp_path / "a", tmp_path / "b"
    for folder in (first, second):
        folder.mkdir()
    sizes = {"ROWS": 32, "COLS": 40}
    for folder in (first, second):
        variant = _kernel(folder, FIXED_SIZE_REFERENCE, TRANSPOSE_BODY)
        result = executor.run(RunRequest(variant, sizes, device_key=device.key, repeat=1))
        assert result.verdict.unreferenced == f"{folder / 'k.cl'}: {NOT_FITTING}"
