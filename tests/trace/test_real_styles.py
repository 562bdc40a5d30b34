"""Kernels in the styles people write (tests/trace/real_styles), each with a bug the trace
must report as it is: the right kind, line, buffer and elements. Each golden finding was
written by reading the kernel."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.frontend import parse

KERNELS = Path(__file__).parent / "real_styles"


def _traced(executor, device, name: str):
    run = RunRequest(load_variant_file(KERNELS / f"{name}.cl"), {}, device_key=device.key)
    traced = executor.trace(TraceRequest(run), keep_trace=True)
    assert traced.analysis is not None, traced.result.summary()
    assert traced.report_json["complete"] is True
    return traced


def test_a_vector_load_over_the_end_names_the_elements_it_covers(executor, device):
    """vload4(63, src + 1) covers src[253..256]: only src[256] is outside the 256 floats, so
    the finding names the span and that element, never src[253] as if it were outside."""
    traced = _traced(executor, device, "vload_past_end")
    [finding] = [f for f in traced.analysis.findings if f.kind == "out-of-bounds"]
    assert (finding.line, finding.buffer, finding.count) == (4, "src", 1)
    assert finding.elements == (256,)
    assert finding.message.startswith(
        "line 4 reads src[253..256] reaching outside src (256 elements)"
    )


def _shown(traced, kind: str, line: int) -> list[tuple[str, str]]:
    """(message, the access its anatomy explains) of each finding of ``kind`` at ``line``."""
    return [
        (f["message"], f["anatomy"]["access"])
        for f in traced.report_json["findings"]
        if f["kind"] == kind and f["line"] == line
    ]


def test_an_unset_private_read_is_explained_by_the_array_not_a_load_beside_it(executor, device):
    """acc[i][j] += A[...] * B[...] with only acc[i][i] zeroed: the finding is about acc, so
    its anatomy is that of acc[i][j], not of the A load first on the line."""
    traced = _traced(executor, device, "acc_diagonal")
    [(message, access)] = _shown(traced, "uninitialized", 12)
    assert message.startswith("line 12 reads acc[0][1]")
    assert access == "acc[i][j]"


def test_each_member_of_a_struct_element_is_explained_by_its_own_access(executor, device):
    """cell[n].a + cell[n].b: the bank-conflict finding of each member quotes its access, and
    its anatomy is that access's."""
    traced = _traced(executor, device, "local_pairs_race")
    kinds = {(f.kind, f.line) for f in traced.analysis.findings}
    assert {("race", 7), ("race", 8)} <= kinds
    shown = _shown(traced, "bank-conflict", 10)
    assert sorted(access for _, access in shown) == ["cell[n].a", "cell[n].b"]
    assert all(message.startswith(f"{access}:") for message, access in shown)


def _uninitialized(traced) -> list[tuple[int | None, str | None, int]]:
    return [
        (f.line, f.buffer, f.count) for f in traced.analysis.findings if f.kind == "uninitialized"
    ]


def test_a_struct_copied_whole_does_not_read_its_padding_as_unwritten(executor, device):
    """`struct { float4 p; int id; }` takes 32 bytes, 12 of them padding no one can write:
    with p and id written, `P q = loc[63 - l]` reads nothing unwritten (it was reported as
    an uninitialised read of loc); in an output buffer of such structs the same."""
    assert _uninitialized(_traced(executor, device, "struct_padding_local")) == []
    assert _uninitialized(_traced(executor, device, "struct_padding_output")) == []


def test_a_struct_copied_whole_with_a_member_never_written_is_still_found(executor, device):
    """Without `loc[l].id = g` the copy reads id, which nothing wrote: every work-item."""
    traced = _traced(executor, device, "struct_padding_local_unset")
    assert _uninitialized(traced) == [(9, "loc", 128)]


def test_a_struct_copied_whole_with_a_member_never_set_nor_used_reads_nothing_unwritten(
    executor, device
):
    """`Particle p = tile[63 - l]` copies pad, which nothing set, but the kernel reads only
    p.x, p.y and p.mass: what pad held is never used, so no uninitialised read is reported."""
    traced = _traced(executor, device, "struct_member_never_used")
    assert _uninitialized(traced) == []


def test_the_member_never_set_read_after_the_copy_is_still_found(executor, device):
    """The same kernel reading p.pad after the copy uses the unwritten value: the copy's
    line, every work-item."""
    traced = _traced(executor, device, "struct_member_never_set_then_read")
    assert _uninitialized(traced) == [(17, "tile", 128)]


def test_a_copy_handed_on_by_a_chained_assignment_then_its_unset_member_read_is_found(
    executor, device
):
    """`keep = p = tile[63 - l]` copies into p and on into keep; only p.x, p.y and p.mass are
    read from p, but keep.pad is read: the unwritten pad is used, at the copy's line."""
    traced = _traced(executor, device, "struct_copy_handed_on_then_read")
    assert _uninitialized(traced) == [(18, "tile", 128)]


