"""Access analysis on hand-built traces with known answers."""

from __future__ import annotations

import dataclasses
import importlib
import json
import pickle

import numpy as np
import pytest

from explorer.trace import analysis
from explorer.trace.analysis import analyse, format_report, keyscan, units
from explorer.trace.analysis.report import group_findings
from explorer.trace.recorded import PHASE_MASK, PHASE_SHIFT, NotTraced, Site, Trace
from tests.trace.synthetic import (
    ATOMIC,
    FENCE_GLOBAL,
    FENCE_LOCAL,
    GLOBAL,
    LOCAL,
    READ,
    RMW,
    WRITE,
    barrier,
    buf,
    build_trace,
    from_records,
    matmul_naive,
    matmul_tiled,
    site,
    tile_column_read,
    transpose_naive,
)


def kinds(a: analysis.Analysis, kind: str) -> list:
    return [f for f in a.findings if f.kind == kind]


def site_at(a: analysis.Analysis, line: int, buffer: str):
    (s,) = [s for s in a.sites if s.line == line and s.buffer == buffer]
    return s


def group_of(lid: int, n: int = 64) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    return (lid // n, 0, 0), (lid % n, 0, 0)


@pytest.fixture(params=["fast", "every-group", "general"])
def path(request, monkeypatch):
    """Run a test on each way through the analysis: the shortcut for traces where every
    work-item ran the same sequence (with the first work-group standing for all when their
    local accesses are the same, or each group analysed), and the general way."""
    if request.param == "every-group":
        monkeypatch.setattr(units, "_groups_stored_alike", lambda *a, **k: False)
    if request.param == "general":
        monkeypatch.setattr(units, "_split_uniform", lambda *a, **k: False)
    return request.param


# ------------------------------------------------------------------------ statistics


def test_naive_transpose_reads_4_sectors_and_writes_32_per_request(path):
    a = analyse(transpose_naive(64))
    read, write = site_at(a, 5, "in"), site_at(a, 5, "out")
    assert read.op == "read" and read.sectors_per_request == 4.0
    assert write.op == "write" and write.sectors_per_request == 32.0
    assert read.requests == 64 * 64 // 32 and read.accesses == 64 * 64
    assert read.bank_conflict_degree is None


def test_column_read_of_a_32_float_tile_is_a_32_way_bank_conflict_and_padding_fixes_it(path):
    conflicted = site_at(analyse(tile_column_read(32)), 8, "tile")
    padded = site_at(analyse(tile_column_read(33)), 8, "tile")
    assert conflicted.space == "local" and conflicted.sectors_per_request is None
    assert conflicted.bank_conflict_degree == 32.0 and conflicted.bank_conflict_worst == 32
    assert padded.bank_conflict_degree == 1.0 and padded.bank_conflict_worst == 1
    # the row-wise write of the same tile never conflicts
    assert site_at(analyse(tile_column_read(32)), 6, "tile").bank_conflict_degree == 1.0


@pytest.mark.parametrize(
    "trace",
    [
        lambda: transpose_naive(64),
        lambda: transpose_naive(64, local=(8, 8)),
        lambda: matmul_tiled(64, 16),
        lambda: matmul_naive(32, local=(4, 4)),
    ],
)
@pytest.mark.parametrize("warp", [32, 16, 8])
def test_sectors_per_request_of_warps_stored_in_order_match_the_general_count(
    trace, warp, monkeypatch
):
    # Warps stored lane after lane make the (request, lane) matrix a reshape of the records;
    # the figures must be those of the layout built record by record.
    quick = analyse(trace(), warp=warp).sites
    site_stats = importlib.import_module("explorer.trace.analysis.site_stats")
    monkeypatch.setattr(site_stats, "_warp_sectors", lambda *a: None)
    assert analyse(trace(), warp=warp).sites == quick


def test_fewer_banks_or_a_narrower_warp_change_the_answers():
    trace = tile_column_read(32)
    assert site_at(analyse(trace, banks=16), 8, "tile").bank_conflict_degree == 32.0
    assert site_at(analyse(tile_column_read(33), banks=16), 8, "tile").bank_conflict_degree == 2
    assert site_at(analyse(transpose_naive(64), warp=16), 5, "out").sectors_per_request == 16


def test_broadcast_of_one_word_is_not_a_conflict():
    buffers = [buf("s", LOCAL, 64)]
    sites = [site(0, 3, READ, LOCAL, 0, "s[0]"), site(1, 4, READ, LOCAL, 0, "s[lid % 2 * 32]")]
    items = [((0, 0, 0), (lid, 0, 0), [(0, 0), (1, (lid % 2) * 128)]) for lid in range(32)]
    a = analyse(
        build_trace(items, buffers=buffers, sites=sites, global_size=(32,), local_size=(32,))
    )
    assert site_at(a, 3, "s").bank_conflict_degree == 1.0
    assert site_at(a, 4, "s").bank_conflict_degree == 2.0  # words 0 and 32 share bank 0


def test_float4_vload_counts_four_elements_and_spans_its_sectors():
    n = 256
    buffers = [buf("A", GLOBAL, n, "A"), buf("C", GLOBAL, n // 4, "C")]
    sites = [site(0, 6, READ, GLOBAL, 0, "vload4(gid, A)"), site(1, 7, WRITE, GLOBAL, 1, "C[gid]")]
    items = [group_of(g, 32) + ([(0, 16 * g, 16), (1, 4 * g)],) for g in range(n // 4)]
    a = analyse(
        build_trace(
            items,
            buffers=buffers,
            sites=sites,
            global_size=(n // 4,),
            local_size=(32,),
            output_role="C",
        )
    )
    assert a.loads_per_element["A"] == {"min": 1, "max": 1, "mean": 1.0}
    assert site_at(a, 6, "A").sectors_per_request == 16.0  # 32 lanes × 16 bytes
    assert a.global_bytes_read == n * 4


def test_loads_per_element_naive_matmul_64_and_tiled_4(path):
    naive = analyse(matmul_naive(64))
    tiled = analyse(matmul_tiled(64, 16))
    for name in ("A", "B"):
        assert naive.loads_per_element[name] == {"min": 64, "max": 64, "mean": 64.0}
        assert tiled.loads_per_element[name] == {"min": 4, "max": 4, "mean": 4.0}
    assert "C" not in naive.loads_per_element  # the output is not an input
    assert naive.global_bytes_read == 2 * 64 * 64 * 64 * 4
    assert tiled.global_bytes_read == 2 * 64 * 64 * 4 * 4
    assert naive.global_bytes_written == tiled.global_bytes_written == 64 * 64 * 4


def test_correct_tiled_matmul_has_no_findings(path):
    a = analyse(matmul_tiled(64, 16))
    assert a.findings == ()
    assert [s.line for s in a.sites] == [10, 10, 11, 11, 14, 14, 18]
    assert site_at(a, 14, "As").bank_conflict_degree == 1.0


def test_answers_do_not_depend_on_how_work_items_are_numbered(path):
    base = matmul_tiled(32, 16, barriers=False)
    W = base.wi_count.size
    L = base.records // W
    perm = np.random.default_rng(1).permutation(W)
    rows = base.offset.reshape(W, L)[perm]
    shuffled = from_records(
        np.repeat(np.arange(W), L),
        base.site,
        rows.ravel(),
        wi_group=base.wi_group[perm],
        wi_local=base.wi_local[perm],
        buffers=base.buffers,
        sites=base.sites,
        global_size=base.global_size,
        local_size=base.local_size,
        output_role="C",
    )
    a, b = analyse(base), analyse(shuffled)
    assert a.sites == b.sites
    assert a.loads_per_element == b.loads_per_element
    key = [(f.kind, f.line, f.phase, f.buffer, f.count) for f in a.findings]
    assert key == [(f.kind, f.line, f.phase, f.buffer, f.count) for f in b.findings]
    assert key  # the missing barriers are found either way


# --------------------------------------------------------------------------- races


def test_a_race_in_one_work_group_only_is_found(path):
    trace = matmul_tiled(32, 16)  # 4 groups; in the last, local (5,0) writes As[0][6] too
    W, L = trace.wi_count.size, trace.records // trace.wi_count.size
    wi = 3 * 256 + 5
    row = trace.offset.reshape(W, L)[wi]
    row[trace.site[:L] == 2] = 6 * 4
    a = analyse(trace)
    races = kinds(a, "race")
    # The same race in phases 0 and 2 (two tiles) is one finding from its first phase.
    assert [(f.line, f.phase, f.buffer, f.count) for f in races] == [(10, 0, "As", 2)]
    assert "same line" in races[0].message and "1 later" in races[0].message
    assert {w[:3] for f in races for w in f.work_items} == {(1, 1, 0)}
    assert {w[3:5] for w in races[0].work_items} == {(5, 0), (6, 0)}
    (f,) = kinds(a, "uninitialized")  # and nobody wrote As[0][5] in that group
    assert (f.line, f.buffer, f.elements) == (14, "As", (5,))
    assert f.count == 2 * 16  # work-items (0..15, 0) read it once per tile


@pytest.mark.parametrize("scan_bytes", [None, 64 * 153 * 4])
@pytest.mark.parametrize("ly", [0, 10])
@pytest.mark.parametrize("group", [1, 5, 6, 11, 15])
def test_a_race_in_any_one_work_group_of_many_is_found(group, ly, scan_bytes, monkeypatch):
    # 16 groups of 16×16: the scan that decides whether the first group stands for all reads
    # several groups at a time (or a quarter of one: ``scan_bytes``); the group that differs
    # may open, sit inside or close a block.
    if scan_bytes is not None:
        monkeypatch.setattr(units, "_SCAN_BYTES", scan_bytes)
    trace = matmul_tiled(64, 16)
    W, L = trace.wi_count.size, trace.records // trace.wi_count.size
    row = trace.offset.reshape(W, L)[group * 256 + ly * 16 + 5]
    row[trace.site[:L] == 2] = (ly * 16 + 6) * 4  # local (5,ly) writes As[ly][6] too
    races = kinds(analyse(trace), "race")
    assert [(f.line, f.buffer, f.count) for f in races] == [(10, "As", 4)]  # one per tile
    gx, gy = group % 4, group // 4
    assert {w[:3] for w in races[0].work_items} == {(gx, gy, 0)}
    assert {w[3:5] for w in races[0].work_items} == {(5, ly), (6, ly)}


@pytest.mark.parametrize("scan_bytes", [None, 64 * 153 * 4])
def test_each_way_through_the_analysis_is_the_one_it_names(path, scan_bytes, monkeypatch):
    if scan_bytes is not None:  # the groups set beside the first a quarter at a time
        monkeypatch.setattr(units, "_SCAN_BYTES", scan_bytes)
    trace = matmul_tiled(64, 16)
    ctx = analysis.Context(trace, 32, 32)
    split = units.split(ctx)
    uniform = all(u.cols is not None for u in split.memory)
    assert uniform == (path != "general")
    assert (ctx.local_scale == ctx.ngroups == 16) == (path == "fast")


def test_work_items_that_differ_only_in_phases_still_share_their_columns():
    trace = matmul_tiled(32, 16)
    W, L = trace.wi_count.size, trace.records // trace.wi_count.size
    word = trace.word.reshape(W, L)
    field = np.uint32(PHASE_MASK << PHASE_SHIFT)
    word[700, L - 1] = (word[700, L - 1] & ~field) | np.uint32(1 << PHASE_SHIFT)
    ctx = analysis.Context(trace, 32, 32)
    split = units.split(ctx)
    assert all(u.cols is not None for u in split.memory)  # the same sites at the same columns
    assert ctx.phase_row is None and ctx.local_scale == 1  # but each work-item's own phases
    (last,) = [b for b in split.barriers if b.line == 16]
    assert last.phase is not None and last.phase.size == W * last.count


def test_missing_barrier_in_tiled_matmul_is_a_race_naming_both_lines(path):
    a = analyse(matmul_tiled(64, 16, barriers=False))
    races = kinds(a, "race")
    assert {(f.buffer, f.line, f.phase) for f in races} == {("As", 10, 0), ("Bs", 11, 0)}
    for f in races:
        other = 14
        assert f"line {f.line} writes it and line {other} reads it" in f.message
        assert "barrier(CLK_LOCAL_MEM_FENCE) is missing" in f.message
        assert f.count == 16 * 16 * 16  # every word of the tile, in each of the 16 groups
        assert 2 <= len(f.work_items) <= 4 and all(len(w) == 6 for w in f.work_items)
    assert not kinds(a, "uninitialized")


def _counter_trace(op: int) -> Trace:
    """cnt[0] = 0 by lid 0; barrier; every work-item updates cnt[0] (with ``op``); barrier;
    lid 0 reads it."""
    buffers = [buf("cnt", LOCAL, 1)]
    sites = [
        site(0, 3, WRITE, LOCAL, 0, "cnt[0]"),
        barrier(1, 4),
        site(2, 5, op, LOCAL, 0, "atomic_inc(&cnt[0])"),
        barrier(3, 6),
        site(4, 7, READ, LOCAL, 0, "cnt[0]"),
    ]
    items = []
    for lid in range(64):
        acc = ([(0, 0)] if lid == 0 else []) + [(1,), (2, 0), (3,)] + ([(4, 0)] if lid == 0 else [])
        items.append(((0, 0, 0), (lid, 0, 0), acc))
    return build_trace(items, buffers=buffers, sites=sites, global_size=(64,), local_size=(64,))


def test_atomics_on_one_word_do_not_race_but_plain_updates_do(path):
    assert analyse(_counter_trace(ATOMIC)).findings == ()
    races = kinds(analyse(_counter_trace(RMW)), "race")
    assert len(races) == 1 and races[0].line == 5 and races[0].phase == 1
    assert "same line" in races[0].message


def test_atomic_and_a_plain_read_of_the_same_word_in_one_phase_race():
    buffers = [buf("cnt", LOCAL, 1)]
    sites = [
        site(0, 5, ATOMIC, LOCAL, 0, "atomic_inc(&cnt[0])"),
        site(1, 6, READ, LOCAL, 0, "cnt[0]"),
    ]
    items = [((0, 0, 0), (0, 0, 0), [(0, 0)]), ((0, 0, 0), (1, 0, 0), [(0, 0), (1, 0)])]
    races = kinds(
        analyse(
            build_trace(items, buffers=buffers, sites=sites, global_size=(2,), local_size=(2,))
        ),
        "race",
    )
    assert [(f.line, f.phase) for f in races] == [(5, 0)]
    assert "line 5 atomically updates it and line 6 reads it" in races[0].message


def _cmpxchg_trace(plain_writer: bool) -> Trace:
    """Work-item 0 swaps owner[0] (an atomic write); work-item 1's compare-exchange fails (an
    atomic read); with ``plain_writer`` work-item 2 stores to owner[0] plainly."""
    buffers = [buf("owner", LOCAL, 1)]
    loser = Site(1, 5, READ, LOCAL, 0, "atomic_cmpxchg(&owner[0], 0, 2)", atomic=True)
    sites = [site(0, 5, ATOMIC, LOCAL, 0, "atomic_cmpxchg(&owner[0], 0, 1)"), loser]
    sites.append(site(2, 6, WRITE, LOCAL, 0, "owner[0]"))
    items = [((0, 0, 0), (0, 0, 0), [(0, 0)]), ((0, 0, 0), (1, 0, 0), [(1, 0)])]
    if plain_writer:
        items.append(((0, 0, 0), (2, 0, 0), [(2, 0)]))
    n = len(items)
    return build_trace(items, buffers=buffers, sites=sites, global_size=(n,), local_size=(n,))


def test_a_compare_exchange_that_did_not_swap_races_with_plain_writes_not_with_atomics():
    alone = analyse(_cmpxchg_trace(plain_writer=False))
    assert kinds(alone, "race") == []
    # Nothing stored to owner[0] first: whichever atomic came first read what was there.
    assert {(f.kind, f.line) for f in alone.findings} == {("uninitialized", 5)}
    races = kinds(analyse(_cmpxchg_trace(plain_writer=True)), "race")
    blamed = {wi[3] for f in races for wi in f.work_items}
    assert blamed == {0, 1, 2}  # the winner, the loser (its failed exchange read) and the store
    assert all(f.line == 5 for f in races)


def _reduction(with_barriers: bool) -> Trace:
    """p[lid] = in[gid]; barrier; then the tree of p[lid] += p[lid + s], s = 32 .. 1, one step
    per line from line 7: either warp-synchronous (lid < 32 do every step, no barriers) or
    the correct form (lid < s, a barrier after each step)."""
    steps = [32, 16, 8, 4, 2, 1]
    buffers = [buf("in", GLOBAL, 64, "A"), buf("p", LOCAL, 64)]
    sites = [
        site(0, 4, READ, GLOBAL, 0, "in[gid]"),
        site(1, 4, WRITE, LOCAL, 1, "p[lid]"),
        barrier(2, 5),
    ]
    for i, s in enumerate(steps):
        sites.append(site(3 + 3 * i, 7 + i, READ, LOCAL, 1, f"p[lid + {s}]"))
        sites.append(site(4 + 3 * i, 7 + i, RMW, LOCAL, 1, "p[lid]"))
        sites.append(barrier(5 + 3 * i, 7 + i))
    items = []
    for lid in range(64):
        acc = [(0, 4 * lid), (1, 4 * lid), (2,)]
        for i, s in enumerate(steps):
            if lid < (s if with_barriers else 32):
                acc += [(3 + 3 * i, 4 * (lid + s)), (4 + 3 * i, 4 * lid)]
            if with_barriers:
                acc.append((5 + 3 * i,))
        items.append(((0, 0, 0), (lid, 0, 0), acc))
    return build_trace(items, buffers=buffers, sites=sites, global_size=(64,), local_size=(64,))


def test_warp_synchronous_reduction_races_at_every_step_and_the_barrier_form_does_not():
    a = analyse(_reduction(with_barriers=False))
    races = kinds(a, "race")
    assert {f.line for f in races} == {7, 8, 9, 10, 11, 12}
    assert all(f.buffer == "p" and f.phase == 1 for f in races)
    same_line = [f for f in races if "same line" in f.message]
    assert {f.line for f in same_line} == {8, 9, 10, 11, 12}  # step s=32 reads p[32..63]
    assert any("line 7 updates it and line 8 reads it" in f.message for f in races)
    assert not kinds(a, "uninitialized")
    fixed = analyse(_reduction(with_barriers=True))
    assert fixed.findings == ()


def test_global_race_within_a_group_and_between_groups():
    buffers = [buf("out", GLOBAL, 128, "C")]
    # every work-item writes out[gid], then reads its neighbour's element with no barrier
    sites = [
        site(0, 3, WRITE, GLOBAL, 0, "out[gid]"),
        site(1, 4, READ, GLOBAL, 0, "out[(gid + 1) % 64]"),
    ]
    items = [group_of(g) + ([(0, 4 * g), (1, 4 * ((g + 1) % 64))],) for g in range(64)]
    races = kinds(
        analyse(
            build_trace(items, buffers=buffers, sites=sites, global_size=(64,), local_size=(64,))
        ),
        "race",
    )
    assert [(f.line, f.phase) for f in races] == [(3, 0)]
    assert "CLK_GLOBAL_MEM_FENCE" in races[0].message and races[0].count == 64

    # every work-item of two groups adds into out[0]: the groups race, and so do the
    # work-items within each group (one word in each of two groups: count 2)
    sites = [site(0, 3, RMW, GLOBAL, 0, "out[0]")]
    items = [group_of(g, 32) + ([(0, 0)],) for g in range(64)]
    between, within = kinds(
        analyse(
            build_trace(items, buffers=buffers, sites=sites, global_size=(64,), local_size=(32,))
        ),
        "race",
    )
    assert between.phase is None and between.count == 1
    assert "between work-groups" in between.message
    assert {w[0] for w in between.work_items} == {0, 1}
    assert (within.phase, within.count, within.subkind) == (0, 2, "same-updates")
    assert "other work-items of the same work-group update the same elements" in within.message
    assert {w[0] for w in within.work_items} == {0, 1}  # an example from each group


def test_one_statement_writing_one_element_from_every_work_item_asks_for_one_writer():
    """out[0] = ... by every work-item of one group (no values recorded: they may differ): a
    race whose advice is one writer or an atomic, never a barrier, which cannot order the
    writes of one statement."""
    buffers = [buf("out", GLOBAL, 4, "C")]
    sites = [site(0, 3, WRITE, GLOBAL, 0, "out[0]")]
    items = [group_of(g, 32) + ([(0, 0)],) for g in range(32)]
    a = analyse(
        build_trace(items, buffers=buffers, sites=sites, global_size=(32,), local_size=(32,))
    )
    (race,) = kinds(a, "race")
    assert (race.phase, race.count, race.subkind) == (0, 1, "same-writes")
    assert "other work-items of the same work-group write the same elements" in race.message
    (group,) = [g for g in group_findings(list(a.findings)) if g.kind == "race"]
    assert group.advice.startswith("Give each element one writer")
    assert "barrier(" not in race.message + group.advice


def test_a_plain_read_beside_other_groups_atomics_is_told_to_read_atomically():
    """A compare-and-swap loop's first guess (best = *slot, then atomic_cmpxchg on it): the
    race between work-groups is named, and so is the same race among the work-items of each
    group; one cause, whose advice is to read it atomically (the kernel already uses atomics),
    with what such a first guess costs."""
    buffers = [buf("best", GLOBAL, 4, "C")]
    sites = [site(0, 5, READ, GLOBAL, 0, "*slot"), site(1, 7, ATOMIC, GLOBAL, 0, "cmpxchg")]
    items = [group_of(g, 32) + ([(0, 0), (1, 0)],) for g in range(64)]
    a = analyse(
        build_trace(items, buffers=buffers, sites=sites, global_size=(64,), local_size=(32,))
    )
    between, within = kinds(a, "race")
    assert "between work-groups" in between.message
    assert "by different work-items of one work-group" in within.message
    assert (between.count, within.count) == (1, 2)  # one word; that word in each of 2 groups
    for race in (between, within):
        assert "read it with an atomic too" in race.message and "use atomics" not in race.message
    (group,) = group_findings(list(a.findings))
    assert group.cause == (
        "A plain read of best meets atomic updates of the same elements by other work-items "
        "on lines 5, 7 (2 findings)."
    )
    assert "read it with an atomic too" in group.advice and "use atomics" not in group.advice
    assert "compare-and-swap" in group.advice


def _bins_of_eight_groups() -> Trace:
    """8 groups of 32: bins[l % 8]++, barrier(CLK_GLOBAL_MEM_FENCE), bins[(l + 1) % 8] read
    and bins[3 * l % 8]++ (line 3 and line 5 race within each group and between groups)."""
    sites = [
        site(0, 3, RMW, GLOBAL, 0, "bins[l % 8]"),
        barrier(1, 4, FENCE_GLOBAL),
        site(2, 5, READ, GLOBAL, 0, "bins[(l + 1) % 8]"),
    ]
    items = [
        group_of(w, 32) + ([(0, 4 * (w % 8)), (1,), (2, 4 * ((w + 1) % 8)), (0, 4 * (3 * w % 8))],)
        for w in range(8 * 32)  # w % 8 is the local id's too: 32 is a multiple of 8
    ]
    return build_trace(
        items,
        buffers=[buf("bins", GLOBAL, 8, "C")],
        sites=sites,
        global_size=(256,),
        local_size=(32,),
    )


def test_results_are_the_same_when_tables_are_built_in_batches(monkeypatch):
    traces = [
        matmul_tiled(64, 16, barriers=False),
        _reduction(False),
        _uninit_trace(False),
        _bins_of_eight_groups(),
    ]
    before = [analyse(t).findings for t in traces]
    strip = [[(f.kind, f.line, f.phase, f.buffer, f.count) for f in fs] for fs in before]
    races = [f for f in before[3] if f.kind == "race"]
    assert [(f.line, f.phase, f.count, f.subkind) for f in races] == [
        (3, None, 8, "between-groups"),
        (3, None, 8, "between-groups"),
        (3, 0, 128, "same-updates"),  # 8 bins in 8 groups, in phase 0 and again in phase 1
        (3, 1, 64, "no-global-barrier"),
    ]
    for limit in (300, 20):  # 20: fewer entries than the groups' (group, bin) pairs
        monkeypatch.setattr(keyscan, "DENSE_LIMIT", limit)
        after = [analyse(t).findings for t in traces]
        assert strip == [[(f.kind, f.line, f.phase, f.buffer, f.count) for f in fs] for fs in after]


# --------------------------------------------------------------- other findings


def _uninit_trace(initialise: bool) -> Trace:
    """line 29: x = in[gid]; (line 28: sum[lid] = 0;) line 30: sum[lid] += x; barrier;
    line 32: lid 0 reads every sum[i]."""
    buffers = [buf("in", GLOBAL, 128, "A"), buf("sum", LOCAL, 64)]
    sites = [
        site(0, 28, WRITE, LOCAL, 1, "sum[lid]"),
        site(1, 29, READ, GLOBAL, 0, "in[gid]"),
        site(2, 30, RMW, LOCAL, 1, "sum[lid]"),
        barrier(3, 31),
        site(4, 32, READ, LOCAL, 1, "sum[i]"),
    ]
    items = []
    for g in range(128):
        lid = g % 64
        acc = ([(0, 4 * lid)] if initialise else []) + [(1, 4 * g), (2, 4 * lid), (3,)]
        if lid == 0:
            acc += [(4, 4 * i) for i in range(64)]
        items.append(group_of(g) + (acc,))
    return build_trace(items, buffers=buffers, sites=sites, global_size=(128,), local_size=(64,))


def test_update_of_local_memory_before_anyone_wrote_it_is_uninitialised(path):
    a = analyse(_uninit_trace(initialise=False))
    (f,) = a.findings
    assert (f.kind, f.line, f.phase, f.buffer, f.count) == ("uninitialized", 30, 0, "sum", 128)
    assert f.message == (
        "line 30 reads sum[] before any work-item wrote it (phase 0; e.g. sum[0], sum[1], "
        "sum[2], sum[3]): write it first, with a barrier(CLK_LOCAL_MEM_FENCE) between the "
        "writes and the reads that every work-item of the group reaches (never inside a branch "
        "only some take)"
    )
    assert analyse(_uninit_trace(initialise=True)).findings == ()


def test_reading_what_another_work_item_wrote_in_an_earlier_phase_is_initialised():
    buffers = [buf("t", LOCAL, 2)]
    sites = [
        site(0, 3, WRITE, LOCAL, 0, "t[lid]"),
        barrier(1, 4),
        site(2, 5, READ, LOCAL, 0, "t[1 - lid]"),
        site(3, 6, READ, LOCAL, 0, "t[lid]"),
    ]
    good = [((0, 0, 0), (lid, 0, 0), [(0, 4 * lid), (1,), (2, 4 * (1 - lid))]) for lid in range(2)]
    assert (
        analyse(
            build_trace(good, buffers=buffers, sites=sites, global_size=(2,), local_size=(2,))
        ).findings
        == ()
    )
    # work-item 1 reads t[1] before its own write, nobody else writes it: uninitialised
    bad = [((0, 0, 0), (0, 0, 0), [(0, 0)]), ((0, 0, 0), (1, 0, 0), [(3, 4), (0, 4)])]
    (f,) = analyse(
        build_trace(bad, buffers=buffers, sites=sites, global_size=(2,), local_size=(2,))
    ).findings
    assert (f.kind, f.line, f.work_items) == ("uninitialized", 6, ((0, 0, 0, 1, 0, 0),))


def test_out_of_bounds_names_the_line_and_the_element():
    n = 4096
    buffers = [buf("A", GLOBAL, n, "A"), buf("C", GLOBAL, n, "C")]
    sites = [site(0, 19, READ, GLOBAL, 0, "A[gid + 1]"), site(1, 20, WRITE, GLOBAL, 1, "C[gid]")]
    items = [group_of(g, 256) + ([(0, 4 * (g + 1)), (1, 4 * g)],) for g in range(n)]
    a = analyse(
        build_trace(
            items,
            buffers=buffers,
            sites=sites,
            global_size=(n,),
            local_size=(256,),
            output_role="C",
        )
    )
    (f,) = a.findings
    assert (f.kind, f.line, f.buffer, f.count, f.elements) == ("out-of-bounds", 19, "A", 1, (4096,))
    assert f.message == (
        "line 19 reads A[4096] outside A (4096 elements); the access was skipped. Guard it in "
        "the kernel's own terms: if (gid + 1 < 4096)"
    )
    assert f.work_items == ((15, 0, 0, 255, 0, 0),)
    assert site_at(a, 19, "A").accesses == n - 1  # the skipped access is not counted
    assert a.loads_per_element["A"]["min"] == 0  # A[0] is never read


def test_negative_index_is_out_of_bounds_too():
    buffers = [buf("s", LOCAL, 64)]
    sites = [site(0, 8, WRITE, LOCAL, 0, "s[lid - 1]")]
    items = [((0, 0, 0), (lid, 0, 0), [(0, 4 * (lid - 1))]) for lid in range(64)]
    (f,) = analyse(
        build_trace(items, buffers=buffers, sites=sites, global_size=(64,), local_size=(64,))
    ).findings
    assert f.kind == "out-of-bounds" and f.elements == (-1,)
    assert "line 8 writes s[-1] outside s (64 elements)" in f.message


def test_barrier_inside_a_condition_diverges():
    buffers = [buf("p", LOCAL, 64)]
    sites = [
        site(0, 5, WRITE, LOCAL, 0, "p[lid]"),
        barrier(1, 7),
        site(2, 9, READ, LOCAL, 0, "p[63 - lid]"),
    ]
    items = [
        (
            (0, 0, 0),
            (lid, 0, 0),
            [(0, 4 * lid)] + ([(1,)] if lid < 16 else []) + [(2, 4 * (63 - lid))],
        )
        for lid in range(64)
    ]
    a = analyse(
        build_trace(items, buffers=buffers, sites=sites, global_size=(64,), local_size=(64,))
    )
    (f,) = kinds(a, "barrier-divergence")
    assert (f.line, f.count) == (7, 1)
    assert "48 passed 0, 16 passed 1" in f.message and "(0, 0, 0)" in f.message
    assert {w[3] < 16 for w in f.work_items} == {True, False}


def _coverage_trace(groups: int) -> Trace:
    """C[gid / 2 * 2] = ...: even elements written twice, odd ones never."""
    buffers = [buf("A", GLOBAL, 256, "A"), buf("C", GLOBAL, 256, "C")]
    sites = [site(0, 3, READ, GLOBAL, 0, "A[gid]"), site(1, 4, WRITE, GLOBAL, 1, "C[gid/2*2]")]
    items = [group_of(g) + ([(0, 4 * g), (1, 4 * (g // 2 * 2))],) for g in range(64 * groups)]
    return build_trace(
        items, buffers=buffers, sites=sites, global_size=(256,), local_size=(64,), output_role="C"
    )


def test_coverage_reports_unwritten_and_multiply_written_output(path):
    found = kinds(analyse(_coverage_trace(4)), "coverage")
    never = [f for f in found if "never written" in f.message]
    several = [f for f in found if "several work-items" in f.message]
    assert len(never) == len(several) == 1
    assert never[0].count == 128 and never[0].elements == (1, 3, 5, 7)
    assert several[0].count == 128 and several[0].elements[:2] == (0, 2)
    assert several[0].line == 4
    assert {w[3] for w in several[0].work_items[:2]} == {0, 1}
    # with half the groups traced, coverage says nothing
    partial = _coverage_trace(2)
    assert len(partial.groups_traced) == 2
    assert kinds(analyse(partial), "coverage") == []


def _accumulating_trace(host_filled: bool) -> Trace:
    """A histogram: every work-item atomically adds into C[gid % 4]; C[4..7] are never
    touched. ``host_filled``: C starts from the host's zeros, not from the sentinel."""
    c = dataclasses.replace(buf("C", GLOBAL, 8, "C"), host_filled=host_filled)
    sites = [
        site(0, 3, READ, GLOBAL, 0, "A[gid]"),
        site(1, 4, ATOMIC, GLOBAL, 1, "atomic_add(&C[gid % 4], 1)"),
    ]
    items = [group_of(g, 32) + ([(0, 4 * g), (1, 4 * (g % 4))],) for g in range(64)]
    return build_trace(
        items,
        buffers=[buf("A", GLOBAL, 64, "A"), c],
        sites=sites,
        global_size=(64,),
        local_size=(32,),
        output_role="C",
    )


def test_atomic_accumulation_into_the_output_is_not_multiply_written():
    """Atomics adding into an output that starts from the sentinel: the first atomic on each
    element reads the sentinel (an atomic is a read), and the untouched elements are never
    written; never "written by several work-items"."""
    found = analyse(_accumulating_trace(host_filled=False)).findings
    assert [f.kind for f in found] == ["uninitialized", "coverage"]
    uninitialized, never = found
    assert uninitialized.line == 4 and set(uninitialized.elements) == {0, 1, 2, 3}
    assert "never written" in never.message
    assert (never.count, never.elements) == (4, (4, 5, 6, 7))


def test_elements_of_an_output_that_starts_from_the_hosts_zeros_may_stay_as_they_were():
    # a bin no value fell into keeps its zero: no finding
    assert analyse(_accumulating_trace(host_filled=True)).findings == ()


def test_many_out_of_bounds_accesses_are_one_finding_per_site():
    buffers = [buf("s", GLOBAL, 32, "A")]
    sites = [site(0, 8, READ, GLOBAL, 0, "s[lid]")]
    items = [((0, 0, 0), (lid, 0, 0), [(0, 4 * lid)]) for lid in range(64)]
    (f,) = analyse(
        build_trace(items, buffers=buffers, sites=sites, global_size=(64,), local_size=(64,))
    ).findings
    assert (f.kind, f.line, f.count, f.elements) == ("out-of-bounds", 8, 32, (32, 33, 34, 35))
    assert f.message == (
        "line 8 reads s[32], s[33], s[34], s[35] and others outside s "
        "(32 elements), 32 accesses; the accesses were skipped. Guard it in the kernel's own "
        "terms: if (lid < 32)"
    )


def test_one_element_reached_past_the_sample_is_not_and_others():
    """Every one of 512 work-items writes s[32] (more accesses than the examples are taken
    from): the finding names s[32] alone, and s[33] written once after them is "others"."""
    buffers = [buf("s", GLOBAL, 32, "A")]
    sites = [site(0, 8, WRITE, GLOBAL, 0, "s[32]")]
    items = [((0, 0, 0), (lid, 0, 0), [(0, 4 * 32)]) for lid in range(512)]
    trace = build_trace(items, buffers=buffers, sites=sites, global_size=(512,), local_size=(512,))
    (f,) = analyse(trace).findings
    assert (f.kind, f.count, f.elements) == ("out-of-bounds", 512, (32,))
    assert f.message.startswith("line 8 writes s[32] outside s (32 elements), 512 accesses")
    items[-1] = ((0, 0, 0), (511, 0, 0), [(0, 4 * 33)])
    trace = build_trace(items, buffers=buffers, sites=sites, global_size=(512,), local_size=(512,))
    (f,) = analyse(trace).findings
    assert f.message.startswith("line 8 writes s[32] and others outside s (32 elements)")


def test_one_pixel_reached_past_the_sample_is_not_and_others():
    """512 reads of the one pixel (16, 0) past a 16×8 image's right edge name it alone; a
    read of (16, 1) among them is "others"."""
    from dataclasses import replace

    image = replace(buf("src", GLOBAL, 128, "A", shape=(8, 16)), image=2)
    sites = [site(0, 27, READ, GLOBAL, 0, "read_imagef(src, p)")]

    def outside(x, y):  # the runtime's packing of an image's out-of-range coordinates
        return -1 - ((x + 16384) | ((y + 16384) << 15))

    items = [((0, 0, 0), (lid, 0, 0), [(0, outside(16, 0))]) for lid in range(512)]
    trace = build_trace(items, buffers=[image], sites=sites, global_size=(512,), local_size=(512,))
    (f,) = analyse(trace).findings
    assert (f.kind, f.count) == ("out-of-bounds", 512)
    assert f.message.startswith("line 27 reads src at (16, 0), outside its 16×8 pixels")
    items[-1] = ((0, 0, 0), (511, 0, 0), [(0, outside(16, 1))])
    trace = build_trace(items, buffers=[image], sites=sites, global_size=(512,), local_size=(512,))
    (f,) = analyse(trace).findings
    assert f.message.startswith("line 27 reads src at (16, 0) and others, outside its 16×8")


def test_overflow_follows_each_work_items_own_capacity():
    buffers = [buf("A", GLOBAL, 8, "A")]
    sites = [site(0, 3, READ, GLOBAL, 0, "A[i]")]
    items = [((0, 0, 0), (lid, 0, 0), [(0, 4 * i) for i in range(2 + lid)]) for lid in range(2)]
    trace = build_trace(
        items,
        buffers=buffers,
        sites=sites,
        global_size=(2,),
        local_size=(2,),
        capacity=3,
        wi_count=np.array([5, 3]),
    )
    trace.extra["capacity_per_wi"] = np.array([2, 3])  # work-item 0 had the smaller region
    (f,) = analyse(trace).findings
    assert (f.kind, f.count, f.work_items) == ("overflow", 1, ((0, 0, 0, 0, 0, 0),))


def test_analysis_survives_pickling():
    # it crosses from the executor process back to the app
    a = analyse(matmul_tiled(32, 16, barriers=False))
    assert pickle.loads(pickle.dumps(a)) == a


def test_overflow_and_not_traced_findings_say_the_trace_is_incomplete():
    buffers = [buf("A", GLOBAL, 8, "A")]
    sites = [site(0, 3, READ, GLOBAL, 0, "A[i]")]
    items = [((0, 0, 0), (lid, 0, 0), [(0, 4 * i) for i in range(4)]) for lid in range(2)]
    counts = np.array([4, 14])
    trace = build_trace(
        items,
        buffers=buffers,
        sites=sites,
        global_size=(2,),
        local_size=(2,),
        capacity=4,
        wi_count=counts,
        not_traced=(NotTraced(12, "a pointer the tracer cannot follow"),),
    )
    a = analyse(trace)
    assert [f.kind for f in a.findings] == ["overflow", "not-traced"]
    over, nt = a.findings
    assert over.count == 1 and over.work_items == ((0, 0, 0, 1, 0, 0),)
    assert "(the most 14, where its count gave it room for 4)" in over.message
    assert nt.line == 12 and "a pointer the tracer cannot follow" in nt.message
    assert a.to_json(trace)["complete"] is False


def test_overflowed_work_item_does_not_cause_false_uninitialised_reads():
    # work-item 1 overflowed before writing t[1]; work-item 0 reads t[1] after the barrier
    buffers = [buf("t", LOCAL, 2), buf("A", GLOBAL, 4, "A")]
    sites = [
        site(0, 3, WRITE, LOCAL, 0, "t[lid]"),
        barrier(1, 4),
        site(2, 5, READ, LOCAL, 0, "t[1 - lid]"),
        site(3, 2, READ, GLOBAL, 1, "A[i]"),
    ]
    items = [
        ((0, 0, 0), (0, 0, 0), [(0, 0), (1,), (2, 4)]),
        ((0, 0, 0), (1, 0, 0), [(3, 0), (3, 4), (3, 8)]),
    ]  # then t[1] = ..., lost
    trace = build_trace(
        items,
        buffers=buffers,
        sites=sites,
        global_size=(2,),
        local_size=(2,),
        capacity=3,
        wi_count=np.array([3, 6]),
    )
    assert [f.kind for f in analyse(trace).findings] == ["overflow"]


# ------------------------------------------------------------------------ output


def test_to_json_has_exactly_the_schema():
    trace = _coverage_trace(4)
    a = analyse(trace)
    out = json.loads(json.dumps(a.to_json(trace)))
    assert set(out) == {
        "complete",
        "groups_traced",
        "records",
        "findings",
        "sites",
        "loads_per_element",
        "dispatch_order",
    }
    assert out["complete"] is True and out["records"] == trace.records
    assert out["groups_traced"] == [[g, 0, 0] for g in range(4)]
    assert out["dispatch_order"] == [[g, 0, 0] for g in range(4)]
    assert out["findings"] and all(
        set(f) == {"kind", "line", "phase", "buffer", "work_items", "count", "message"}
        for f in out["findings"]
    )
    assert all(len(w) == 6 for f in out["findings"] for w in f["work_items"])
    assert out["sites"] and all(
        set(s)
        == {
            "line",
            "buffer",
            "space",
            "op",
            "accesses",
            "requests",
            "sectors_per_request",
            "bank_conflict_degree",
        }
        for s in out["sites"]
    )
    assert out["loads_per_element"] == {"A": {"min": 1, "max": 1, "mean": 1.0}}


def test_report_shows_summary_findings_sites_and_loads():
    trace = matmul_tiled(64, 16, barriers=False)
    text = format_report(trace, analyse(trace))
    assert f"{trace.records:,} records from 16 of 16 work-group(s) (complete)" in text
    assert "[race] line 10, phase 0: Race on As" in text
    assert "As[ly][k]" in text and "A[row*N + t*TS + lx]" in text
    assert "A: min 4, max 4, mean 4" in text


def test_empty_trace_has_no_findings():
    trace = build_trace(
        [], buffers=[buf("A", GLOBAL, 4, "A")], sites=[], global_size=(4,), local_size=(4,)
    )
    a = analyse(trace)
    assert a.findings == () and a.sites == ()
    assert a.to_json(trace)["records"] == 0


# -------------------------------------------------------------------- memory model


def _across_barrier(space: int, fences: int) -> Trace:
    """Each of 32 work-items writes x[lid] (line 3), passes a barrier with ``fences`` (line
    4), then reads x[(lid + 1) % 32] (line 5), which its neighbour wrote."""
    buffers = [buf("x", space, 32, "C" if space == GLOBAL else None)]
    sites = [
        site(0, 3, WRITE, space, 0, "x[lid]"),
        barrier(1, 4, fences),
        site(2, 5, READ, space, 0, "x[(lid + 1) % 32]"),
    ]
    items = [((0, 0, 0), (i, 0, 0), [(0, 4 * i), (1,), (2, 4 * ((i + 1) % 32))]) for i in range(32)]
    return build_trace(items, buffers=buffers, sites=sites, global_size=(32,), local_size=(32,))


def test_a_local_fence_barrier_does_not_order_global_memory():
    a = analyse(_across_barrier(GLOBAL, FENCE_LOCAL))
    (race,) = kinds(a, "race")
    assert (race.line, race.buffer, race.count) == (3, "x", 32)
    assert "line 3 writes it and line 5 reads it" in race.message
    assert "does not name CLK_GLOBAL_MEM_FENCE" in race.message and "line 4" in race.message
    assert analyse(_across_barrier(GLOBAL, FENCE_GLOBAL)).findings == ()
    assert analyse(_across_barrier(GLOBAL, FENCE_LOCAL | FENCE_GLOBAL)).findings == ()


def test_a_global_fence_barrier_does_not_order_local_memory():
    a = analyse(_across_barrier(LOCAL, FENCE_GLOBAL))
    (race,) = kinds(a, "race")
    assert (race.line, race.buffer, race.count) == (3, "x", 32)
    assert "does not name CLK_LOCAL_MEM_FENCE" in race.message
    assert not kinds(a, "uninitialized")
    assert analyse(_across_barrier(LOCAL, FENCE_LOCAL)).findings == ()


def _neighbours(local: int, op: int) -> Trace:
    """64 work-items in groups of ``local``: each writes (``op``) out[gid] on line 3, or with
    RMW every one adds into out[0], and reads its neighbour's out[(gid + 1) % 64] on line 4."""
    buffers = [buf("out", GLOBAL, 128, "C")]
    sites = [site(0, 3, op, GLOBAL, 0, "out[gid]"), site(1, 4, READ, GLOBAL, 0, "out[...]")]
    items = [
        group_of(g, local) + ([(0, 0 if op == RMW else 4 * g), (1, 4 * ((g + 1) % 64))],)
        for g in range(64)
    ]
    return build_trace(items, buffers=buffers, sites=sites, global_size=(64,), local_size=(local,))


@pytest.mark.parametrize(
    ("trace", "cause", "advice"),
    [
        (
            _reduction(with_barriers=False),
            "No barrier orders the accesses to p on lines 7–12 (phase 1)",
            "Order them with barrier(CLK_LOCAL_MEM_FENCE).",
        ),
        (
            _neighbours(64, WRITE),
            "No barrier orders the accesses to out on lines 3–4 (phase 0)",
            "Order them with barrier(CLK_GLOBAL_MEM_FENCE).",
        ),
        (
            _neighbours(32, RMW),
            "Work-groups access the same elements of out on lines 3–4",
            "Work-groups cannot wait for each other within one launch",
        ),
        (
            _across_barrier(GLOBAL, FENCE_LOCAL),
            "A barrier between the accesses to x on lines 3–5 lacks a fence flag.",
            "Add the missing flag (named in each finding) to that barrier's flags",
        ),
        (
            _across_barrier(LOCAL, FENCE_GLOBAL),
            "A barrier between the accesses to x on lines 3–5 lacks a fence flag.",
            "Add the missing flag",
        ),
    ],
    ids=["local", "global", "between-groups", "global-fence", "local-fence"],
)
def test_a_races_cause_and_advice_follow_its_form_never_its_message(trace, cause, advice):
    findings = kinds(analyse(trace), "race")
    groups = group_findings(findings)
    assert groups[0].cause.startswith(cause) and groups[0].advice.startswith(advice)
    # The detector says which form a race is; the report never reads it back from the text.
    silent = group_findings([dataclasses.replace(f, message="") for f in findings])
    assert [(g.cause, g.advice, g.lines) for g in silent] == [
        (g.cause, g.advice, g.lines) for g in groups
    ]


def test_a_fencing_barrier_later_in_the_kernel_still_orders_what_it_separates():
    """write; barrier(GLOBAL); barrier(LOCAL); read: the first barrier orders local memory
    for nobody, but the second does."""
    buffers = [buf("x", LOCAL, 32)]
    sites = [
        site(0, 3, WRITE, LOCAL, 0, "x[lid]"),
        barrier(1, 4, FENCE_GLOBAL),
        barrier(2, 5, FENCE_LOCAL),
        site(3, 6, READ, LOCAL, 0, "x[(lid + 1) % 32]"),
    ]
    items = [
        ((0, 0, 0), (i, 0, 0), [(0, 4 * i), (1,), (2,), (3, 4 * ((i + 1) % 32))]) for i in range(32)
    ]
    trace = build_trace(items, buffers=buffers, sites=sites, global_size=(32,), local_size=(32,))
    assert analyse(trace).findings == ()


def test_write_into_an_input_is_a_finding():
    buffers = [buf("A", GLOBAL, 64, "A"), buf("C", GLOBAL, 64, "C")]
    sites = [
        site(0, 3, READ, GLOBAL, 0, "A[gid]"),
        site(1, 4, WRITE, GLOBAL, 0, "A[gid]"),
        site(2, 5, WRITE, GLOBAL, 1, "C[gid]"),
    ]
    items = [group_of(g, 32) + ([(0, 4 * g), (1, 4 * g), (2, 4 * g)],) for g in range(64)]
    trace = build_trace(
        items, buffers=buffers, sites=sites, global_size=(64,), local_size=(32,), output_role="C"
    )
    a = analyse(trace)
    (f,) = a.findings
    assert (f.kind, f.line, f.buffer, f.count) == ("write-to-input", 4, "A", 64)
    assert "an input" in f.message


def test_reading_an_output_element_before_anyone_wrote_it_is_uninitialised():
    buffers = [buf("A", GLOBAL, 64, "A"), buf("C", GLOBAL, 64, "C")]
    sites = [
        site(0, 3, READ, GLOBAL, 0, "A[gid]"),
        site(1, 4, RMW, GLOBAL, 1, "C[gid] += A[gid]"),
        site(2, 5, WRITE, GLOBAL, 1, "C[gid]"),
        site(3, 6, READ, GLOBAL, 1, "C[gid]"),
    ]
    # C[gid] += ... before anything wrote it (line 4); then C[gid] = ...; C[gid] read back.
    items = [
        group_of(g, 32) + ([(0, 4 * g), (1, 4 * g), (2, 4 * g), (3, 4 * g)],) for g in range(64)
    ]
    trace = build_trace(
        items, buffers=buffers, sites=sites, global_size=(64,), local_size=(32,), output_role="C"
    )
    (f,) = analyse(trace).findings
    assert (f.kind, f.line, f.buffer, f.count) == ("uninitialized", 4, "C", 64)
    assert "an output" in f.message
    # Written first, then read back: nothing to say.
    items = [group_of(g, 32) + ([(0, 4 * g), (2, 4 * g), (3, 4 * g)],) for g in range(64)]
    trace = build_trace(
        items, buffers=buffers, sites=sites, global_size=(64,), local_size=(32,), output_role="C"
    )
    assert analyse(trace).findings == ()


def _everyone_writes(values: list[int] | None) -> Trace:
    """Every work-item of a group writes flag[0] (line 3) with nothing between them."""
    buffers = [buf("flag", LOCAL, 1)]
    sites = [site(0, 3, WRITE, LOCAL, 0, "flag[0]")]
    items = [((0, 0, 0), (i, 0, 0), [(0, 0)]) for i in range(32)]
    trace = build_trace(items, buffers=buffers, sites=sites, global_size=(32,), local_size=(32,))
    if values is None:
        return trace
    return dataclasses.replace(trace, values=np.array(values, dtype=np.uint32))


def test_every_work_item_writing_the_same_value_is_not_a_race(path):
    (note,) = analyse(_everyone_writes([7] * 32)).findings
    assert (note.kind, note.line, note.buffer, note.count) == ("same-value-writes", 3, "flag", 1)
    assert note.message.startswith("Note, not a race")
    assert [f.kind for f in analyse(_everyone_writes([7] * 31 + [8])).findings] == ["race"]
    # Without the values the trace cannot tell: the race stands.
    assert [f.kind for f in analyse(_everyone_writes(None)).findings] == ["race"]


def test_same_value_writes_still_race_with_a_read():
    buffers = [buf("flag", LOCAL, 1)]
    sites = [site(0, 3, WRITE, LOCAL, 0, "flag[0]"), site(1, 4, READ, LOCAL, 0, "flag[0]")]
    items = [((0, 0, 0), (i, 0, 0), [(0, 0), (1, 0)]) for i in range(8)]
    trace = build_trace(items, buffers=buffers, sites=sites, global_size=(8,), local_size=(8,))
    values = np.full(trace.records, 5, dtype=np.uint32)
    race, note = analyse(dataclasses.replace(trace, values=values)).findings
    assert race.kind == "race" and "line 3 writes it and line 4 reads it" in race.message
    assert note.kind == "same-value-writes"


# --------------------------------------------------------------------------- banks


def _lane_reads(elem: int, element_of_lane: list[int], local_length: int = 512) -> Trace:
    """32 work-items (one warp) each read one ``elem``-byte element of a local array (line 4)."""
    buffers = [buf("s", LOCAL, local_length, elem=elem)]
    sites = [site(0, 4, READ, LOCAL, 0, "s[f(lid)]")]
    items = [((0, 0, 0), (i, 0, 0), [(0, elem * e, elem)]) for i, e in enumerate(element_of_lane)]
    return build_trace(items, buffers=buffers, sites=sites, global_size=(32,), local_size=(32,))


def test_a_conflict_free_float4_read_and_a_four_way_conflict_read_differently():
    free = site_at(analyse(_lane_reads(16, list(range(32)))), 4, "s")
    assert free.bank_conflict_degree == 1.0 and free.bank_conflict_worst == 1
    four_way = site_at(analyse(_lane_reads(4, [4 * i for i in range(32)])), 4, "s")
    assert four_way.bank_conflict_degree == 4.0 and four_way.bank_conflict_worst == 4
    # float4 with lanes 64 bytes apart: each quarter-warp puts 4 lanes on banks 0-3.
    strided = site_at(analyse(_lane_reads(16, [4 * i for i in range(32)])), 4, "s")
    assert strided.bank_conflict_degree == 4.0


def test_eight_byte_accesses_are_served_in_half_warps():
    float2 = site_at(analyse(_lane_reads(8, list(range(32)))), 4, "s")
    assert float2.bank_conflict_degree == 1.0
    assert float2.requests == 1  # phases are how a request is served, not more requests


def test_eight_byte_banks_hold_two_floats():
    trace = _lane_reads(4, [2 * i for i in range(32)])  # every other float
    assert site_at(analyse(trace), 4, "s").bank_conflict_degree == 2.0
    assert site_at(analyse(trace, bank_bytes=8), 4, "s").bank_conflict_degree == 1.0
    with pytest.raises(ValueError):
        analyse(trace, bank_bytes=2)


def test_atomics_from_many_work_groups_on_one_global_word_do_not_race(path):
    buffers = [buf("hist", GLOBAL, 4, "C")]
    sites = [site(0, 3, ATOMIC, GLOBAL, 0, "atomic_inc(&hist[0])")]
    items = [group_of(g, 32) + ([(0, 0)],) for g in range(128)]
    trace = build_trace(items, buffers=buffers, sites=sites, global_size=(128,), local_size=(32,))
    assert not kinds(analyse(trace), "race")


# --------------------------------------------------------------------------- byte ranges


def _bytes_written(first: list[tuple[int, int]], value_of: list[int] | None = None) -> Trace:
    """Work-item i of one group writes ``size`` bytes at byte ``offset`` of a 16-byte local
    array of uchars, for each (offset, size) in ``first``; with values, ``value_of[i]``."""
    buffers = [buf("bytes", LOCAL, 16, elem=1)]
    sizes = sorted({size for _, size in first})
    sites = [site(k, 3 + k, WRITE, LOCAL, 0, f"{size} bytes") for k, size in enumerate(sizes)]
    items = [
        ((0, 0, 0), (i, 0, 0), [(sizes.index(size), offset, size)])
        for i, (offset, size) in enumerate(first)
    ]
    n = len(items)
    trace = build_trace(items, buffers=buffers, sites=sites, global_size=(n,), local_size=(n,))
    if value_of is None:
        return trace
    return dataclasses.replace(trace, values=np.array(value_of, dtype=np.uint32))


def test_neighbouring_bytes_from_different_work_items_do_not_race():
    assert analyse(_bytes_written([(1, 1), (2, 1), (0, 1), (3, 1)])).findings == ()
    assert analyse(_bytes_written([(0, 2), (2, 2)])).findings == ()


def test_an_int_over_a_byte_another_work_item_writes_races():
    (race,) = analyse(_bytes_written([(4, 4), (5, 1)])).findings
    assert (race.kind, race.count) == ("race", 1)  # one byte in common
    (race,) = analyse(_bytes_written([(4, 4), (6, 2)])).findings
    assert race.count == 1  # keys are 2-byte cells here: one in common


def test_same_value_is_judged_per_byte():
    """An int storing 0x0000AB00 and a uchar storing 0xAB at its byte 1 agree there."""
    notes = analyse(_bytes_written([(4, 4), (5, 1)], [0xAB00, 0xAB])).findings
    assert [(f.kind, f.line) for f in notes] == [("same-value-writes", 3), ("same-value-writes", 4)]
    (race,) = analyse(_bytes_written([(4, 4), (5, 1)], [0xAB00, 0xAC])).findings
    assert race.kind == "race"
