"""The findings corpus: our own small kernels, one per finding kind and memory-model case, each
traced on the default device (PoCL in CI) and held to findings and site figures checked by
hand. docs/trace.md lists the same table.

Every kernel is a matvec kernel (MAT, VEC, WIDTH, HEIGHT, OUT) run at WIDTH = HEIGHT = 64 with
two work-groups of 32: one warp per group, so bank and sector figures are per warp request.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.trace.analysis import analyse

CORPUS = Path(__file__).parent
SIZES = {"WIDTH": 64, "HEIGHT": 64}

# (kind, line, buffer, count) of every finding, in the report's order.
Expected = list[tuple[str, int | None, str | None, int]]

FINDINGS: dict[str, Expected] = {
    # total[slot] += ... by all 32 work-items of each group: one word races in each group.
    # Each work-item also walks its own row of MAT: a sector per work-item (a cost).
    "local_race": [("race", 24, "total", 2), ("uncoalesced", 24, "MAT", 2)],
    # tile[l] written at line 20, tile[(l + 1) % 32] read at line 21: every word, both groups.
    "missing_barrier": [("race", 20, "tile", 64)],
    # OUT[y] written, barrier(CLK_LOCAL_MEM_FENCE), a neighbour's OUT read: every element.
    "global_race_local_fence": [("race", 20, "OUT", 64)],
    # tile[l] written, barrier(CLK_GLOBAL_MEM_FENCE), a neighbour's tile read.
    "local_race_global_fence": [("race", 20, "tile", 64)],
    # sum[l] += ... before anything wrote sum[]: 32 reads in each group.
    "uninitialized_local": [("uninitialized", 20, "sum", 64), ("uncoalesced", 20, "MAT", 2)],
    # OUT[y] += ... before anything in the launch wrote OUT.
    "uninitialized_output": [("uninitialized", 19, "OUT", 64)],
    # work-item 0 writes VEC[0], once.
    "write_to_input": [("write-to-input", 21, "VEC", 1)],
    # MAT[y * width + width]: the last row reads MAT[4096], once.
    "out_of_bounds_global": [("out-of-bounds", 19, "MAT", 1), ("uncoalesced", 19, "MAT", 2)],
    # tile[l + 1]: work-item 31 of each group reads tile[32].
    "out_of_bounds_local": [("out-of-bounds", 22, "tile", 2)],
    # OUT[63] is never written.
    "coverage_never_written": [("coverage", None, "OUT", 1)],
    # OUT[y & ~1]: work-items 2k and 2k+1 write OUT[2k] (a race, 32 elements written twice),
    # and the 32 odd elements are never written.
    "coverage_written_twice": [
        ("race", 19, "OUT", 32),
        ("coverage", None, "OUT", 32),
        ("coverage", 19, "OUT", 32),
    ],
    # One atomic_cmpxchg wins in each group; atomics never race with each other.
    "atomic_cmpxchg_loser": [],
    # ready[slot] = 1 by everyone: with values recorded, a note and no race (without them a
    # race: see test_same_value_writes_race_without_values).
    "same_value_writes": [("same-value-writes", 21, "ready", 2)],
    # ready[slot] = l & 1: two values, a race in each group.
    "different_value_writes": [("race", 21, "ready", 2)],
    # flag[slot] = 1 by everyone and read back with no barrier: the writes agree (a note), the
    # read races with them.
    "same_value_read": [("race", 21, "flag", 2), ("same-value-writes", 21, "flag", 2)],
    # bytes[l]: four work-items write the four bytes of each word, no byte twice.
    "uchar_neighbours": [],
    # An int over bytes 4-7 while work-items 4-7 write them: 4 bytes race in each group (one
    # finding for the two writing lines).
    "uchar_int_overlap": [("race", 21, "bytes", 8)],
    # The four uchars of a uchar4 and the two shorts of a short2, each from its own work-item.
    "vector_components": [],
    # Floats 2 and 4 words apart and float4s 4 apart conflict where written (line 25's
    # neighbouring float4s do not); line 28 reads them back, wide[l].x too: floats 4 words
    # apart. One finding per site, counting its requests (one per group).
    "bank_conflicts": [
        ("bank-conflict", 23, "two", 2),
        ("bank-conflict", 24, "four", 2),
        ("bank-conflict", 26, "wide4", 2),
        ("bank-conflict", 28, "two", 2),
        ("bank-conflict", 28, "four", 2),
        ("bank-conflict", 28, "wide", 2),
        ("bank-conflict", 28, "wide4", 2),
    ],
    # MAT[y * width]: a sector per work-item; MAT[y] is coalesced.
    "coalescing_strided": [("uncoalesced", 19, "MAT", 2)],
}

# (line, buffer, sectors per request or bank-conflict degree) of chosen sites.
SITES: dict[str, list[tuple[int, str, float]]] = {
    "bank_conflicts": [(23, "two", 2.0), (24, "four", 4.0), (25, "wide", 1.0), (26, "wide4", 4.0)],
    "coalescing_strided": [(19, "MAT", 32.0), (20, "MAT", 4.0)],
}
# The same sites with 8-byte banks: two floats share a bank word.
SITES_8_BYTE_BANKS = [(23, "two", 1.0), (24, "four", 2.0)]


class Traces(dict):
    """Each corpus kernel traced on the default device the first time a test asks for it:
    the tests of this module spread over the workers, each tracing what it needs."""

    def __init__(self, executor, device) -> None:
        super().__init__()
        self.executor, self.device = executor, device

    def __missing__(self, name: str):
        variant = load_variant_file(str(CORPUS / f"{name}.cl"))
        run = RunRequest(variant, SIZES, device_key=self.device.key, input="random")
        self[name] = self.executor.trace(TraceRequest(run, values=True), keep_trace=True)
        return self[name]


@pytest.fixture(scope="module")
def traces(executor, device):
    return Traces(executor, device)


def test_the_corpus_holds_a_kernel_for_every_case():
    assert sorted(p.stem for p in CORPUS.glob("*.cl")) == sorted(FINDINGS)


@pytest.mark.parametrize("name", sorted(FINDINGS))
def test_each_kernel_has_exactly_its_findings(traces, name):
    traced = traces[name]
    assert traced.analysis is not None, traced.result.summary()
    assert traced.trace.complete
    assert traced.trace.values is not None
    found = [(f.kind, f.line, f.buffer, f.count) for f in traced.analysis.findings]
    assert found == FINDINGS[name]


def test_same_value_writes_race_without_values(executor, device):
    """Without the value plane the trace cannot tell the writes agree: the race stands."""
    variant = load_variant_file(str(CORPUS / "same_value_writes.cl"))
    run = RunRequest(variant, SIZES, device_key=device.key, input="random")
    traced = executor.trace(TraceRequest(run, values=False), keep_trace=True)
    assert traced.trace.values is None
    found = [(f.kind, f.line, f.buffer, f.count) for f in traced.analysis.findings]
    assert found == [("race", 21, "ready", 2)]


def test_values_are_what_the_kernel_read_and_stored(traces):
    """The plane holds the stored expression's value and each load's: every work-item stores
    1 into flag[0] and reads back 1; OUT[y] holds the float 1.0's bits."""
    trace = traces["same_value_read"].trace
    by_line = {}
    for s in trace.sites:
        if s.op in (0, 1):
            picked = trace.values[trace.site == s.id]
            by_line[(s.line, s.text, s.op)] = set(picked.tolist())
    assert by_line[(21, "flag[slot]", 1)] == {1}
    assert by_line[(22, "flag[slot]", 0)] == {1}
    assert by_line[(22, "OUT[y]", 1)] == {0x3F800000}


