"""Kernels that macros declare: a macro that stamps out whole kernels by token pasting
(``SHIFT_KERNEL(add, +)`` declares ``shift_add``), a macro that writes the name
(``KDECL(twice)(...)``), a parameter list or a body from a macro, ``__kernel`` spelled by a
``-D`` define, and a kernel chosen by ``#if``. Each runs and traces as a kernel written out
does, from its header and from an Oclgrind ``.sim`` file, with its findings on the user's
line where the kernel's code is: the line of the macro's use (``SHIFT_KERNEL(add, +)``, the
line where ``BODY`` stands in the kernel), as a compiler's diagnostic names it first.

The kernels are in ``macro_kernels/``; each finding below was read off the kernel."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.header.signature import SignatureError, kernel_names, kernel_signature
from explorer.engine.launch import prepare as preparing
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.frontend import parse
from explorer.trace.instrument import instrument
from tests.test_cli import cli

KERNELS = Path(__file__).parent / "macro_kernels"


def _source(name: str) -> str:
    return (KERNELS / name).read_text(encoding="utf-8")


# -- the front end: which functions are kernels, and their parameters -------------------------


def test_kernels_stamped_out_by_token_pasting_are_kernels():
    assert kernel_names(_source("stamped.cl")) == ["shift_mul", "shift_add"]
    params = kernel_signature(_source("stamped.cl"), "shift_add")
    assert [(p.name, p.space, p.scalar_type) for p in params] == [
        ("x", "global", None),
        ("y", "global", None),
        ("s", "scalar", "float"),
    ]


def test_kernels_stamped_out_by_a_macro_of_an_included_header_are_kernels():
    names = kernel_signature(_source("included.cl"), "shift_add", include_dirs=(str(KERNELS),))
    assert [p.name for p in names] == ["x", "y", "s"]


def test_a_kernel_named_by_a_macro_and_one_a_macro_writes_whole():
    assert kernel_names(_source("declared.cl")) == ["nothing", "twice"]
    assert [p.name for p in kernel_signature(_source("declared.cl"), "twice")] == ["x", "y"]


def test_a_parameter_list_and_a_body_from_macros():
    params = kernel_signature(_source("parts.cl"), "copy_next")
    assert [(p.name, p.is_const) for p in params] == [("a", True), ("b", False)]


def test_kernel_spelled_by_a_command_line_define():
    text = "QUALIFIER void k(__global float *x) { x[0] = 1.0f; }\nvoid helper(void) { }\n"
    parsed = parse(text, {"QUALIFIER": "__kernel"}, "kernel.cl")
    assert [(f.name, f.is_kernel) for f in parsed.functions] == [("k", True), ("helper", False)]


def test_a_helper_with_attributes_written_by_a_macro_is_no_kernel():
    text = (
        "#define HELPER __attribute__((overloadable))\n"
        "HELPER float twice(float v) { return 2.0f * v; }\n"
        "__kernel void k(__global float *x) { x[0] = twice(x[0]); }\n"
    )
    parsed = parse(text, {}, "kernel.cl")
    assert [(f.name, f.is_kernel) for f in parsed.functions] == [("twice", False), ("k", True)]


@pytest.mark.parametrize("kernel", ["nothing", "twice"])
def test_the_trace_adds_its_parameters_inside_a_macro_declared_list(kernel):
    """No access of these kernels is written in a macro, but their names or whole
    declarations are: the trace's parameters go after the kernel's own, in the expanded
    declaration, not into the macro's arguments (``KDECL(twice, __global uint* ...)``)."""
    rewritten = instrument(_source("declared.cl"), kernel).source
    assert f"KDECL({kernel}," not in rewritten
    assert f"EMPTY_KERNEL({kernel}," not in rewritten
    own = "__global const float *x, __global float *y, " if kernel == "twice" else ""
    assert f"__kernel void {kernel}({own}__global uint* __tr_roff," in rewritten


# -- run and trace ---------------------------------------------------------------------------


def _findings(executor, device, variant, defines=None):
    """Every finding, a not-traced note among them: a part of the kernel the trace could
    not follow would show here."""
    run = RunRequest(variant, {}, defines=defines or {}, device_key=device.key)
    traced = executor.trace(TraceRequest(run))
    assert traced.analysis is not None, traced.result.summary()
    return [(f.kind, f.line, f.buffer, f.count) for f in traced.analysis.findings]


