"""The static half of index anatomy: each access's terms, and which definitions of each
variable reach it through straight-line code, branches, loops, switches and calls."""

from __future__ import annotations

from explorer.frontend import parse
from explorer.frontend.anatomy import (
    ARGUMENT,
    BUILTIN,
    HELPER_PARAMETER,
    KERNEL_ARGUMENT,
    MACRO,
    POINTER,
    READ,
    VARIABLE,
    KernelAnatomy,
    analyse,
)

FILE = "kernel.cl"


def anatomy(source: str, defines: dict[str, int | str] | None = None) -> KernelAnatomy:
    chosen = dict(defines or {})
    return analyse(parse(source, chosen, FILE), chosen, FILE)


def reaching(k: KernelAnatomy, line: int, text: str, name: str) -> list[tuple[int, str]]:
    """(line, text) of each definition of ``name`` reaching the access ``text`` at ``line``."""
    access = k.of_site(line, text)
    assert access is not None, [(a.line, a.text) for a in k.accesses]
    key = next(t.variable for t in access.terms if t.text == name)
    return [(k.definition(d).line, k.definition(d).text) for d in access.definitions_of(key)]


def test_terms_name_variables_builtins_macros_and_reads():
    k = anatomy(
        """#define TS 16
#define GID get_global_id(0)
__kernel void f(__global float* a, __global const int* idx, int n)
{
    int tx = get_local_id(1);
    __global float* row = a + n;
    row[idx[GID] + tx * TS] = 1.0f;
}
"""
    )
    access = k.of_site(7, "row[idx[GID] + tx * TS]")
    assert access is not None
    kinds = {t.text: (t.kind, t.value) for t in access.terms}
    assert kinds == {
        "row": (POINTER, ""),
        "idx[GID]": (READ, ""),
        "tx": (VARIABLE, ""),
        "TS": (MACRO, "16"),
    }
    inner = k.of_site(7, "idx[GID]")
    assert inner is not None
    assert [(t.text, t.kind, t.evaluate) for t in inner.terms] == [("GID", BUILTIN, "GID")]
    (tx,) = [k.definition(d) for d in access.definitions_of(access.terms[2].variable)]
    assert (tx.line, tx.value_text, [t.text for t in tx.terms]) == (
        5,
        "get_local_id(1)",
        ["get_local_id(1)"],
    )


def test_straight_line_code_keeps_the_last_definition_and_branches_keep_both():
    k = anatomy(
        """__kernel void f(__global float* a, int n)
{
    int i = get_global_id(0);
    i = i * 2;
    a[i] = 0.0f;
    if (n > 4)
        i = 1;
    else
        i = 2;
    a[i] = 1.0f;
    if (n > 8)
        i = 3;
    a[i] = 2.0f;
}
"""
    )
    assert reaching(k, 5, "a[i]", "i") == [(4, "i = i * 2")]
    assert reaching(k, 10, "a[i]", "i") == [(7, "i = 1"), (9, "i = 2")]
    assert reaching(k, 13, "a[i]", "i") == [(7, "i = 1"), (9, "i = 2"), (12, "i = 3")]


def test_a_loop_brings_its_update_back_to_the_top():
    k = anatomy(
        """__kernel void f(__global float* a, int n)
{
    float s = 0.0f;
    for (int k = 0; k < n; k++)
        s += a[k];
    int j = 0;
    while (j < n) {
        if (a[j] > 0.0f)
            break;
        j += 2;
    }
    a[j] = s;
}
"""
    )
    assert reaching(k, 5, "a[k]", "k") == [(4, "k = 0"), (4, "k++")]
    assert reaching(k, 8, "a[j]", "j") == [(6, "j = 0"), (10, "j += 2")]
    # After the loop: its exit when the condition fails and its break, either definition.
    assert reaching(k, 12, "a[j]", "j") == [(6, "j = 0"), (10, "j += 2")]


def test_a_switch_a_continue_and_a_member_stored_alone():
    k = anatomy(
        """typedef struct { int r; int c; } cell_t;
__kernel void f(__global float* a, int n)
{
    int i = 0;
    switch (n) {
    case 0: i = 1; break;
    case 1: i = 2;
    default: i = 3;
    }
    a[i] = 0.0f;
    cell_t p;
    p.r = n;
    p.c = i;
    p.r = p.r + 1;
    a[p.r] = 1.0f;
    a[p.c] = 2.0f;
    for (int m = 0; m < n; m++) {
        if (m == 2)
            continue;
        i = m;
    }
    a[i] = 3.0f;
}
"""
    )
    assert reaching(k, 10, "a[i]", "i") == [(6, "i = 1"), (8, "i = 3")]
    assert reaching(k, 15, "a[p.r]", "p.r") == [(13, "p.c = i"), (14, "p.r = p.r + 1")]
    access = k.of_site(15, "a[p.r]")
    assert access is not None and access.terms[0].member == ".r"
    assert [k.definition(d).member for d in access.definitions_of(access.terms[0].variable)] == [
        ".c",
        ".r",
    ]
    assert reaching(k, 22, "a[i]", "i") == [(6, "i = 1"), (8, "i = 3"), (20, "i = m")]


def test_a_helpers_parameter_is_defined_by_the_arguments_of_its_calls():
    k = anatomy(
        """int at(int r, int c, int n) { return r * n + c; }
void put(__global float* a, int i, float v) { a[i] = v; }
__kernel void f(__global float* a, int n)
{
    int row = get_global_id(1);
    put(a, at(row, 1, n), 1.0f);
    put(a, row, 2.0f);
}
"""
    )
    access = k.of_site(2, "a[i]")
    assert access is not None
    # The helper's pointer is a term too (its calls give it): both are followed to their calls.
    by_text = {t.text: t for t in access.terms}
    assert set(by_text) == {"a", "i"}
    (param,) = [k.definition(d) for d in access.definitions_of(by_text["i"].variable)]
    assert param.kind == HELPER_PARAMETER
    sources = [k.definition(s) for s in param.sources]
    assert [(s.kind, s.line, s.value_text) for s in sources] == [
        (ARGUMENT, 6, "at(row, 1, n)"),
        (ARGUMENT, 7, "row"),
    ]
    (pointer,) = [k.definition(d) for d in access.definitions_of(by_text["a"].variable)]
    assert [(k.definition(s).line, k.definition(s).value_text) for s in pointer.sources] == [
        (6, "a"),
        (7, "a"),
    ]
    n = next(t for t in sources[0].terms if t.text == "n")
    assert [k.definition(d).kind for d in dict(sources[0].reaching)[n.variable]] == [
        KERNEL_ARGUMENT
    ]


def test_spans_are_the_texts_a_rewrite_wraps():
    source = """#define TS 16
__kernel void f(__global float* a, int n)
{
    const int col = get_group_id(0) * TS + get_local_id(0);
    a[col] = 1.0f;
}
"""
    k = anatomy(source)
    (d,) = [d for d in k.definitions if d.name == "col"]
    assert source[d.start : d.end] == "get_group_id(0) * TS + get_local_id(0)"
    access = k.of_site(5, "a[col]")
    assert access is not None
    assert source[access.prefix_start : access.prefix_end] == "col"
