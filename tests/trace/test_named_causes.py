"""A finding names its cause where the trace knows it: the ``mem_fence`` that stands where a
barrier is needed, and the guard an out-of-bounds access needs written with the kernel's own
variables and bounds; a vector stored by several work-groups gets one verdict. Our own
kernels, in several styles (macros, structs, helper functions, two kernels in one file, a
loop bound ``k <= K``, tiled loads), each held to the text a person reads, the same on the
command line, in the window's trace and in the optimised and the unoptimised build."""

from __future__ import annotations

import json

import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.launch import prepare as preparing
from explorer.engine.record.trace_launch import TraceRequest, trace_and_analyse
from explorer.engine.records import RunRequest
from explorer.trace.analysis.report import groups_json
from tests.conftest import TEST_KERNELS
from tests.test_cli import cli

CAUSES = TEST_KERNELS / "causes"

# Per kernel: (kind, line, subkind) of every finding, and what its text must say (each
# fragment in the message of the finding at that line and kind).
EXPECTED: dict[str, list[tuple[str, int, str]]] = {
    # tile[l] written, FENCE_LOCAL() (a macro for mem_fence), tile[NEXT(l)] read.
    "fence_in_macro": [("race", 8, "fence-not-barrier")],
    # A helper stashes cells[l].v, write_mem_fence, a helper peeks at cells[15 - l].v.
    "fence_struct_helpers": [("race", 3, "fence-not-barrier")],
    # The second of two kernels: a tree reduction with a mem_fence after each step.
    "fence_in_reduction": [("race", 23, "fence-not-barrier")],
    # Global memory: dst[i] written, read_mem_fence, dst[i + 1] read; then dst[i] += right,
    # which races with that read with nothing at all between them.
    "fence_on_global": [("race", 4, "fence-not-barrier"), ("race", 6, "no-global-barrier")],
    # The fence comes after both accesses: the race is an ordinary missing barrier.
    "fence_after_the_race": [("race", 5, "no-local-barrier")],
    # A row loop: part[] read by work-item 0 with no barrier after the writes (the missing
    # barrier comes first), and the next row's writes past only a mem_fence (named too).
    "fence_and_missing_barrier": [("race", 6, "no-local-barrier")],
    # A 2-D copy over an NDRange larger than M x N: at its read and its write. Columns past
    # N land on the next row: written twice there, the same value both times.
    "oob_rows_cols": [
        ("out-of-bounds", 4, ""),
        ("out-of-bounds", 4, ""),
        ("same-value-writes", 4, ""),
        ("coverage", 4, ""),
    ],
    # for (k = 0; k <= K; k++): A past its last row, B past its last row.
    "oob_loop_bound": [("out-of-bounds", 7, ""), ("out-of-bounds", 7, "")],
    # A tiled product through an accessor macro, one tile too many.
    "oob_tiled_macros": [("out-of-bounds", 12, ""), ("out-of-bounds", 13, "")],
    # x[i - 1] before the start, vload4(i, x) past the end, a struct element past a local array.
    "oob_vectors_and_structs": [
        ("out-of-bounds", 9, ""),
        ("out-of-bounds", 10, ""),
        ("out-of-bounds", 11, ""),
    ],
    # same[1] = the same float4 from every group: a note; differ[1] = int4s that differ in w
    # only: a race between work-groups.
    "vector_stores": [("race", 20, "between-groups"), ("same-value-writes", 19, "")],
    # ring[l] written, ring[(l + 1) % 32] read with no barrier between: WRONG on PoCL.
    "rotate_without_barrier": [("race", 5, "no-local-barrier")],
    # counts[key & 15]++ in a grid-stride loop, one work-group: its work-items update the
    # same 16 buckets (a barrier cannot order them: an atomic can); each bucket is written by
    # several work-items.
    "bucket_counts_one_group": [("race", 8, "same-updates"), ("coverage", 8, "")],
    # The same in two work-groups: they race on every bucket, and within each group its
    # work-items race as in one group (that race went unreported beside the groups').
    "bucket_counts": [
        ("race", 8, "between-groups"),
        ("race", 8, "same-updates"),
        ("coverage", 8, ""),
    ],
    # atomic_inc(&counts[key & 15]): nothing to find.
    "bucket_counts_atomic": [],
    # Each group's first work-item writes slot[0], the others read it with no barrier: the
    # groups race on it (write and write, write and read) and, within each group, the read
    # races with the write (that race went unreported beside the groups').
    "publish_offset": [
        ("race", 7, "between-groups"),
        ("race", 7, "between-groups"),
        ("race", 7, "no-global-barrier"),
        ("coverage", 7, ""),
    ],
}