def test_the_parser_knows_which_members_of_a_copied_struct_are_never_read():
    """The bytes of the members read from the copy nowhere (`(start, end)` in the access);
    none where the copy is named otherwise than by its members, or is a union."""
    source = (
        "typedef struct { float x; float y; int pad; } P;\n"
        "typedef union { float f; int i; } U;\n"
        "float weight(P p) { return p.x; }\n"
        "__kernel void k(__global float *out, __global P *ps, __global U *us)\n"
        "{\n"
        "    __local P loc[64];\n"
        "    int l = get_local_id(0);\n"
        "    P a = loc[l];   out[0] = weight(a);\n"  # line 8: passed whole
        "    P b = loc[l];   P *pb = &b; out[1] = pb->x;\n"  # 9: its address taken
        "    P c = loc[l];   ps[l] = c;\n"  # 10: copied on
        "    U u = us[l];    out[2] = u.f;\n"  # 11: a union
        "    P d = (loc[l]); out[3] = d.y;\n"  # 12: only y
        "    P e;\n"
        "    for (int i = 0; i < 4; i++) { e = loc[i]; out[4] += e.x; }\n"  # 14: x, pad
        "    out[5] = e.pad;\n"
        "    P f = ps[l];    f.pad = 3; out[6] = f.x + f.pad;\n"  # 16: x, pad (written)
        "    P g, h; h = g = loc[l]; out[7] = g.x + (float)h.pad;\n"  # 17: g handed on whole
        "    P m; P n = (m = loc[l]); out[8] = m.x + n.y;\n"  # 18: m handed on whole
        "    P o; out[9] = (o = loc[l]).pad + o.x;\n"  # 19: the assignment's pad read
        "    P r; if (l > 1) r = loc[l]; else r = loc[0]; out[10] = r.y;\n"  # 20: x, pad
        "}\n"
    )
    parsed = parse(source, {}, "copies.cl")
    unused = {a.line: a.unused for a in parsed.accesses if a.kind.name == "READ"}
    assert unused[8] == unused[9] == unused[10] == unused[11] == ()
    assert unused[12] == ((0, 4), (8, 12))
    assert unused[14] == ((4, 8),)
    assert unused[16] == ((4, 8),)
    assert unused[17] == unused[18] == unused[19] == ()
    assert unused[20] == ((0, 4), (8, 12))


def test_a_returned_struct_is_judged_by_the_calls_of_the_kernel_traced():
    """A helper returning a whole struct (`return loc[i];`) hands on the members the calls
    the traced kernel runs read, through its helpers too: not those another kernel's calls
    read, which never run in its launch."""
    source = (
        "typedef struct { float x; float y; int tag; } P;\n"
        "P get(__local const P *loc, int i) { return loc[i]; }\n"  # line 2
        "float x_of(__local const P *loc, int i) { P p = get(loc, i); return p.x; }\n"
        "int tag_of(__local const P *loc, int i) { return get(loc, i).tag; }\n"
        "__kernel void xs(__global float *out)\n"
        "{ __local P loc[8]; out[0] = x_of(loc, 1); }\n"
        "__kernel void tags(__global int *out)\n"
        "{ __local P loc[8]; out[0] = tag_of(loc, 1) + (int)get(loc, 2).y; }\n"
        "__kernel void whole(__global P *out)\n"
        "{ __local P loc[8]; out[0] = get(loc, 3); out[1].x = x_of(loc, 0); }\n"
        "__kernel void alone(__global float *out) { out[0] = 1.0f; }\n"
    )
    parsed = parse(source, {}, "returned.cl")

    def unused(kernel: str) -> tuple[tuple[int, int], ...]:
        [read] = [a for a in parsed.for_kernel(kernel).accesses if a.line == 2]
        return read.unused

    assert unused("xs") == ((4, 12),)  # y and tag: only x is read, through x_of
    assert unused("tags") == ((0, 4),)  # x: tag through tag_of, y directly
    assert unused("whole") == unused("alone") == ()  # used whole; never called
    assert parsed.reached("xs") == {"xs", "x_of", "get"}


def test_the_parser_knows_the_padding_of_a_struct_element():
    parsed = parse(
        "typedef struct { float4 p; int id; } P;\n"
        "typedef struct { char c; int n; short s[3]; } Q;\n"
        "__kernel void k(__global Q *q) { __local P loc[4]; __local float f[4]; }\n",
        {},
        "padding.cl",
    )
    padding = {v.name: v.padding for v in parsed.variables}
    assert padding == {"loc": ((20, 32),), "f": ()}
    [q] = parsed.kernels[0].parameters
    assert q.padding == ((1, 4), (14, 16))


def test_a_missing_halo_names_the_local_elements_nothing_wrote(executor, device):
    """The right halo t[66], t[67] is never loaded: the finding says which elements, so the
    missing load can be told from a missing barrier."""
    traced = _traced(executor, device, "halo_right_missing")
    [finding] = [f for f in traced.analysis.findings if f.kind == "uninitialized"]
    assert (finding.line, finding.buffer, finding.elements) == (13, "t", (66, 67))
    assert "(phase 1; e.g. t[66], t[67])" in finding.message


# Correct kernels in common styles: a local reduction over get_local_size(0), a histogram in
# local memory merged with atomic_add, a double-buffered scan, local arrays picked by a
# ternary, a struct of arrays in local memory, double-buffered matmul tiles, a local atomic
# counter. Costs may be reported; no bug.
CORRECT = [
    "reduce_local_size",
    "histogram_local_atomics",
    "scan_double_buffered",
    "local_ping_pong_ternary",
    "struct_of_arrays_local",
    "matmul_double_buffered",
    "local_atomic_counter",
]


@pytest.mark.parametrize("name", CORRECT)
def test_a_correct_kernel_in_a_common_style_has_no_bug_finding(executor, device, name):
    traced = _traced(executor, device, name)
    kinds = {f.kind for f in traced.analysis.findings}
    assert kinds <= {"bank-conflict", "uncoalesced"}, traced.analysis.findings
