"""``run``, ``bench`` and ``trace`` say what the random probe found: a matmul that reads A's
subscripts swapped draws the right IOU picture, and the command still calls it wrong, with
exit code 1, naming the probe and why the IOU input cannot show the bug."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_check import needs_oclgrind
from tests.conftest import TEST_KERNELS
from tests.robustness.helpers import cli

pytestmark = pytest.mark.usefixtures("fast_cli")

SWAPPED = str(TEST_KERNELS / "mutants" / "naive_a_swapped.cl")
SHIFTED = str(TEST_KERNELS / "mutants" / "naive_b_column_shift.cl")


def test_run_calls_a_bug_the_iou_input_hides_wrong_and_says_why():
    done = cli("run", "--kernel-file", SWAPPED, "--size", "32", "--input", "iou")
    assert done.code == 1, done.out + done.err
    line = done.out.splitlines()[0]
    assert line.startswith("WRONG")
    assert "right on the IOU input (max abs error 0)" in line
    assert "WRONG on random data (seed 4321:" in line
    assert "the IOU input cannot show this bug (A = 1.5·I is symmetric and diagonal" in line


def test_run_json_carries_the_probe():
    sizes = ("--m", "100", "--n", "36", "--k", "257")
    done = cli("run", "--kernel-file", SHIFTED, *sizes, "--input", "iou", "--json")
    assert done.code == 1, done.err
    record = json.loads(done.out)
    assert record["status"] == "wrong" and record["max_abs_error"] == 0.0
    assert record["probe_seed"] == 4321 and record["probe_verified"] is False
    assert record["probe_mismatches"] > 0
    assert record["probe"].startswith("WRONG on random data (seed 4321:")


def test_run_of_a_right_kernel_is_verified_on_both_inputs():
    done = cli("run", "--family", "matmul", "--variant", "tiled", "--size", "32")
    assert done.code == 0, done.out + done.err
    assert "also verified on random data (seed 4321)" in done.out


def test_a_trace_says_it_judged_the_input_shown_only():
    done = cli("trace", "--kernel-file", SWAPPED, "--size", "32", "--input", "iou")
    assert done.code == 0, done.err
    assert "judged on the IOU input only (a run also checks random data)" in done.out


def test_bench_runs_on_random_data_and_names_no_probe():
    bench = ("bench", "--family", "matmul", "--variants", "naive", "--sizes", "32", "--json")
    records = [json.loads(line) for line in cli(*bench).out.splitlines()]
    naive = next(r for r in records if r["variant"] == "naive")
    assert naive["status"] == "verified"
    assert naive["probe_seed"] is None
    assert naive["probe"] == "the input shown is random data already"


@needs_oclgrind
def test_check_on_oclgrind_probes_too_and_reports_each_problem_once():
    swapped = cli("check", "--kernel-file", SWAPPED, "--size", "16", "--input", "iou", "--json")
    assert swapped.code == 1, swapped.out + swapped.err
    result = json.loads(swapped.out)["result"]
    assert result["status"] == "wrong"
    assert result["probe"].startswith("WRONG on random data (seed 4321:")
    # A kernel Oclgrind reports (a read past A's end): the probe's launch adds no report of
    # its own, the problems are those of the run on random data, which has no probe.
    off_by_one = ("check", "--kernel-file", str(TEST_KERNELS / "tiled_off_by_one.cl"))
    probed = json.loads(cli(*off_by_one, "--size", "16", "--input", "iou", "--json").out)
    alone = json.loads(cli(*off_by_one, "--size", "16", "--input", "random", "--json").out)
    assert probed["result"]["probe_seed"] == 4321 and alone["result"]["probe_seed"] is None
    assert probed["problems"] and probed["problems"] == alone["problems"]
