"""``trace --anatomy``: the index anatomy of a line's accesses on the command line."""

import json

import pytest

from tests.conftest import TEST_KERNELS
from tests.robustness.helpers import cli as explorer

SWAPPED = str(TEST_KERNELS / "mutants" / "tiled_tx_swapped.cl")


def trace(*more):
    return explorer("trace", "--kernel-file", SWAPPED, "--size", "32", *more)


@pytest.mark.usefixtures("fast_cli")
def test_a_line_asked_about_is_explained_for_the_work_item_named():
    out = trace("--anatomy", "52", "--work-item", "1,0/6,2")
    assert out.code == 0, out.err
    section = out.out[out.out.index("Index anatomy:") :]
    assert "line 52, Asub[ty][tx], work-item (1, 0, 0)/(6, 2, 0):" in section
    assert "    tx = 2 ← get_local_id(1) at line 34" in section
    # col = get_group_id(0) * TS + tx = 1 * 16 + 2, read at line 53 by B's index.
    out = trace("--anatomy", "53", "--work-item", "1,0/6,2", "--json")
    report = json.loads(out.out)
    (line,) = report["anatomy"]
    b = next(a for a in line["accesses"] if a["access"] == "B[kB * N + col]")
    assert b["values_recorded"] is True
    assert {t["text"]: t["value"] for t in b["terms"]} == {"kB": "2", "N": "32", "col": "18"}
    assert b["work_item"] == {"group": [1, 0, 0], "local": [6, 2, 0]}


@pytest.mark.usefixtures("fast_cli")
@pytest.mark.parametrize(
    "args, says",
    [
        (("--anatomy", "x"), "--anatomy 'x': give a line number of the kernel's file"),
        (("--anatomy", "0"), "--anatomy '0': give a line number"),
        (("--work-item", "1,0/6,2"), "--work-item says whose accesses --anatomy explains"),
        (("--anatomy", "52", "--work-item", "1,0"), "--work-item '1,0': use 'gx,gy[,gz]/lx"),
    ],
)
def test_wrong_anatomy_arguments_are_usage_errors(args, says):
    out = trace(*args)
    assert out.code == 2
    assert says in out.err
    assert "Traceback" not in out.err


@pytest.mark.usefixtures("fast_cli")
def test_the_findings_lines_are_recorded_for_their_own_work_items():
    """``--anatomy findings``: the out-of-bounds read of ``k <= K`` is explained with the
    values of the work-item the finding names (row 31 reads A[31 * 32 + 32])."""
    loop_bound = str(TEST_KERNELS / "mutants" / "naive_loop_bound.cl")
    out = explorer("trace", "--kernel-file", loop_bound, "--size", "32", "--anatomy", "findings")
    assert out.code == 0, out.err
    assert (
        "index of A[row * K + k]: row = 31 ← get_global_id(1) at line 22; K = 32 ← kernel "
        "argument (line 16); k = 32 ← k++ at line 26 (k = 31)"
    ) in out.out


@pytest.mark.usefixtures("fast_cli")
def test_an_access_in_a_helper_is_traced_back_through_the_call():
    """Work-item 3 of group 2: g = 19, row = 19 / 8 = 2, at(2, 3, 8) = 19 passed as i."""
    helper = str(TEST_KERNELS / "anatomy" / "helper_access.cl")
    out = explorer("trace", "--kernel-file", helper, "--anatomy", "18", "--work-item", "2,0/3,0")
    assert out.code == 0, out.err
    assert (
        "    i = 19 ← i = at(row, g % 8, 8) (passed to put()) at line 23 (at(row, g % 8, 8) = "
        "19, row = 2 ← g / 8 at line 22 (g = 19 ← get_global_id(0) at line 21), g = 19 ← "
        "get_global_id(0) at line 21)"
    ) in out.out
