"""A kernel file's own includes: ``#include "x.h"`` is found beside the kernel file wherever
the explorer runs from, and ``-I DIR`` in its header's ``[options]`` names folders beside it
(a folder outside is refused). An image parameter declared as a buffer is refused with a
sentence that names the key that declares an image."""

from __future__ import annotations

import pytest

from explorer.engine.header.catalog import CatalogError, load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest

HEADER = """/*---
name = "scale"
family = "custom"
kernel = "scale"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.x]
buffer = "float"
count = "N"
access = "read"
[args.y]
buffer = "float"
count = "N"
contents = "zeros"
access = "write"
result = true
[reference]
numpy = "3 * x + 1"
{options}---*/
"""
KERNEL = """#include "{include}"
__kernel void scale(__global const float *x, __global float *y)
{{
    int i = get_global_id(0);
    y[i] = scaled(x[i]) + ONE;
}}
"""
HELPERS = """#define ONE 1.0f
inline float scaled(float x) { return 3.0f * x; }
"""
COPY = """inline void copy_one(__global const float *from, __global float *to, int i)
{ to[i] = from[i]; }
"""


def kernel_file(folder, include="helpers.h", options=""):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "scale.cl"
    path.write_text(HEADER.format(options=options) + KERNEL.format(include=include))
    return path


def line_of(path, text: str) -> int:
    return next(i + 1 for i, t in enumerate(path.read_text().splitlines()) if text in t)


def run(executor, device, path):
    return executor.run(RunRequest(load_variant_file(path), {}, device_key=device.key, repeat=1))


def test_an_include_beside_the_kernel_file_builds_runs_and_traces(
    executor, device, tmp_path, monkeypatch
):
    path = kernel_file(tmp_path / "mine")
    (tmp_path / "mine" / "helpers.h").write_text(HELPERS)
    monkeypatch.chdir(tmp_path)  # not the kernel's folder: found beside the file all the same
    assert run(executor, device, path).status == "verified"
    request = TraceRequest(RunRequest(load_variant_file(path), {}, device_key=device.key))
    traced = executor.trace(request)
    assert traced.analysis is not None, traced.result.summary()
    assert traced.result.status == "verified"
    lines = {s.line for s in traced.analysis.sites}
    assert lines == {line_of(path, "y[i] =")}  # the file's own line, the include kept out
    assert not [f for f in traced.analysis.findings if f.kind == "not-traced"]


def test_an_include_folder_named_in_options_is_searched(executor, device, tmp_path):
    folder = tmp_path / "mine"
    (folder / "include").mkdir(parents=True)
    (folder / "include" / "helpers.h").write_text(HELPERS)
    path = kernel_file(folder, options='[options]\nall = "-I include"\n')
    assert run(executor, device, path).status == "verified"


@pytest.mark.parametrize("named", ["..", "/etc", "../elsewhere"])
def test_an_include_folder_outside_the_kernels_folder_is_refused(tmp_path, named):
    (tmp_path / "elsewhere").mkdir()
    path = kernel_file(tmp_path / "mine", options=f'[options]\nall = "-I {named}"\n')
    with pytest.raises(CatalogError, match="must be beside the kernel file"):
        load_variant_file(path)


