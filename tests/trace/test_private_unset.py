"""Reads of private array elements the work-item never wrote (tests/trace/private_unset): a
private array starts indeterminate, so a partly written array, an accumulator never zeroed
(the classic bug of a register-blocked kernel, correct on PoCL where the stack happens to
hold zeros) and a struct's array member are `uninitialized` findings at the line of the
read, naming the array as written. Writes the trace cannot see (a helper filling the array
through a pointer, an initialiser, a struct assigned whole) make no finding: such arrays are
not checked. Each golden finding was written by reading the kernel: its line, the array,
the elements never written and how many work-items read them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.trace.analysis.report import group_findings
from explorer.trace.instrument import instrument
from explorer.trace.instrument.shadows import SHADOW_BYTES
from explorer.trace.recorded import PRIVATE, ROLE_UNSET
from tests.trace.test_same_findings_either_build import _both, cpu  # noqa: F401

KERNELS = Path(__file__).parent / "private_unset"

# kernel: [(line, array, elements named, records, work-items)] of its uninitialized findings
GOLDEN: dict[str, list[tuple[int, str, tuple[int, ...], int, int]]] = {
    # a[0] and a[1] set, a[3] read: every one of the 128 work-items.
    "partial": [(7, "a", (3,), 128, 128)],
    # acc[TM][TN] += ... with no acc = 0: each of the 16 elements of each of the 256
    # work-items is read unwritten once (then it counts as written), whatever K is.
    "blocked_unzeroed": [(17, "acc", (0, 1, 2, 3), 16 * 256, 256)],
    # The same kernel with the zeroing loop: nothing.
    "blocked_zeroed": [],
    # The loop that sets s.v starts at 1: s.v[0] is read unwritten; t = {0} is all set.
    "struct_member": [(17, "s.v", (0,), 64, 64)],
    # a is filled by a helper (every element, through its followed parameter), b[0..3] by
    # vstore4, b[4] and b[5] through a
    # pointer into b, c[1] by sincos, d through a pointer: only p[2], b[6], was never written.
    "helper_fill": [(26, "b", (6,), 64, 64)],
    # Arrays declared beside others that are given values (`float win[4] = {0}, prev[4];`,
    # `float diff[4], weight[4] = {...};`, `int n, hits[4];`): each is its own; prev[3],
    # diff[0] and hits[3] are never written.
    "declarators": [
        (19, "prev", (3,), 64, 64),
        (19, "diff", (0,), 64, 64),
        (19, "hits", (3,), 64, 64),
    ],
    # The same kernel writing those three first: nothing.
    "declarators_ok": [],
    # Components of vector elements: col[l].xyz set and col[0] read whole (its .w never
    # set), col[1].wx.x (that .w), uv[l].lo set and uv[1].hi read, taps[0].even set and
    # taps[0].s3 read. pos[l] set one component at a time and read whole (a float3: its
    # fourth is padding) and taps[1] set whole are fine.
    "components": [
        (23, "col", (0,), 64, 64),
        (24, "uv", (1,), 64, 64),
        (24, "taps", (0,), 64, 64),
        (24, "col", (1,), 64, 64),
    ],
    # The same kernel setting .w, .s1 and .odd too: nothing.
    "components_ok": [],
}


def _uninitialized(traced) -> list[tuple[int, str, tuple[int, ...], int, int]]:
    return [
        (f.line, f.buffer, f.elements, f.count, len(f.work_items))
        for f in traced.analysis.findings
        if f.kind == "uninitialized"
    ]


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_unwritten_private_elements_are_found_at_the_read(executor, device, name):
    run = RunRequest(load_variant_file(KERNELS / f"{name}.cl"), {}, device_key=device.key)
    traced = executor.trace(TraceRequest(run), keep_trace=True)
    assert traced.analysis is not None, traced.result.summary()
    assert traced.report_json["complete"] is True
    kinds = {f.kind for f in traced.analysis.findings}
    assert kinds <= {"uninitialized", "uncoalesced"}, traced.analysis.findings
    found = [(line, buf, els, count, min(wis, 4)) for line, buf, els, count, wis in GOLDEN[name]]
    assert _uninitialized(traced) == found
    for f in traced.analysis.findings:
        if f.kind == "uninitialized":
            first = f"{f.buffer}[{f.elements[0]}]" if f.buffer != "acc" else "acc[0][0]"
            assert f.message.startswith(f"line {f.line} reads {first}")
            assert f"private array {f.buffer} before the work-item wrote it" in f.message


def test_a_message_counts_work_items_and_elements(executor, device):
    run = RunRequest(load_variant_file(KERNELS / "blocked_unzeroed.cl"), {}, device_key=device.key)
    traced = executor.trace(TraceRequest(run))
    [finding] = [f for f in traced.analysis.findings if f.kind == "uninitialized"]
    assert "(256 work-items, 16 elements)" in finding.message
    assert "acc[0][0], acc[0][1], acc[0][2], acc[0][3] and others" in finding.message


def test_a_correct_accumulator_records_nothing_more_and_an_unzeroed_one_once_per_element(
    executor, device
):
    """The trace of a correct kernel holds no record for its private arrays; one that reads
    unwritten accumulators holds one per element and work-item, not one per pass of K."""
    counts = {}
    for name in ("blocked_zeroed", "blocked_unzeroed"):
        run = RunRequest(load_variant_file(KERNELS / f"{name}.cl"), {}, device_key=device.key)
        traced = executor.trace(TraceRequest(run), keep_trace=True)
        trace = traced.trace
        unset = [s.id for s in trace.sites if s.role == ROLE_UNSET]
        assert unset, "the reads of acc and b are checked"
        counts[name] = (int(np.isin(trace.site, unset).sum()), trace.records)
    zeroed, unzeroed = counts["blocked_zeroed"], counts["blocked_unzeroed"]
    assert zeroed[0] == 0
    assert unzeroed[0] == 16 * 256
    # The zeroed kernel's own accesses are all global loads and stores: the same in both.
    assert unzeroed[1] == zeroed[1] + 16 * 256


@pytest.mark.parametrize(
    "name",
    [
        "blocked_unzeroed",
        "struct_member",
        "helper_fill",
        "components",
        "declarators",
        "helpers_given",
        "jumps",
    ],
)
def test_the_same_findings_optimised_or_not(name, cpu, monkeypatch):  # noqa: F811
    run = RunRequest(load_variant_file(KERNELS / f"{name}.cl"), {}, device_key=cpu.key)
    optimised, unoptimised, _ = _both(run, monkeypatch)
    assert optimised == unoptimised
    assert any(kind == "uninitialized" for kind, *_ in optimised[:-1])


def _checked(source: str, kernel: str = "k") -> set[str]:
    """The private arrays whose unwritten reads the trace build of ``source`` checks."""
    done = instrument(source, kernel)
    shadowed = {int(n) for n in __import__("re").findall(r"uchar __tr_w(\d+)\[", done.source)}
    return {b.name for b in done.buffers if b.space == PRIVATE and b.id in shadowed}


def test_arrays_written_where_the_trace_cannot_see_are_not_checked():
    source = """
    #define N 4
    typedef struct { float v[N]; int n; } acc_t;
    float *fill(float *p) { for (int j = 0; j < N; j++) p[j] = 0.0f; return p; }
    void set(float *p) { for (int j = 0; j < N; j++) p[j] = 0.0f; }
    void fill_acc(acc_t *s) { for (int j = 0; j < N; j++) s->v[j] = 0.0f; }
    acc_t made(void) { acc_t r = {0}; return r; }
    __kernel void k(__global float *out) {
        float plain[N];
        float zeroed[N] = {0};
        float some[N] = {1.0f, 2.0f};
        float helped[N];
        float *into = helped + 1;
        fill(into);  /* the helper hands the pointer back: its writes are not followed */
        float given[N];
        set(given + 1);  /* followed: set() writes through p alone */
        float either[N], other[N];
        float *p = out[0] > 0.0f ? either : other;
        p[0] = 1.0f;
        float huge[SIZE];
        acc_t s;
        s.n = N;
        acc_t t = {0};
        acc_t u;
        u = made();
        acc_t w;
        fill_acc(&w);
        acc_t copy = s;
        float viaptr[N];
        float *q = viaptr + 2;
        q[0] = 1.0f;
        float sized[N];
        sized[0] = sizeof(sized) / sizeof(sized[0]);
        out[0] = plain[1] + zeroed[1] + some[3] + helped[0] + either[0] + other[0] + huge[9]
            + s.v[1] + t.v[1] + u.v[1] + w.v[1] + copy.v[1] + viaptr[2] + sized[0] + given[0];
    }
    """.replace("SIZE", str(SHADOW_BYTES + 1))
    assert _checked(source) == {"plain", "s.v", "viaptr", "sized", "given"}


def test_arrays_in_helpers_and_struct_parameters():
    source = """
    typedef struct { float v[2]; } pair_t;
    float sum(pair_t p) { return p.v[0] + p.v[1]; }
    float scratch(float x) { float t[2]; t[0] = x; return t[0] + t[1]; }
    __kernel void k(__global float *out) {
        pair_t one;
        one.v[0] = 1.0f;
        one.v[1] = 2.0f;
        out[0] = sum(one) + scratch(out[1]);
    }
    """
    # p is a copy of the caller's struct: set where it is called; t is the helper's own.
    assert _checked(source) == {"one.v", "t"}


def test_the_cause_and_what_to_do_are_a_private_arrays(executor, device):
    """The heading a person reads in the report and the window's findings view: a private
    array is filled by its own work-item, so the advice is to give it values, not a barrier."""
    run = RunRequest(load_variant_file(KERNELS / "blocked_unzeroed.cl"), {}, device_key=device.key)
    traced = executor.trace(TraceRequest(run))
    [group] = [g for g in group_findings(traced.analysis.findings) if g.kind == "uninitialized"]
    group = group.to_json([])
    assert group["cause"] == (
        "The private array acc is read where the work-item never wrote it, on line 17."
    )
    assert group["advice"].startswith("Give every element a value before reading it: `= {0}` "
                                      "where acc is declared")  # fmt: skip
    assert "barrier" not in group["advice"].replace("no barrier", "")
    assert "What to do: Give every element a value" in traced.report_text


def test_each_declarator_of_a_declaration_is_checked_on_its_own():
    """An initialiser gives a value to its own declarator only; an array beside it is checked
    (its declaration names it, which is no use of it)."""
    source = """
    __kernel void k(__global float *out) {
        float a[4] = {0}, b[4];
        float c[4], d[4] = {1};
        int i, acc[4];
        struct { float v[2]; } s = {{0}}, t;
        for (i = 0; i < 4; i++) acc[i] = b[i] = c[i] = 0;
        t.v[0] = t.v[1] = 0.0f;
        out[0] = a[1] + b[1] + c[1] + d[1] + acc[1] + s.v[1] + t.v[1];
    }
    """
    assert _checked(source) == {"b", "c", "acc", "t.v"}


def _findings(executor, device, name: str, complete: bool = True) -> list[tuple[str, int, str]]:
    run = RunRequest(load_variant_file(KERNELS / f"{name}.cl"), {}, device_key=device.key)
    traced = executor.trace(TraceRequest(run))
    assert traced.analysis is not None, traced.result.summary()
    assert traced.report_json["complete"] is complete
    return [(f.kind, f.line, f.buffer) for f in traced.analysis.findings]


def test_arrays_given_to_helpers_are_checked_where_the_helper_reaches_them(executor, device):
    """A helper's pointer parameter is checked against the array each call gives it: fill()
    leaves coef[3] unwritten and dot() reads it (line 20, through `b` in one call and `a` in
    the other: the records name coef); sum() reads bank->w one past its end (line 34,
    `bank_t *bank`: the member's own extent); first_weights() reads parts[2] of a
    `bank_t parts[2]` (line 40). The same kernel with the three mistakes fixed: nothing."""
    assert _findings(executor, device, "helpers_given") == [
        ("out-of-bounds", 34, "bank->w"),
        ("out-of-bounds", 40, "parts"),
        ("uninitialized", 20, "coef"),
    ]
    assert _findings(executor, device, "helpers_given_ok") == []


def test_a_helper_called_from_another_kernel_too_builds_and_checks_nothing_there():
    """Other kernels of the file run untraced: their calls give no array description."""
    source = """
    void fill(float *p, int n);
    void fill(float *p, int n) { for (int j = 0; j < n; j++) p[j] = 1.0f; }
    __kernel void k(__global float *out) {
        float a[4];
        fill(a, 4);
        out[0] = a[3];
    }
    __kernel void other(__global float *out) {
        float b[4];
        fill(b, 4);
        out[0] = b[1];
    }
    """
    done = instrument(source, "k")
    assert "void fill(float *p, int n, __tr_state* __tr_ptr, __private __tr_parr* __tr_a_p);" in (
        done.source
    )
    assert "fill(a, 4, __tr_ptr, &__tr_a" in done.source
    assert "fill(b, 4, __tr_ptr, 0)" in done.source
    assert _checked(source) == {"a"}


def test_a_large_array_is_checked_and_one_a_jump_may_enter_is_said_not_to_be(executor, device):
    """A 300-element histogram whose last bin is never cleared is found (line 11). An array
    declared in a switch's body (t, line 13: `case 0:` jumps past it) or in a block a goto
    enters past it (g, line 26) cannot be checked (its shadow's initialiser is jumped over
    too): the trace says so, incomplete, instead of reporting what it does not know. The
    same kernel with every bin cleared and its jumps inside the arrays' scopes: nothing."""
    assert _findings(executor, device, "jumps", complete=False) == [
        ("not-traced", 13, None),
        ("not-traced", 26, None),
        ("uninitialized", 11, "hist"),
    ]
    assert _findings(executor, device, "jumps_ok") == []


def test_what_is_not_checked_is_said():
    source = """
    __kernel void k(__global float *out, int c) {
        float big[SIZE];
        for (int j = 0; j < SIZE; j++) big[j] = 0.0f;
        switch (c) {
            float t[2];
        case 1:
            t[0] = 1.0f;
            out[0] = t[0] + big[3];
        }
    }
    """.replace("SIZE", str(SHADOW_BYTES + 1))
    done = instrument(source, "k")
    assert [line for line, _ in done.not_traced] == [3, 6]
    assert "big's elements before they are written are not checked" in done.not_traced[0][1]
    assert "the label at line 7" in done.not_traced[1][1]
    assert _checked(source) == set()


def test_a_component_read_unwritten_is_named(executor, device):
    run = RunRequest(load_variant_file(KERNELS / "components.cl"), {}, device_key=device.key)
    traced = executor.trace(TraceRequest(run))
    named = [f.message.split(" of the private array")[0] for f in traced.analysis.findings]
    assert named == [
        "line 23 reads col[0].w",  # the whole float4 read: its one unwritten component named
        "line 24 reads uv[1].y",
        "line 24 reads taps[0].s3",
        "line 24 reads col[1].w",
    ]


def test_a_read_of_several_elements_names_the_one_never_written(executor, device):
    """A float4 read whole whose .w was never written, in a helper, and a vload4 over an
    array a helper filled but for its last element: the finding names p[0].w and a[3], the
    values that are indeterminate, not the first element the read covers."""
    run = RunRequest(load_variant_file(KERNELS / "whole_reads.cl"), {}, device_key=device.key)
    traced = executor.trace(TraceRequest(run))
    named = [f.message.split(" of the private array")[0] for f in traced.analysis.findings]
    assert named == ["line 5 reads p[0].w", "line 20 reads a[3]"]


def test_an_index_outside_a_private_array_is_advised_as_such(executor, device):
    """An index past a private array's end is not a launch-size mistake: the report's advice
    speaks of the loop's bound and the count a caller passes, never of the global size."""
    run = RunRequest(load_variant_file(KERNELS / "helpers_given.cl"), {}, device_key=device.key)
    report = executor.trace(TraceRequest(run)).report_text
    causes = [c for c in report.split("\n") if c.lstrip().startswith("What to do:")]
    private = [c for c in causes if "private array is the work-item's own" in c]
    assert private and all("global size and the index" not in c for c in private)
    assert "Indices outside bank->w" in report


def test_a_helper_given_arrays_of_two_sizes_checks_each_against_its_own(executor, device):
    """zero() and sum() walk whatever array a call gives them: sum(small, 4) reads small[3]
    of a float small[3] (out of bounds, at sum's line, on small), zero(big, 7) leaves big[7]
    unwritten for sum(big, 9) to read (at the same line, on big); the other calls, walk()
    through `*p++` and vload3 through a helper, give nothing."""
    assert _findings(executor, device, "helpers_sizes") == [
        ("out-of-bounds", 2, "small"),
        ("uninitialized", 2, "big"),
    ]
