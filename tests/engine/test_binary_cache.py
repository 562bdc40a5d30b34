"""Builds through PyOpenCL's on-disk binary cache where PyOpenCL would skip it (NVIDIA's
platform): on PoCL the cache is switched on by hand, as on NVIDIA."""

import numpy as np
import pyopencl.cache
import pytest

import explorer.engine.launch.build as build
from explorer.engine.launch.build import BuildCache, BuildError
from explorer.engine.launch.runtime import runtime

SOURCE = """__kernel void twice(__global float* x) { x[get_global_id(0)] *= 2.0f; }
/* %s */
"""


def _cached_builds(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(build, "binary_cache_wanted", lambda cl, context, options: True)
    seen: list[tuple[str, bool]] = []  # (source, read from disk) of every cached build
    original = pyopencl.cache.create_built_program_from_source_cached

    def spy(context, source, *args, **kwargs):
        kwargs["cache_dir"] = kwargs.get("cache_dir") or str(tmp_path)
        program, was_cached = original(context, source, *args, **kwargs)
        seen.append((source, was_cached))
        return program, was_cached

    monkeypatch.setattr(pyopencl.cache, "create_built_program_from_source_cached", spy)
    return seen


def test_a_program_built_again_in_a_new_cache_comes_from_disk_and_runs(
    device, monkeypatch, tmp_path
):
    seen = _cached_builds(monkeypatch, tmp_path)
    cl = runtime().cl
    context, queue = runtime().queue(device)
    source = SOURCE % tmp_path.name  # a source no earlier test built
    for _ in range(2):  # a fresh cache each time, as a new process has
        kernel = BuildCache().kernel(cl, context, device.key, source, ("-DX=1",), "twice", "t.cl")
        host = np.arange(8, dtype=np.float32)
        buffer = cl.Buffer(
            context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host
        )
        kernel(queue, (8,), None, buffer)
        cl.enqueue_copy(queue, host, buffer).wait()
        assert np.array_equal(host, 2 * np.arange(8, dtype=np.float32))
    assert [cached for built, cached in seen if built == source] == [False, True]


def test_a_compile_error_through_the_cache_still_names_its_line(device, monkeypatch, tmp_path):
    # (NVIDIA's compiler calls the file <kernel>, PoCL's the file it was given: the line is
    # what every device names.)
    _cached_builds(monkeypatch, tmp_path)
    cl = runtime().cl
    context, _ = runtime().queue(device)
    broken = "__kernel void k(__global float* x) {\n  x[0] = undefined_name;\n}\n"
    try:
        BuildCache().kernel(cl, context, device.key, broken, (), "k", "broken.cl")
    except BuildError as exc:
        assert "undefined_name" in exc.log
        assert ":2:" in exc.log
    else:
        raise AssertionError("the broken kernel built")


# NVIDIA's driver (535, an H100) on a kernel with an undeclared name, as PyOpenCL raises it.
NVIDIA_FAILURE = """clBuildProgram failed: BUILD_PROGRAM_FAILURE - clBuildProgram failed: \
BUILD_PROGRAM_FAILURE - clBuildProgram failed: BUILD_PROGRAM_FAILURE

Build on <pyopencl.Device 'NVIDIA H100 80GB HBM3' on 'NVIDIA CUDA' at 0x55d0c1a2b3c0>:

<kernel>:2:10: error: use of undeclared identifier 'undefined_name'
  x[0] = undefined_name;
         ^
<kernel>:3:1: warning: no newline at end of file
(options: -I /opt/explorer/kernels)
(source saved as /tmp/tmpk1x9.cl)"""


def test_an_nvidia_build_log_names_the_users_file_not_kernel(monkeypatch):
    import types

    class RuntimeError_(Exception):
        pass

    def failing_build(cl, context, source, options):
        raise RuntimeError_(NVIDIA_FAILURE)

    monkeypatch.setattr(build, "_source_build", failing_build)
    cl = types.SimpleNamespace(RuntimeError=RuntimeError_, CompilerWarning=UserWarning)
    broken = "__kernel void k(__global float* x) {\n  x[0] = undefined_name;\n}"
    try:
        BuildCache().kernel(cl, None, "nvidia:0", broken, (), "k", "mine.cl")
    except BuildError as exc:
        assert "mine.cl:2:10: error: use of undeclared identifier 'undefined_name'" in exc.log
        assert "mine.cl:3:1: warning" in exc.log
        assert "<kernel>" not in exc.log
    else:
        raise AssertionError("the failing build was not reported")


def test_oclgrinds_build_messages_name_the_lines_line_directives_give():
    """Oclgrind's compiler numbers the lines of the text as given, ignoring `#line`; its log
    names the lines that PoCL's and NVIDIA's, the trace and the window name."""
    cl = pyopencl
    platform = next((p for p in cl.get_platforms() if "oclgrind" in p.name.lower()), None)
    if platform is None:
        pytest.skip('Oclgrind is not installed (pip install "pyopencl[oclgrind]")')
    context = cl.Context(platform.get_devices()[:1])
    header = '/*---\nname = "k"\nfamily = "custom"\nkernel = "k"\n---*/\n'
    kernel = "__kernel void k(__global float* x) {\n  x[0] = undefined_name;\n}\n"
    helper = "float helper(float x)\n{\n    return x * also_undefined;\n}\n"
    source = header + "#line 1\n" + kernel + '#line 1 "helper.h"\n' + helper
    try:
        BuildCache().kernel(cl, context, "oclgrind:0", source, (), "k", "mine.cl")
    except BuildError as exc:
        assert "mine.cl:2:10: error: use of undeclared identifier 'undefined_name'" in exc.log
        assert "helper.h:3:16: error: use of undeclared identifier 'also_undefined'" in exc.log
    else:
        raise AssertionError("the broken kernel built")


def test_oclgrinds_messages_of_an_included_file_keep_their_lines(tmp_path):
    """An included file's lines are its own: a message naming one (whose name may hold
    "input") is left as Oclgrind's compiler gives it, whatever `#line` the kernel holds."""
    cl = pyopencl
    platform = next((p for p in cl.get_platforms() if "oclgrind" in p.name.lower()), None)
    if platform is None:
        pytest.skip('Oclgrind is not installed (pip install "pyopencl[oclgrind]")')
    context = cl.Context(platform.get_devices()[:1])
    included = tmp_path / "input_helpers.cl"
    included.write_text("// helpers\n\n\n\nfloat helper(float x)\n{\n    return x +;\n}\n")
    header = '/*---\nname = "k"\nfamily = "custom"\nkernel = "k"\n---*/\n'
    kernel = '#include "input_helpers.cl"\n__kernel void k(__global float* x) { x[0] = 1; }\n'
    options = (f"-I{tmp_path}",)
    try:
        BuildCache().kernel(
            cl, context, "oclgrind:0", header + "#line 1\n" + kernel, options, "k", "mine.cl"
        )
    except BuildError as exc:
        assert "input_helpers.cl:7:15: error: expected expression" in exc.log
    else:
        raise AssertionError("the broken kernel built")
