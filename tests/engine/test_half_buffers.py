"""Buffers of `half`: declared `buffer = "half"`, held by numpy as float16, filled as any
float buffer is (random in [-1, 1), zeros, ones, iota, a picture), read and written by the
kernel with vload_half/vstore_half (which need no extension, so they run on every device) and
judged against the float64 reference with half's own tolerance. Arithmetic on `half` needs
cl_khr_fp16: on a device without it the build error says so in plain words."""

from __future__ import annotations

import types

import numpy as np
import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.header.guess import guess_declarations
from explorer.engine.launch import build
from explorer.engine.launch.build import BuildCache, BuildError
from explorer.engine.records import RunRequest

# Storage in half, arithmetic in float: the style of mixed-precision code on any device.
SAXPY = """/*---
name = "SAXPY, half storage"
family = "custom"
kernel = "saxpy_half"
global = ["N"]
local = ["64"]
[sizes]
N = 1000
[args.n]
scalar = "int"
value = "N"
[args.a]
scalar = "float"
value = 2.5
[args.x]
buffer = "half"
count = "N"
access = "read"
[args.y]
buffer = "half"
count = "N"
contents = "ones"
result = true
[reference]
numpy = "a * x + y"
---*/
// y = a*x + y with x and y stored as half; the sum is formed in float.
__kernel void saxpy_half(const int n, const float a,
                         __global const half *x, __global half *y)
{
    const int i = get_global_id(0);
    if (i < n) {
        const float r = a * vload_half(i, x) + vload_half(i, y);
        vstore_half(r, i, y);
    }
}
"""

# A picture in half, inverted four pixels at a time (vload_half4/vstore_half4).
INVERT = """/*---
name = "Invert a half image"
family = "custom"
kernel = "invert"
global = ["W / 4", "H"]
local = ["8", "4"]
[sizes]
W = 64
H = 32
[args.img]
buffer = "half"
count = "W * H"
contents = "iou"
shape = ["H", "W"]
access = "read"
[args.out]
buffer = "half"
count = "W * H"
contents = "zeros"
shape = ["H", "W"]
result = true
[args.ramp]
buffer = "half"
count = "W * H"
contents = "iota"
access = "read"
[args.ramp_out]
buffer = "half"
count = "W * H"
contents = "zeros"
result = true
[reference.numpy]
out = "1 - img"
ramp_out = "ramp + 0.5"
---*/
__kernel void invert(__global const half *img, __global half *out,
                     __global const half *ramp, __global half *ramp_out)
{
    const int x4 = get_global_id(0), y = get_global_id(1);
    const int row = y * (int)get_global_size(0);      /* in groups of four pixels */
    float4 p = vload_half4(row + x4, img);
    vstore_half4(1.0f - p, row + x4, out);
    vstore_half4(vload_half4(row + x4, ramp) + 0.5f, row + x4, ramp_out);
}
"""

# Arithmetic on half itself: needs cl_khr_fp16.
HALF_MATH = """/*---
name = "Scale in half"
family = "custom"
kernel = "scale_half"
global = ["N"]
local = ["64"]
[sizes]
N = 1024
[args.x]
buffer = "half"
count = "N"
access = "read"
[args.y]
buffer = "half"
count = "N"
contents = "zeros"
result = true
[reference]
numpy = "0.5 * x"
---*/
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

__kernel void scale_half(__global const half *x, __global half *y)
{
    int i = get_global_id(0);
    half h = x[i];
    y[i] = h * (half)0.5f;
}
"""


def _run(executor, device, tmp_path, name, text, sizes=None):
    path = tmp_path / f"{name}.cl"
    path.write_text(text)
    variant = load_variant_file(path)
    return executor.run(RunRequest(variant, sizes or {}, device_key=device.key, repeat=1))


def test_a_half_buffer_is_float16_and_a_kernel_with_vload_half_is_verified(
    executor, device, tmp_path
):
    result = _run(executor, device, tmp_path, "saxpy_half", SAXPY)
    assert result.status == "verified", result.summary()
    x, y = result.inputs["x"], result.outputs["y"]
    assert x.dtype == y.dtype == np.float16 and x.shape == y.shape == (1000,)
    assert -1 <= x.min() < -0.99 and 0.99 < x.max() < 1  # random in [-1, 1), both signs
    assert np.array_equal(result.inputs["y"], np.ones(1000, np.float16))
    assert np.array_equal(y, (2.5 * x.astype(np.float32) + 1).astype(np.float16))


def test_a_wrong_half_kernel_is_wrong(executor, device, tmp_path):
    """Half's tolerance is no blanket: a result off by one half-ulp step of the input is
    found."""
    wrong = SAXPY.replace("vload_half(i, y)", "vload_half(i, y) + 0.01f")
    result = _run(executor, device, tmp_path, "saxpy_half", wrong)
    assert result.status == "wrong", result.summary()


def test_half_pictures_ramps_and_their_results_are_values_a_person_reads(
    executor, device, tmp_path
):
    result = _run(executor, device, tmp_path, "invert", INVERT)
    assert result.status == "verified", result.summary()
    img, out = result.inputs["img"], result.outputs["out"]
    assert img.dtype == out.dtype == np.float16 and img.shape == out.shape == (32, 64)
    assert set(np.unique(img)) == {0.0, 1.0}  # the rendered text: ink 0, paper 1
    assert np.array_equal(out, 1 - img)  # the picture, inverted
    ramp = result.inputs["ramp"]
    assert np.array_equal(ramp, np.arange(64 * 32, dtype=np.float16))
    assert np.array_equal(
        result.outputs["ramp_out"], (ramp.astype(np.float32) + 0.5).astype(np.float16)
    )