SAYS: dict[tuple[str, str, int], list[str]] = {
    ("fence_in_macro", "race", 8): [
        "Race on tile in phase 0: line 8 writes it and line 10 reads it, by different "
        "work-items, with only a mem_fence between them. The mem_fence at line 9 orders this "
        "work-item's own accesses only; a barrier(CLK_LOCAL_MEM_FENCE) is needed here",
    ],
    ("fence_struct_helpers", "race", 3): [
        "line 3 writes it and line 5 reads it, by different work-items, with only a "
        "write_mem_fence between them",
        "The write_mem_fence at line 12 orders this work-item's own accesses only; a "
        "barrier(CLK_LOCAL_MEM_FENCE) is needed here",
    ],
    ("fence_in_reduction", "race", 23): [
        "line 23 updates part[] while other work-items read the same elements on that same "
        "line, with only a mem_fence between them",
        "The mem_fence at line 24 orders this work-item's own accesses only",
    ],
    ("fence_on_global", "race", 4): [
        "The read_mem_fence at line 5 orders this work-item's own accesses only; a "
        "barrier(CLK_GLOBAL_MEM_FENCE) is needed here",
    ],
    ("fence_on_global", "race", 6): ["with no barrier between"],
    ("fence_after_the_race", "race", 5): [
        "A barrier(CLK_LOCAL_MEM_FENCE) is missing between line 5 and line 6",
    ],
    ("fence_and_missing_barrier", "race", 6): [
        "A barrier(CLK_LOCAL_MEM_FENCE) is missing between line 6 and line 10",
        "The mem_fence at line 13 does not order them either: it orders this work-item's own "
        "accesses only, so a barrier(CLK_LOCAL_MEM_FENCE) is needed in its place too.",
    ],
    ("oob_rows_cols", "out-of-bounds", 4): [
        "outside dst (960 elements)",
        "Guard it in the kernel's own terms: if (row < M && col < N)",
    ],
    ("oob_loop_bound", "out-of-bounds", 7): ["if (row < M && k < K)"],
    ("oob_tiled_macros", "out-of-bounds", 12): ["if (row < M && t * 8 + lx < K)"],
    ("oob_tiled_macros", "out-of-bounds", 13): ["if (t * 8 + ly < K && col < N)"],
    ("oob_vectors_and_structs", "out-of-bounds", 9): [
        "line 9 reads x[-1] outside x (64 elements)",
        "Guard it in the kernel's own terms: if (i >= 1)",
    ],
    ("oob_vectors_and_structs", "out-of-bounds", 10): ["if (i < n / 4)"],
    ("oob_vectors_and_structs", "out-of-bounds", 11): ["if (l + 1 < 16)"],
    ("vector_stores", "race", 20): ["Race on differ between work-groups"],
    ("bucket_counts_one_group", "race", 8): [
        "line 8 updates counts[] while other work-items of the same work-group update the "
        "same elements on that same line",
        "use an atomic (atomic_inc, atomic_add), or give each element to one work-item",
    ],
    ("publish_offset", "race", 7): [
        "line 7 writes it and line 8 reads it, by different work-items of one work-group, "
        "with no barrier between",
    ],
    ("bucket_counts", "race", 8): [
        "Race on counts between work-groups",
        "while other work-items of the same work-group update the same elements",
    ],
    ("vector_stores", "same-value-writes", 19): ["Note, not a race: line 19 writes same[1]"],
}


def _run(name: str, device) -> RunRequest:
    return RunRequest(load_variant_file(CAUSES / f"{name}.cl"), {}, device_key=device.key)


@pytest.fixture(scope="module")
def traced(executor, device):
    done = {}

    def trace(name):
        if name not in done:
            done[name] = executor.trace(TraceRequest(_run(name, device)))  # as the window asks
            assert done[name].analysis is not None, done[name].result.summary()
        return done[name]

    return trace


