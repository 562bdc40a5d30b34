"""What the front end tells its users beyond the site list: signatures, spans, macros,
fences, defines, leftovers and errors, each at the line the user wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.frontend import (
    AccessKind,
    AddressSpace,
    ParsedSource,
    ParseError,
    SyncKind,
    parse,
)

CORPUS = Path(__file__).parent / "corpus"


def corpus(name: str, defines: dict[str, int | str] | None = None) -> ParsedSource:
    return parse((CORPUS / name).read_text(), defines or {"UNROLL": 2, "N": 64}, name)


def test_typedef_parameters_resolve_to_their_real_types() -> None:
    fill = corpus("18_typedef.cl").kernel("fill")
    out, n, value = fill.parameters
    assert (out.type_text, out.is_pointer, out.address_space) == ("gbuf", True, AddressSpace.GLOBAL)
    assert (out.element_type, out.element_size) == ("float", 4)
    assert (n.type_text, n.element_type, n.is_scalar) == ("index_t", "int", True)
    assert value.is_scalar and not value.is_pointer


def test_vector_local_and_const_parameters_are_described() -> None:
    lanes = corpus("10_vector_components.cl").kernel("lanes")
    out4, in4, pair = lanes.parameters
    assert (out4.element_type, out4.element_size, out4.vector_width) == ("float4", 16, 4)
    assert in4.is_const and not out4.is_const
    assert pair.is_local_pointer and (pair.element_type, pair.vector_width) == ("float2", 2)


def test_prototype_and_helpers_are_told_apart_from_kernels() -> None:
    parsed = corpus("20_prototype.cl")
    assert [k.name for k in parsed.kernels] == ["shift"]
    assert [(h.name, h.line) for h in parsed.helpers] == [("load_clamped", 9)]
    helper_site = next(a for a in parsed.accesses if a.function == "load_clamped")
    assert (helper_site.base, helper_site.address_space) == ("p", AddressSpace.GLOBAL)


def test_vector_components_give_their_selector_and_bytes() -> None:
    sites = corpus("10_vector_components.cl").accesses
    found = [(a.text, a.components, a.size, a.kind) for a in sites if a.components]
    assert ("out4[0].x", "x", 4, AccessKind.WRITE) in found
    assert ("pair[l].x", "x", 4, AccessKind.WRITE) in found
    assert ("in4[i].s0", "s0", 4, AccessKind.READ) in found
    assert ("out4[i].lo", "lo", 8, AccessKind.WRITE) in found
    assert ("in4[i].yx", "yx", 8, AccessKind.READ) in found


def test_spans_cover_exactly_the_expression_a_rewriter_wraps() -> None:
    parsed = corpus("09_local_struct.cl")
    for site in parsed.accesses:
        assert parsed.source[site.span.start : site.span.end] == site.text
    first = parsed.accesses[0]
    assert (first.text, first.span.line, first.span.column) == ("cells[l].v", 9, 5)
    assert first.span.end_column == first.span.column + len("cells[l].v")


def test_macro_accesses_and_barrier_are_found_at_the_invocation() -> None:
    parsed = corpus("17_macros.cl")
    through_macro = [(a.line, a.text, a.kind) for a in parsed.accesses if a.macro == "AT"]
    assert through_macro == [
        (7, "AT(a, r, c)", AccessKind.READ),
        (9, "AT(b, c, r)", AccessKind.WRITE),
    ]
    (sync,) = parsed.syncs
    assert (sync.line, sync.kind, sync.macro) == (8, SyncKind.BARRIER, "SYNC")
    assert sync.fences == {AddressSpace.LOCAL}


def test_fence_flags_resolve_to_address_spaces_even_through_a_macro() -> None:
    syncs = [(s.line, s.kind, s.fences) for s in corpus("23_fences.cl").syncs]
    both = {AddressSpace.LOCAL, AddressSpace.GLOBAL}
    assert syncs == [
        (5, SyncKind.MEM_FENCE, {AddressSpace.GLOBAL}),
        (6, SyncKind.READ_MEM_FENCE, {AddressSpace.LOCAL}),
        (7, SyncKind.WRITE_MEM_FENCE, {AddressSpace.GLOBAL}),
        (8, SyncKind.BARRIER, both),
        (9, SyncKind.WORK_GROUP_BARRIER, {AddressSpace.GLOBAL}),
    ]


def test_build_defines_choose_the_live_if_branch() -> None:
    unrolled = corpus("19_if_else.cl", {"UNROLL": 2})
    plain = corpus("19_if_else.cl", {"UNROLL": 1})
    assert {a.line for a in unrolled.accesses if a.base in ("a", "b")} == {6}
    assert {a.line for a in plain.accesses if a.base in ("a", "b")} == {9}
    assert len([a for a in plain.accesses if a.base in ("a", "b")]) == 2


def test_atomic_cmpxchg_keeps_its_comparison_for_the_rewriter() -> None:
    parsed = corpus("12_atomics.cl")
    cmpxchg = next(a for a in parsed.accesses if a.builtin == "atomic_cmpxchg")
    pointer, compare, value = (parsed.source[s.start : s.end] for s in cmpxchg.arguments)
    assert (pointer, compare, value) == ("lock", "0", "1")
    assert cmpxchg.kind is AccessKind.ATOMIC


def test_derived_pointers_name_the_buffer_they_come_from() -> None:
    row = corpus("05_derived_pointer.cl").accesses[0]
    assert (row.base, row.derived, row.roots) == ("row", True, ("m",))
    ternary = corpus("07_ternary_base.cl").accesses[0]
    assert ternary.derived and ternary.roots == ("a", "b")
    struct_view = corpus("22_struct_of_pointers.cl").accesses
    assert [(a.base, a.roots) for a in struct_view] == [("v.dst", ("b",)), ("v.src", ("a",))]


def test_what_cannot_be_classified_is_reported_never_dropped() -> None:
    parsed = corpus("24_unclassified.cl")
    left = [(u.line, u.text) for u in parsed.unclassified]
    assert left == []
    # An image read is described for the trace: the image, its coordinate and its sampler.
    (image,) = parsed.images
    assert (image.line, image.image, image.coordinate_type, image.sampler) == (
        6, "img", "int2", "smp",
    )  # fmt: skip
    # A private pointer made from an integer: the trace records private memory only through
    # an array it knows, so this one is named, not silently left out.
    source = (
        "__kernel void k(__global const ulong *addresses, __global float *out) {\n"
        "    int i = get_global_id(0);\n"
        "    out[i] = ((const float *)addresses[i])[0];\n"
        "}\n"
    )
    private = parse(source, {}, "k.cl").unclassified
    assert [(u.line, u.text) for u in private] == [(3, "((const float *)addresses[i])[0]")]
    assert all(u.reason for u in (*parsed.unclassified, *private))


def test_an_image_of_another_kind_than_2d_or_3d_is_reported() -> None:
    source = (
        "__kernel void k(read_only image1d_t img, __global float *out)\n"
        "{ out[0] = read_imagef(img, 0).x; }\n"
    )
    parsed = parse(source, {}, "k.cl")
    assert [u.reason for u in parsed.unclassified] == ["read_imagef of an image1d_t: not traced"]


def test_a_struct_initialised_as_a_whole_reaches_the_buffer_it_was_given() -> None:
    source = (
        "typedef struct { __global float *src; __global float *dst; } view_t;\n"
        "__kernel void k(__global float *a, __global float *b) {\n"
        "    view_t v = {a, b};\n"
        "    v.dst[0] = v.src[1];\n"
        "    __global float *both[2] = {a, b};\n"
        "    both[1][2] = 0.0f;\n"
        "}\n"
    )
    parsed = parse(source, {}, "k.cl")
    assert parsed.unclassified == ()
    found = {
        (s.line, s.text, s.roots) for s in parsed.accesses if s.address_space.value != "private"
    }
    assert found == {
        (4, "v.dst[0]", ("b",)),
        (4, "v.src[1]", ("a",)),
        (6, "both[1][2]", ("a", "b")),
    }


def test_non_ascii_comments_do_not_shift_columns_or_spans() -> None:
    source = "// A·B × C — naïve\n__kernel void k(__global float *o) { o[0] = 1.0f; }\n"
    (site,) = parse(source, {}, "k.cl").accesses
    assert (site.line, site.column, site.text) == (2, 38, "o[0]")


def test_invalid_source_raises_parse_error_at_the_users_line() -> None:
    source = "\n\n__kernel void k(__global float *o) {\n    o[0] = undeclared;\n}\n"
    with pytest.raises(ParseError) as caught:
        parse(source, {}, "mine.cl")
    (first,) = caught.value.diagnostics
    assert (first.line, first.severity) == (4, "error")
    assert "undeclared" in first.message
    assert "mine.cl:4" in str(caught.value)


def test_a_define_missing_from_the_build_is_a_parse_error() -> None:
    with pytest.raises(ParseError):
        parse((CORPUS / "17_macros.cl").read_text(), {}, "17_macros.cl")


# What OpenCL compilers (PoCL, Oclgrind) build with a warning and clang 15+ made an error by
# default: each is parsed, its warning kept at its line, its accesses found.
WARNED = {
    "an integer stored into a pointer": (
        "__kernel void k(__global float *y) {\n"
        "    ulong at = (ulong)y;\n"
        "    __global float *p = at;\n"
        "    p[get_global_id(0)] = 1.0f;\n"
        "}\n",
        3,
        "incompatible integer to pointer conversion",
    ),
    "an integer stored into a pointer array's element": (
        "__kernel void k(__global float *y) {\n"
        "    __global float *rows[2];\n"
        "    rows[0] = (ulong)y;\n"
        "    rows[0][get_global_id(0)] = 1.0f;\n"
        "}\n",
        3,
        "incompatible integer to pointer conversion",
    ),
    "an integer passed for a pointer parameter": (
        "void put(__global float *p, int i) { p[i] = 1.0f; }\n"
        "__kernel void k(__global float *y) {\n"
        "    put((ulong)y, get_global_id(0));\n"
        "}\n",
        3,
        "incompatible integer to pointer conversion",
    ),
    "a pointer stored into an integer": (
        "__kernel void k(__global float *y, __global ulong *z) {\n"
        "    z[get_global_id(0)] = y;\n"
        "}\n",
        2,
        "incompatible pointer to integer conversion",
    ),
    "incompatible pointer types": (
        "__kernel void k(__global float *y) {\n"
        "    __global int *bits = y;\n"
        "    bits[get_global_id(0)] = 0;\n"
        "}\n",
        2,
        "incompatible pointer types",
    ),
    "an implicit int": (
        "__kernel void k(__global float *y) {\n    const n = 4;\n    y[get_global_id(0)] = n;\n}\n",
        2,
        "type specifier missing",
    ),
}


@pytest.mark.parametrize("name", sorted(WARNED))
def test_what_opencl_compilers_only_warn_about_is_a_warning(name: str) -> None:
    source, line, message = WARNED[name]
    parsed = parse(source, {}, "mine.cl")
    assert [(w.line, w.severity) for w in parsed.warnings] == [(line, "warning")]
    assert message in parsed.warnings[0].message
    assert parsed.unclassified == ()
    shared = [a for a in parsed.accesses if a.address_space is not AddressSpace.PRIVATE]
    assert [(a.address_space, a.kind) for a in shared] == [(AddressSpace.GLOBAL, AccessKind.WRITE)]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (  # PoCL and Oclgrind refuse an implicit declaration in OpenCL C
            "__kernel void k(__global float *y) { y[0] = twice(1); }\n",
            "undeclared identifier 'twice'",
        ),
        (
            "int f(int x) { if (x) return; return 1; }\n"
            "__kernel void k(__global float *y) { y[0] = f(1); }\n",
            "should return a value",
        ),
    ],
)
def test_what_opencl_compilers_refuse_stays_an_error(source: str, message: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse(source, {}, "mine.cl")
    assert message in str(caught.value)


def test_a_pointer_made_from_an_integer_is_found_by_its_address() -> None:
    source = (
        "__kernel void k(__global float *y) {\n"
        "    __global float *out = y;\n"
        "    long where = out;\n"
        "    out = where;\n"
        "    out[get_global_id(0)] = *(__global float *)(where + 4);\n"
        "}\n"
    )
    parsed = parse(source, {}, "mine.cl")
    found = [(a.text, a.kind, a.roots) for a in parsed.accesses]
    assert found == [
        ("out[get_global_id(0)]", AccessKind.WRITE, ("y", "where")),
        ("*(__global float *)(where + 4)", AccessKind.READ, ("(__global float *)(where + 4)",)),
    ]


def test_an_access_inside_as_type_is_the_access_alone() -> None:
    source = (
        "__kernel void k(__global const int *bits, __global float *y) {\n"
        "    int i = get_global_id(0);\n"
        "    y[i] = as_float(as_int(as_float(bits[i])));\n"
        "}\n"
    )
    parsed = parse(source, {}, "mine.cl")
    assert [(a.text, a.macro) for a in parsed.accesses] == [("y[i]", None), ("bits[i]", None)]
    assert not parsed.has_macro_sites


def test_array_members_of_a_private_struct_are_private_arrays_named_as_written() -> None:
    source = """typedef struct { float v[4]; struct { int k[2][3]; } inner; int n; } acc_t;
float first(acc_t a) { return a.v[0]; }
__kernel void k(__global float *out, int j) {
    acc_t s;
    acc_t many[2];
    s.n = 4;
    s.v[j] = s.inner.k[1][j];
    float *p = s.v;
    out[j] = p[j] + many[1].v[j] + first(s);
}
"""
    parsed = parse(source, {}, "k.cl")
    assert parsed.unclassified == ()
    members = [(v.function, v.name, v.shape, v.element_size) for v in parsed.variables]
    assert members == [
        ("first", "a.v", (4,), 4),
        ("first", "a.inner.k", (2, 3), 4),
        ("k", "s.v", (4,), 4),
        ("k", "s.inner.k", (2, 3), 4),
        ("k", "many", (2,), 44),  # an array of structs stays one array
    ]
    private = [
        (a.line, a.text, a.roots) for a in parsed.accesses if a.address_space.value == "private"
    ]
    assert private == [
        (2, "a.v[0]", ("a.v",)),
        (7, "s.v[j]", ("s.v",)),
        (7, "s.inner.k[1][j]", ("s.inner.k",)),
        (9, "p[j]", ("s.v",)),
        (9, "many[1].v[j]", ("many",)),
    ]