@pytest.mark.parametrize(
    ("name", "flag"),
    [
        ("global_race_local_fence", "CLK_GLOBAL_MEM_FENCE"),
        ("local_race_global_fence", "CLK_LOCAL_MEM_FENCE"),
    ],
)
def test_a_race_across_a_barrier_names_the_missing_fence_flag(traces, name, flag):
    """The fix a person reads is the flag to add, on the barrier's line."""
    (race,) = traces[name].analysis.findings
    assert f"does not name {flag}" in race.message and "line 21" in race.message


@pytest.mark.parametrize("name", sorted(SITES))
def test_site_figures(traces, name):
    stats = {(s.line, s.buffer): s for s in traces[name].analysis.sites}
    for line, buffer, figure in SITES[name]:
        s = stats[(line, buffer)]
        got = s.bank_conflict_degree if s.space == "local" else s.sectors_per_request
        assert got == figure, (line, buffer)


def test_eight_byte_banks(traces):
    a = analyse(traces["bank_conflicts"].trace, bank_bytes=8)
    stats = {(s.line, s.buffer): s.bank_conflict_degree for s in a.sites}
    assert [stats[(line, b)] for line, b, _ in SITES_8_BYTE_BANKS] == [
        f for _, _, f in SITES_8_BYTE_BANKS
    ]


def test_trace_command_takes_the_bank_width():
    """``trace --bank-bytes 8`` reports the 8-byte-bank figures; a width a bank cannot have
    is a usage error."""
    root = CORPUS.parents[2]
    command = [sys.executable, "-m", "explorer", "trace", "--kernel-file"]
    command += [str(CORPUS / "bank_conflicts.cl"), "--width", "64", "--height", "64", "--json"]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [*command, "--bank-bytes", "8"], cwd=root, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    sites = {(s["line"], s["buffer"]): s for s in json.loads(done.stdout)["sites"]}
    assert [sites[(line, b)]["bank_conflict_degree"] for line, b, _ in SITES_8_BYTE_BANKS] == [
        f for _, _, f in SITES_8_BYTE_BANKS
    ]
    refused = subprocess.run(
        [*command, "--bank-bytes", "2"], cwd=root, env=env, capture_output=True, text=True
    )
    assert refused.returncode == 2 and "--bank-bytes" in refused.stderr