def test_half_arithmetic_on_a_device_without_cl_khr_fp16_says_so(executor, device, tmp_path):
    """PoCL has no cl_khr_fp16 and refuses the build: the message says why and what works.
    NVIDIA's driver does not name the extension but builds half arithmetic all the same: its
    result is judged like any other."""
    result = _run(executor, device, tmp_path, "scale_half", HALF_MATH)
    if "cl_khr_fp16" in device_extensions(device) or result.error_kind != "build":
        assert result.status == "verified", result.summary()
        return
    said = f"{result.error}\n{result.build_log}"
    assert f"{device.name} does not support half arithmetic (no cl_khr_fp16)" in result.error
    assert "vload_half" in said and "vstore_half" in said  # what works instead


def device_extensions(device) -> str:
    import pyopencl as cl

    for platform in cl.get_platforms():
        for d in platform.get_devices():
            if d.name == device.name:
                return d.extensions
    return ""


def _failing(log: str):
    class Failure(Exception):
        pass

    def failing_build(cl, context, source, options):
        raise Failure(f"clBuildProgram failed\n\nBuild on <device>:\n\n{log}")

    cl = types.SimpleNamespace(RuntimeError=Failure, CompilerWarning=UserWarning)
    return cl, failing_build


def _context(extensions: str):
    gpu = types.SimpleNamespace(
        name="Some GPU", extensions=extensions, platform=types.SimpleNamespace(name="Vendor")
    )
    return types.SimpleNamespace(devices=[gpu])


NO_PRAGMA_LOG = "<kernel>:4:5: error: declaring variable of type '__private half' is not allowed"


def test_half_arithmetic_without_the_pragma_on_a_device_with_fp16_says_to_enable_it(
    monkeypatch,
):
    cl, failing = _failing(NO_PRAGMA_LOG)
    monkeypatch.setattr(build, "_source_build", failing)
    source = HALF_MATH.replace("#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n", "")
    with pytest.raises(BuildError) as failed:
        BuildCache().kernel(
            cl, _context("cl_khr_fp64 cl_khr_fp16"), "gpu", source, (), "scale_half", "s.cl"
        )
    assert "half arithmetic needs cl_khr_fp16 enabled" in str(failed.value)
    assert "#pragma OPENCL EXTENSION cl_khr_fp16 : enable" in failed.value.log
    assert "s.cl:4:5: error" in failed.value.log


def test_a_build_error_about_something_else_says_nothing_of_half(monkeypatch):
    cl, failing = _failing("<kernel>:4:5: error: use of undeclared identifier 'hlaf'")
    monkeypatch.setattr(build, "_source_build", failing)
    with pytest.raises(BuildError) as failed:
        BuildCache().kernel(cl, _context("cl_khr_fp64"), "gpu", HALF_MATH, (), "k", "s.cl")
    assert "cl_khr_fp16" not in str(failed.value) + failed.value.log


# A kernel that reads its half buffer with vload_half and misspells a name: its warnings
# quote 'half', its one error is about the name.
MISSPELT = SAXPY.replace("vload_half(i, y);", "vload_half(i, y) * scale;")


def test_an_error_about_something_else_beside_a_warning_about_half_is_not_blamed_on_half(
    executor, device, tmp_path
):
    """vload_half given a float pointer warns (quoting 'const __global half *'), and the build
    fails on a name never declared: the message is the compiler's, not a claim that the
    device cannot do half arithmetic."""
    misused = MISSPELT.replace("__global const half *x", "__global const float *x")
    result = _run(executor, device, tmp_path, "saxpy_half", misused)
    assert result.error_kind == "build", result.summary()
    assert "undeclared identifier 'scale'" in result.build_log
    assert "half arithmetic" not in f"{result.error}\n{result.build_log}"


def test_a_type_error_in_half_code_on_a_device_that_builds_half_says_nothing_of_fp16(
    monkeypatch,
):
    """NVIDIA's driver builds half arithmetic without naming cl_khr_fp16: a kernel's own
    mistake about a half (a float3 assigned to one) is that mistake, not a missing
    extension."""
    log = (
        "<kernel>:5:7: error: assigning to '__private half' from incompatible type "
        "'__private float3'"
    )
    cl, failing = _failing(log)
    monkeypatch.setattr(build, "_source_build", failing)
    with pytest.raises(BuildError) as failed:
        BuildCache().kernel(cl, _context("cl_khr_fp64"), "gpu", HALF_MATH, (), "k", "s.cl")
    assert "cl_khr_fp16" not in str(failed.value) + failed.value.log
    assert "s.cl:5:7: error: assigning to '__private half'" in failed.value.log


def test_the_open_kernel_form_guesses_a_half_buffer_as_half():
    body = SAXPY[SAXPY.index("---*/") + 6 :]
    guessed = {p.name: p for p in guess_declarations(body, "saxpy_half").params}
    assert guessed["x"].type == guessed["y"].type == "half"
    assert guessed["x"].count == guessed["y"].count == "n"