def test_a_call_into_an_included_function_with_a_buffer_is_not_traced(executor, device, tmp_path):
    """What an included file does through a pointer happens where the rewrite cannot reach:
    the trace says so instead of claiming to be complete."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "copy.h").write_text(COPY)
    path = folder / "copy.cl"
    path.write_text(
        HEADER.format(options="").replace("3 * x + 1", "x").replace('"scale"', '"copy"')
        + '#include "copy.h"\n'
        "__kernel void copy(__global const float *x, __global float *y)\n"
        "{\n    copy_one(x, y, get_global_id(0));\n}\n"
    )
    request = TraceRequest(RunRequest(load_variant_file(path), {}, device_key=device.key))
    traced = executor.trace(request)
    assert traced.result.status == "verified"
    missing = [f for f in traced.analysis.findings if f.kind == "not-traced"]
    assert missing and missing[0].line == line_of(path, "copy_one(x, y")
    assert "copy_one is defined in an included file" in missing[0].message


IMAGE = """/*---
name = "blur"
family = "custom"
kernel = "blur"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.src]
buffer = "float"
count = "N"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
access = "write"
result = true
---*/
__constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
__kernel void blur(__read_only image2d_t src, __global float *out)
{
    int i = get_global_id(0);
    out[i] = read_imagef(src, smp, (int2)(i, 0)).x;
}
"""


def test_an_image_parameter_declared_as_a_buffer_is_refused_by_run_and_trace_naming_the_key(
    executor, device, tmp_path
):
    path = tmp_path / "blur.cl"
    path.write_text(IMAGE)
    variant = load_variant_file(path)
    ran = executor.run(RunRequest(variant, {}, device_key=device.key, repeat=1))
    traced = executor.trace(TraceRequest(RunRequest(variant, {}, device_key=device.key)))
    for result in (ran, traced.result):
        assert result.status == "error"
        assert "parameter 'src' is an image2d_t in the source" in result.error
        assert "declare it with the key 'image'" in result.error


def test_the_dialogs_guess_sends_an_image_to_the_header():
    from explorer.description.declarations import DeclarationError
    from explorer.engine.header.guess import guess_declarations

    source = IMAGE.split("---*/\n", 1)[1]
    with pytest.raises(DeclarationError, match="the form does not guess images and samplers"):
        guess_declarations(source, "blur")


def test_an_image1d_parameter_is_refused_as_not_a_2d_or_3d_image(executor, device, tmp_path):
    path = tmp_path / "blur.cl"
    path.write_text(IMAGE.replace("image2d_t", "image1d_t").replace("(int2)(i, 0)", "i"))
    ran = executor.run(RunRequest(load_variant_file(path), {}, device_key=device.key, repeat=1))
    assert ran.status == "error"
    assert "parameter 'src' of blur is an image1d_t" in ran.error
    assert "only image2d_t and image3d_t images are supported" in ran.error


def test_an_edited_header_builds_again_in_the_same_executor(executor, device, tmp_path):
    """The executor keeps built programs; one whose header changed is not the same program."""
    folder = tmp_path / "mine"
    path = kernel_file(folder)
    helpers = folder / "helpers.h"
    helpers.write_text(HELPERS)
    assert run(executor, device, path).status == "verified"
    helpers.write_text(HELPERS.replace("#define ONE 1.0f", "#define ONE 2.0f"))
    assert run(executor, device, path).status == "wrong"  # the reference still adds 1
    helpers.write_text(HELPERS)
    assert run(executor, device, path).status == "verified"


def test_a_trace_of_some_groups_after_a_header_edit_fills_the_rest_from_the_new_build(
    executor, device, tmp_path
):
    """Outside a window of groups the output comes from a launch of the kernel as written,
    kept while nothing it depends on changes: its headers are among those things. The edit
    changes only what the groups outside the window compute."""
    folder = tmp_path / "mine"
    path = kernel_file(folder)
    path.write_text(path.read_text().replace("+ ONE;", "+ BIAS(i);"))
    helpers = folder / "helpers.h"
    helpers.write_text(HELPERS + "#define BIAS(i) 1.0f\n")

    def trace():
        run = RunRequest(load_variant_file(path), {}, device_key=device.key)
        traced = executor.trace(TraceRequest(run, budget_bytes=64 * 16), keep_trace=True)
        assert traced.trace is not None and len(traced.trace.groups_traced) < 4
        return traced.result.status, traced.trace.groups_traced

    status, groups = trace()
    assert status == "verified"
    outside = next(g for g in range(4) if (g, 0, 0) not in groups)  # groups of 16
    helpers.write_text(HELPERS + f"#define BIAS(i) ((i) / 16 == {outside} ? 2.0f : 1.0f)\n")
    status, again = trace()
    assert again == groups and status == "wrong"  # the new build's output outside the window


def test_an_edited_header_included_with_angle_brackets_from_an_include_folder_builds_again(
    executor, device, tmp_path
):
    """``#include <bias.h>`` is found in the ``-I`` folders as ``"..."`` is: an edit to the
    header it names is a new build, as an edit to a quoted one is."""
    folder = tmp_path / "mine"
    (folder / "include").mkdir(parents=True)
    (folder / "include" / "bias.h").write_text("#define ONE 1.0f\n")
    (folder / "helpers.h").write_text(
        "#include <bias.h>\n" + HELPERS.replace("#define ONE 1.0f\n", "")
    )
    path = kernel_file(folder, options='[options]\nall = "-I include"\n')
    assert run(executor, device, path).status == "verified"
    (folder / "include" / "bias.h").write_text("#define ONE 2.0f\n")
    assert run(executor, device, path).status == "wrong"  # the reference still adds 1


def test_a_trace_after_a_header_edit_describes_the_kernel_as_the_header_now_makes_it(
    executor, device, tmp_path
):
    """The executor remembers a kernel's instrumentation; a header that now sizes a private
    array otherwise is another instrumentation, not the one remembered."""
    folder = tmp_path / "mine"
    path = kernel_file(folder)
    path.write_text(
        path.read_text().replace(
            "    y[i] = scaled(x[i]) + ONE;",
            "    float keep[LEN];\n    for (int k = 0; k < LEN; k++) keep[k] = x[i];\n"
            "    y[i] = scaled(keep[LEN - 1]) + ONE;",
        )
    )

    def shape_of_keep(length):
        (folder / "helpers.h").write_text(HELPERS + f"#define LEN {length}\n")
        run = RunRequest(load_variant_file(path), {}, device_key=device.key)
        traced = executor.trace(TraceRequest(run), keep_trace=True)
        assert traced.result.status == "verified", traced.result.summary()
        return next(b.shape for b in traced.trace.buffers if b.name == "keep")

    assert shape_of_keep(4) == (4,)
    assert shape_of_keep(8) == (8,)


def test_a_kernels_parameters_follow_an_edited_header(tmp_path):
    """A parameter's type may come from a header; read again once the header changes."""
    from explorer.engine.header.signature import kernel_signature

    (tmp_path / "real.h").write_text("#define REAL float\n")
    source = '#include "real.h"\n__kernel void k(__global REAL *x) { x[0] = 1; }\n'
    assert kernel_signature(source, "k", {}, (str(tmp_path),))[0].element_type == "float"
    (tmp_path / "real.h").write_text("#define REAL int\n")
    assert kernel_signature(source, "k", {}, (str(tmp_path),))[0].element_type == "int"


@pytest.mark.parametrize("options", ["", '[options]\nall = "-I include"\n'])
def test_an_include_with_angle_brackets_is_found_beside_the_kernel_or_in_its_folders(
    executor, device, tmp_path, options
):
    folder = tmp_path / "mine"
    (folder / "include").mkdir(parents=True)
    (folder / ("include" if options else ".") / "helpers.h").write_text(HELPERS)
    path = kernel_file(folder, options=options)
    path.write_text(path.read_text().replace('#include "helpers.h"', "#include <helpers.h>"))
    result = run(executor, device, path)
    assert result.status == "verified", result.summary()
