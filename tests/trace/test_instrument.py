"""The source rewrite: what is traced, what is reported as not traced, and line numbers."""

from importlib import resources

from explorer.engine.header.catalog import catalog
from explorer.trace.instrument import instrument
from explorer.trace.recorded import (
    BARRIER,
    FENCE,
    LOCAL,
    PHASE_SHIFT,
    READ,
    RMW,
    ROLE_UNSET,
    SIZE_SHIFT,
    WRITE,
)

SOURCE = """__kernel void k(__global float* out, const __global float* in, __local float* scratch,
                int n)
{
    __local float tile[4][5];
    const __global float* row = in + 2 * get_group_id(0);
    volatile __local float* p = scratch + get_local_id(0);
    tile[get_local_id(0)][1] = row[get_local_id(0)];
    mem_fence(CLK_LOCAL_MEM_FENCE);
    p[0] += p[1];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[0][in[0] > 0 ? 1 : 2] + vload4(0, in).x;
    if (n < 0)
        return;
    atomic_add((volatile __global int*)&out[0], 1);
}
"""


def _sites(source=SOURCE):
    return [(s.line, s.op, s.text) for s in instrument(source, "k").sites]


def test_every_access_kind_becomes_a_site_on_its_own_line():
    sites = _sites()
    assert (7, WRITE, "tile[get_local_id(0)][1]") in sites
    assert (7, READ, "row[get_local_id(0)]") in sites
    assert (8, FENCE, "mem_fence") in sites
    assert (9, RMW, "p[0]") in sites and (9, READ, "p[1]") in sites
    assert (10, BARRIER, "barrier") in sites
    assert (11, WRITE, "out[get_global_id(0)]") in sites
    assert (11, READ, "in[0]") in sites  # a subscript nested inside another
    assert any(line == 11 and text.startswith("vload4") for line, _, text in sites)
    assert any(line == 14 and text.startswith("atomic_add") for line, _, text in sites)


def test_buffers_are_parameters_and_local_arrays():
    inst = instrument(SOURCE, "k")
    assert [(b.name, b.space, b.dims) for b in inst.buffers] == [
        ("out", 0, 1),
        ("in", 0, 1),
        ("scratch", LOCAL, 1),
        ("tile", LOCAL, 2),
    ]


def test_user_lines_are_kept():
    inst = instrument(SOURCE, "k")
    body = inst.source.split("#line 1\n", 1)[1]
    assert body.count("\n") == SOURCE.count("\n")


def test_an_access_a_macro_writes_is_traced_at_the_line_that_uses_the_macro():
    source = "#define AT(i) out[(i)]\n#define SYNC barrier(CLK_LOCAL_MEM_FENCE)\n" + SOURCE.replace(
        "out[get_global_id(0)] =", "AT(get_global_id(0)) ="
    ).replace("barrier(CLK_LOCAL_MEM_FENCE);", "SYNC;")
    inst = instrument(source, "k")
    assert not inst.not_traced
    sites = [(s.line, s.op, s.fences) for s in inst.sites]
    assert (13, WRITE, 0) in sites
    assert (12, BARRIER, 1) in sites  # the barrier behind SYNC, ordering local memory only
    body = inst.source.split("#line 1\n", 1)[1]
    assert "SYNC" not in body and "AT(" not in body


def test_helper_functions_are_traced_at_their_own_lines():
    source = """float get(const __global float* x, int i)
{
    return x[i];
}
__kernel void k(__global float* out, const __global float* in)
{
    out[get_global_id(0)] = get(in, get_global_id(0));
}
"""
    inst = instrument(source, "k")
    assert (3, READ) in [(s.line, s.op) for s in inst.sites]
    assert not inst.not_traced


def test_every_catalog_kernel_instruments_completely():
    for variant in catalog():
        inst = instrument(variant.source, variant.kernel, variant.default_defines)
        assert not inst.not_traced, (variant.qualified_id, inst.not_traced)
        assert inst.sites, variant.qualified_id