# shift_##NAME reads x[i + 1]: work-item 63 reads x[64], one past the end, in each kernel the
# macro stamps out; the finding is on the line of the macro's use that made the kernel.
STAMPED = {"shift_mul": 9, "shift_add": 10}


@pytest.mark.parametrize("kernel", sorted(STAMPED))
def test_each_stamped_kernel_traces_with_its_finding_on_its_own_line(executor, device, kernel):
    variant = replace(load_variant_file(KERNELS / "stamped.cl"), kernel=kernel)
    found = _findings(executor, device, variant)
    assert found == [("out-of-bounds", STAMPED[kernel], "x", 1)]


def test_the_sim_file_of_a_stamped_kernel_finds_the_same(executor, device):
    from explorer.engine.header.sim import load_sim

    found = _findings(executor, device, load_sim(KERNELS / "stamped.sim"))
    assert found == [("out-of-bounds", STAMPED["shift_add"], "x", 1)]


@pytest.mark.parametrize(
    ("name", "found"),
    [
        # KDECL(twice)(...) { ... y[i] = 2.0f * x[i + 1]; } on line 9: x[64] read once.
        ("declared", [("out-of-bounds", 9, "x", 1)]),
        # BODY reads a[i + 1]; it is used on line 9 of copy_next.
        ("parts", [("out-of-bounds", 9, "a", 1)]),
        # SHIFT_KERNEL comes from stamps.h; shift_add is stamped out on line 4.
        ("included", [("out-of-bounds", 4, "x", 1)]),
    ],
)
def test_macro_declared_kernels_trace(executor, device, name, found):
    assert _findings(executor, device, load_variant_file(KERNELS / f"{name}.cl")) == found


def test_the_kernel_an_if_chooses_is_the_one_traced(executor, device):
    variant = load_variant_file(KERNELS / "variants.cl")
    assert _findings(executor, device, variant, {"WIDE": 0}) == []
    # The WIDE variant reads a[i + 1] on line 5: a[64], once.
    assert _findings(executor, device, variant, {"WIDE": 1}) == [("out-of-bounds", 5, "a", 1)]


@pytest.fixture
def cpu(device):
    if device.type != "CPU":
        pytest.skip("only a CPU trace is ever built unoptimised")
    return device


@pytest.mark.parametrize("unoptimised", [False, True])
def test_a_stamped_kernel_finds_the_same_either_build(executor, cpu, monkeypatch, unoptimised):
    # A CPU trace of at most QUICK_BUILD_WORK_ITEMS work-items is built unoptimised.
    monkeypatch.setattr(preparing, "QUICK_BUILD_WORK_ITEMS", 1 << 40 if unoptimised else 0)
    variant = replace(load_variant_file(KERNELS / "stamped.cl"), kernel="shift_mul")
    assert _findings(executor, cpu, variant) == [("out-of-bounds", 9, "x", 1)]


@pytest.mark.usefixtures("fast_cli")
@pytest.mark.parametrize("command", ["run", "trace"])
@pytest.mark.parametrize("source", ["--kernel-file", "--sim"])
def test_the_command_line_runs_and_traces_a_stamped_kernel(command, source):
    path = KERNELS / ("stamped.cl" if source == "--kernel-file" else "stamped.sim")
    ran = cli(command, source, str(path), "--json")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "__kernel void" not in ran.stdout + ran.stderr
    if command == "trace":
        (finding,) = json.loads(ran.stdout)["findings"]
        assert (finding["kind"], finding["line"], finding["buffer"]) == ("out-of-bounds", 10, "x")


def test_a_kernel_an_if_leaves_out_is_named_with_the_defines_and_the_kernels_there_are():
    text = (
        "#if WIDE\n__kernel void blur_wide(__global float *a) { a[0] = 1.0f; }\n"
        "#else\n__kernel void blur_narrow(__global float *a) { a[0] = 2.0f; }\n#endif\n"
        "void helper(__global float *a) { a[1] = 0.0f; }\n"
    )
    assert [p.name for p in kernel_signature(text, "blur_wide", {"WIDE": 1})] == ["a"]
    with pytest.raises(SignatureError) as caught:
        kernel_signature(text, "blur_wide", {"WIDE": 0})
    assert str(caught.value) == (
        "no '__kernel void blur_wide(...)' in the source as built with -D WIDE=0; "
        "its kernels: blur_narrow"
    )
    with pytest.raises(SignatureError, match="helper is a function without __kernel"):
        kernel_signature(text, "helper", {"WIDE": 0})
