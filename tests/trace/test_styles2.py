"""Kernels in more styles people write (tests/trace/styles2): a Blelloch scan with the
bank-offset macro, a bitonic step the host drives, reductions whose last warp is unrolled
without barriers or whose last group adds the partial sums, an in-place Hillis-Steele scan,
a stencil whose halo skips the corners, a transpose through a padded and an unpadded tile,
n-body through a local tile without its second barrier, CSR SpMV a row per work-item,
loaders made by a token-pasting macro, a struct of arrays through restrict pointers and a
__constant table, helpers given __local and __global pointers, early returns (before a
barrier, in a helper) and a continue past one, an accumulator into its output, a partial
output, a histogram merged with a plain +=, a compare-and-swap float sum, RGBA uchar4
components, a wrong stride, a missing tail guard, a float4 tail, unsigned indices below
zero, a pointer walked by *p++, a short __local argument and a #line halfway down.

Each expected finding (kind, line, buffer, count, phase) was derived by reading the kernel:
the comments say how. The same kernel gives the same findings from its header and from its
Oclgrind .sim file, and with the optimised build and without."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.header.sim import load_sim
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.trace.instrument import instrument
from explorer.trace.recorded import ATOMIC, READ

KERNELS = Path(__file__).parent / "styles2"


def _traced(executor, device, variant, defines: dict[str, int] | None = None):
    run = RunRequest(variant, {}, defines=defines or {}, device_key=device.key)
    traced = executor.trace(TraceRequest(run))
    assert traced.analysis is not None, traced.result.summary()
    return traced


def _found(traced) -> list[tuple]:
    return [(f.kind, f.line, f.buffer, f.count, f.phase) for f in traced.analysis.findings]


def _header(executor, device, name: str, defines: dict[str, int] | None = None):
    return _traced(executor, device, load_variant_file(KERNELS / f"{name}.cl"), defines)


# The warp-unrolled reduction (local size 64, two groups): after the one barrier, the work-
# items below 32 run lines 13-18, `smem[tid] += smem[tid + k]` for k = 32, 16, 8, 4, 2, 1.
# Each line writes smem[0..31] (work-item t its own t); line 13 reads 32..63, which nobody
# writes, but line L of k < 32 reads smem[t + k], written by work-item t + k at every line:
# 32 - k elements a group race between each writing line and each reading line 14-18, the
# finding at the earlier of the two lines, counted over both groups.
_UNROLLED_K = {14: 16, 15: 8, 16: 4, 17: 2, 18: 1}
UNROLLED_RACES = sorted(
    ("race", min(write, read), "sdata", 2 * (32 - k), 1)
    for write in range(13, 19)
    for read, k in _UNROLLED_K.items()
)

EXPECTED: dict[str, list[tuple]] = {
    # Correct kernels: nothing. The scan's CONFLICT_FREE_OFFSET keeps every request of the
    # one warp (32 work-items) in distinct banks: a = 2t, 4t + 1, ... land on even and odd
    # banks apart once padded.
    "blelloch_scan": [],
    # stage 3, pass 1: pairs (left, left + 4) cover 0..63 once each.
    "bitonic_step": [],
    # out starts as zeros the host gave: reading it first is no uninitialised read.
    "accumulate_output": [],
    "reduce_warp_unrolled": UNROLLED_RACES,
    # The halo loads rows 0 and 9 and columns 0 and 9 of the 10x10 tile but not its four
    # corners: (0,0), (0,9), (9,0), (9,9) are each read by one corner work-item of each of
    # the 4 groups, at the stencil's sum (line 22), after the barrier. Costs: the left and
    # right halo columns are 4 lanes of a warp (8x8 group: 4 rows a warp) in 4 rows, 4
    # sectors for 16 bytes (lines 11 and 13; 8 requests: 4 groups x 2 warps); rows of 10
    # floats put rows 0 and 3 of a warp in the same banks, 2 ways (line 9, and line 22
    # for each of its 9 reads).
    "stencil_corners_missed": [
        ("uninitialized", 22, "tile", 16, 1),
        ("uncoalesced", 11, "src", 8, None),
        ("uncoalesced", 13, "src", 8, None),
        ("bank-conflict", 9, "tile", 8, None),
        ("bank-conflict", 22, "tile", 72, None),
    ],
    # Without the barrier after the inner loop, the load of tile t + 1 (line 9) races with
    # the reads of tile t in phases 1-3 (4 tiles, 4 groups): tile[j] as a float4 is 4 words
    # x 16 elements x 3 phases x 4 groups = 768; tile[j].w one word each, 192.
    "nbody_tile": [("race", 9, "tile", 768, 1), ("race", 9, "tile", 192, 1)],
    # 8 nonzeros a row, a row per work-item: vals[j] and cols[j] 32 bytes apart across the
    # lanes, 32 sectors a request for 4 sectors of bytes (2 warps x 8 steps = 16 requests).
    "spmv_csr": [("uncoalesced", 9, "vals", 16, None), ("uncoalesced", 9, "cols", 16, None)],
    # k = kind & 7 with kind = 0..63: k = 7 reads WEIGHT[4], one past the __constant table,
    # for the 8 work-items whose id ends in 7 (binary 111).
    "soa_restrict_constant": [("out-of-bounds", 9, "WEIGHT", 8, None)],
    # stage() writes tile[0..31]; pair() reads t[l + 1]: work-item 31 of each of the two
    # groups reads tile[32], never written, at the helper's own line.
    "helpers_local_global": [("uninitialized", 10, "tile", 2, 1)],
    # SHIFTED=1: load_global reads p[i + 1]; the last work-item reads in[64], at the line
    # where the macro makes load_global. load_constant is made too but never called: its
    # __constant access is nothing the trace misses.
    "token_pasted_kernels": [("out-of-bounds", 10, "in", 1, None)],
    # N = 40 in groups of 16 (48 work-items), n = 36: in group 2, the 12 work-items from 36
    # leave before the barrier (line 8) and 4 pass it; work-item 35 (l = 3) reads t[4],
    # which the work-item that left never wrote (line 9).
    "early_return_barrier": [
        ("barrier-divergence", 8, None, 1, None),
        ("uninitialized", 9, "t", 1, 1),
    ],
    # The same accumulator into a buffer the host never set: all 64 reads come first.
    "accumulate_noinit": [("uninitialized", 4, "out", 64, 0)],
    # The interior promise holds (no coverage finding), but the guard `y > H - 1` lets row
    # 15 through: u[i + W] for x = 1..14 reads u[257..270], 14 accesses.
    "partial_interior": [("out-of-bounds", 8, "u", 14, None)],
    # 4 groups each add their 16 local bins into hist[0..15] with a plain +=: a race between
    # groups and 16 elements written by several work-items.
    "histogram_plain_merge": [
        ("race", 11, "hist", 16, None),
        ("coverage", 11, "hist", 16, None),
    ],
    # 16 rows of 8 written at r * 16 + c: rows 8-15 land past the 128 elements (64 writes),
    # and the 64 elements between the rows' strides are never written.
    "wrong_stride": [("out-of-bounds", 4, "dst", 64, None), ("coverage", None, "dst", 64, None)],
    # A float sum by the compare-and-swap idiom in a helper named atomic_add_float: the
    # plain read of the total (line 5) is not ordered with the other work-items'
    # atomic_cmpxchg (line 7): one element, in each of the 4 groups and between them. The
    # helper's name began as the atomics' do, and the trace build failed.
    "cas_float_add": [("race", 5, "total", 4, 0), ("race", 5, "total", 1, None)],
    # In-place Hillis-Steele scan of 32 without a second buffer: at step `off`, t[l] +=
    # t[l - off] writes t[c] (c >= off) while work-item c + off reads it: 30 + 28 + 24 + 16
    # elements over the phases of off = 1, 2, 4, 8 (16 has none: nobody reads t[16..31]).
    "hillis_steele_racy": [("race", 9, "t", 98, 1)],
    # `c <= cols` walks 9 floats a row: the last row's ninth is m[128]. *p++ strides 32
    # bytes across the lanes (8 a group): 8 sectors for 1 sector of bytes, 2 groups x 9.
    "pointer_walk": [("out-of-bounds", 8, "m", 1, None), ("uncoalesced", 8, "m", 18, None)],
    # 30 floats, 8 work-items of float4: the last vload4/vstore4 covers 28..31, past the end
    # at 30 and 31; the store is skipped whole, so y[28] and y[29] are never written (the
    # guard `i < 7` would leave them so too).
    "vstore4_tail": [
        ("out-of-bounds", 4, "x", 1, None),
        ("out-of-bounds", 5, "y", 1, None),
        ("coverage", None, "y", 2, None),
    ],
    # dst[i].xyz = ... is stored as the whole uchar4 (a compiler loads, blends and stores
    # the vector), so the neighbour's dst[i + 1].w on line 8 races with it: 32 odd pixels,
    # each written by two work-items of one group.
    "rgba_uchar4": [("race", 6, "dst", 32, 0), ("coverage", 6, "dst", 32, None)],
    # A sum over three lines: the unguarded right tap is at the third, in[64].
    "multiline_expr": [("out-of-bounds", 7, "in", 1, None)],
    # The helper's early return leaves the helper, not the kernel: every work-item reaches
    # the barrier.
    "helper_early_return": [],
    # Work-item 5 of each group skips the two barriers of one iteration by continue.
    "continue_before_barrier": [("barrier-divergence", 10, None, 2, None)],
    # The last group reads the other 3 groups' partial sums: nothing orders them (the
    # mem_fence orders its own work-item's accesses only).
    "last_block_reduce": [("race", 13, "partial", 3, None)],
    # Numbered from 200 by a #line halfway: t[l + 1] at l = 15, once a group.
    "line_mid_file": [("out-of-bounds", 206, "t", 2, None)],
    # scratch holds L0 / 2 = 16 floats: work-items 16..31 write past it and 0..15 read
    # past it (31 - l), in both groups.
    "local_arg_short": [
        ("out-of-bounds", 4, "scratch", 32, None),
        ("out-of-bounds", 6, "scratch", 32, None),
    ],
    # Work-item 0 reads in[i - 1] with a size_t and with a uint index.
    "unsigned_wrap": [("out-of-bounds", 5, "in", 1, None), ("out-of-bounds", 6, "in", 1, None)],
    # exchange() synchronises the group, but only work-items 0..7 call it: its barrier (at
    # the helper's line) is passed by half of each of the two groups.
    "helper_barrier_divergent": [("barrier-divergence", 4, None, 2, None)],
    # near(tile + 8, k) reads h[k + 8] = tile[16 + k] for the 8 work-items of each group
    # given the second half: 16 reads past the tile, at the helper's line.
    "helper_pointer_offset": [("out-of-bounds", 3, "tile", 16, None)],
    # A(y, x + 1) expands to a[(y) * W + (x + 1)]: at x = 7, y = 7 it reads a[64], at the
    # line that uses the macro.
    "access_macros": [("out-of-bounds", 7, "a", 1, None)],
    # 100 values in groups of 32: work-items 100..127 read x and write y past the end.
    "missing_tail_guard": [
        ("out-of-bounds", 4, "y", 28, None),
        ("out-of-bounds", 4, "x", 28, None),
    ],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_style_gives_the_findings_read_from_its_kernel(name, executor, device):
    traced = _header(executor, device, name)
    assert traced.report_json["complete"] is True
    assert sorted(_found(traced), key=repr) == sorted(EXPECTED[name], key=repr)


def test_the_unpadded_transpose_tile_conflicts_32_ways_and_the_padded_one_not_at_all(
    executor, device
):
    """tile[lx][ly + j] over a 32x32 tile: a warp is one row of 32 lanes reading one column,
    all in one bank; with a column of padding each lane its own bank. one group of 8 warps x
    4 steps = 32 requests at line 20."""
    unpadded = _header(executor, device, "transpose_tile", {"PADDED": 0})
    assert _found(unpadded) == [("bank-conflict", 20, "tile", 32, None)]
    assert "32.00 distinct words in one local memory bank" in unpadded.analysis.findings[0].message
    assert _found(_header(executor, device, "transpose_tile", {"PADDED": 1})) == []


def test_the_elements_each_finding_names_are_those_read_from_the_kernel(executor, device):
    [corners] = _header(executor, device, "stencil_corners_missed").analysis.findings[:1]
    assert "tile[0][0], tile[0][9], tile[9][0], tile[9][9]" in corners.message
    [table] = _header(executor, device, "soa_restrict_constant").analysis.findings
    assert table.elements == (4,)
    assert table.message.startswith("line 9 reads WEIGHT[4] outside WEIGHT (4 elements)")
    [past] = _header(executor, device, "helpers_local_global").analysis.findings
    assert "tile[32]" in past.message


def test_an_unwritten_read_is_explained_by_the_access_that_read_it(executor, device):
    """`return t[l] + t[l + 1];`: work-item 31 reads tile[31], written, and tile[32], never
    written. The finding's anatomy was that of t[l], the first access on the line; it is
    t[l + 1], the one that touched the element it names."""
    traced = _header(executor, device, "helpers_local_global")
    [finding] = traced.report_json["findings"]
    assert "tile[32]" in finding["message"]
    assert finding["anatomy"]["access"] == "t[l + 1]"


def test_the_guard_below_zero_holds_for_an_unsigned_index(executor, device):
    """`in[i - 1]` at i = 0 with a size_t or uint i: the guard was `if (i - 1 >= 0)`, which
    an unsigned i always passes (0 - 1 wraps to its largest value); it is `i >= 1`."""
    found = _header(executor, device, "unsigned_wrap").analysis.findings
    assert [f.message.split("terms: ")[-1] for f in found] == ["if (i >= 1)", "if (u >= 1u)"]


def test_a_helper_nobody_calls_is_nothing_the_trace_misses():
    """A __constant pointer read in a helper the kernel never calls was a `not-traced`
    finding that made the trace incomplete (the check looked at whether the kernel had a
    __constant parameter, not at whether the helper runs); one the kernel calls still is."""
    helper = "float load_c(__constant const float *p, int i) { return p[i]; }\n"
    unreached = helper + (
        "__kernel void k(__global const float *in, __global float *out)\n"
        "{ int i = get_global_id(0); out[i] = in[i]; }\n"
    )
    assert instrument(unreached, "k").not_traced == ()
    called = unreached.replace("in[i];", "in[i] + load_c((__constant float *)0, i);")
    assert [line for line, _ in instrument(called, "k").not_traced] == [1]


def test_a_helper_named_like_an_atomic_is_a_helper_call():
    """`atomic_add_float(total, v)`, the program's own function, was taken for an atomic
    builtin on `total`: its call got no trace state, and the trace build failed."""
    source = (
        "void atomic_add_float(volatile __global float *p, float v)\n"
        "{ float old = *p; atomic_cmpxchg((volatile __global int *)p, as_int(old),"
        " as_int(old + v)); }\n"
        "__kernel void k(__global float *total) { atomic_add_float(total, 1.0f); }\n"
    )
    sites = instrument(source, "k").sites
    assert [s.line for s in sites if s.line == 3] == []  # the call itself is no access
    assert [s.text.split("(")[0] for s in sites if s.op == ATOMIC] == ["atomic_cmpxchg"]
    assert (2, READ, "*p") in [(s.line, s.op, s.text) for s in sites]


def test_the_optimised_build_finds_the_same(device, monkeypatch):
    """A barrier only some work-items reach, and the compare-and-swap race of a helper
    named like an atomic: the same findings, and as many records at each site, whether the
    trace build is optimised or not (a small CPU launch is built unoptimised)."""
    from tests.trace.test_same_findings_either_build import _both

    if device.type.upper() != "CPU":
        pytest.skip("only a CPU trace is ever built unoptimised")
    for name in ("early_return_barrier", "cas_float_add"):
        run = RunRequest(load_variant_file(KERNELS / f"{name}.cl"), {}, device_key=device.key)
        optimised, unoptimised, _ = _both(run, monkeypatch)
        found = optimised[:-1]  # the findings, without the records each site made
        if name == "cas_float_add":
            # How often a compare-and-swap retries is the groups' timing (two threads at
            # once here): the records each site makes differ from launch to launch, the
            # findings (one element raced on within each group and between them) do not.
            optimised, unoptimised = found, unoptimised[:-1]
        assert optimised == unoptimised
        assert sorted(found, key=repr) == sorted(EXPECTED[name], key=repr)


# The .sim files launch the same programs (no promises: a .sim file promises nothing, and
# these kernels' findings need none).
SIMS = {
    "reduce_warp_unrolled": UNROLLED_RACES,
    "stencil_corners_missed": EXPECTED["stencil_corners_missed"],
    "histogram_plain_merge": EXPECTED["histogram_plain_merge"],
    "early_return_barrier": EXPECTED["early_return_barrier"],
    "missing_tail_guard": EXPECTED["missing_tail_guard"],
    # `noinit`, as the header's contents = "noinit".
    "accumulate_noinit": EXPECTED["accumulate_noinit"],
    # The same 100 values launched exactly (non-uniform groups): no work-item past the end.
    "missing_tail_exact": [],
}


@pytest.mark.parametrize("name", sorted(SIMS))
def test_each_sim_file_gives_the_findings_of_its_header(name, executor, device):
    traced = _traced(executor, device, load_sim(KERNELS / f"{name}.sim"))
    assert sorted(_found(traced), key=repr) == sorted(SIMS[name], key=repr)
