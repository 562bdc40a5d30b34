"""Kernels in more styles people write (tests/trace/styles4), each traced at a small size
and at one above the size a CPU trace builds unoptimised for (``QUICK_BUILD_WORK_ITEMS``):

- event variables named ``wait`` and ``note``: their shadows were named as the trace's own
  functions ``__tr_ev_wait`` and ``__tr_ev_note``, and the trace build failed ("called object
  type 'uint' is not a function").
- a comment in the kernel reading ``event_t evs[ncopy]``: it was taken for a declaration,
  and the trace build failed on its shadow (``ncopy`` undeclared).
- async copies into one local tile written through a macro (``FETCH(tile, off)`` expanding
  to ``async_work_group_copy((tile), ...)``): the trace build PoCL's optimiser crashes on was
  not recognised behind the macro's parentheses, and above the size a CPU trace builds
  unoptimised for the executor crashed (signal 11).
- a private array of pointers to local tiles (``__local float *bufs[2] = { a, b };``): it
  was taken for a ``__local`` array itself, and the trace build failed ("changes address
  space of pointer").
- an async copy in parentheses (``e = (async_work_group_copy(...))``, as a hygienic macro
  writes it): its event was not followed, a wait for another event was taken to end it, and
  the race on the tile it fills went unreported.
- copies chained on one event that starts as 0 (``event_t chain = 0;`` then ``chain =
  async_work_group_copy(..., chain)`` in a loop): they were given no number, a wait for another
  event was taken to end them, and the race on their tile went unreported.
- an event copied to another variable (``event_t first = ea;``) and waited for through it:
  the copy had no number there, the wait was taken to end every copy, and the race on the
  tile of the copy never waited for went unreported.
- a wait behind a hygienic macro (``wait_group_events(1, &(e))``): which events it named was
  not followed (the line "not traced", the trace incomplete).
- a copy given its event through a macro that wraps it (``async_work_group_copy(..., (e))``):
  the event it was given was not followed (the line "not traced", the trace incomplete).
- a read of a pointer at a constant index in a subscript (``bufs[1][l + 16]``): the index
  anatomy wrote "(read at line 31: )", a colon before nothing.
- a comma expression in a subscript (``tile[(t = l + 1, t & 15)]``): the index anatomy gave
  ``t`` the value it had before the assignment (uninitialised), read in front of the access.

The other kernels (names like the trace's own, an #include with typedefs and helpers, a
#line after it, barriers and copies behind macros, double buffering, float4 tiles and
swizzles, private arrays and structs of pointers handed to helpers, several kernels in one
file, pointer typedefs walked, a scan whose barriers are in a helper) traced right when they
were written; they stay as a corpus, traced at the size their header gives.

Each expected finding was derived by reading the kernel; the comments say how.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.engine.launch import prepare
from tests.robustness.helpers import cli

FOLDER = Path(__file__).parent / "styles4"
LARGE = 32768  # work-items: above the size a CPU trace builds unoptimised for

pytestmark = pytest.mark.usefixtures("fast_cli")


def _findings(name: str, n: int) -> list[tuple]:
    outcome = cli("trace", "--kernel-file", str(FOLDER / name), "--set", f"N={n}", "--json")
    assert outcome.out.lstrip().startswith("{"), outcome.out + outcome.err
    report = json.loads(outcome.out)
    assert "error" not in report, report
    assert report["complete"], report
    return sorted((f["kind"], f["line"], f.get("buffer"), f["count"]) for f in report["findings"])


def test_the_large_size_is_traced_by_the_optimised_build():
    assert prepare.QUICK_BUILD_WORK_ITEMS < LARGE


@pytest.mark.parametrize("n", [64, LARGE])
def test_events_named_as_the_traces_own_functions_are_followed(n):
    # both copies are waited for before the tiles are read: nothing to find
    assert _findings("event_named_wait.cl", n) == []


@pytest.mark.parametrize("n", [64, LARGE])
def test_an_event_t_in_a_comment_declares_nothing(n):
    # four copies, each waited for (one chained after another into its event) before any
    # tile is read: nothing to find
    assert _findings("event_in_a_comment.cl", n) == []


@pytest.mark.parametrize("n", [64, LARGE])
def test_copies_into_one_tile_behind_a_macro_trace_at_every_size(n):
    # each copy is waited for before the tile is read, and a barrier ends each read before
    # the next copy: nothing to find
    assert _findings("copies_behind_a_macro.cl", n) == []


@pytest.mark.parametrize("n", [64, LARGE])
def test_a_private_array_of_pointers_to_local_tiles_is_followed_into_them(n):
    # case 1 of the switch (l & 3 == 1: 4 work-items a group) reads bufs[1][l + 16], past the
    # end of b for each of them, at the case's line
    assert _findings("local_pointer_array.cl", n) == [("out-of-bounds", 31, "b", 4 * n // 16)]


@pytest.mark.parametrize("n", [64, LARGE])
def test_comma_and_ternary_subscripts_give_their_findings_at_their_lines(n):
    groups = n // 16
    # numbered from 100 by #line: line 105 writes tile[l] while line 106 adds to
    # tile[(l + 1) & 15] in the same phase, every element of every group; line 108 writes
    # out[g] for l = 0 and l = 1 (g - 1 there), once a group
    assert _findings("comma_in_subscript.cl", n) == [
        ("coverage", 108, "out", groups),
        ("race", 105, "tile", n),
        ("race", 108, "out", groups),
    ]


def test_a_variable_the_subscript_assigns_is_not_given_its_value_from_before():
    outcome = cli(
        "trace",
        "--kernel-file",
        str(FOLDER / "comma_in_subscript.cl"),
        "--anatomy",
        "106",
        "--work-item",
        "1,0,0/1,0,0",
        "--json",
    )
    (access,) = json.loads(outcome.out)["anatomy"][0]["accesses"]
    values = [t["value"] for t in access["terms"] if t["text"] == "t"]
    # work-item 1 of its group computes t = 2; t held nothing before
    assert values and all(v in (None, "2") for v in values), access["terms"]


@pytest.mark.parametrize("n", [64, LARGE])
def test_a_copy_in_parentheses_is_not_ended_by_a_wait_for_another(n):
    # only ea is waited for: b, filled by the copy behind FETCH (line 24), is read by every
    # work-item while that copy may still be running
    assert _findings("copy_in_parentheses.cl", n) == [("race", 24, "b", n)]


@pytest.mark.parametrize("n", [64, LARGE])
def test_copies_chained_on_an_event_that_starts_as_zero_are_not_ended_by_another_wait(n):
    # only `other` is waited for: a, filled by the four chained copies (line 24), is read by
    # every work-item while they may still be running
    assert _findings("copies_chained_from_zero.cl", n) == [("race", 24, "a", n)]


@pytest.mark.parametrize("n", [64, LARGE])
def test_a_wait_through_a_copied_event_ends_only_that_copy(n):
    # first = ea: the wait ends the copy into a; b, filled by the copy of line 23, is read
    # by every work-item while it may still be running
    assert _findings("event_copied_to_another.cl", n) == [("race", 23, "b", n)]


@pytest.mark.parametrize("n", [64, LARGE])
def test_a_wait_behind_a_macro_names_its_event(n):
    # WAIT(ea) ends the copy into a; b, filled by the copy of line 25, is read by every
    # work-item while it may still be running
    assert _findings("wait_behind_a_macro.cl", n) == [("race", 25, "b", n)]


@pytest.mark.parametrize("n", [64, LARGE])
def test_an_event_given_through_a_macro_chains_the_copies(n):
    # ea chains the two copies into a and the wait ends both; eb's two copies into b
    # (lines 25 and 26, 8 elements each) are read while they may still be running
    assert _findings("event_given_through_a_macro.cl", n) == [
        ("race", 25, "b", n // 2),
        ("race", 26, "b", n // 2),
    ]


def test_a_pointer_read_at_a_constant_index_is_named_with_its_line_alone():
    outcome = cli(
        "trace",
        "--kernel-file",
        str(FOLDER / "local_pointer_array.cl"),
        "--anatomy",
        "31",
        "--work-item",
        "0,0,0/1,0,0",
        "--json",
    )
    (access,) = json.loads(outcome.out)["anatomy"][0]["accesses"]
    assert access["chain"][0] == "bufs[1] (read at line 31)", access["chain"]


CORPUS: dict[str, list[tuple]] = {
    # Correct kernels: nothing.
    "identifiers_like_generated.cl": [],
    "include_typedefs_helpers.cl": [],
    "three_kernels_shared_helpers.cl": [],
    "struct_pointer_members.cl": [],
    "qualifiers_attributes_constants.cl": [],
    # #line 1 "stencil.cl" after the #include: AT(t, 0, l + 1) reads t[16] at l = 15, once
    # in each of the 4 groups, at line 7 of that numbering.
    "include_then_line.cl": [("out-of-bounds", 7, "t", 4)],
    # ROTATE reads t[(l + 1) & 15] and writes t[l] with no barrier between: every element,
    # each of the 4 groups, at each of the two lines that use the macro.
    "barrier_macros.cl": [("race", 27, "t", 64), ("race", 28, "t", 64)],
    # Without the barrier, the copy of step s + 1 into buf[nxt] (line 31) overwrites what
    # step s - 1 read: steps 1 and 2, 32 elements each, 2 groups.
    "double_buffer_no_barrier.cl": [("race", 31, "buf", 128)],
    # The first row's copy is never waited for: its 4 floats are read by 4 work-items of
    # each of the 4 groups.
    "events_started_in_a_loop.cl": [("race", 25, "tiles", 16)],
    # Only ev[0] is waited for: hi's two float4 are read by work-items 8..15 of each of the
    # 4 groups.
    "float4_copies_half_waited.cl": [("race", 25, "hi", 8)],
    # t4[l].s13 += t4[3 - l].s02: the partial store is the whole float4 (load, blend,
    # store), which work-item 3 - l reads: 4 elements a group. select() sends l > 7 to
    # 15 - l: out[g * 16 + 0..7] are each written by two work-items, 8 a group.
    "float4_local_swizzles.cl": [
        ("coverage", 32, "out", 32),
        ("race", 27, "t4", 16),
        ("race", 32, "out", 32),
    ],
    # tr_sum(window, 5) reads window[4], one past the private array, in every work-item.
    "private_arrays_to_helpers.cl": [("out-of-bounds", 29, "window", 64)],
    # Without the second barrier the next tile's stores race with dot_tile's reads (its own
    # line): 2 tiles, 256 elements, 4 groups.
    "matmul_macros_no_second_barrier.cl": [("race", 35, "as", 1024), ("race", 35, "bs", 1024)],
    # s = buf + 17: s[15] is buf[32], written and read by one work-item each round: 4
    # rounds, 4 groups.
    "pointer_typedefs_walk.cl": [
        ("out-of-bounds", 30, "buf", 16),
        ("out-of-bounds", 32, "buf", 16),
    ],
    # The last of the 2 groups returns; in the other, the 16 even work-items read priv[0],
    # which only the odd ones set.
    "scan_barriers_in_helper.cl": [("uninitialized", 37, "priv", 16)],
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_each_kernel_of_the_corpus_gives_the_findings_read_from_it(name):
    outcome = cli("trace", "--kernel-file", str(FOLDER / name), "--json")
    report = json.loads(outcome.out)
    assert report["complete"], report
    found = sorted((f["kind"], f["line"], f.get("buffer"), f["count"]) for f in report["findings"])
    assert found == sorted(CORPUS[name])