def test_the_trace_runtime_ships_with_the_package_and_each_traced_kernel_carries_it_once():
    shipped = resources.files("explorer.trace.instrument").joinpath("runtime.cl")
    assert shipped.is_file()
    runtime = shipped.read_text(encoding="utf-8")
    inst = instrument(SOURCE, "k")
    assert inst.source.count(runtime) == 1
    # the record layout the runtime packs is the one the decoder reads
    assert f"#define __TR_PHASE_SHIFT {PHASE_SHIFT}\n" in inst.source
    assert f"#define __TR_SIZE_SHIFT {SIZE_SHIFT}\n" in inst.source
    assert f"#define __TR_NB {len(inst.buffers)}\n" in inst.source


HELPERS = """float fetch(const __global float* m, int i) { return m[i]; }
float twice(const __global float* m, int i) { return 2.0f * fetch(m + 1, i); }
float either(const __global float* m, int i) { return m[i]; }
__kernel void k(__global float* out, const __global float* a, const __global float* b)
{
    int i = get_global_id(0);
    out[i] = fetch(a, i) + twice(a, i) + either(a, i) + either(b, i);
}
"""


def test_an_access_in_a_helper_is_named_by_the_callers_buffer():
    inst = instrument(HELPERS, "k")
    names = {b.id: b.name for b in inst.buffers}
    by_line = {s.line: names.get(s.buffer, "?") for s in inst.sites if s.op == READ}
    assert by_line[1] == "a"  # fetch(a, i), and through twice(a, i) as m + 1
    assert by_line[3] == "?"  # either(a, i) and either(b, i): two buffers, found per access


def test_an_access_out_of_a_private_array_is_checked_and_others_are_not_recorded():
    source = """__kernel void k(__global float* out)
{
    float acc[4];
    int n = 0;
    acc[get_global_id(0)] = 1.0f;
    out[0] = acc[1] + (float)n;
}
"""
    inst = instrument(source, "k")
    private = [b for b in inst.buffers if b.name == "acc"]
    assert len(private) == 1 and private[0].shape == (4,) and private[0].elem_size == 4
    mine = [s for s in inst.sites if s.buffer == private[0].id]
    assert {(s.line, s.op) for s in mine if s.role != ROLE_UNSET} == {(5, WRITE), (6, READ)}
    # The read also records, at a site of its own, an element the work-item never wrote.
    assert {(s.line, s.op) for s in mine if s.role == ROLE_UNSET} == {(6, FENCE)}
    assert "__TR_PS(&(acc[get_global_id(0)]), sizeof(*(&(acc[get_global_id(0)]))), acc," in (
        inst.source
    )
    assert f"float acc[4]; uchar __tr_w{private[0].id}[4] = {{0}};" in inst.source
    assert not inst.not_traced


UNROLLED = """
#define STEPS 8
__kernel void k(__global float* out, __global const float* in)
{
    float acc = 0.0f;
    #pragma unroll
    for (int i = 0; i < STEPS; i++)
        acc += in[i];
    #pragma unroll 4
    for (int i = 0; i < STEPS; i++)
        acc += in[i + STEPS];
    __attribute__((opencl_unroll_hint(2))) for (int i = 0; i < STEPS; i++)
        acc += in[i];
    out[get_global_id(0)] = acc;
}
"""


def test_loops_the_kernel_unrolls_are_traced_rolled_on_the_same_lines():
    """The trace build keeps every loop rolled (the same accesses in the same order, a
    fraction of the code for the compiler); each pragma stays on its own line, so every
    access keeps its line."""
    traced = instrument(UNROLLED, "k")
    body = traced.source[traced.source.index("__kernel void k") :]
    assert "#pragma unroll 1" in body and "#pragma unroll 4" not in body
    assert "opencl_unroll_hint(1)" in body and "opencl_unroll_hint(2)" not in body
    assert body.count("#pragma unroll") == 2
    lines = {s.line for s in traced.sites if s.op == READ}
    assert lines == {8, 11, 13}