def test_every_kernel_of_the_folder_is_checked():
    assert sorted(p.stem for p in CAUSES.glob("*.cl")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_kernel_names_its_cause(traced, name):
    result = traced(name)
    assert result.report_json["complete"] is True
    findings = result.analysis.findings
    assert [(f.kind, f.line, f.subkind) for f in findings] == EXPECTED[name]
    for (kernel, kind, line), fragments in SAYS.items():
        if kernel != name:
            continue
        messages = [f.message for f in findings if (f.kind, f.line) == (kind, line)]
        for fragment in fragments:
            assert any(fragment in m for m in messages), (fragment, messages)


def test_the_fence_is_named_in_the_cause_and_replaced_in_the_advice(traced):
    group = groups_json(traced("fence_in_macro").analysis.findings)[0]
    assert group["cause"] == (
        "Only a fence stands between accesses to the same elements of tile by different "
        "work-items of one group on lines 8–10; a fence orders each work-item's own accesses "
        "only."
    )
    assert group["advice"].startswith(
        "Replace the mem_fence at line 9 with barrier(CLK_LOCAL_MEM_FENCE). Place every "
        "barrier where all work-items of the group reach it"
    )


def test_where_a_barrier_is_missing_besides_the_fence_the_advice_asks_for_both(traced):
    (group,) = groups_json(traced("fence_and_missing_barrier").analysis.findings)
    assert group["cause"].startswith("No barrier orders the accesses to part")
    assert (
        "Also replace the mem_fence at line 13 with barrier(CLK_LOCAL_MEM_FENCE): it orders "
        "nothing between work-items." in group["advice"]
    )


def test_a_read_and_a_write_out_of_bounds_share_one_guard_in_the_advice(traced):
    groups = groups_json(traced("oob_rows_cols").analysis.findings)
    advice = {g["advice"] for g in groups if g["kind"] == "out-of-bounds"}
    assert advice == {
        "Guard each access with its own bounds (line 4: if (row < M && col < N)), or make the "
        "global size and the index agree with the buffer's size. Keep every barrier outside "
        "such a guard: all work-items of the group must reach it."
    }


def test_updates_of_one_element_by_one_group_are_counted_per_group_and_made_atomic(traced):
    """bucket_counts: 16 buckets, each updated by work-items of both groups (16 elements
    between groups) and by two or more work-items within each group (16 per group: 32, as
    local memory's races are counted); the advice is an atomic, never a barrier."""
    findings = traced("bucket_counts").analysis.findings
    assert [(f.subkind, f.count) for f in findings if f.kind == "race"] == [
        ("between-groups", 16),
        ("same-updates", 32),
    ]
    within = [g for g in groups_json(findings) if g["cause"].startswith("Work-items of one")]
    assert [g["cause"] for g in within] == [
        "Work-items of one group update the same elements of counts at once on line 8."
    ]
    assert within[0]["advice"].startswith("Make the update atomic (atomic_inc, atomic_add)")


def test_a_bound_no_argument_names_is_the_buffers_length(traced):
    """cells[] is declared with 16 elements and no argument or macro holds 16."""
    (finding,) = [f for f in traced("oob_vectors_and_structs").analysis.findings if f.line == 11]
    assert finding.remedy == "if (l + 1 < 16)"


def _texts(findings) -> list[tuple]:
    return [(f.kind, f.line, f.buffer, f.count, f.phase, f.message) for f in findings]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_command_line_says_what_the_window_says(traced, name, fast_cli):
    ran = cli("trace", "--kernel-file", str(CAUSES / f"{name}.cl"), "--json")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    report = json.loads(ran.stdout)
    keys = ("kind", "line", "buffer", "count", "phase", "message")
    on_the_command_line = [tuple(f[k] for k in keys) for f in report["findings"]]
    in_the_window = traced(name)
    assert on_the_command_line == _texts(in_the_window.analysis.findings)
    assert report["groups"] == groups_json(in_the_window.analysis.findings)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_optimised_and_the_unoptimised_build_say_the_same(name, device, monkeypatch):
    said = []
    for threshold in (0, 1 << 40):  # every trace optimised; none
        monkeypatch.setattr(preparing, "QUICK_BUILD_WORK_ITEMS", threshold)
        traced = trace_and_analyse(TraceRequest(_run(name, device)))
        assert traced.analysis is not None, traced.result.summary()
        said.append((_texts(traced.analysis.findings), groups_json(traced.analysis.findings)))
    assert said[0] == said[1]
